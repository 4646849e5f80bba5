"""Reader of cuda-samples `bandwidthTest` output (the classic sample, removed in CUDA 12.9).

Each "Host to Device / Device to Host / Device to Device Bandwidth, N Device(s)" table becomes
one result: h2d_gbps, d2h_gbps, or device_mem_gbps (a copy within GPU memory; bandwidthTest
counts read + write, 2x the buffer). The host side is noted as pinned or pageable (and
write-combined with --wc), so that `advisor compare` compares pinned with pinned. A range or
shmoo sweep (--mode=range|shmoo) is read at its largest transfer size, where the copy reaches
its plateau; smaller copies are slower and are left out. Older releases print MB/s, computed as
bytes / 1,024,000 per second by their source, which is converted to GB/s (1e9 bytes/s).
With --device=all and more than one GPU, bandwidthTest prints the sum of runs made one GPU after
the other, not a per-GPU or concurrent figure: that result has no GPU, `gpus` = N and says so.
The `--csv` form (`bandwidthTest-H2D-Pinned, Bandwidth = 12.4 GB/s, ...`) is read too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

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
    to_float,
)

TOOL = "bandwidthtest"
MB_TO_GB = 1.024e6 / 1e9  # old releases: MB/s = (1 << 10) * bytes / (ms * (1 << 20)) = bytes/s / 1.024e6
_DEVICE = re.compile(r"^\s*Device\s+([0-9]{1,4}):\s*(\S.*?)\s*$")
_TITLE = re.compile(
    r"^\s*(Host to Device|Device to Host|Device to Device) Bandwidth, ([0-9]{1,4}) Device\(s\)\s*$"
)
_MEMORY = re.compile(r"^\s*(PINNED|PAGEABLE) Memory Transfers\s*$")
_HEADER = re.compile(r"Transfer Size \(Bytes\)\s*Bandwidth\s*\((GB/s|MB/s)\)\s*$")
_MODE = re.compile(r"^\s*(Quick|Range|Shmoo) Mode\s*$")
_CSV = re.compile(
    r"^\s*bandwidthTest-(H2D|D2H|D2D)(-Paged|-Pinned)?(-WriteCombined)?, Bandwidth = (\S+) (GB/s|MB/s), "
    r"Time = \S+ s, Size = ([0-9]{1,12}) bytes, NumDevsUsed = ([0-9]{1,4})\s*$"
)
_KIND: dict[str, tuple[Metric, str]] = {
    "Host to Device": ("h2d_gbps", "host -> GPU"),
    "Device to Host": ("d2h_gbps", "GPU -> host"),
    "Device to Device": ("device_mem_gbps", "copy within the GPU's own memory (read + write of the buffer)"),
}
_CSV_KIND = {"H2D": "Host to Device", "D2H": "Device to Host", "D2D": "Device to Device"}


@dataclass
class _Table:
    kind: str
    devices: int
    memory: str | None  # PINNED / PAGEABLE / None (not printed)
    write_combined: bool
    unit: str
    line: int
    mode: str | None
    listed: list[int]
    rows: list[tuple[int, float]] = field(default_factory=list)  # (bytes, value as printed)


def parse(text: str, filename: str) -> Measurement:
    """Read bandwidthTest output into a Measurement."""
    check_not_empty(text, filename, TOOL)
    lines = numbered_lines(text)
    names: dict[int, str] = {}
    listed: list[int] = []
    listing = False
    mode: str | None = None
    failed = any(ln.text.strip().startswith("Result = FAIL") for ln in lines)
    tables: list[_Table] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.text.strip()
        if stripped == "Running on...":
            listing, listed = True, []
        elif listing and (m := _DEVICE.match(line.text)):
            _add_device(names, listed, int(m.group(1)), m.group(2), line, filename)
        elif m := _MODE.match(line.text):
            listing, mode = False, m.group(1)
        elif m := _TITLE.match(line.text):
            listing = False
            i = _read_table(lines, i, m, mode, list(listed), filename, tables)
            continue
        elif m := _CSV.match(line.text):
            tables.append(_csv_table(m, line, mode, list(listed), filename))
        i += 1
    if not tables:
        raise not_this_tool(
            text, filename, TOOL, N_("no 'Host to Device Bandwidth, 1 Device(s)' (or D2H / D2D) table")
        )
    results = [_result(t, failed, filename) for t in tables]
    return Measurement(
        source=Source(tool=TOOL, file=filename),
        machine=Machine(gpus=[GpuInfo(index=k, name=names[k]) for k in sorted(names)]),
        results=results,
    )


def _add_device(
    names: dict[int, str], listed: list[int], index: int, name: str, line: Line, filename: str
) -> None:
    if index >= MAX_GPUS:
        raise fail(filename, f"device number {index} is out of range", line.number)
    if names.get(index, name) != name:
        raise fail(
            filename,
            f"Device {index} is named {names[index]!r} earlier in the file and {name!r} here",
            line.number,
            hint="the file holds runs from different machines; save each one separately",
        )
    names[index] = name
    if index not in listed:
        listed.append(index)


def _read_table(
    lines: list[Line],
    i: int,
    title: re.Match[str],
    mode: str | None,
    listed: list[int],
    filename: str,
    out: list[_Table],
) -> int:
    """Read a titled table: memory line, optional write-combined line, header, rows."""
    kind, devices = title.group(1), int(title.group(2))
    title_line = lines[i].number
    if not 1 <= devices <= MAX_GPUS:
        raise fail(filename, f"a bandwidth table over {devices} devices is not possible", title_line)
    i += 1
    memory = None
    write_combined = False
    unit = None
    while i < len(lines) and unit is None:
        line = lines[i]
        text = line.text
        if m := _MEMORY.match(text):
            memory = m.group(1)
        elif "Write-Combined Memory Writes are Enabled" in text:
            write_combined = True
            # the tool prints no newline after this line, so the header may follow on it
            if m := _HEADER.search(text):
                unit = m.group(1)
        elif m := _HEADER.search(text):
            unit = m.group(1)
        else:
            raise fail(
                filename,
                f"expected the 'Transfer Size (Bytes)  Bandwidth(GB/s)' header of the {kind} table, "
                f"found {text.strip()!r}",
                line.number,
                hint="the output looks truncated or edited; save bandwidthTest's full output again",
            )
        i += 1
    if unit is None:
        raise fail(
            filename,
            f"the file ends inside the {kind} table, before its rows",
            lines[-1].number,
            hint="the output looks truncated; save bandwidthTest's full output again",
        )
    table = _Table(kind, devices, memory, write_combined, unit, title_line, mode, listed)
    while i < len(lines):
        tokens = lines[i].tokens
        if not tokens:
            break
        if len(tokens) != 2 or not is_int(tokens[0]):
            if table.rows:
                break
            raise fail(
                filename,
                f"expected a row '<bytes>  <bandwidth>' in the {kind} table, found {lines[i].text.strip()!r}",
                lines[i].number,
            )
        size = int(tokens[0])
        value = to_float(
            tokens[1], filename, lines[i].number, f"the {kind} bandwidth at {size} bytes", decimals=1
        )
        table.rows.append((size, value))
        i += 1
    if not table.rows:
        where = lines[i].number if i < len(lines) else lines[-1].number
        raise fail(
            filename,
            f"the {kind} table has a header but no rows",
            where,
            hint="the output looks truncated; save bandwidthTest's full output again",
        )
    out.append(table)
    return i


def _csv_table(m: re.Match[str], line: Line, mode: str | None, listed: list[int], filename: str) -> _Table:
    kind = _CSV_KIND[m.group(1)]
    memory = {"-Paged": "PAGEABLE", "-Pinned": "PINNED"}.get(m.group(2) or "")
    devices = int(m.group(7))
    if not 1 <= devices <= MAX_GPUS:
        raise fail(filename, f"NumDevsUsed = {devices} is not possible", line.number)
    value = to_float(m.group(4), filename, line.number, f"the {kind} bandwidth", decimals=1)
    table = _Table(kind, devices, memory, bool(m.group(3)), m.group(5), line.number, mode, listed)
    table.rows.append((int(m.group(6)), value))
    return table


def _result(table: _Table, failed: bool, filename: str) -> Result:
    metric, what = _KIND[table.kind]
    size, printed = max(table.rows, key=lambda r: r[0])
    value = printed if table.unit == "GB/s" else round(printed * MB_TO_GB, 4)
    parts = [what]
    if table.kind != "Device to Device":
        if table.memory == "PAGEABLE":
            parts.append("pageable host memory")
        elif table.memory == "PINNED":
            parts.append(
                "pinned host memory, write-combined (--wc)" if table.write_combined else "pinned host memory"
            )
        else:
            parts.append("host memory kind not printed")
    if len(table.rows) > 1:
        parts.append(
            f"largest of {len(table.rows)} transfer sizes ({table.mode or 'sweep'} mode); smaller copies are slower"
        )
    if table.unit == "MB/s":
        parts.append(f"converted from {printed} MB/s (this release's MB = 1,024,000 bytes)")
    gpu: int | None
    gpus = None
    if table.devices > 1:
        if table.listed and len(table.listed) != table.devices:
            raise fail(
                filename,
                f"the table is over {table.devices} devices but the file lists {len(table.listed)} "
                "under 'Running on...'",
                table.line,
            )
        gpu, gpus = None, table.devices
        parts.append(
            f"sum over {table.devices} GPUs measured one after another (--device=all): not a per-GPU "
            "or concurrent figure"
        )
    elif len(table.listed) == 1:
        gpu = table.listed[0]
    elif not table.listed:
        gpu = 0
        parts.append("the 'Device N:' line is not in the file; GPU 0 (the tool's default) is assumed")
    else:
        raise fail(
            filename,
            f"the table is over 1 device but the file lists {len(table.listed)} under 'Running on...'",
            table.line,
        )
    if failed:
        parts.append("the run ended with 'Result = FAIL'")
    return Result(
        metric=metric,
        gpu=gpu,
        value=value,
        unit="GB/s",
        gpus=gpus,
        size_bytes=size,
        tool=TOOL,
        note="; ".join(parts),
    )
