#!/usr/bin/env python3
"""Checks that the specification text (spec/api.md) and the VUID list
(spec/vuids.json) agree with the registry (spec/xgpu.json) and with each other.

    python3 spec/gen/spec_check.py          check; exit 1 with a message per problem
    python3 spec/gen/spec_check.py --write  regenerate the derived parts, then check

A new command needs a `### <name>` section in api.md holding the two empty
markers `<!-- gen:prototype <name> -->` / `<!-- /gen -->` and
`<!-- gen:implicit <name> -->` / `<!-- /gen -->`; --write fills them.

What is checked:
  - every command of the registry has a `### <name>` section in api.md, and
    every `### xgpu...` section names a command of the registry;
  - every struct of the registry is mentioned (as `Name`) in api.md;
  - every VUID is well formed: XGPU-VUID-<command of the registry>-<rule>,
    <rule> being dash-separated words of letters and digits;
  - VUIDs are unique in api.md and in vuids.json, and the two sets are equal;
  - the derived blocks of api.md (each command's prototype and implicit valid
    usage, between `<!-- gen:... -->` and `<!-- /gen -->` markers) and the
    implicit entries of vuids.json match what the registry gives.

The implicit (structural) rules are derived from the registry here, once:
valid handles and pointers, handles from the right parent, sType, pNext,
reserved flags, enum and flag values. Semantic rules are written by hand in
api.md and described by hand in vuids.json. Python 3 standard library only;
the registry is read through spec/gen/registry.py.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

SPEC = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(SPEC))

from gen import registry  # noqa: E402

API_MD = SPEC / "api.md"
VUIDS_JSON = SPEC / "vuids.json"

VUID_RE = re.compile(r"XGPU-VUID-[A-Za-z0-9_-]*[A-Za-z0-9]")
RULE_RE = re.compile(r"^[A-Za-z0-9]+(-[A-Za-z0-9]+)*$")
# A valid-usage bullet: "- **XGPU-VUID-...**: text".
BULLET_RE = re.compile(r"^- \*\*(XGPU-VUID-[^*]+)\*\*: (.+)$")
GEN_RE = re.compile(r"<!-- gen:(prototype|implicit) (\w+) -->\n.*?<!-- /gen -->", re.S)

# Extension structures an application may chain, per structure. Every other
# pNext must be NULL. (The loader inserts its own link structures; loader.md.)
ALLOWED_PNEXT = {
    "XgpuInstanceCreateInfo": ["XgpuDebugMessengerCreateInfo", "XgpuValidationSettings"],
}
# Handle types that may be used with objects of another device (same driver
# and runtime): their parent rule is a semantic rule of api.md instead.
CROSS_DEVICE_HANDLES = {"XgpuSemaphore"}


# ---------------------------------------------------------------------------
# Implicit valid usage, derived from the registry.

class Implicit:
    """The implicit rules of one command: (vuid, markdown text, machine description)."""

    def __init__(self, reg: registry.Registry, cmd: registry.Command):
        self.reg = reg
        self.cmd = cmd
        self.rules: list[tuple[str, str, dict]] = []
        self.bitmask = {b.name: b for b in reg.bitmasks}
        self.bits = {b.bits: b for b in reg.bitmasks if b.bits}
        self.enums = {e.name for e in reg.enums}
        self.structs = {s.name: s for s in reg.structs}
        first = cmd.params[0] if cmd.params else None
        self.owner = first.base_name if first and first.base_type in registry.LEVEL_HANDLE.values() else None
        self.owner_type = first.base_type if self.owner else None
        for p in cmd.params:
            self.param(p)

    def add(self, rule: str, text: str, check: dict) -> None:
        vuid = f"XGPU-VUID-{self.cmd.name}-{rule}"
        self.rules.append((vuid, text, check))

    def parent_text(self, handle: registry.Handle) -> str | None:
        """Who must have created a handle of this type, or None."""
        if not self.owner or handle.parent is None:
            return None
        if handle.parent == "XgpuDevice":
            if self.owner_type == "XgpuDevice":
                return f"`{self.owner}`"
            if self.owner_type in ("XgpuQueue", "XgpuCommandBuffer"):
                return f"the device of `{self.owner}`"
        if handle.parent == "XgpuInstance" and self.owner_type == "XgpuInstance":
            return f"`{self.owner}`"
        return None

    def handle_rules(self, rule: str, expr: str, typ: str, optional: bool, in_list: bool = False) -> None:
        h = self.reg.handle(typ)
        if optional:
            self.add(f"{rule}-parameter", f"`{expr}` is `XGPU_NULL_HANDLE` or a valid `{typ}` handle.",
                     {"check": "handle", "field": expr, "type": typ, "optional": True})
        else:
            self.add(f"{rule}-parameter", f"`{expr}` is a valid `{typ}` handle.",
                     {"check": "handle", "field": expr, "type": typ, "optional": False})
        if in_list or typ in CROSS_DEVICE_HANDLES and "-" in rule:
            return
        who = self.parent_text(h) if expr != self.owner else None
        if who:
            cond = f"If `{expr}` is not `XGPU_NULL_HANDLE`, it" if optional else f"`{expr}`"
            self.add(f"{rule}-parent", f"{cond} was created from {who}.",
                     {"check": "parent", "field": expr, "type": typ, "parent": h.parent})

    def value_rules(self, rule: str, expr: str, typ: str) -> bool:
        """Rules for an enum or flags value; True if the type is one."""
        if typ in self.bitmask:
            b = self.bitmask[typ]
            if b.bits is None:
                self.add(f"{rule}-zero", f"`{expr}` is 0 (reserved).",
                         {"check": "reserved_flags", "field": expr, "type": typ})
            else:
                self.add(f"{rule}-parameter", f"`{expr}` is a combination of `{b.bits}` values.",
                         {"check": "flags", "field": expr, "type": b.bits})
            return True
        if typ in self.bits:
            self.add(f"{rule}-parameter", f"`{expr}` is exactly one `{typ}` value.",
                     {"check": "single_bit", "field": expr, "type": typ})
            return True
        if typ in self.enums:
            self.add(f"{rule}-parameter", f"`{expr}` is a valid `{typ}` value.",
                     {"check": "enum", "field": expr, "type": typ})
            return True
        return False

    def param(self, p: registry.Param) -> None:
        name, typ, depth = p.base_name, p.base_type, p.pointer_depth
        if depth == 0:
            if self.reg.handle(typ):
                self.handle_rules(name, name, typ, p.optional)
            else:
                self.value_rules(name, name, typ)
            return
        if p.type == "const char*":
            self.add(f"{name}-parameter", f"`{name}` is a NUL-terminated UTF-8 string.",
                     {"check": "string", "field": name, "optional": p.optional})
            return
        const = p.type.startswith("const")
        struct = self.structs.get(typ)
        counts = {q.base_name: q for q in self.cmd.params}
        if p.len and p.len in counts and counts[p.len].pointer_depth > 0:
            # Enumeration output array: the count is in/out through *p.len.
            self.add(f"{name}-parameter",
                     f"If `{name}` is not NULL, it points to an array of `*{p.len}` `{typ}`.",
                     {"check": "array_out", "field": name, "type": typ, "count": "*" + p.len})
            return
        if p.len:
            what = f"an array of `{p.len}` " + (f"valid `{typ}` structures" if struct else
                                                "bytes" if typ == "void" else f"`{typ}` values")
            self.add(f"{name}-parameter", f"If `{p.len}` is not 0, `{name}` is a valid pointer to {what}.",
                     {"check": "array", "field": name, "type": typ, "count": p.len})
            if struct and const:
                self.struct_rules(name, name + index(name), struct)
            return
        if struct and const:
            if p.optional:
                self.add(f"{name}-parameter", f"`{name}` is NULL or a valid pointer to a valid `{typ}` structure.",
                         {"check": "pointer", "field": name, "type": typ, "optional": True})
            else:
                self.add(f"{name}-parameter", f"`{name}` is a valid pointer to a valid `{typ}` structure.",
                         {"check": "pointer", "field": name, "type": typ, "optional": False})
            self.struct_rules(name, name + "->", struct, arrow=True)
            return
        # An output pointer: the implementation writes through it.
        target = "void*" if p.type == "void**" else typ
        self.add(f"{name}-parameter", f"`{name}` is a valid pointer to writable storage for one `{target}`.",
                 {"check": "pointer", "field": name, "type": typ, "optional": False, "output": not const})

    def struct_rules(self, rule: str, expr: str, s: registry.Struct, arrow: bool = False) -> None:
        """Rules for the members of a structure the application passes in.

        expr is the C access prefix: "pCreateInfo->", "pSubmits[i]" (array
        elements, each), or "x." for a nested structure."""
        if not arrow and not expr.endswith("."):
            expr = expr + "."
        for m in s.members:
            mrule, mexpr, mtyp = f"{rule}-{m.base_name}", f"{expr}{m.base_name}", m.base_type
            if m.base_name == "sType":
                self.add(f"{rule}-sType", f"`{mexpr}` is `{s.stype}`.",
                         {"check": "sType", "field": mexpr, "value": s.stype})
                continue
            if m.base_name == "pNext":
                allowed = ALLOWED_PNEXT.get(s.name)
                if allowed:
                    names = ", ".join(f"`{a}`" for a in allowed)
                    self.add(f"{rule}-pNext",
                             f"`{mexpr}` is NULL or a chain of structures of the types {names}, each type at most once.",
                             {"check": "pNext", "field": mexpr, "allowed": allowed})
                else:
                    self.add(f"{rule}-pNext", f"`{mexpr}` is NULL.",
                             {"check": "pNext", "field": mexpr, "allowed": []})
                continue
            if m.pointer_depth == 0:
                if self.reg.handle(mtyp):
                    self.handle_rules(mrule, mexpr, mtyp, m.optional)
                elif mtyp in self.structs:
                    self.struct_rules(mrule, mexpr, self.structs[mtyp])
                elif self.bitmask.get(mtyp) and self.bitmask[mtyp].bits is None:
                    self.add(f"{rule}-{m.base_name}-zero", f"`{mexpr}` is 0 (reserved).",
                             {"check": "reserved_flags", "field": mexpr, "type": mtyp})
                elif mtyp.startswith("PFN_"):
                    if not m.optional:
                        self.add(f"{mrule}-parameter", f"`{mexpr}` is a valid `{mtyp}` function pointer.",
                                 {"check": "function_pointer", "field": mexpr, "type": mtyp})
                else:
                    self.value_rules(mrule, mexpr, mtyp)
                continue
            if m.type in ("void*",):
                continue  # user data: anything
            if m.type == "const char*":
                if m.optional:
                    self.add(f"{mrule}-parameter", f"`{mexpr}` is NULL or a NUL-terminated UTF-8 string.",
                             {"check": "string", "field": mexpr, "optional": True})
                else:
                    self.add(f"{mrule}-parameter", f"`{mexpr}` is a NUL-terminated UTF-8 string.",
                             {"check": "string", "field": mexpr, "optional": False})
                continue
            count = f"{expr}{m.len}" if m.len else None
            if m.type == "const char* const*":
                self.add(f"{mrule}-parameter",
                         f"If `{count}` is not 0, `{mexpr}` is a valid pointer to an array of `{count}` "
                         "NUL-terminated UTF-8 strings.",
                         {"check": "string_array", "field": mexpr, "count": count})
                continue
            sub = self.structs.get(mtyp)
            if count:
                if self.reg.handle(mtyp):
                    what = f"valid `{mtyp}` handles"
                elif sub:
                    what = f"valid `{mtyp}` structures"
                elif mtyp == "void":
                    what = "bytes"
                else:
                    what = f"`{mtyp}` values"
                opt = " (or NULL)" if m.optional else ""
                self.add(f"{mrule}-parameter",
                         f"If `{count}` is not 0, `{mexpr}` is a valid pointer{opt} to an array of `{count}` {what}.",
                         {"check": "array", "field": mexpr, "type": mtyp, "count": count, "optional": m.optional})
                if sub:
                    self.struct_rules(mrule, mexpr + index(mexpr), sub)
                continue
            if sub:
                if m.optional:
                    self.add(f"{mrule}-parameter",
                             f"`{mexpr}` is NULL or a valid pointer to a valid `{mtyp}` structure.",
                             {"check": "pointer", "field": mexpr, "type": mtyp, "optional": True})
                else:
                    self.add(f"{mrule}-parameter", f"`{mexpr}` is a valid pointer to a valid `{mtyp}` structure.",
                             {"check": "pointer", "field": mexpr, "type": mtyp, "optional": False})
                self.struct_rules(mrule, mexpr + "->", sub, arrow=True)


def index(expr: str) -> str:
    """The element subscript for an array reached through expr: [i], then [j], [k]."""
    return "[" + "ijk"[min(expr.count("["), 2)] + "]"


def prototype(cmd: registry.Command) -> str:
    params = ",\n    ".join(p.decl() for p in cmd.params) if cmd.params else "void"
    return f"```c\n{cmd.ret} {cmd.name}(\n    {params});\n```"


def implicit_block(imp: Implicit) -> str:
    lines = ["**Valid usage (implicit)**", ""]
    lines += [f"- **{vuid}**: {text}" for vuid, text, _ in imp.rules]
    return "\n".join(lines)


def render_gen(kind: str, name: str, body: str) -> str:
    return f"<!-- gen:{kind} {name} -->\n{body}\n<!-- /gen -->"


# ---------------------------------------------------------------------------

def regenerate_md(text: str, reg: registry.Registry, implicits: dict[str, Implicit]) -> str:
    cmds = {c.name: c for c in reg.commands}

    def repl(m: re.Match) -> str:
        kind, name = m.group(1), m.group(2)
        if name not in cmds:
            return m.group(0)  # reported by the checks
        body = prototype(cmds[name]) if kind == "prototype" else implicit_block(implicits[name])
        return render_gen(kind, name, body)

    return GEN_RE.sub(repl, text)


# Ends a rule that drivers check too; whatever follows qualifies it.
DRIVER_MARK = re.compile(r"\s*\*Drivers check this rule\b.*$")


def explicit_rules(md: str, implicits: dict[str, Implicit]) -> list[tuple[str, str, bool]]:
    """(vuid, plain description, drivers check it) of each hand-written rule of api.md."""
    implicit_ids = {v for imp in implicits.values() for v, _, _ in imp.rules}
    out = []
    for line in md.splitlines():
        b = BULLET_RE.match(line)
        if not b or b.group(1) in implicit_ids:
            continue
        text = b.group(2)
        driver = bool(DRIVER_MARK.search(text))
        text = DRIVER_MARK.sub(" ", text)
        text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # links -> their text
        text = text.replace("`", "").replace("*", "").strip()
        out.append((b.group(1), text, driver))
    return out


# Defaults for a new hand-written rule, from the last word of its rule name.
# They are only a starting point: vuids.json is reviewed by hand and keeps
# whatever check/error/when it says.
_STATE_WORDS = {"recording", "pending", "state", "oneShot", "mapped", "committed", "inUse", "allocations",
                "children", "idle", "devices", "messengers", "labels", "open", "queueAllocated", "ordered",
                "created", "pipeline", "bindings", "constants", "written", "barrier", "queueFamily"}


def seed_explicit(vuid: str) -> dict:
    words = vuid.split("-")
    last = words[-1]
    is_cmd = words[2].startswith("xgpuCmd")
    uses_ref = is_cmd and any(w in ("pDst", "pSrc", "pCounts", "pBuffers", "pBufferBarriers", "static", "dynamic",
                                    "overlap") for w in words[3:])
    if last in _STATE_WORDS:
        check, error = "state", "XGPU_ERROR_INVALID_USAGE"
    elif last == "usage" and ("Buffer" in vuid or is_cmd or "pBindings" in vuid) and "Alloca-usage" not in vuid \
            and "pCreateInfo-usage" not in vuid:
        check, error = "buffer_usage", "XGPU_ERROR_INVALID_USAGE"
    elif last == "flags" and "queue" in words:
        check, error = "queue_capability", "XGPU_ERROR_INVALID_USAGE"
    elif last in ("range", "srcRange", "dstRange", "refRange"):
        check, error = "range", "XGPU_ERROR_INVALID_ARGUMENT"
    elif last == "offset" and (is_cmd or "pBindings" in vuid):
        check, error = "alignment", "XGPU_ERROR_INVALID_ARGUMENT"
    elif last == "compatible":
        check, error = "allocator", "XGPU_ERROR_INVALID_ARGUMENT"
    elif last == "device":
        check, error = "parent", "XGPU_ERROR_INVALID_ARGUMENT"
    elif last == "unique":
        check, error = "unique", "XGPU_ERROR_INVALID_ARGUMENT"
    elif last in ("bindingSlot", "kind"):
        check, error = "buffer_ref", "XGPU_ERROR_INVALID_ARGUMENT"
    elif last == "overlap":
        check, error = "overlap", "XGPU_ERROR_INVALID_ARGUMENT"
    else:
        check, error = "value", "XGPU_ERROR_INVALID_ARGUMENT"
    when = "call_or_submit" if uses_ref and last not in ("bindingSlot", "kind") else "call"
    return {"check": check, "error": error, "when": when}


def regenerate_json(old: dict, implicits: dict[str, Implicit], reg: registry.Registry, md: str) -> dict:
    """Implicit entries from the registry; explicit ones from api.md's bullets, keeping the
    hand-reviewed check/error/when of entries that exist already. Command order."""
    order = {c.name: i for i, c in enumerate(reg.commands)}
    known = {v.get("id"): v for v in old.get("vuids", []) if isinstance(v, dict) and v.get("kind") == "explicit"}
    explicit = []
    for vuid, text, driver in explicit_rules(md, implicits):
        func = vuid[len("XGPU-VUID-"):].split("-", 1)[0]
        prev = known.get(vuid) or seed_explicit(vuid)
        explicit.append({"id": vuid, "function": func, "kind": "explicit", "check": prev.get("check"),
                         "error": prev.get("error"), "when": prev.get("when"), "driver": driver,
                         "description": text})
    implicit = []
    for name, imp in implicits.items():
        for vuid, _, check in imp.rules:
            implicit.append(dict({"id": vuid, "function": name, "kind": "implicit"}, **check))
    everything = explicit + implicit
    everything.sort(key=lambda v: (order.get(v["function"], 1 << 30), v["kind"] == "implicit"))
    out = {k: v for k, v in old.items() if k != "vuids"}
    out.setdefault("comment", "Generated and checked by spec/gen/spec_check.py from spec/api.md and the registry. "
                   "Explicit entries: check, error and when are reviewed by hand; description and driver "
                   "follow api.md. Implicit entries follow the registry.")
    out["vuids"] = everything
    return out


def dump_json(data: dict) -> str:
    # One entry per line: diffs stay readable and the file stays short.
    head = {k: v for k, v in data.items() if k != "vuids"}
    lines = ["{"]
    for k, v in head.items():
        lines.append(f"  {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)},")
    lines.append('  "vuids": [')
    entries = [json.dumps(v, ensure_ascii=False) for v in data["vuids"]]
    lines += [f"    {e}," for e in entries[:-1]] + ([f"    {entries[-1]}"] if entries else [])
    lines += ["  ]", "}"]
    return "\n".join(lines) + "\n"


def check(reg: registry.Registry, md: str, vj: dict, implicits: dict[str, Implicit]) -> list[str]:
    errors: list[str] = []
    cmd_names = [c.name for c in reg.commands]
    cmd_set = set(cmd_names)

    # 1. One section per command, no section for something else.
    sections = re.findall(r"^### (\S+)\s*$", md, re.M)
    section_set = set(sections)
    for name in cmd_names:
        if name not in section_set:
            errors.append(f"api.md: command {name} has no '### {name}' section")
    for name in sections:
        if name.startswith("xgpu") and name not in cmd_set:
            errors.append(f"api.md: section '### {name}' names no command of the registry")
    for name in sorted({s for s in sections if sections.count(s) > 1}):
        errors.append(f"api.md: '### {name}' appears {sections.count(name)} times")

    # 2. Every struct is mentioned.
    for s in reg.structs:
        if not re.search(rf"`{re.escape(s.name)}`", md):
            errors.append(f"api.md: struct {s.name} is never mentioned (as `{s.name}`)")

    # 3. Derived blocks present and up to date.
    blocks = {(m.group(1), m.group(2)): m.group(0) for m in GEN_RE.finditer(md)}
    for kind, name in blocks:
        if name not in cmd_set:
            errors.append(f"api.md: generated block gen:{kind} {name} names no command of the registry")
    for c in reg.commands:
        for kind in ("prototype", "implicit"):
            block = blocks.get((kind, c.name))
            if block is None:
                errors.append(f"api.md: section {c.name} lacks its '<!-- gen:{kind} {c.name} -->' block")
                continue
            body = prototype(c) if kind == "prototype" else implicit_block(implicits[c.name])
            if block != render_gen(kind, c.name, body):
                errors.append(f"api.md: the gen:{kind} block of {c.name} differs from the registry "
                              "(run spec/gen/spec_check.py --write)")

    # 4. VUIDs of api.md: well formed, unique, each inside its command's section.
    md_vuids: list[str] = []
    current = None
    for lineno, line in enumerate(md.splitlines(), 1):
        h = re.match(r"^#{1,3} (\S+)", line)
        if h:
            current = h.group(1) if line.startswith("### ") else None
        if "XGPU-VUID-" not in line:
            continue
        b = BULLET_RE.match(line)
        if not b:
            # A reference to a rule from prose: it must name a defined rule (checked below).
            continue
        vuid = b.group(1)
        md_vuids.append(vuid)
        func = well_formed(vuid, cmd_set, errors, f"api.md:{lineno}")
        if func and current != func:
            errors.append(f"api.md:{lineno}: {vuid} is listed under '### {current}', not under its command {func}")
    md_set = set(md_vuids)
    for v in sorted({v for v in md_vuids if md_vuids.count(v) > 1}):
        errors.append(f"api.md: {v} is defined {md_vuids.count(v)} times")
    for lineno, line in enumerate(md.splitlines(), 1):
        b = BULLET_RE.match(line)
        for ref in VUID_RE.findall(b.group(2) if b else line):
            if ref not in md_set:
                errors.append(f"api.md:{lineno}: reference to undefined {ref}")

    # 5. vuids.json: well formed, unique, same set as api.md, functions match.
    entries = vj.get("vuids")
    if not isinstance(entries, list):
        errors.append("vuids.json: no 'vuids' list")
        return errors
    json_ids = []
    for i, e in enumerate(entries):
        vid = e.get("id") if isinstance(e, dict) else None
        if not isinstance(vid, str):
            errors.append(f"vuids.json: entry {i} has no string 'id'")
            continue
        json_ids.append(vid)
        func = well_formed(vid, cmd_set, errors, "vuids.json")
        if func and e.get("function") != func:
            errors.append(f"vuids.json: {vid} has function {e.get('function')!r}, expected {func!r}")
        if e.get("kind") not in ("implicit", "explicit"):
            errors.append(f"vuids.json: {vid} has kind {e.get('kind')!r}, expected 'implicit' or 'explicit'")
        if e.get("kind") == "explicit":
            for key in ("check", "description", "error", "when"):
                if not e.get(key):
                    errors.append(f"vuids.json: {vid} lacks '{key}'")
            # An API version nobody implements is XGPU_ERROR_INCOMPATIBLE_DRIVER, as in Vulkan.
            if e.get("check") == "version":
                if e.get("error") != "XGPU_ERROR_INCOMPATIBLE_DRIVER":
                    errors.append(f"vuids.json: {vid} (check 'version') has error {e.get('error')!r}, expected "
                                  "XGPU_ERROR_INCOMPATIBLE_DRIVER")
            elif e.get("error") not in ("XGPU_ERROR_INVALID_ARGUMENT", "XGPU_ERROR_INVALID_USAGE"):
                errors.append(f"vuids.json: {vid} has error {e.get('error')!r}, expected "
                              "XGPU_ERROR_INVALID_ARGUMENT or XGPU_ERROR_INVALID_USAGE")
            if e.get("when") not in ("call", "call_or_submit"):
                errors.append(f"vuids.json: {vid} has when {e.get('when')!r}, expected 'call' or 'call_or_submit'")
    for v in sorted({v for v in json_ids if json_ids.count(v) > 1}):
        errors.append(f"vuids.json: {v} appears {json_ids.count(v)} times")
    json_set = set(json_ids)
    for v in sorted(md_set - json_set):
        errors.append(f"vuids.json: {v} (defined in api.md) is missing")
    for v in sorted(json_set - md_set):
        errors.append(f"api.md: {v} (listed in vuids.json) is not defined")
    expected = regenerate_json(vj, implicits, reg, md)
    if not errors and expected != vj:
        exp = {e["id"]: e for e in expected["vuids"]}
        for e in entries:
            if isinstance(e, dict) and e.get("id") in exp and exp[e["id"]] != e:
                errors.append(f"vuids.json: {e['id']} differs from what api.md and the registry give: "
                              f"{json.dumps(e)} != {json.dumps(exp[e['id']])}")
        if not errors:
            errors.append("vuids.json: entries are out of order or the header differs "
                          "(run spec/gen/spec_check.py --write)")
    return errors


def well_formed(vuid: str, cmd_set: set[str], errors: list[str], where: str) -> str | None:
    """Returns the command a VUID belongs to, or None (and reports) if malformed."""
    rest = vuid[len("XGPU-VUID-"):] if vuid.startswith("XGPU-VUID-") else None
    func, _, rule = (rest or "").partition("-")
    if rest is None or not func:
        errors.append(f"{where}: {vuid!r} does not start with XGPU-VUID-<function>-")
        return None
    if func not in cmd_set:
        errors.append(f"{where}: {vuid}: {func!r} is not a command of the registry")
        return None
    if not RULE_RE.match(rule):
        errors.append(f"{where}: {vuid}: rule {rule!r} is not dash-separated words of letters and digits")
        return None
    return func


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--write", action="store_true",
                    help="regenerate api.md's gen blocks and vuids.json's implicit entries first")
    ap.add_argument("--registry", type=Path, default=registry.REGISTRY_PATH)
    ap.add_argument("--api", type=Path, default=API_MD)
    ap.add_argument("--vuids", type=Path, default=VUIDS_JSON)
    args = ap.parse_args()

    reg = registry.load(args.registry)
    implicits = {c.name: Implicit(reg, c) for c in reg.commands}
    if not args.api.exists():
        print(f"spec_check: {args.api} does not exist", file=sys.stderr)
        return 1
    md = args.api.read_text()
    vj = json.loads(args.vuids.read_text()) if args.vuids.exists() else {"vuids": []}
    if args.write:
        md = regenerate_md(md, reg, implicits)
        args.api.write_text(md)
        vj = regenerate_json(vj, implicits, reg, md)
        args.vuids.write_text(dump_json(vj))

    errors = check(reg, md, vj, implicits)
    if errors:
        for e in errors:
            print(f"spec_check: {e}", file=sys.stderr)
        print(f"spec_check: {len(errors)} problem(s) between spec/api.md, spec/vuids.json and the registry",
              file=sys.stderr)
        return 1
    n = len(vj["vuids"])
    print(f"spec_check: ok ({len(reg.commands)} commands, {len(reg.structs)} structs, {n} VUIDs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
