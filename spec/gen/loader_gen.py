"""Generates the loader's dispatch plumbing (loader/generated/): the exported
trampolines, the terminators that unwrap physical devices, the per-driver
function table, the stubs for entry points a driver or layer does not provide,
the name -> function tables behind xgpuGetInstanceProcAddr and
xgpuGetDeviceProcAddr, and the version script exporting only the API.

The hand-written side (loader/src/) provides, in namespace xgpu_loader:
InstanceDispatch / DeviceDispatch (read a handle's first word),
ReportInvalidArgument, ReportUnsupported, AdoptDeviceChild,
UnwrapPhysicalDevice, NamedFunction, and a term_<Name> function for every
instance-table command marked `loader: custom` plus term_CreateInstance,
term_GetInstanceProcAddr and term_GetDeviceProcAddr.
"""
from __future__ import annotations

from .common import banner, gpa_init_function, pfn_struct
from .registry import Command, Registry, upper_snake
from .spec_check import Implicit

GENERATED_BY = "\n *\n * Included by loader/src/ only; spec/loader.md describes the design."

# Global commands the terminator (the element below the last layer) provides.
TERMINATOR_GLOBALS = ("xgpuCreateInstance", "xgpuGetInstanceProcAddr")
# The device-level command the terminator provides through its GetInstanceProcAddr.
TERMINATOR_DEVICE = ("xgpuGetDeviceProcAddr",)


def _object_type(reg: Registry, cmd: Command) -> str:
    p = cmd.dispatch_param
    return reg.handle(p.type).object_type if p else "XGPU_OBJECT_TYPE_UNKNOWN"


def _return(expr: str) -> str:
    return f"return {expr};" if expr else "return;"


# Implicit rules that say an argument must not be NULL.
_NULL_RULE_CHECKS = ("handle", "pointer", "array", "array_out", "string")


def _null_argument_vuid(reg: Registry, cmd: Command, argument: str) -> str:
    """The implicit rule (spec/vuids.json, named as spec_check derives it) that a NULL `argument` breaks."""
    for vuid, _text, check in Implicit(reg, cmd).rules:
        if check["field"] == argument and check["check"] in _NULL_RULE_CHECKS:
            return vuid
    raise ValueError(f"{cmd.name}: no implicit rule requires {argument} (spec_check.Implicit)")


# The loader's record of recordings it refused a command of (loader/src/
# recording.cpp): what these trampolines do besides dispatching. Before the
# call, and around its result ({call} is the dispatched call).
_RECORDING_BEFORE = {
    "xgpuDestroyCommandBuffer": "xgpu_loader::ForgetRecording(commandBuffer);",
    "xgpuQueueSubmit": ("if (!xgpu_loader::SubmittableRecordings(queue, submitCount, pSubmits)) "
                        "return XGPU_ERROR_INVALID_USAGE;"),
}
_RECORDING_RESULT = {
    "xgpuBeginCommandBuffer": "xgpu_loader::BeganRecording(commandBuffer, {call})",
    "xgpuEndCommandBuffer": "xgpu_loader::EndRecording(commandBuffer, {call})",
}


def _is_recording_command(cmd: Command) -> bool:
    """A command recorded into a command buffer (xgpuCmd*): it returns nothing, so a refused one fails the
    recording instead."""
    return cmd.level == "command_buffer" and cmd.name.startswith("xgpuCmd") and cmd.ret == "void"


def _argument_checks(reg: Registry, cmd: Command, indent: str) -> list[str]:
    """Early returns for NULL arguments, reported through the loader's log with the rule's VUID."""
    out = []
    handle = cmd.dispatch_param.name if cmd.dispatch_param else "NULL"
    created = cmd.created_param
    for cond, msg in cmd.required_argument_checks():
        argument = cond.split(" ")[0]
        vuid = _null_argument_vuid(reg, cmd, argument)
        out.append(f"{indent}if ({cond}) {{")
        if created and created.name != argument:
            out.append(f"{indent}    if ({created.name} != NULL) *{created.name} = XGPU_NULL_HANDLE;")
        out.append(f"{indent}    xgpu_loader::ReportInvalidArgument({_object_type(reg, cmd)}, "
                   f"{handle if argument != handle else 'NULL'}, \"{cmd.name}\", \"{vuid}\", \"{msg}\");")
        if _is_recording_command(cmd) and argument != handle:
            out.append(f"{indent}    xgpu_loader::FailRecording({handle}, \"{cmd.name}\", \"{vuid}\");")
        out.append(f"{indent}    {_return(cmd.failure_return('XGPU_ERROR_INVALID_ARGUMENT'))}")
        out.append(f"{indent}}}")
    return out


