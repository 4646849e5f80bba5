"""Reader of `nvidia-smi --query-gpu=... --format=csv` (with or without `noheader`, `nounits`).

Reads the GPU list (index, name, pci.bus_id, driver_version) and the PCIe link fields:
pcie.link.gen.current -> link_gen, pcie.link.gen.max -> link_gen_max, pcie.link.width.current
-> link_width, pcie.link.width.max -> link_width_max, and where asked for
pcie.link.gen.gpucurrent (link_gen), pcie.link.gen.gpumax and pcie.link.gen.hostmax
(link_gen_max), as the `nvidia-smi -q` reader does. Other columns are read past. The columns
come from the CSV header, or, for `noheader` output, from the `--query-gpu=` command line
saved with it. 'N/A' / '[N/A]' / '[Not Supported]' leave a value unknown. `current` drops at
idle to save power: read it under load.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from advisor.i18n import N_
from advisor.measure.models import GpuInfo, Machine, Measurement, Metric, Result, Source
from advisor.measure.parsers._common import (
    MAX_GPUS,
    Line,
    check_not_empty,
    fail,
    is_int,
    not_this_tool,
    numbered_lines,
)

TOOL = "query-gpu"
_COMMAND = re.compile(r"--query-gpu[=\s]+([A-Za-z0-9_.,]{1,2000})")
_FIELD = re.compile(r"[a-z][a-z0-9_]*(?:\.[a-z0-9_]+)*")
_NOT_AVAILABLE = {"N/A", "[N/A]", "Not Supported", "[Not Supported]", "Unknown", "[Unknown]"}
_ALIASES = {"gpu_name": "name", "gpu_bus_id": "pci.bus_id"}

# field -> (metric, kind, note)
LINK_FIELDS: dict[str, tuple[Metric, str, str]] = {
    "pcie.link.gen.current": (
        "link_gen",
        "gen",
        "pcie.link.gen.current: drops at idle to save power; read it under load",
    ),
    "pcie.link.gen.gpucurrent": (
        "link_gen",
        "gen",
        "pcie.link.gen.gpucurrent: the GPU side of the link right now",
    ),
    "pcie.link.gen.max": (
        "link_gen_max",
        "gen",
        "pcie.link.gen.max: the most the GPU and its slot can both do",
    ),
    "pcie.link.gen.gpumax": ("link_gen_max", "gen", "pcie.link.gen.gpumax: the GPU's own highest generation"),
    "pcie.link.gen.hostmax": (
        "link_gen_max",
        "gen",
        "pcie.link.gen.hostmax: the slot / root port's highest generation",
    ),
    "pcie.link.width.current": (
        "link_width",
        "width",
        "pcie.link.width.current: lanes in use now; can drop at idle on some GPUs",
    ),
    "pcie.link.width.max": (
        "link_width_max",
        "width",
        "pcie.link.width.max: the widest link the GPU and slot agree on",
    ),
}


@dataclass
class _Table:
    columns: list[str]
    header: Line | None  # None: columns from the command line (noheader output)
    rows: list[tuple[Line, list[str]]]


def parse(text: str, filename: str) -> Measurement:
    """Read `nvidia-smi --query-gpu=... --format=csv` output into a Measurement."""
    check_not_empty(text, filename, TOOL)
    table = _table(numbered_lines(text), text, filename)
    if not any(c in LINK_FIELDS for c in table.columns) and "index" not in table.columns:
        raise fail(
            filename,
            "the query asks for no PCIe link field (pcie.link.gen.current, pcie.link.width.max, ...)",
            table.header.number if table.header else None,
            hint="query them: nvidia-smi --query-gpu=index,name,pci.bus_id,pcie.link.gen.current,"
            "pcie.link.gen.max,pcie.link.width.current,pcie.link.width.max --format=csv",
        )
    machine = Machine()
    gpus: list[GpuInfo] = []
    results: list[Result] = []
    for order, (line, cells) in enumerate(table.rows):
        values = dict(zip(table.columns, cells, strict=True))
        index = _index(values.get("index"), order, line, filename)
        if any(g.index == index for g in gpus):
            raise fail(filename, f"GPU index {index} appears twice", line.number)
        links: dict[str, int] = {}
        for name, (metric, kind, note) in LINK_FIELDS.items():
            number = _link_number(values.get(name), name, kind, line, filename)
            if number is None:
                continue
            links[name] = number
            where = "GPU number from the index column" if "index" in values else "GPU number is the row order"
            results.append(Result(metric=metric, gpu=index, value=number, tool=TOOL, note=f"{note}; {where}"))
        driver = _text(values.get("driver_version"))
        if driver:
            machine.driver = driver
        gpus.append(
            GpuInfo(
                index=index,
                name=_text(values.get("name")),
                bus_id=_bus(values.get("pci.bus_id")),
                pcie_gen_current=links.get("pcie.link.gen.current"),
                pcie_width_current=links.get("pcie.link.width.current"),
                pcie_gen_max=links.get("pcie.link.gen.max"),
                pcie_width_max=links.get("pcie.link.width.max"),
            )
        )
    machine.gpus = sorted(gpus, key=lambda g: g.index)
    return Measurement(source=Source(tool=TOOL, file=filename), machine=machine, results=results)


def _field(name: str) -> str:
    # the unit nvidia-smi writes after a column's name ("memory.total [MiB]"): cut from the end, never by
    # a pattern that would try every run of spaces in a long header cell
    name = name.strip()
    if name.endswith("]"):
        at = name.rfind("[")
        if at >= 0 and len(name) - at - 2 <= 20:
            name = name[:at].strip()
    return _ALIASES.get(name, name)


def _table(lines: list[Line], text: str, filename: str) -> _Table:
    """The column names and the data rows after them."""
    command: list[str] | None = None
    columns: list[str] | None = None
    header: Line | None = None
    rows: list[tuple[Line, list[str]]] = []
    for line in lines:
        stripped = line.text.strip()
        if not stripped:
            continue
        if m := _COMMAND.search(stripped):
            if columns is not None:
                break  # a second query in the same file: read the first one only
            command = [_field(f) for f in m.group(1).strip(",").split(",")]
            continue
        cells = [c.strip() for c in stripped.split(",")]
        if (
            columns is None
            and all(_FIELD.fullmatch(_field(c)) for c in cells)
            and ("index" in [_field(c) for c in cells] or any(_field(c).startswith("pcie.") for c in cells))
        ):
            columns, header = [_field(c) for c in cells], line
            if command is not None and command != columns:
                raise fail(
                    filename,
                    "the CSV header does not match the --query-gpu= fields of the command line",
                    line.number,
                    hint="save the command's output unedited",
                )
            continue
        if columns is None and command is not None:
            columns = command  # noheader: the command line names the columns
        if columns is None:
            continue  # text before the table (a prompt, other commands)
        if len(cells) != len(columns):
            if rows:
                break  # the table ended; what follows is some other text
            raise fail(
                filename,
                f"expected {len(columns)} comma-separated values ({', '.join(columns)}), found {len(cells)}",
                line.number,
                hint="the file may be cut short or edited; save the command's output again",
            )
        if len(rows) >= MAX_GPUS:
            raise fail(filename, f"more than {MAX_GPUS} GPUs is not supported", line.number)
        rows.append((line, cells))
    if columns is None:
        raise not_this_tool(
            text,
            filename,
            TOOL,
            N_(
                "no CSV header naming query fields (index, pcie.link.gen.current, ...) and no "
                "'--query-gpu=' command line"
            ),
        )
    if not rows:
        where = header.number if header else lines[-1].number
        raise fail(
            filename,
            "the query output lists no GPUs",
            where,
            hint="check that nvidia-smi ran without errors and save its full output",
        )
    return _Table(columns, header, rows)


def _text(value: str | None) -> str | None:
    if value is None or value in _NOT_AVAILABLE or not value:
        return None
    return value


def _index(value: str | None, order: int, line: Line, filename: str) -> int:
    if value is None:
        return order
    if not is_int(value) or int(value) >= MAX_GPUS:
        raise fail(filename, f"expected a GPU index (0, 1, ...), found {value!r}", line.number)
    return int(value)


def _link_number(value: str | None, name: str, kind: str, line: Line, filename: str) -> int | None:
    if value is None or value in _NOT_AVAILABLE:
        return None
    token = value[:-1] if kind == "width" and value.lower().endswith("x") else value
    if not is_int(token):
        what = "PCIe generation (1-7)" if kind == "gen" else "link width (lanes)"
        raise fail(filename, f"expected a {what} for {name}, found {value!r}", line.number)
    number = int(token)
    if kind == "gen" and number == 0:
        return None  # some drivers print 0 for an unknown host maximum
    limit = 7 if kind == "gen" else 32
    if not 1 <= number <= limit:
        raise fail(filename, f"{name} is {value!r}, which no PCIe link has", line.number)
    return number


def _bus(raw: str | None) -> str | None:
    """'00000000:41:00.0' -> '0000:41:00.0' (the last four digits of the domain)."""
    if not raw:
        return None
    m = re.fullmatch(r"([0-9a-fA-F]{4,8}):([0-9a-fA-F]{2}):([0-9a-fA-F]{2})\.([0-7])", raw.strip())
    if not m:
        return None
    return f"{m.group(1)[-4:].lower()}:{m.group(2).lower()}:{m.group(3).lower()}.{m.group(4)}"
