"""The xgpu API registry (spec/xgpu.json) as Python objects.

Every generator reads the registry through this module, so there is exactly one
interpretation of it. Standard library only.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

REGISTRY_PATH = Path(__file__).resolve().parent.parent / "xgpu.json"

# Dispatch levels, and which dispatch table a level's commands live in.
LEVELS = ("global", "instance", "physical_device", "device", "queue", "command_buffer")
INSTANCE_TABLE_LEVELS = ("instance", "physical_device")
DEVICE_TABLE_LEVELS = ("device", "queue", "command_buffer")
# The dispatchable handle that is a command's first parameter, per level.
LEVEL_HANDLE = {
    "instance": "XgpuInstance",
    "physical_device": "XgpuPhysicalDevice",
    "device": "XgpuDevice",
    "queue": "XgpuQueue",
    "command_buffer": "XgpuCommandBuffer",
}


def upper_snake(camel: str) -> str:
    """XgpuStructureType -> XGPU_STRUCTURE_TYPE."""
    s = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", camel)
    return s.upper()


@dataclass
class Param:
    type: str                 # C type, e.g. "const XgpuBufferRef*"
    name: str                 # name, possibly with an array suffix "x[3]"
    comment: str = ""         # one-line description (struct members)
    optional: bool = False    # may be NULL / XGPU_NULL_HANDLE
    len: str | None = None    # name of the member/param holding the element count

    @property
    def base_name(self) -> str:
        return self.name.split("[", 1)[0]

    @property
    def array_len(self) -> str | None:
        m = re.search(r"\[(.+)\]$", self.name)
        return m.group(1) if m else None

    @property
    def base_type(self) -> str:
        """The type without const and pointers: "const XgpuBufferRef*" -> "XgpuBufferRef"."""
        t = self.type.replace("const", "").replace("*", "").strip()
        return t

    @property
    def pointer_depth(self) -> int:
        return self.type.count("*")

    def decl(self) -> str:
        return f"{self.type} {self.name}"


def _param(raw: list, with_comment: bool) -> Param:
    typ, name = raw[0], raw[1]
    rest = raw[2:]
    comment = ""
    if with_comment and rest and isinstance(rest[0], str):
        comment, rest = rest[0], rest[1:]
    opts = rest[0] if rest else {}
    return Param(typ, name, comment, bool(opts.get("optional", False)), opts.get("len"))


@dataclass
class Handle:
    name: str
    dispatchable: bool
    parent: str | None
    object_type_value: int

    @property
    def object_type(self) -> str:
        return "XGPU_OBJECT_TYPE_" + upper_snake(self.name[len("Xgpu"):])


@dataclass
class EnumValue:
    name: str
    value: int | str
    comment: str


@dataclass
class Enum:
    name: str
    comment: str
    values: list[EnumValue]

    @property
    def max_enum(self) -> str:
        return upper_snake(self.name) + "_MAX_ENUM"


@dataclass
class Bitmask:
    name: str              # XgpuFooFlags
    bits: str | None       # XgpuFooFlagBits, or None for reserved flags
    comment: str
    values: list[EnumValue]


@dataclass
class FuncPointer:
    name: str
    ret: str
    params: list[Param]
    comment: str


@dataclass
class Struct:
    name: str
    stype: str | None
    comment: str
    members: list[Param]
    returned: bool


@dataclass
class InlineFunction:
    """A small static inline helper of xgpu.h (not an entry point: no dispatch, no VUIDs)."""
    name: str
    ret: str
    params: list[Param]
    comment: str
    body: list[str]          # C99 statements, one per line

    def param_list(self) -> str:
        return ", ".join(p.decl() for p in self.params) if self.params else "void"


@dataclass
class Command:
    name: str
    level: str
    ret: str
    params: list[Param]
    loader_custom: bool      # the loader's trampoline/terminator is written by hand
    creates: str | None      # handle type this command creates (last parameter)
    destroys: str | None     # handle type this command destroys

    @property
    def pfn(self) -> str:
        return "PFN_" + self.name

    @property
    def short_name(self) -> str:
        """xgpuCreateBuffer -> CreateBuffer (dispatch table member name)."""
        return self.name[len("xgpu"):]

    def param_list(self) -> str:
        return ", ".join(p.decl() for p in self.params) if self.params else "void"

    def arg_list(self) -> str:
        return ", ".join(p.base_name for p in self.params)

    @property
    def creates_dispatchable(self) -> bool:
        return self.creates in ("XgpuInstance", "XgpuDevice", "XgpuQueue", "XgpuCommandBuffer")

    @property
    def dispatch_param(self) -> Param | None:
        """The dispatchable handle the command dispatches on (its first parameter); None for global commands."""
        return None if self.level == "global" else self.params[0]

    @property
    def created_param(self) -> Param | None:
        """The output parameter receiving the created handle (the last parameter), if the command creates one."""
        return self.params[-1] if self.creates else None

    def failure_return(self, result_code: str) -> str:
        """The C expression to return when the command cannot run: result_code for XgpuResult, 0/NULL for
        other return types, "" for void."""
        if self.ret == "void":
            return ""
        if self.ret == "XgpuResult":
            return result_code
        return "NULL" if self.ret.startswith("PFN_") or "*" in self.ret else f"({self.ret})0"

    def required_argument_checks(self) -> list[tuple[str, str]]:
        """[(C condition true when an argument is invalid, message)] for what must not be NULL: the
        dispatchable handle, every non-optional pointer, and non-optional arrays whose count is not 0.
        Output arrays counted through a pointer (pFooCount) are optional by definition."""
        checks = []
        names = {p.base_name for p in self.params}
        for i, p in enumerate(self.params):
            if i == 0 and self.level in LEVEL_HANDLE:
                if not p.optional:
                    checks.append((f"{p.name} == NULL", f"{p.name} is NULL"))
                continue
            if p.optional or p.pointer_depth == 0 or p.array_len:
                continue
            if p.len and p.len in names:
                checks.append((f"{p.name} == NULL && {p.len} != 0", f"{p.name} is NULL but {p.len} is not 0"))
            elif not p.len:
                checks.append((f"{p.name} == NULL", f"{p.name} is NULL"))
        return checks


@dataclass
class Registry:
    api_version: tuple[int, int, int]
    header_version: int
    constants: list[tuple[str, str, str]]
    basetypes: list[tuple[str, str, str]]
    handles: list[Handle]
    enums: list[Enum]
    bitmasks: list[Bitmask]
    funcpointers: list[FuncPointer]
    structs: list[Struct]
    commands: list[Command]
    inline_functions: list[InlineFunction] = field(default_factory=list)
    _handle_by_name: dict[str, Handle] = field(default_factory=dict)

    def handle(self, name: str) -> Handle | None:
        return self._handle_by_name.get(name)

    def commands_at(self, levels) -> list[Command]:
        return [c for c in self.commands if c.level in levels]

    @property
    def instance_table_commands(self) -> list[Command]:
        return self.commands_at(INSTANCE_TABLE_LEVELS)

    @property
    def device_table_commands(self) -> list[Command]:
        return self.commands_at(DEVICE_TABLE_LEVELS)

    @property
    def global_commands(self) -> list[Command]:
        return self.commands_at(("global",))

    def table_of(self, cmd: Command) -> str | None:
        """Which dispatch table holds cmd: "instance", "device", or None for global commands."""
        if cmd.level in INSTANCE_TABLE_LEVELS:
            return "instance"
        if cmd.level in DEVICE_TABLE_LEVELS:
            return "device"
        return None

    def struct(self, name: str) -> Struct | None:
        for s in self.structs:
            if s.name == name:
                return s
        return None


def load(path: Path = REGISTRY_PATH) -> Registry:
    raw = json.loads(Path(path).read_text())
    handles = [Handle(h["name"], h["dispatchable"], h["parent"], h["object_type"]) for h in raw["handles"]]
    enums = []
    for e in raw["enums"]:
        values = [EnumValue(*v) for v in e["values"]]
        if e.get("from_handles"):
            values += [EnumValue(h.object_type, h.object_type_value, f"{h.name}") for h in handles]
        enums.append(Enum(e["name"], e.get("comment", ""), values))
    bitmasks = [Bitmask(b["name"], b.get("bits"), b.get("comment", ""),
                        [EnumValue(*v) for v in b.get("values", [])]) for b in raw["bitmasks"]]
    funcpointers = [FuncPointer(f["name"], f["return"], [_param(p, False) for p in f["params"]],
                                f.get("comment", "")) for f in raw["funcpointers"]]
    structs = []
    for s in raw["structs"]:
        members = [_param(m, True) for m in s["members"]]
        if s.get("stype"):
            members = [Param("XgpuStructureType", "sType", "type of this structure: " + s["stype"]),
                       Param("const void*", "pNext", "NULL or an extension structure", optional=True)] + members
        structs.append(Struct(s["name"], s.get("stype"), s.get("comment", ""), members, bool(s.get("returned"))))
    commands = []
    for c in raw["commands"]:
        if c["level"] not in LEVELS:
            raise ValueError(f"{c['name']}: unknown level {c['level']!r}")
        commands.append(Command(c["name"], c["level"], c["return"], [_param(p, False) for p in c["params"]],
                                c.get("loader") == "custom", c.get("creates"), c.get("destroys")))
    inline_functions = [InlineFunction(f["name"], f["return"], [_param(p, False) for p in f["params"]],
                                       f.get("comment", ""), list(f["body"]))
                        for f in raw.get("inline_functions", [])]
    reg = Registry(tuple(raw["api"]["version"]), raw["api"]["header_version"],
                   [tuple(x) for x in raw["constants"]], [tuple(x) for x in raw["basetypes"]],
                   handles, enums, bitmasks, funcpointers, structs, commands, inline_functions)
    reg._handle_by_name = {h.name: h for h in handles}
    _check(reg)
    return reg


def _check(reg: Registry) -> None:
    """Structural consistency of the registry itself."""
    names = set()
    for c in reg.commands:
        if c.name in names:
            raise ValueError(f"duplicate command {c.name}")
        names.add(c.name)
        if c.level in LEVEL_HANDLE and c.name not in ("xgpuGetInstanceProcAddr",):
            if not c.params or c.params[0].type != LEVEL_HANDLE[c.level]:
                raise ValueError(f"{c.name}: level {c.level} needs first parameter {LEVEL_HANDLE[c.level]}")
        for p in c.params:
            if p.len and not p.len.startswith("p") and p.len not in [q.base_name for q in c.params]:
                raise ValueError(f"{c.name}.{p.name}: len {p.len} is not a parameter")
    for f in reg.inline_functions:
        if f.name in names:
            raise ValueError(f"inline function {f.name} has the name of a command")
    for s in reg.structs:
        member_names = [m.base_name for m in s.members]
        for m in s.members:
            if m.len and m.len not in member_names:
                raise ValueError(f"{s.name}.{m.name}: len {m.len} is not a member")