def _destroyer(reg: Registry, cmd: Command) -> Command | None:
    """The command destroying what cmd creates, when it takes (parent, object, pAllocator)."""
    for c in reg.commands:
        if (c.destroys == cmd.creates and len(c.params) == 3 and c.params[0].type == cmd.params[0].type
                and c.params[1].type == cmd.creates and c.params[2].name == "pAllocator"):
            return c
    return None


def _trampoline(reg: Registry, cmd: Command) -> list[str]:
    table = reg.table_of(cmd)
    accessor = "InstanceDispatch" if table == "instance" else "DeviceDispatch"
    handle = cmd.dispatch_param.name
    # The checks and the call live in Checked<Command>; the exported function
    # calls it behind a catch, so no C++ exception (host memory running out
    # while a message is built) crosses the C API.
    out = [f"static {cmd.ret} Checked{cmd.short_name}({cmd.param_list()}) {{"]
    out += _argument_checks(reg, cmd, "    ")
    call = f"xgpu_loader::{accessor}({handle})->{cmd.short_name}({cmd.arg_list()})"
    if cmd.name in _RECORDING_BEFORE:
        out.append(f"    {_RECORDING_BEFORE[cmd.name]}")
    if cmd.name in _RECORDING_RESULT:
        call = _RECORDING_RESULT[cmd.name].format(call=call)
    if cmd.creates_dispatchable:
        # The driver's new object gets the loader's device table in its first word.
        created = cmd.created_param
        htype = reg.handle(cmd.creates).object_type
        adopt = (f"xgpu_loader::AdoptDeviceChild({cmd.params[0].name}, (void**){created.name}, "
                 f"{htype}, \"{cmd.name}\")")
        if cmd.ret == "XgpuResult":
            out.append(f"    XgpuResult result = {call};")
            destroyer = _destroyer(reg, cmd)
            out.append(f"    if (result >= 0) {{")
            out.append(f"        {reg.handle(cmd.creates).name} created = *{created.name};")
            out.append(f"        if (!{adopt}) {{")
            if destroyer:
                # The driver's object is unusable: give it back before failing.
                allocator = "pAllocator" if any(p.name == "pAllocator" for p in cmd.params) else "NULL"
                out.append(f"            xgpu_loader::{accessor}({handle})->{destroyer.short_name}"
                           f"({cmd.params[0].name}, created, {allocator});")
            else:
                out.append("            (void)created;")
            out.append("            result = XGPU_ERROR_INCOMPATIBLE_DRIVER;")
            out.append("        }")
            out.append("    }")
            out.append("    return result;")
        elif cmd.ret == "void":
            out.append(f"    {call};")
            out.append(f"    (void){adopt};")
        else:
            raise ValueError(f"{cmd.name}: a non-custom command creating {cmd.creates} must return XgpuResult or void")
    else:
        out.append(f"    return {call};" if cmd.ret != "void" else f"    {call};")
    out.append("}")
    out.append("")
    out.append(f"XGPU_LOADER_EXPORT {cmd.ret} XGPU_API_CALL {cmd.name}({cmd.param_list()}) {{")
    plain = not (cmd.name in _RECORDING_BEFORE or cmd.name in _RECORDING_RESULT or cmd.creates_dispatchable)
    if plain:
        # Nothing of the loader's runs on the way down when the arguments are
        # there: the call below is the trampoline's last act (a tail call, no
        # frame or landing pad of its own; what it calls is itself an entry
        # point that lets no exception out). A missing argument takes the
        # checked path, whose reports may allocate, behind the catch.
        refused = " || ".join(f"({cond})" for cond, _ in cmd.required_argument_checks())
        if refused:
            # The refusal, out of line: the exported function keeps no frame.
            export = out.pop()
            out.append(f"[[gnu::noinline, gnu::cold]] static {cmd.ret} Refuse{cmd.short_name}({cmd.param_list()}) {{")
            out.append("    try {")
            checked = f"Checked{cmd.short_name}({cmd.arg_list()})"
            out.append(f"        return {checked};" if cmd.ret != "void" else f"        {checked};")
            out.append("    } catch (const std::exception&) {")
            if cmd.ret == "XgpuResult":
                out.append("        return XGPU_ERROR_OUT_OF_HOST_MEMORY;")
            elif cmd.ret != "void":
                out.append(f"        return {cmd.ret}{{}};")
            out.append("    }")
            out.append("}")
            out.append("")
            out.append(export)
            out.append(f"    if (__builtin_expect({refused}, 0)) return Refuse{cmd.short_name}({cmd.arg_list()});")
        call = f"xgpu_loader::{accessor}({handle})->{cmd.short_name}({cmd.arg_list()})"
        out.append(f"    return {call};")
        out.append("}")
        return out
    out.append("    try {")
    forward = f"Checked{cmd.short_name}({cmd.arg_list()})"
    out.append(f"        return {forward};" if cmd.ret != "void" else f"        {forward};")
    out.append("    } catch (const std::exception&) {")
    if cmd.ret == "XgpuResult":
        out.append("        return XGPU_ERROR_OUT_OF_HOST_MEMORY;")
    elif cmd.ret != "void":
        out.append(f"        return {cmd.ret}{{}};")
    out.append("    }")
    out.append("}")
    return out


