"""Generates the validation layer's chassis and its generated checks
(layers/validation/generated/) and the layer's negative tests
(tests/validation/generated/), from the registry and spec/vuids.json.

The layer is a chassis: one intercept per API command that, for each
validation object in turn, calls a validate hook, then (when none failed) a
pre-call record hook, the next element of the chain, and a post-call record
hook. This module writes:

  vuids.inc             every rule of vuids.json: its ID, FNV-1a number, error and text
  commands.inc          the Command enumeration and command names
  enum_info.inc         valid values, valid bits and names of the registry's enums
  hook_defaults.inc     HookDefaults: a no-op of every hook, which objects hide
  chassis.inc           the intercepts and the name -> intercept table
  stateless_*.inc       StatelessValidation: the implicit rules other than handle/parent
  object_tracker_*.inc  ObjectTrackerGenerated: the handle and parent rules, and
                        tracking of what commands create and destroy

The implicit rules come from spec_check.Implicit (the one derivation of the
registry's structural rules); vuids.json supplies the explicit rules' errors
and texts and must list exactly the same implicit rules (spec_check checks
that; this module refuses to generate from a stale vuids.json).
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from . import spec_check
from .common import banner
from .registry import LEVEL_HANDLE, Command, Registry, upper_snake

VUIDS_JSON = Path(__file__).resolve().parent.parent / "vuids.json"
WARNINGS_JSON = Path(__file__).resolve().parent.parent / "warnings.json"

# Global commands that the loader answers itself without calling any layer
# (loader.md, "Dispatch and handles"): the layer never sees them, so it has no
# intercept for them and cannot check their rules.
LOADER_ONLY_COMMANDS = ("xgpuEnumerateInstanceVersion", "xgpuEnumerateInstanceLayerProperties")
# Commands whose call down the chain the chassis writes by hand (layer.cpp,
# Down<Name>): chain links, the layer's own proc-addr lookups, instance and
# device data, debug messengers, and the recording-error state that
# xgpuEndCommandBuffer returns (api.md 1.5, "Void commands").
HAND_WRITTEN_CALL_DOWN = ("xgpuCreateInstance", "xgpuDestroyInstance", "xgpuGetInstanceProcAddr",
                          "xgpuCreateDevice", "xgpuDestroyDevice", "xgpuGetDeviceProcAddr",
                          "xgpuCreateDebugMessenger", "xgpuDestroyDebugMessenger",
                          "xgpuBeginCommandBuffer", "xgpuEndCommandBuffer",
                          "xgpuCreatePipeline")
# The validation objects, in the order the chassis calls them (the variable
# the chassis names each by; layer.h defines them).
# The check objects: each Validate hook reads and reports, in this order (a
# check depends on no other check having run).
VALIDATION_OBJECTS = ("g_stateless", "g_object_tracker", "g_command_buffer_state", "g_parameter_values", "g_recording", "g_hazards", "g_pending", "g_semaphores")
# The state tracker (state/): the only writer of the records' tracked fields
# and of recordings. It has no Validate hooks. Its PreRecord and PostRecord
# hooks run right after the object tracker's, which make the record of what a
# call creates (so the tracker has a record to fill) and end the record of
# what it destroys, and before every other object's, so the bookkeeping the
# costly checks keep in their own record hooks (pending/, hazards/) sees the
# state the call left. This is the order the writes had when the check
# objects made them, so behaviour is unchanged.
STATE_OBJECT = "g_state"
LIFETIME_OBJECT = "g_object_tracker"


def record_hook_order() -> tuple[str, ...]:
    """The objects whose PreRecord/PostRecord hooks run, in order: the state
    tracker right after the object tracker (see STATE_OBJECT)."""
    assert STATE_OBJECT not in VALIDATION_OBJECTS, "the state tracker checks nothing: it is not a validation object"
    at = VALIDATION_OBJECTS.index(LIFETIME_OBJECT) + 1
    return VALIDATION_OBJECTS[:at] + (STATE_OBJECT,) + VALIDATION_OBJECTS[at:]
# Rules checked by the object tracker; the stateless object checks the rest.
TRACKER_CHECKS = ("handle", "parent")

GENERATED_BY = ("\n *\n * Generated from spec/xgpu.json and spec/vuids.json by spec/generate.py\n"
                " * (spec/gen/vlayer_gen.py). Do not edit.")


def _banner(what: str) -> str:
    return banner(what).replace(
        " *\n * Generated from spec/xgpu.json by spec/generate.py. Do not edit: change the\n"
        " * registry (or the generator) and run `python3 spec/generate.py`.\n", GENERATED_BY[1:] + "\n")


def vuid_symbol(vuid: str) -> str:
    """XGPU-VUID-xgpuFoo-pBar-sType -> Vuid::xgpuFoo_pBar_sType (rule names hold no '_')."""
    return "Vuid::" + vuid[len("XGPU-VUID-"):].replace("-", "_")


def fnv1a(name: str) -> int:
    h = 0x811C9DC5
    for b in name.encode():
        h = ((h ^ b) * 0x01000193) & 0xFFFFFFFF
    return h - (1 << 32) if h & 0x80000000 else h


def plain(text: str) -> str:
    """Markdown rule text -> plain text for messages."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    return text.replace("`", "").replace("*", "").strip()


def c_string(text: str) -> str:
    return json.dumps(text)


def load_vuids(path: Path = VUIDS_JSON) -> list[dict]:
    return json.loads(Path(path).read_text())["vuids"]


def implicit_rules(reg: Registry) -> dict[str, list[tuple[str, str, dict]]]:
    """command name -> [(vuid, markdown text, check)] of its implicit rules."""
    return {c.name: spec_check.Implicit(reg, c).rules for c in reg.commands}


def checked_vuids(reg: Registry, vuids_path: Path = VUIDS_JSON) -> list[dict]:
    """Every rule of vuids.json, each with a 'text' for messages; fails if its implicit rules are not the
    registry's (run spec/gen/spec_check.py --write)."""
    entries = load_vuids(vuids_path)
    implicit = {vuid: (text, check) for rules in implicit_rules(reg).values() for vuid, text, check in rules}
    listed = {e["id"] for e in entries if e["kind"] == "implicit"}
    if listed != set(implicit):
        missing = sorted(set(implicit) - listed)[:5]
        extra = sorted(listed - set(implicit))[:5]
        raise ValueError(f"spec/vuids.json's implicit rules differ from the registry's (missing {missing}, "
                         f"extra {extra}): run python3 spec/gen/spec_check.py --write")
    out = []
    for e in entries:
        e = dict(e)
        if e["kind"] == "implicit":
            text, check = implicit[e["id"]]
            if {k: v for k, v in e.items() if k not in ("id", "function", "kind")} != check:
                raise ValueError(f"spec/vuids.json: {e['id']} differs from the registry: run spec_check --write")
            e["text"] = plain(text)
            e["error"] = "XGPU_ERROR_INVALID_ARGUMENT"
        else:
            e["text"] = e["description"]
        out.append(e)
    return out


def layer_commands(reg: Registry) -> list[Command]:
    """The commands the layer intercepts."""
    return [c for c in reg.commands if c.name not in LOADER_ONLY_COMMANDS]


# ---------------------------------------------------------------------------
# vuids.inc, commands.inc, enum_info.inc

def generate_vuids(reg: Registry) -> str:
    entries = checked_vuids(reg)
    out = [_banner("layers/validation/generated/vuids.inc: every valid-usage rule of spec/vuids.json.\n"
                   " * Vuid names a rule; kVuids[rule] holds its ID, the ID's FNV-1a hash\n"
                   " * (messageIdNumber), the error a failed check returns, and the rule's text."), ""]
    out.append("enum class Vuid : uint16_t {")
    for e in entries:
        out.append(f"    {vuid_symbol(e['id'])[len('Vuid::'):]},")
    out.append("};")
    out.append(f"inline constexpr size_t kVuidCount = {len(entries)};")
    out.append("")
    out.append("inline constexpr VuidInfo kVuids[kVuidCount] = {")
    for e in entries:
        out.append(f"    {{{c_string(e['id'])}, {fnv1a(e['id'])}, {e['error']}, {'true' if e['kind'] == 'implicit' else 'false'},")
        out.append(f"     {c_string(e['text'])}}},")
    out.append("};")
    out.append("")
    return "\n".join(out)


def warning_symbol(warning_id: str) -> str:
    """XGPU-VALIDATION-hazard-read-after-write -> kHazardReadAfterWrite."""
    words = re.split(r"[^A-Za-z0-9]+", warning_id[len("XGPU-VALIDATION-"):])
    return "k" + "".join(w[:1].upper() + w[1:] for w in words if w)


def generate_warnings(reg: Registry) -> str:
    with open(WARNINGS_JSON, encoding="utf-8") as f:
        warnings = json.load(f)["warnings"]
    out = [_banner("layers/validation/generated/warnings.inc: the layer's warnings, from spec/warnings.json.\n"
                   " * Warning names one; kWarnings[warning] holds its ID, the ID's FNV-1a hash\n"
                   " * (messageIdNumber) and its text."), ""]
    out.append("enum class Warning : uint8_t {")
    for w in warnings:
        out.append(f"    {warning_symbol(w['id'])},  // {w['id']}")
    out.append("    kCount,")
    out.append("};")
    out.append("")
    out.append("struct WarningInfo {")
    out.append("    const char* id;       // pMessageIdName")
    out.append("    int32_t number;       // messageIdNumber: FNV-1a of id")
    out.append("    const char* text;     // what it means")
    out.append("};")
    out.append("")
    out.append(f"inline constexpr WarningInfo kWarnings[{len(warnings)}] = {{")
    for w in warnings:
        out.append(f"    {{{c_string(w['id'])}, {fnv1a(w['id'])}, {c_string(w['text'])}}},")
    out.append("};")
    out.append("")
    return "\n".join(out)


def generate_commands(reg: Registry) -> str:
    cmds = layer_commands(reg)
    out = [_banner("layers/validation/generated/commands.inc: the commands the layer intercepts."), ""]
    out.append("enum class Command : uint16_t {")
    out += [f"    {c.name}," for c in cmds]
    out.append("};")
    out.append(f"inline constexpr size_t kCommandCount = {len(cmds)};")
    out.append("inline constexpr const char* kCommandNames[kCommandCount] = {")
    out += [f"    \"{c.name}\"," for c in cmds]
    out.append("};")
    out.append("/* Whether a command records into a command buffer (a void xgpuCmd*): a failed")
    out.append(" * check puts the command buffer in the recording-error state. */")
    out.append("inline constexpr bool kRecordsCommand[kCommandCount] = {")
    out += [f"    {'true' if is_recording(c) else 'false'},  // {c.name}" for c in cmds]
    out.append("};")
    out.append("")
    return "\n".join(out)


def is_recording(cmd: Command) -> bool:
    return cmd.level == "command_buffer" and cmd.ret == "void"


def _enum_values(e) -> list[str]:
    return [v.name for v in e.values]


def generate_enum_info(reg: Registry) -> str:
    out = [_banner("layers/validation/generated/enum_info.inc: the registry's enums and flag bits\n"
                   " * for the stateless checks and for messages."), ""]
    for e in reg.enums:
        out.append(f"inline bool IsValid{e.name}(int64_t value) {{")
        out.append("    switch (value) {")
        for v in e.values:
            out.append(f"        case {v.name}:")
        out.append("            return true;")
        out.append("        default:")
        out.append("            return false;")
        out.append("    }")
        out.append("}")
        out.append(f"inline const char* NameOf{e.name}(int64_t value) {{")
        out.append("    switch (value) {")
        seen = set()
        for v in e.values:
            if v.value in seen:
                continue
            seen.add(v.value)
            out.append(f"        case {v.name}: return \"{v.name}\";")
        out.append("        default: return nullptr;")
        out.append("    }")
        out.append("}")
        out.append("")
    for b in reg.bitmasks:
        if not b.bits:
            continue
        mask = 0
        for v in b.values:
            mask |= int(v.value, 0) if isinstance(v.value, str) else v.value
        out.append(f"inline constexpr uint32_t kValidBits{b.bits} = 0x{mask:X}u;")
        out.append(f"inline constexpr BitName kBitNames{b.bits}[] = {{")
        for v in b.values:
            out.append(f"    {{{v.name}, \"{v.name}\"}},")
        out.append("};")
    out.append("")
    out.append("/* Every handle type: its object type, name and whether it is dispatchable. */")
    out.append("inline constexpr HandleTypeInfo kHandleTypes[] = {")
    for h in reg.handles:
        out.append(f"    {{{h.object_type}, \"{h.name}\", {'true' if h.dispatchable else 'false'}}},")
    out.append("};")
    out.append("")
    # The structure-type value of every structure with an sType, for pNext checks.
    out.append("/* Names of structure types, for messages about sType and pNext. */")
    out.append("inline const char* StructureTypeName(int64_t value) { return NameOfXgpuStructureType(value); }")
    out.append("")
    return "\n".join(out)


# ---------------------------------------------------------------------------
# Hooks and the chassis

def _hook_params(cmd: Command) -> str:
    return ", ".join(["CallContext& ctx"] + [p.decl() for p in cmd.params])


def _post_params(cmd: Command) -> str:
    extra = [f"{cmd.ret} result"] if cmd.ret != "void" else []
    return ", ".join(["CallContext& ctx"] + [p.decl() for p in cmd.params] + extra)


def generate_hook_defaults(reg: Registry) -> str:
    out = [_banner("layers/validation/generated/hook_defaults.inc: HookDefaults, a no-op of every\n"
                   " * hook. A validation object derives from it and declares the hooks it needs\n"
                   " * under the same names; the chassis calls each object's hooks by name, so the\n"
                   " * ones it does not declare cost nothing.\n"
                   " *\n"
                   " * Validate<Command> returns whether the call must be skipped (it reported a\n"
                   " * violation) and never changes state; PreRecord<Command> runs before the call\n"
                   " * goes down the chain, PostRecord<Command> after it (with its result)."), ""]
    out.append("struct HookDefaults {")
    for c in layer_commands(reg):
        out.append(f"    bool Validate{c.short_name}({_hook_params(c)}) const {{ return false; }}")
        out.append(f"    void PreRecord{c.short_name}({_hook_params(c)}) {{}}")
        out.append(f"    void PostRecord{c.short_name}({_post_params(c)}) {{}}")
    out.append("};")
    out.append("")
    return "\n".join(out)


def _failure(cmd: Command) -> str:
    if cmd.ret == "void":
        return "return;"
    if cmd.ret == "XgpuResult":
        return "return ctx.Failure();"
    return f"return {cmd.failure_return('')};"


def extern_sync_rules(reg: Registry) -> dict[str, tuple[str, str]]:
    """command -> (externally synchronized parameter, its XGPU-VUID-<command>-<param>-externsync rule)
    for every such rule vuids.json lists (category external_synchronization; thread_safety/)."""
    out = {}
    for e in load_vuids():
        if e.get("kind") == "explicit" and e.get("check") == "external_synchronization":
            param = e["id"][len(f"XGPU-VUID-{e['function']}-"):-len("-externsync")]
            out[e["function"]] = (param, e["id"])
    return out


def _extern_sync(reg: Registry, cmd: Command, rules: dict[str, tuple[str, str]]) -> list[str]:
    """The ExternalSyncClaim of a command's externally synchronized parameter (api.md 1.6),
    held from before the checks to the intercept's return."""
    if cmd.name not in rules:
        return []
    param_name, vuid = rules[cmd.name]
    param = next(p for p in cmd.params if p.base_name == param_name)
    handle = reg.handle(param.base_type)
    if cmd.dispatch_param is not None and cmd.dispatch_param.base_name == param_name:
        record = "ctx.dispatch_record"
    else:
        record = f"Objects().Find({handle.object_type}, reinterpret_cast<uintptr_t>({param_name}))"
    return [f"    ExternalSyncClaim sync(ctx, {record}, {vuid_symbol(vuid)}, \"{param_name}\");"]


# The commands whose CallContext carries a CallCreation (chassis/layer.h):
# what the instance's and device's creation and destruction pass between hooks.
CREATION_COMMANDS = ("xgpuCreateInstance", "xgpuDestroyInstance", "xgpuCreateDevice", "xgpuDestroyDevice")


def _intercept(reg: Registry, cmd: Command, sync_rules: dict[str, tuple[str, str]] | None = None) -> list[str]:
    args = ", ".join(["ctx"] + [p.base_name for p in cmd.params])
    out = [f"static {cmd.ret} XGPU_API_CALL Intercept{cmd.short_name}({cmd.param_list()}) {{"]
    if cmd.name in CREATION_COMMANDS:
        out += ["    CallCreation creation;", f"    CallContext ctx(Command::{cmd.name}, &creation);"]
    else:
        out.append(f"    CallContext ctx(Command::{cmd.name});")
    dispatch = cmd.dispatch_param
    if dispatch is not None and dispatch.base_type in LEVEL_HANDLE.values():
        out.append(f"    ctx.Dispatch({reg.handle(dispatch.base_type).object_type}, {dispatch.name});")
    elif cmd.name == "xgpuCreateInstance":
        out.append("    ctx.BeginCreateInstance(pCreateInfo);")
    sync = _extern_sync(reg, cmd, sync_rules or {})
    out += sync
    if cmd.name == "xgpuQueueSubmit":
        out.append("    ExternalSyncReads sync(ctx);")
        out.append("    sync.ReadSubmittedCommandBuffers(submitCount, pSubmits);")
        sync = ["submit"]
    out.append("    bool skip = sync.Failed();" if sync else "    bool skip = false;")
    for obj in VALIDATION_OBJECTS:
        out.append(f"    skip |= {obj}.Validate{cmd.short_name}({args});")
    hand = cmd.name in HAND_WRITTEN_CALL_DOWN
    out.append(f"    if (skip{'' if hand else ' || !ctx.CanCallDown()'}) {{")
    created = cmd.created_param
    if created is not None:
        out.append(f"        if (IsUsablePointer({created.name})) *{created.name} = XGPU_NULL_HANDLE;")
    if is_recording(cmd):
        out.append("        ctx.MarkRecordingError();")
    out.append(f"        {_failure(cmd)}")
    out.append("    }")
    if sync and cmd.destroys:
        out.append("    sync.Forget();  // the record goes with the object")
    lifetime = _tracker_hooks(reg, cmd)
    for obj in record_hook_order():
        if obj == STATE_OBJECT and lifetime["PreRecord"]:
            out.append(f"    {obj}.LifetimePreRecord{cmd.short_name}({args});")
        out.append(f"    {obj}.PreRecord{cmd.short_name}({args});")
    call_args = ", ".join(p.base_name for p in cmd.params)
    if hand:
        call = f"Down{cmd.short_name}({args})"
    else:
        table = "ctx.InstanceTable()" if reg.table_of(cmd) == "instance" else "ctx.DeviceTable()"
        call = f"{table}.{cmd.short_name}({call_args})"
    if cmd.ret == "void":
        out.append(f"    {call};")
        post_args = args
    else:
        out.append(f"    {cmd.ret} result = {call};")
        post_args = args + ", result"
    for obj in record_hook_order():
        if obj == STATE_OBJECT and lifetime["PostRecord"]:
            out.append(f"    {obj}.LifetimePostRecord{cmd.short_name}({post_args});")
        out.append(f"    {obj}.PostRecord{cmd.short_name}({post_args});")
    if cmd.ret != "void":
        out.append("    return result;")
    out.append("}")
    return out


def generate_chassis(reg: Registry) -> str:
    out = [_banner("layers/validation/generated/chassis.inc: the layer's intercepts. Each runs\n"
                   " * the validation objects' Validate hooks; if one reports a violation the call\n"
                   " * fails (or, for a void xgpuCmd*, records nothing and puts the command buffer\n"
                   " * in the recording-error state) without going down the chain; otherwise the\n"
                   " * PreRecord hooks, the next element of the chain, the PostRecord hooks (the\n"
                   " * state tracker's, g_state, right after the object tracker's: STATE_OBJECT;\n"
                   " * its lifetime hooks, which make and end the objects' records, first).\n"
                   " *\n"
                   " * Included by chassis/layer.cpp, which defines CallContext, the objects and the\n"
                   " * hand-written Down<Command> functions."), ""]
    sync_rules = extern_sync_rules(reg)
    for cmd in layer_commands(reg):
        out += _intercept(reg, cmd, sync_rules)
        out.append("")
    cmds = sorted(layer_commands(reg), key=lambda c: c.name)
    out.append("/* Every intercept by name, sorted (LookupIntercept), each behind EntryGuard (no C++")
    out.append(" * exception crosses the C API). table: which dispatch table of the next element")
    out.append(" * must provide the command for the intercept to be offered. */")
    out.append("static const InterceptEntry kIntercepts[] = {")
    for c in cmds:
        table = {"instance": "TableKind::kInstance", "device": "TableKind::kDevice"}.get(reg.table_of(c) or "",
                                                                                        "TableKind::kGlobal")
        out.append(f"    {{\"{c.name}\", reinterpret_cast<PFN_xgpuVoidFunction>(&EntryGuard<&Intercept{c.short_name}>::call), {table}}},")
    out.append("};")
    out.append("")
    return "\n".join(out)


# ---------------------------------------------------------------------------
# Field paths and the scopes that guard them

_TOKEN = re.compile(r"(->)|(\.)|\[([ijk])\]|([A-Za-z_][A-Za-z0-9_]*)")


def containers(field: str) -> list[tuple[str, str]]:
    """The dereferences on the way to field: [(prefix, '->' | index variable)]."""
    out = []
    prefix = ""
    for m in _TOKEN.finditer(field):
        arrow, dot, var, ident = m.groups()
        if arrow:
            out.append((prefix, "->"))
            prefix += "->"
        elif dot:
            prefix += "."
        elif var:
            out.append((prefix, var))
            prefix += f"[{var}]"
        else:
            prefix += ident
    if prefix != field:
        raise ValueError(f"cannot parse field {field!r}")
    return out


def field_ref(field: str) -> str:
    """C++ Field{...} for a field path with its index variables; a path with
    none is a constant of the program (XGPU_CONST_FIELD: nothing is stored
    for it on the path that finds nothing wrong)."""
    vars_ = re.findall(r"\[([ijk])\]", field)
    if not vars_:
        return f"XGPU_CONST_FIELD({c_string(field)})"
    return "Field{" + ", ".join([c_string(field)] + vars_) + "}"


class Scope:
    """A guarded part of a command's checks: the root (the parameters), a
    pointer's target (prefix->), or an array's elements (prefix[x])."""

    def __init__(self, chain: tuple, guard: tuple | None):
        self.chain = chain          # the containers leading here
        self.guard = guard          # (prefix, '->' | var), None at the root
        self.items: list = []       # rules (dicts) and child Scopes, in order
        self.children: dict = {}

    def child(self, container: tuple) -> "Scope":
        if container not in self.children:
            s = Scope(self.chain + (container,), container)
            self.children[container] = s
            self.items.append(s)
        return self.children[container]


def build_scopes(rules: list[dict]) -> Scope:
    """Places each rule in the scope of its containers. A pointer or array
    rule on P comes before the scope of P's target, which is opened at its
    rule, so reports follow the rules' order."""
    root = Scope((), None)
    for r in rules:
        scope = root
        for c in containers(r["field"]):
            scope = scope.child(c)
        scope.items.append(r)
        field = r["field"]
        if r["check"] in ("pointer", "array", "string_array"):
            # Open the target's scope right after the rule (it may stay empty).
            var = spec_check.index(field)[1] if r["check"] != "pointer" else "->"
            scope.child((field, var))
    return root


def _counts(rules: list[dict]) -> dict[str, str]:
    return {r["field"]: r["count"] for r in rules if r["check"] in ("array", "string_array")}


def _scope_has(scope: Scope, wanted) -> bool:
    for item in scope.items:
        if isinstance(item, Scope):
            if _scope_has(item, wanted):
                return True
        elif wanted(item):
            return True
    return False


def _emit_scope(scope: Scope, counts: dict[str, str], wanted, emit_rule, indent: str) -> list[str]:
    out = []
    for item in scope.items:
        if isinstance(item, Scope):
            if not _scope_has(item, wanted):
                continue
            prefix, kind = item.guard
            if kind == "->":
                out.append(f"{indent}if (IsUsablePointer({prefix})) {{")
            else:
                count = counts[prefix]
                out.append(f"{indent}if (IsUsablePointer({prefix})) {{")
                out.append(f"{indent}    for (uint64_t {kind} = 0; {kind} < static_cast<uint64_t>({count}); ++{kind}) {{")
                out += _emit_scope(item, counts, wanted, emit_rule, indent + "        ")
                out.append(f"{indent}    }}")
                out.append(f"{indent}}}")
                continue
            out += _emit_scope(item, counts, wanted, emit_rule, indent + "    ")
            out.append(f"{indent}}}")
        elif wanted(item):
            out += [indent + line for line in emit_rule(item)]
    return out


# ---------------------------------------------------------------------------
# Stateless checks

def _stype_of(reg: Registry, struct_name: str) -> str:
    s = reg.struct(struct_name)
    if s is None or not s.stype:
        raise ValueError(f"{struct_name} has no sType")
    return s.stype


def _loader_structure_types(reg: Registry) -> list[str]:
    """The structure types the loader inserts into create infos (api.md 1.2)."""
    e = next(e for e in reg.enums if e.name == "XgpuStructureType")
    return [v.name for v in e.values if v.name.startswith("XGPU_STRUCTURE_TYPE_LOADER_")]


class StatelessEmitter:
    def __init__(self, reg: Registry, cmd: Command):
        self.reg = reg
        self.cmd = cmd
        # The loader inserts its link structures into the create infos of the
        # commands that create an instance or a device.
        self.loader_links = cmd.creates in ("XgpuInstance", "XgpuDevice")

    def rule(self, r: dict) -> list[str]:
        v = vuid_symbol(r["id"])
        f, ref, check = r["field"], field_ref(r["field"]), r["check"]
        if check == "pointer":
            if r.get("optional"):
                return [f"skip |= CheckOptionalPointer(ctx, {v}, {ref}, {f});"]
            return [f"skip |= CheckRequiredPointer(ctx, {v}, {ref}, {f});"]
        if check == "array":
            count = r["count"]
            if r.get("optional"):
                return [f"skip |= CheckOptionalArray(ctx, {v}, {ref}, {f}, static_cast<uint64_t>({count}));"]
            return [f"skip |= CheckRequiredArray(ctx, {v}, {ref}, {f}, static_cast<uint64_t>({count}));"]
        if check == "array_out":
            count_ptr = r["count"][1:]
            return [f"if (IsUsablePointer({count_ptr})) skip |= CheckOutputArray(ctx, {v}, {ref}, {f}, *{count_ptr});"]
        if check == "string":
            fn = "CheckOptionalString" if r.get("optional") else "CheckRequiredString"
            return [f"skip |= {fn}(ctx, {v}, {ref}, {f});"]
        if check == "string_array":
            var = spec_check.index(f)[1]
            elem = f"{f}[{var}]"
            return [f"skip |= CheckRequiredArray(ctx, {v}, {ref}, {f}, static_cast<uint64_t>({r['count']}));",
                    f"if (IsUsablePointer({f})) {{",
                    f"    for (uint64_t {var} = 0; {var} < static_cast<uint64_t>({r['count']}); ++{var}) {{",
                    f"        skip |= CheckRequiredString(ctx, {v}, {field_ref(elem)}, {elem});",
                    "    }",
                    "}"]
        if check == "sType":
            return [f"skip |= CheckSType(ctx, {v}, {ref}, {f}, {r['value']});"]
        if check == "pNext":
            allowed = [_stype_of(self.reg, a) for a in r["allowed"]]
            top = self.loader_links and r["field"] == "pCreateInfo->pNext"
            skipped = _loader_structure_types(self.reg) if top else []
            al = ", ".join(allowed) if allowed else ""
            sk = ", ".join(skipped) if skipped else ""
            return [f"{{",
                    f"    static constexpr XgpuStructureType kAllowed[] = {{{al or 'XGPU_STRUCTURE_TYPE_MAX_ENUM'}}};",
                    f"    static constexpr XgpuStructureType kLoader[] = {{{sk or 'XGPU_STRUCTURE_TYPE_MAX_ENUM'}}};",
                    f"    skip |= CheckPNext(ctx, {v}, {ref}, {f}, kAllowed, {len(allowed)}, kLoader, {len(skipped)});",
                    f"}}"]
        if check == "reserved_flags":
            return [f"skip |= CheckReservedFlags(ctx, {v}, {ref}, static_cast<uint32_t>({f}));"]
        if check == "flags":
            t = r["type"]
            return [f"skip |= CheckFlags(ctx, {v}, {ref}, static_cast<uint32_t>({f}), kValidBits{t}, kBitNames{t}, \"{t}\");"]
        if check == "single_bit":
            t = r["type"]
            return [f"skip |= CheckSingleBit(ctx, {v}, {ref}, static_cast<uint32_t>({f}), kValidBits{t}, kBitNames{t}, \"{t}\");"]
        if check == "enum":
            t = r["type"]
            return [f"if (!IsValid{t}(static_cast<int64_t>({f}))) skip |= ReportEnum(ctx, {v}, {ref}, static_cast<int64_t>({f}), \"{t}\");"]
        if check == "function_pointer":
            return [f"skip |= CheckFunctionPointer(ctx, {v}, {ref}, reinterpret_cast<const void*>({f}));"]
        raise ValueError(f"{r['id']}: unknown implicit check {check!r}")


def _rules_of(reg: Registry, cmd: Command) -> list[dict]:
    return [dict(check, id=vuid) for vuid, _, check in spec_check.Implicit(reg, cmd).rules]


def _stateless_wanted(r: dict) -> bool:
    return r["check"] not in TRACKER_CHECKS


def generate_stateless_decls(reg: Registry) -> str:
    out = [_banner("layers/validation/generated/stateless_decls.inc: the Validate hooks of\n"
                   " * StatelessValidation (inside its class definition)."), ""]
    for cmd in layer_commands(reg):
        if any(_stateless_wanted(r) for r in _rules_of(reg, cmd)):
            out.append(f"bool Validate{cmd.short_name}({_hook_params(cmd)}) const;")
    out.append("")
    return "\n".join(out)


def _flags_fast_accept(rules: list[dict]) -> list[str]:
    """A command whose only stateless rules are flag masks of its own
    parameters (xgpuCmdMemoryBarrier's four) is accepted by one test of all
    masks at once; the rules, out of line, run and report only when a bit
    is outside its mask."""
    wanted = [r for r in rules if _stateless_wanted(r)]
    if len(wanted) < 2 or any(r["check"] != "flags" or not re.fullmatch(r"\w+", r["field"]) for r in wanted):
        return []
    terms = " | ".join(f"(static_cast<uint32_t>({r['field']}) & ~kValidBits{r['type']})" for r in wanted)
    return [f"    if (({terms}) == 0) [[likely]] return false;"]


def generate_stateless_checks(reg: Registry) -> str:
    out = [_banner("layers/validation/generated/stateless_checks.inc: StatelessValidation's\n"
                   " * checks of the implicit rules that need no state: pointers, arrays, strings,\n"
                   " * sType, pNext, reserved flags, flag bits, single bits, enums and function\n"
                   " * pointers. Every dereference is guarded by the check of the pointer it goes\n"
                   " * through, so a bad pointer is reported, never followed."), ""]
    for cmd in layer_commands(reg):
        rules = _rules_of(reg, cmd)
        if not any(_stateless_wanted(r) for r in rules):
            continue
        fast = _flags_fast_accept(rules)
        if fast:
            # The test inline (small enough to be inlined into the intercept),
            # the rules that report out of line.
            args = ", ".join(["ctx"] + [p.base_name for p in cmd.params])
            out.append(f"[[gnu::cold, gnu::noinline]] static bool Report{cmd.short_name}Flags({_hook_params(cmd)}) {{")
        else:
            out.append(f"bool StatelessValidation::Validate{cmd.short_name}({_hook_params(cmd)}) const {{")
        out.append("    bool skip = false;")
        emitter = StatelessEmitter(reg, cmd)
        out += _emit_scope(build_scopes(rules), _counts(rules), _stateless_wanted, emitter.rule, "    ")
        for p in cmd.params:
            out.append(f"    (void){p.base_name};")
        out.append("    return skip;")
        out.append("}")
        out.append("")
        if fast:
            out.append(f"bool StatelessValidation::Validate{cmd.short_name}({_hook_params(cmd)}) const {{")
            out += fast
            out.append(f"    return Report{cmd.short_name}Flags({args});")
            out.append("}")
            out.append("")
    return "\n".join(out)


# ---------------------------------------------------------------------------
# Object tracker

def _tracker_wanted(reg: Registry):
    def wanted(r: dict) -> bool:
        if r["check"] in TRACKER_CHECKS:
            return True
        # Arrays of handles: each element must be a live handle (the array's rule).
        return r["check"] == "array" and reg.handle(r.get("type", "")) is not None
    return wanted


class TrackerEmitter:
    def __init__(self, reg: Registry, cmd: Command, rules: list[dict]):
        self.reg = reg
        self.cmd = cmd
        self.parents = {r["field"]: r for r in rules if r["check"] == "parent"}
        self.dispatch = cmd.dispatch_param.name if cmd.dispatch_param is not None and \
            cmd.dispatch_param.base_type in LEVEL_HANDLE.values() else None

    def rule(self, r: dict) -> list[str]:
        v = vuid_symbol(r["id"])
        f, ref = r["field"], field_ref(r["field"])
        if r["check"] == "parent":
            return []  # emitted with its handle rule
        if r["check"] == "array":
            h = self.reg.handle(r["type"])
            var = spec_check.index(f)[1]
            elem = f"{f}[{var}]"
            return [f"if (IsUsablePointer({f})) {{",
                    f"    for (uint64_t {var} = 0; {var} < static_cast<uint64_t>({r['count']}); ++{var}) {{",
                    f"        CheckHandle(ctx, {v}, {field_ref(elem)}, {h.object_type}, {elem}, false, &skip);",
                    "    }",
                    "}"]
        h = self.reg.handle(r["type"])
        optional = "true" if r.get("optional") else "false"
        if f == self.dispatch:
            return [f"skip |= CheckDispatchHandle(ctx, {v}, {ref}, {optional});"]
        parent = self.parents.get(f)
        if parent is None:
            return [f"CheckHandle(ctx, {v}, {ref}, {h.object_type}, {f}, {optional}, &skip);"]
        ptype = self.reg.handle(parent["parent"]).object_type
        return [f"if (const ObjectRecord* record = CheckHandle(ctx, {v}, {ref}, {h.object_type}, {f}, {optional}, &skip)) {{",
                f"    skip |= CheckParent(ctx, {vuid_symbol(parent['id'])}, {ref}, record, {ptype});",
                "}"]


def _created_tracking(reg: Registry, cmd: Command) -> list[str]:
    """PostRecord lines tracking what cmd creates or retrieves."""
    out = []
    ok = "result >= 0 && " if cmd.ret == "XgpuResult" else ""
    if cmd.creates:
        p = cmd.created_param
        h = reg.handle(cmd.creates)
        out.append(f"if ({ok}IsUsablePointer({p.name}) && *{p.name} != XGPU_NULL_HANDLE) {{")
        allocator = "pAllocator" if any(q.base_name == "pAllocator" for q in cmd.params) else "nullptr"
        parent = reg.handle(h.parent).object_type if h.parent else "XGPU_OBJECT_TYPE_UNKNOWN"
        out.append(f"    Track(ctx, {h.object_type}, *{p.name}, {parent}, {allocator});")
        out.append("}")
    for p in cmd.params:
        # Enumerations of handles (xgpuEnumeratePhysicalDevices): each one written.
        if p.len and p.pointer_depth == 1 and not p.type.startswith("const") and reg.handle(p.base_type):
            names = {q.base_name: q for q in cmd.params}
            if p.len in names and names[p.len].pointer_depth == 1:
                h = reg.handle(p.base_type)
                out.append(f"if ({ok}IsUsablePointer({p.name}) && IsUsablePointer({p.len})) {{")
                out.append(f"    for (uint32_t i = 0; i < *{p.len}; ++i) {{")
                out.append(f"        Track(ctx, {h.object_type}, {p.name}[i], {reg.handle(h.parent).object_type}, nullptr);")
                out.append("    }")
                out.append("}")
    return out


def _destroyed_param(cmd: Command):
    if not cmd.destroys:
        return None
    return next(p for p in cmd.params if p.type == cmd.destroys)


def _tracker_hooks(reg: Registry, cmd: Command) -> dict[str, list[str]]:
    """Record hooks of the tracker: {'PreRecord': lines, 'PostRecord': lines}."""
    hooks = {"PreRecord": [], "PostRecord": []}
    post = _created_tracking(reg, cmd)
    if post:
        hooks["PostRecord"] += post
    d = _destroyed_param(cmd)
    if d is not None:
        h = reg.handle(cmd.destroys)
        untrack = [f"if ({d.name} != XGPU_NULL_HANDLE) Untrack(ctx, {h.object_type}, {d.name});"]
        if cmd.ret == "void":
            # Before the call: once it returns, the handle may already name a new object.
            hooks["PreRecord"] += untrack
        else:
            hooks["PostRecord"] += ["if (result >= 0) {"] + ["    " + line for line in untrack] + ["}"]
    return hooks


def generate_tracker_decls(reg: Registry) -> str:
    out = [_banner("layers/validation/generated/object_tracker_decls.inc: the hooks of\n"
                   " * ObjectTrackerGenerated (inside its class definition)."), ""]
    for cmd in layer_commands(reg):
        rules = _rules_of(reg, cmd)
        wanted = _tracker_wanted(reg)
        if any(wanted(r) for r in rules):
            out.append(f"bool Validate{cmd.short_name}({_hook_params(cmd)}) const;")
    out.append("")
    return "\n".join(out)


def generate_tracker_checks(reg: Registry) -> str:
    out = [_banner("layers/validation/generated/object_tracker_checks.inc: the object tracker's\n"
                   " * checks of the handle and parent rules (and of every element of an array of\n"
                   " * handles). A handle is looked up, never dereferenced. (The records of the\n"
                   " * objects commands create, retrieve and destroy are the state tracker's:\n"
                   " * state_lifetime_hooks.inc.)"), ""]
    for cmd in layer_commands(reg):
        rules = _rules_of(reg, cmd)
        wanted = _tracker_wanted(reg)
        if any(wanted(r) for r in rules):
            emitter = TrackerEmitter(reg, cmd, rules)
            out.append(f"bool ObjectTrackerGenerated::Validate{cmd.short_name}({_hook_params(cmd)}) const {{")
            out.append("    bool skip = false;")
            out += _emit_scope(build_scopes(rules), _counts(rules), wanted, emitter.rule, "    ")
            for p in cmd.params:
                out.append(f"    (void){p.base_name};")
            out.append("    return skip;")
            out.append("}")
            out.append("")
    return "\n".join(out)


def generate_lifetime_decls(reg: Registry) -> str:
    out = [_banner("layers/validation/generated/state_lifetime_decls.inc: the state tracker's\n"
                   " * lifetime hooks (inside StateTracker's class definition)."), ""]
    for cmd in layer_commands(reg):
        hooks = _tracker_hooks(reg, cmd)
        if hooks["PreRecord"]:
            out.append(f"void LifetimePreRecord{cmd.short_name}({_hook_params(cmd)});")
        if hooks["PostRecord"]:
            out.append(f"void LifetimePostRecord{cmd.short_name}({_post_params(cmd)});")
    out.append("")
    return "\n".join(out)


def generate_lifetime_hooks(reg: Registry) -> str:
    out = [_banner("layers/validation/generated/state_lifetime_hooks.inc: the state tracker's\n"
                   " * records of the objects commands create, retrieve and destroy: made after\n"
                   " * a creating call succeeded, ended before a void destroy goes down the chain\n"
                   " * (once it returns the handle may already name a new object) or after one\n"
                   " * that returns a result succeeded. The chassis calls them first among the\n"
                   " * state tracker's hooks."), ""]
    for cmd in layer_commands(reg):
        hooks = _tracker_hooks(reg, cmd)
        for kind, lines in hooks.items():
            if not lines:
                continue
            params = _hook_params(cmd) if kind == "PreRecord" else _post_params(cmd)
            out.append(f"void StateTracker::Lifetime{kind}{cmd.short_name}({params}) {{")
            out += ["    " + line for line in lines]
            for p in cmd.params:
                out.append(f"    (void){p.base_name};")
            out.append("}")
            out.append("")
    return "\n".join(out)


def _destroy_call(reg: Registry, cmd: Command, table: str, dispatch: str) -> str:
    args = []
    for i, p in enumerate(cmd.params):
        if i == 0:
            args.append(dispatch)
        elif p.type == cmd.destroys:
            args.append(f"reinterpret_cast<{p.type}>(static_cast<uintptr_t>(record.handle))")
        elif p.base_name == "pAllocator":
            args.append("record.Allocator()")
        else:
            args.append("{}")
    return f"{table}.{cmd.short_name}({', '.join(args)});"


def generate_destroy_down(reg: Registry) -> str:
    out = [_banner("layers/validation/generated/destroy_down.inc: DestroyDown, how the layer\n"
                   " * destroys an object of a device that the application left alive when it\n"
                   " * destroyed the device (object_tracker.cpp): the registry's destroying command\n"
                   " * of its type, on the queue it was made on when a queue-level command made it\n"
                   " * (a queue-ordered allocation), else on its device, with the allocation\n"
                   " * callbacks it was created with."), ""]
    out.append("inline void DestroyDown(const ObjectRecord& record, const LayerDevice& device) {")
    out.append("    switch (record.type) {")
    for h in reg.handles:
        if h.parent != "XgpuDevice":
            continue
        destroyers = [c for c in reg.commands if c.destroys == h.name]
        on_device = next((c for c in destroyers if c.level == "device"), None)
        on_queue = next((c for c in destroyers if c.level == "queue"), None)
        if on_device is None and on_queue is None:
            continue  # ends with its device (queues)
        out.append(f"        case {h.object_type}:")
        if on_queue is not None:
            out.append("            if (record.made_on_type == XGPU_OBJECT_TYPE_QUEUE) {")
            queue = "reinterpret_cast<XgpuQueue>(static_cast<uintptr_t>(record.made_on))"
            out.append(f"                {_destroy_call(reg, on_queue, 'device.next', queue)}")
            out.append("                break;")
            out.append("            }")
        if on_device is not None:
            out.append(f"            {_destroy_call(reg, on_device, 'device.next', 'device.handle')}")
        out.append("            break;")
    out.append("        default:")
    out.append("            break;")
    out.append("    }")
    out.append("}")
    out.append("")
    return "\n".join(out)


# ---------------------------------------------------------------------------
# Command-buffer state: the rule every recording command has, that its command
# buffer is recording (XGPU-VUID-<command>-commandBuffer-recording, category
# command_buffer_state), wired to the hand-written check.

def recording_rules(reg: Registry) -> list[tuple[Command, str]]:
    """(recording command, its commandBuffer-recording rule) for every one vuids.json lists."""
    listed = {e["id"]: e for e in load_vuids()}
    out = []
    for cmd in layer_commands(reg):
        vuid = f"XGPU-VUID-{cmd.name}-commandBuffer-recording"
        if is_recording(cmd) and vuid in listed and listed[vuid].get("kind") == "explicit":
            out.append((cmd, vuid))
    return out


def generate_cb_state_decls(reg: Registry) -> str:
    out = [_banner("layers/validation/generated/command_buffer_state_decls.inc: the Validate hooks\n"
                   " * of CommandBufferState that check a recording command's command buffer is\n"
                   " * recording (inside its class definition)."), ""]
    out += [f"bool Validate{c.short_name}({_hook_params(c)}) const;" for c, _ in recording_rules(reg)]
    out.append("")
    return "\n".join(out)


def generate_cb_state_checks(reg: Registry) -> str:
    out = [_banner("layers/validation/generated/command_buffer_state_checks.inc: every recording\n"
                   " * command's XGPU-VUID-<command>-commandBuffer-recording rule (vuids.json),\n"
                   " * checked by CommandBufferState::CheckRecording."), ""]
    for cmd, vuid in recording_rules(reg):
        out.append(f"bool CommandBufferState::Validate{cmd.short_name}({_hook_params(cmd)}) const {{")
        for p in cmd.params:
            out.append(f"    (void){p.base_name};")
        out.append(f"    return CheckRecording(ctx, {vuid_symbol(vuid)});")
        out.append("}")
        out.append("")
    return "\n".join(out)


OUTPUTS = [
    ("layers/validation/generated/vuids.inc", generate_vuids),
    ("layers/validation/generated/warnings.inc", generate_warnings),
    ("layers/validation/generated/command_buffer_state_decls.inc", generate_cb_state_decls),
    ("layers/validation/generated/command_buffer_state_checks.inc", generate_cb_state_checks),
    ("layers/validation/generated/destroy_down.inc", generate_destroy_down),
    ("layers/validation/generated/commands.inc", generate_commands),
    ("layers/validation/generated/enum_info.inc", generate_enum_info),
    ("layers/validation/generated/hook_defaults.inc", generate_hook_defaults),
    ("layers/validation/generated/chassis.inc", generate_chassis),
    ("layers/validation/generated/stateless_decls.inc", generate_stateless_decls),
    ("layers/validation/generated/stateless_checks.inc", generate_stateless_checks),
    ("layers/validation/generated/object_tracker_decls.inc", generate_tracker_decls),
    ("layers/validation/generated/object_tracker_checks.inc", generate_tracker_checks),
    ("layers/validation/generated/state_lifetime_decls.inc", generate_lifetime_decls),
    ("layers/validation/generated/state_lifetime_hooks.inc", generate_lifetime_hooks),
]


# ---------------------------------------------------------------------------
# Tests: a baseline call of every command, and a negative test per implicit rule
#
# Call_<command> (tests/validation/generated/calls.inc) holds a call's
# arguments and the storage they point to, initialized generically from the
# registry: every pointer points at one element (or 4 bytes), every struct
# has its sType, handles come from the fixture (Fixture::Valid<T>), enums and
# single bits take their first value, strings are "x", function pointers are
# generated dummies. FixupStruct / Fixup (tests/validation/fixups.h, written
# by hand) then make what the registry cannot say valid (sizes, names...).
# Each negative test (negative_tests.inc) breaks exactly one rule of such a
# call, calls the layer's intercept directly, and expects exactly that rule's
# ID, the rule's error (or nothing done), and a NULL output handle.

ARRAY_LENGTH = 1        # elements of a baseline array
BYTE_ARRAY_LENGTH = 4   # bytes of a baseline void array
BAD_ENUM = "0x7FFFFFF0"  # not a value of any enum, not MAX_ENUM
BAD_FLAG = "0x80000000u"  # not a bit of any *FlagBits


def _storage_name(path: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", path).strip("_") + "_storage"


class CallBuilder:
    def __init__(self, reg: Registry, cmd: Command):
        self.reg = reg
        self.cmd = cmd
        self.structs = {s.name: s for s in reg.structs}
        self.enums = {e.name: e for e in reg.enums}
        self.bits = {b.bits: b for b in reg.bitmasks if b.bits}
        self.storage: list[str] = []
        self.args: list[str] = []
        self.inits: list[str] = []

    def value_init(self, lvalue: str, typ: str) -> list[str]:
        """Statements giving a scalar member or parameter its baseline value."""
        if self.reg.handle(typ):
            return [f"{lvalue} = f.Valid<{typ}>();"]
        if typ in self.enums:
            return [f"{lvalue} = {self.enums[typ].values[0].name};"]
        if typ in self.bits:
            return [f"{lvalue} = {self.bits[typ].values[0].name};"]
        if typ.startswith("PFN_"):
            return [f"{lvalue} = &Dummy_{typ};"]
        return []

    def struct_init(self, expr: str, sname: str, path: str) -> list[str]:
        s = self.structs[sname]
        out = []
        member_names = {m.base_name for m in s.members}
        for m in s.members:
            mexpr, mpath, typ = f"{expr}.{m.base_name}", f"{path}.{m.base_name}", m.base_type
            if m.base_name == "sType":
                out.append(f"{mexpr} = {s.stype};")
            elif m.base_name == "pNext" or m.array_len:
                continue
            elif m.pointer_depth == 0:
                if typ in self.structs:
                    out += self.struct_init(mexpr, typ, mpath)
                else:
                    out += self.value_init(mexpr, typ)
            elif m.type == "void*":
                continue
            elif m.type == "const char*":
                out.append(f"{mexpr} = \"x\";")
            elif m.len and m.len in member_names:
                out += self.array_init(mexpr, m, f"{expr}.{m.len}", mpath)
            else:
                name = _storage_name(mpath)
                self.storage.append(f"{typ} {name}[1] = {{}};")
                out.append(f"{mexpr} = {name};")
                if typ in self.structs:
                    out += self.struct_init(f"{name}[0]", typ, mpath + "[0]")
        out.append(f"FixupStruct(f, {expr});")
        return out

    def array_init(self, lvalue: str, p, count_lvalue: str | None, path: str) -> list[str]:
        typ = p.base_type
        name = _storage_name(path)
        out = []
        if p.type == "const char* const*":
            self.storage.append(f"const char* {name}[{ARRAY_LENGTH}] = {{}};")
            out += [f"{name}[{k}] = \"x\";" for k in range(ARRAY_LENGTH)]
            n = ARRAY_LENGTH
        elif typ == "void":
            n = BYTE_ARRAY_LENGTH
            self.storage.append(f"alignas(16) unsigned char {name}[{n}] = {{}};")
        else:
            n = ARRAY_LENGTH
            self.storage.append(f"{typ} {name}[{n}] = {{}};")
            for k in range(n):
                if typ in self.structs:
                    out += self.struct_init(f"{name}[{k}]", typ, f"{path}[{k}]")
                else:
                    out += self.value_init(f"{name}[{k}]", typ)
        out.append(f"{lvalue} = {name};")
        if count_lvalue is not None:
            out.append(f"{count_lvalue} = {n};")
        return out

    def build(self) -> None:
        params = {p.base_name: p for p in self.cmd.params}
        counted = {p.len for p in self.cmd.params if p.len}
        for p in self.cmd.params:
            name, typ = p.base_name, p.base_type
            if p.pointer_depth == 0:
                self.args.append(f"{p.type} {name} = {{}};")
                if name not in counted:
                    self.inits += self.value_init(name, typ)
            elif p.type == "const char*":
                self.args.append(f"const char* {name} = \"x\";")
            elif p.len and p.len in params and params[p.len].pointer_depth == 1:
                # An enumeration's output array and its in/out count.
                store = _storage_name(name)
                self.storage.append(f"{typ} {store}[{ARRAY_LENGTH}] = {{}};")
                self.args.append(f"{p.type} {name} = {store};")
                self.inits.append(f"{_storage_name(p.len)}[0] = {ARRAY_LENGTH};")
            elif p.len:
                self.args.append(f"{p.type} {name} = nullptr;")
                self.inits += self.array_init(name, p, p.len, name)
            else:
                store = _storage_name(name)
                target = "void*" if p.type == "void**" else typ
                self.storage.append(f"{target} {store}[1] = {{}};")
                self.args.append(f"{p.type} {name} = {store};")
                if p.type.startswith("const") and typ in self.structs:
                    self.inits += self.struct_init(f"{store}[0]", typ, name + "[0]")
                elif self.reg.handle(typ):
                    # An output handle: a sentinel that a failed call must replace with NULL.
                    self.inits.append(f"{store}[0] = Sentinel<{typ}>();")


def _layer_function(cmd: Command) -> str:
    if cmd.level == "global":
        return "LayerGlobalFunction"
    if cmd.level in ("instance", "physical_device"):
        return "LayerInstanceFunction"
    return "LayerDeviceFunction"


def generate_test_calls_fwd(reg: Registry) -> str:
    out = [_banner("tests/validation/generated/calls_fwd.inc: the Call_<command> types, declared\n"
                   " * before the fixups that take them (calls.inc defines them)."), ""]
    out += [f"struct Call_{c.name};" for c in layer_commands(reg)]
    out.append("")
    return "\n".join(out)


def generate_test_calls(reg: Registry) -> str:
    out = [_banner("tests/validation/generated/calls.inc: Call_<command>, a baseline call of every\n"
                   " * command the layer intercepts (arguments and the storage they point to), and\n"
                   " * dummy functions of every function-pointer type. Included by harness.h after\n"
                   " * the fixture and the fixups."), ""]
    for fp in reg.funcpointers:
        params = ", ".join(p.type for p in fp.params) or "void"
        ret = {"void": "", "XgpuBool32": "return XGPU_FALSE;"}.get(fp.ret, "return {};")
        out.append(f"inline {fp.ret} XGPU_API_CALL Dummy_{fp.name}({params}) {{ {ret} }}")
    out.append("")
    for cmd in layer_commands(reg):
        b = CallBuilder(reg, cmd)
        b.build()
        out.append(f"struct Call_{cmd.name} {{")
        out += ["    " + line for line in b.storage]
        out += ["    " + line for line in b.args]
        out.append(f"    explicit Call_{cmd.name}(Fixture& f) {{")
        out += ["        " + line for line in b.inits]
        out.append("        Fixup(f, *this);")
        out.append("    }")
        out.append(f"    Call_{cmd.name}(const Call_{cmd.name}&) = delete;")
        args = ", ".join(p.base_name for p in cmd.params)
        out.append(f"    {cmd.ret} Invoke({cmd.pfn} function) const {{ return function({args}); }}")
        out.append(f"    {cmd.ret} InvokeLayer(Fixture& f) const {{")
        out.append(f"        return Invoke(reinterpret_cast<{cmd.pfn}>(f.{_layer_function(cmd)}(\"{cmd.name}\")));")
        out.append("    }")
        out.append("};")
        out.append("")
    return "\n".join(out)


def _call_expr(field: str) -> str:
    return "call." + re.sub(r"\[[ijk]\]", "[0]", field)


def _mutation(reg: Registry, cmd: Command, r: dict) -> list[str]:
    f = _call_expr(r["field"])
    check = r["check"]
    if check == "handle":
        return [f"SetRaw({f}, Fake<{r['type']}>());"]
    if check == "parent":
        return [f"SetRaw({f}, f.Foreign<{r['type']}>());"]
    if check == "pointer":
        if r.get("optional"):
            return [f"SetRaw({f}, Misaligned({f}));"]
        return [f"SetRaw({f}, nullptr);"]
    if check == "array":
        if r.get("optional"):
            # Not NULL and not mapped, with elements to check.
            return [f"SetRaw({_call_expr(r['count'])}, 16);", f"SetRaw({f}, Unmapped({f}));"]
        return [f"SetRaw({f}, nullptr);"]
    if check == "array_out":
        return [f"SetRaw({f}, Unmapped({f}));"]
    if check == "string":
        return [f"SetRaw({f}, \"\\xff\");" if r.get("optional") else f"SetRaw({f}, nullptr);"]
    if check == "string_array":
        return [f"SetRaw({f}, nullptr);"]
    if check == "sType":
        return [f"SetRaw({f}, {BAD_ENUM});"]
    if check == "pNext":
        return [f"AppendToChain({f}, f.UnknownStructure());"]
    if check == "reserved_flags":
        return [f"SetRaw({f}, 1u);"]
    if check == "flags":
        bits = next(b for b in reg.bitmasks if b.bits == r["type"])
        if any(int(v.value, 0) & 0x80000000 for v in bits.values):
            raise ValueError(f"{r['id']}: {BAD_FLAG} is a bit of {r['type']}; pick another")
        return [f"SetRaw({f}, {BAD_FLAG});"]
    if check == "single_bit":
        return [f"SetRaw({f}, 0u);"]
    if check == "enum":
        return [f"SetRaw({f}, {BAD_ENUM});"]
    if check == "function_pointer":
        return [f"SetRaw({f}, nullptr);"]
    raise ValueError(f"{r['id']}: no mutation for check {check!r}")


# Lines a negative test adds after its mutation so that the call breaks only
# its rule (where the mutation alone would also break an explicit rule).
MUTATION_COMPANIONS = {
    # pCode given: the file path goes, or both sources would be given (-source).
    "XGPU-VUID-xgpuCreateExecutable-pCreateInfo-pCode-parameter": ["SetRaw(call.pCreateInfo->pFilePath, nullptr);"],
}


def generate_negative_tests(reg: Registry) -> str:
    out = [_banner("tests/validation/generated/negative_tests.inc: one test per implicit rule of\n"
                   " * spec/vuids.json that the layer can see: a baseline call (calls.inc) with\n"
                   " * exactly that rule broken, made through the layer's own intercept; it must\n"
                   " * report exactly that ID (once, nothing else), fail with the rule's error (a\n"
                   " * void command: do nothing; an xgpuCmd*: its xgpuEndCommandBuffer returns the\n"
                   " * error), and leave a created handle NULL."), ""]
    tested = []
    for cmd in layer_commands(reg):
        dispatch = cmd.dispatch_param.base_name if cmd.dispatch_param is not None else None
        for vuid, _, check in spec_check.Implicit(reg, cmd).rules:
            r = dict(check, id=vuid)
            tested.append(vuid)
            out.append(f"TEST_CASE(\"{vuid}\") {{")
            out.append("    Fixture& f = Fixture::Get();")
            out.append("    TestScope scope(f);")
            out.append(f"    Call_{cmd.name} call(f);")
            out += ["    " + line for line in _mutation(reg, cmd, r)]
            out += ["    " + line for line in MUTATION_COMPANIONS.get(vuid, [])]
            out.append("    f.log.Clear();")
            if cmd.ret == "void":
                out.append("    call.InvokeLayer(f);")
            else:
                out.append("    const auto result = call.InvokeLayer(f);")
            out.append(f"    f.ExpectOnly(\"{vuid}\");")
            if cmd.ret == "XgpuResult":
                out.append("    CHECK(result == XGPU_ERROR_INVALID_ARGUMENT);")
            elif cmd.ret != "void":
                out.append(f"    CHECK(result == {cmd.failure_return('')});")
            created = cmd.created_param
            if created is not None and r["field"] != created.base_name:
                out.append(f"    CHECK(call.{_storage_name(created.base_name)}[0] == XGPU_NULL_HANDLE);")
            if is_recording(cmd) and r["field"] != dispatch:
                out.append("    f.log.Clear();")
                out.append("    CHECK(f.EndThroughLayer(call.commandBuffer) == XGPU_ERROR_INVALID_ARGUMENT);")
                out.append("    f.ExpectNone();")
            out.append("}")
            out.append("")
    # The explicit rule every recording command has: its command buffer is recording.
    explicit = []
    for cmd, vuid in recording_rules(reg):
        explicit.append(vuid)
        out.append(f"TEST_CASE(\"{vuid}\") {{")
        out.append("    Fixture& f = Fixture::Get();")
        out.append("    TestScope scope(f);")
        out.append(f"    Call_{cmd.name} call(f);")
        out.append("    call.commandBuffer = f.InitialCommandBuffer();  // created, never begun")
        out.append("    f.log.Clear();")
        out.append("    call.InvokeLayer(f);")
        out.append(f"    f.ExpectOnly(\"{vuid}\");")
        out.append("}")
        out.append("")
    out.append("/* The implicit rules tested above, for the coverage test. */")
    out.append("inline const char* const kNegativeTests[] = {")
    out += [f"    \"{v}\"," for v in tested]
    out.append("};")
    out.append("/* The explicit rules tested above. */")
    out.append("inline const char* const kGeneratedExplicitTests[] = {")
    out += [f"    \"{v}\"," for v in explicit]
    out.append("};")
    out.append("/* Implicit rules of commands the loader answers without calling any layer: the")
    out.append(" * layer never sees these calls (spec/gen/vlayer_gen.py, LOADER_ONLY_COMMANDS). */")
    out.append("inline const char* const kRulesOutsideTheLayer[] = {")
    for c in reg.commands:
        if c.name in LOADER_ONLY_COMMANDS:
            out += [f"    \"{v}\"," for v, _, _ in spec_check.Implicit(reg, c).rules]
    out.append("};")
    out.append("")
    return "\n".join(out)


OUTPUTS += [
    ("tests/validation/generated/calls_fwd.inc", generate_test_calls_fwd),
    ("tests/validation/generated/calls.inc", generate_test_calls),
    ("tests/validation/generated/negative_tests.inc", generate_negative_tests),
]