def generate_trampolines(reg: Registry) -> str:
    out = [banner("loader/generated/trampolines.inc: the exported entry points of libxgpu for every\n"
                  " * command the registry does not mark `loader: custom`. Each checks its\n"
                  " * required arguments (a NULL one is reported with the VUID of the implicit\n"
                  " * rule it breaks), then calls through the dispatch table in the first word\n"
                  " * of its dispatchable handle." + GENERATED_BY), ""]
    for cmd in reg.commands:
        if cmd.loader_custom:
            continue
        if cmd.level == "global":
            raise ValueError(f"{cmd.name}: global commands need `loader: custom`")
        out += _trampoline(reg, cmd)
        out.append("")
    return "\n".join(out)


def _terminator_name(cmd: Command) -> str:
    return f"term_{cmd.short_name}"


def _custom_terminators(reg: Registry) -> list[Command]:
    return [c for c in reg.commands if c.name in TERMINATOR_GLOBALS + TERMINATOR_DEVICE
            or (reg.table_of(c) == "instance" and c.loader_custom)]


def generate_terminator_decls(reg: Registry) -> str:
    out = [banner("loader/generated/terminator_decls.inc: the terminators written by hand\n"
                  " * (loader/src/terminators.cpp): commands marked `loader: custom` in the\n"
                  " * instance table, and the terminator's create and proc-addr functions." + GENERATED_BY), ""]
    for cmd in _custom_terminators(reg):
        out.append(f"{cmd.ret} XGPU_API_CALL {_terminator_name(cmd)}({cmd.param_list()});")
    out.append("")
    return "\n".join(out)


def generate_terminators(reg: Registry) -> str:
    out = [banner("loader/generated/terminators.inc: the loader's terminators, the element of\n"
                  " * the instance chain below the last layer. Physical-device commands unwrap the\n"
                  " * loader's physical device and call the owning driver; commands marked\n"
                  " * `loader: custom` are written by hand (declared here)." + GENERATED_BY), ""]
    for cmd in reg.instance_table_commands:
        if cmd.loader_custom:
            continue
        if cmd.level != "physical_device":
            raise ValueError(f"{cmd.name}: instance-level commands need `loader: custom` (the terminator "
                             "cannot know which drivers to call)")
        pd = cmd.params[0].name
        args = ", ".join(["physical->handle"] + [p.base_name for p in cmd.params[1:]])
        out.append(f"static {cmd.ret} XGPU_API_CALL {_terminator_name(cmd)}({cmd.param_list()}) {{")
        out.append(f"    const PhysicalDevice* physical = UnwrapPhysicalDevice({pd});")
        out.append(f"    if (physical->driver->table.{cmd.short_name} == NULL) {{")
        out.append(f"        ReportUnsupported(XGPU_OBJECT_TYPE_PHYSICAL_DEVICE, {pd}, \"{cmd.name}\");")
        out.append(f"        {_return(cmd.failure_return('XGPU_ERROR_FEATURE_NOT_PRESENT'))}")
        out.append("    }")
        call = f"physical->driver->table.{cmd.short_name}({args})"
        out.append(f"    return {call};" if cmd.ret != "void" else f"    {call};")
        out.append("}")
        out.append("")
    entries = sorted([c for c in reg.commands if c.name in TERMINATOR_GLOBALS + TERMINATOR_DEVICE]
                     + reg.instance_table_commands, key=lambda c: c.name)
    out.append("/* What the terminator's GetInstanceProcAddr returns, sorted by name. */")
    out.append("static const NamedFunction kTerminatorFunctions[] = {")
    for cmd in entries:
        out.append(f"    {{\"{cmd.name}\", (PFN_xgpuVoidFunction){_terminator_name(cmd)}}},")
    out.append("};")
    out.append("")
    out.append("PFN_xgpuVoidFunction TerminatorProcAddr(const char* name) { return Lookup(kTerminatorFunctions, name); }")
    out.append("")
    return "\n".join(out)


def generate_table_types(reg: Registry) -> str:
    out = [banner("loader/generated/tables_types.inc: the per-driver table of global functions." + GENERATED_BY), ""]
    driver_globals = [c for c in reg.global_commands if c.name != "xgpuGetInstanceProcAddr"]
    out += pfn_struct("DriverGlobalTable", driver_globals,
                      "A driver's global functions, from xgpu_icdGetInstanceProcAddr(NULL, name).")
    out.append("")
    out += gpa_init_function("InitDriverGlobalTable", "DriverGlobalTable", driver_globals,
                             "PFN_xgpu_icdGetInstanceProcAddr", "XgpuInstance", "instance",
                             "Fills table from a driver's GetInstanceProcAddr (instance is NULL).",
                             qualifiers="static inline")
    out.append("")
    return "\n".join(out)


def generate_tables(reg: Registry) -> str:
    out = [banner("loader/generated/tables.inc: stubs for entry points a driver or layer leaves\n"
                  " * NULL, and the name -> function tables of libxgpu's exports." + GENERATED_BY), ""]
    out.append("/* Stubs standing in for entry points the chain below does not provide: they")
    out.append(" * report the call and fail (XGPU_ERROR_FEATURE_NOT_PRESENT, 0, NULL or nothing). */")
    for table, cmds in (("Instance", reg.instance_table_commands), ("Device", reg.device_table_commands)):
        for cmd in cmds:
            handle = cmd.dispatch_param.name
            out.append(f"static {cmd.ret} XGPU_API_CALL unsupported_{cmd.short_name}({cmd.param_list()}) {{")
            for p in cmd.params[1:]:
                out.append(f"    (void){p.base_name};")
            out.append(f"    ReportUnsupported({_object_type(reg, cmd)}, {handle}, \"{cmd.name}\");")
            ret = cmd.failure_return("XGPU_ERROR_FEATURE_NOT_PRESENT")
            if ret:
                out.append(f"    return {ret};")
            out.append("}")
        out.append("")
        out.append(f"/* Replaces every NULL entry of table with its stub. */")
        out.append(f"void FillUnsupported{table}Entries(Xgpu{table}DispatchTable* table) {{")
        for cmd in cmds:
            out.append(f"    if (table->{cmd.short_name} == NULL) table->{cmd.short_name} = unsupported_{cmd.short_name};")
        out.append("}")
        out.append("")
    out.append("/* Every entry point libxgpu exports, sorted by name (xgpuGetInstanceProcAddr). */")
    out.append("static const NamedFunction kExportedFunctions[] = {")
    for cmd in sorted(reg.commands, key=lambda c: c.name):
        out.append(f"    {{\"{cmd.name}\", (PFN_xgpuVoidFunction){cmd.name}}},")
    out.append("};")
    out.append("")
    out.append("/* Global entry points, sorted by name (xgpuGetInstanceProcAddr with a NULL instance). */")
    out.append("static const NamedFunction kGlobalFunctions[] = {")
    for cmd in sorted(reg.global_commands, key=lambda c: c.name):
        out.append(f"    {{\"{cmd.name}\", (PFN_xgpuVoidFunction){cmd.name}}},")
    out.append("};")
    out.append("")
    out.append("/* Device-table entry points xgpuGetDeviceProcAddr answers with libxgpu's own")
    out.append(" * export because the loader must see the call: commands written by hand and")
    out.append(" * commands creating dispatchable objects. Sorted by name. */")
    out.append("static const NamedFunction kDeviceLoaderFunctions[] = {")
    for cmd in sorted(reg.device_table_commands, key=lambda c: c.name):
        if cmd.loader_custom or cmd.creates_dispatchable:
            out.append(f"    {{\"{cmd.name}\", (PFN_xgpuVoidFunction){cmd.name}}},")
    out.append("};")
    out.append("")
    for fn, table in (("LookupExported", "kExportedFunctions"), ("LookupGlobal", "kGlobalFunctions"),
                      ("LookupDeviceLoaderFunction", "kDeviceLoaderFunctions")):
        out.append(f"PFN_xgpuVoidFunction {fn}(const char* name) {{ return Lookup({table}, name); }}")
    out.append("")
    return "\n".join(out)


def generate_version_script(reg: Registry) -> str:
    lines = ["/* libxgpu exports exactly the xgpu API (spec/xgpu.json). Generated by",
             " * spec/generate.py; do not edit. */", "XGPU_1.0 {", "  global:"]
    lines += [f"    {c.name};" for c in reg.commands]
    lines += ["  local:", "    *;", "};", ""]
    return "\n".join(lines)


OUTPUTS = [
    ("loader/generated/trampolines.inc", generate_trampolines),
    ("loader/generated/terminator_decls.inc", generate_terminator_decls),
    ("loader/generated/terminators.inc", generate_terminators),
    ("loader/generated/tables_types.inc", generate_table_types),
    ("loader/generated/tables.inc", generate_tables),
    ("loader/generated/libxgpu.map", generate_version_script),
]
