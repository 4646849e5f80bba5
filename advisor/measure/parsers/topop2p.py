"""Reader of `nvidia-smi topo -p2p r|w|n|a|p` (the driver's P2P capability matrix).

Each GPU x GPU cell becomes a `p2p` result for that directed pair (row -> column): true where
the driver prints 'OK' ("Status Ok"), false for every other status (CNS chipset not supported,
GNS GPU not supported, TNS topology not supported, NS not supported, DR disabled by regkey,
U unknown), with the status and its legend text in the note. The codes are NVML's
nvmlGpuP2PStatus_t. Which capability the matrix is about (read, write, NVLink, atomics, prop)
is only known when the command line was saved with the output ('nvidia-smi topo -p2p r');
the matrix itself looks the same for all of them, so otherwise the note says it is unknown.
Several matrices in one file (r then w, each after its command line) are all read. A status
the file's own legend defines but this reader does not know is read as false, with its text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from advisor.i18n import N_
from advisor.measure.models import GpuInfo, Machine, Measurement, Result, Source
from advisor.measure.parsers._common import (
    MAX_GPUS,
    Line,
    check_not_empty,
    fail,
    not_this_tool,
    numbered_lines,
)

TOOL = "topo-p2p"
STATUS = {
    "OK": "Status Ok",
    "CNS": "Chipset not supported",
    "GNS": "GPU not supported",
    "TNS": "Topology not supported",
    "NS": "Not supported",
    "DR": "Disabled by regkey",
    "U": "Unknown",
}
CAPABILITY = {
    "r": N_("P2P read"),
    "w": N_("P2P write"),
    "rw": N_("P2P read and write"),
    "n": N_("P2P over NVLink"),
    "a": N_("P2P atomics"),
    "p": N_("P2P prop (the driver's combined P2P property)"),
}
# each result's note, English in the measurement file (it is data: advisor.measure.compare reads which
# capability it is about), said in the run's language where it is shown (parsers.note_words)
SCOPE = N_("{what} status from `nvidia-smi topo -p2p {capability}`")
SCOPE_UNSAID = N_(
    "P2P status from `nvidia-smi topo -p2p` (which capability, r/w/n/a/p, was not saved with the output)"
)
AT_LINE = N_("{scope} (matrix at line {line})")
STATUS_NOTE = N_("{scope}: {code} = {meaning}")
UNKNOWN = N_("{note}; the driver could not tell, so CUDA P2P is not known to work")
FROM_LEGEND = N_("{note} (a status this reader does not know, read from the file's legend)")
NOTES = (UNKNOWN, FROM_LEGEND, STATUS_NOTE, AT_LINE, SCOPE, SCOPE_UNSAID, *CAPABILITY.values())
_GPU = re.compile(r"GPU([0-9]{1,4})")
_CODE = re.compile(r"[A-Z]{1,8}")
_LEGEND_ENTRY = re.compile(r"^\s*([A-Z]{1,8})\s+=\s+(\S.*?)\s*$")
_COMMAND = re.compile(r"nvidia-smi\s+topo\s+(?:-p2p|--p2pstatus)[\s=]+([a-z]{1,4})(?:\s|$)")


@dataclass
class _Matrix:
    capability: str | None
    header: Line
    rows: list[tuple[Line, list[str]]] = field(default_factory=list)


def parse(text: str, filename: str) -> Measurement:
    """Read `nvidia-smi topo -p2p` output into a Measurement."""
    check_not_empty(text, filename, TOOL)
    lines = numbered_lines(text)
    legend = _legend(lines)
    matrices: list[_Matrix] = []
    capability: str | None = None
    i = 0
    while i < len(lines):
        line = lines[i]
        if m := _COMMAND.search(line.text):
            capability = m.group(1)
            if capability not in CAPABILITY:
                raise fail(
                    filename,
                    f"'nvidia-smi topo -p2p {capability}' is not one of the P2P status queries "
                    "(r, w, n, a, p)",
                    line.number,
                )
        elif _is_header(line):
            matrix = _Matrix(capability, line)
            i = _read_rows(lines, i + 1, matrix, filename)
            matrices.append(matrix)
            capability = None  # the next matrix needs its own command line
            continue
        i += 1
    if not matrices:
        raise not_this_tool(
            text, filename, TOOL, N_("no matrix header 'GPU0 GPU1 ...' followed by OK/NS/... cells")
        )
    gpus = len(matrices[0].header.tokens)
    results: list[Result] = []
    for matrix in matrices:
        if len(matrix.header.tokens) != gpus:
            raise fail(
                filename,
                f"this matrix has {len(matrix.header.tokens)} GPUs but the first one has {gpus}",
                matrix.header.number,
                hint="the file mixes outputs from different machines; save each one separately",
            )
        results += _results(matrix, legend, filename, several=len(matrices) > 1)
    return Measurement(
        source=Source(tool=TOOL, file=filename),
        machine=Machine(gpus=[GpuInfo(index=k) for k in range(gpus)]),
        results=results,
    )


def _is_header(line: Line) -> bool:
    tokens = line.tokens
    return bool(tokens) and all(_GPU.fullmatch(t) for t in tokens) and tokens[0] == "GPU0"


def _read_rows(lines: list[Line], i: int, matrix: _Matrix, filename: str) -> int:
    header = matrix.header
    columns = header.tokens
    if len(columns) > MAX_GPUS:
        raise fail(
            filename,
            f"the matrix has {len(columns)} columns; more than {MAX_GPUS} GPUs is not supported",
            header.number,
        )
    if columns != [f"GPU{k}" for k in range(len(columns))]:
        raise fail(
            filename,
            f"expected GPU columns GPU0, GPU1, ... in the header, found {' '.join(columns)!r}",
            header.number,
        )
    while i < len(lines) and len(matrix.rows) < len(columns):
        line = lines[i]
        tokens = line.tokens
        if not tokens or tokens[0].startswith("Legend"):
            break
        expected = f"GPU{len(matrix.rows)}"
        if tokens[0] != expected:
            raise fail(
                filename,
                f"expected the row for {expected}, found {line.text.strip()!r}",
                line.number,
            )
        cells = tokens[1:]
        if len(cells) != len(columns):
            raise fail(
                filename,
                f"expected {len(columns)} cells in the row for {expected}, found {len(cells)}",
                line.number,
                hint="the file may be cut short or edited; save `nvidia-smi topo -p2p r` again",
            )
        matrix.rows.append((line, cells))
        i += 1
    if len(matrix.rows) < len(columns):
        where = lines[i].number if i < len(lines) else lines[-1].number
        raise fail(
            filename,
            f"the matrix has {len(columns)} GPU columns but {len(matrix.rows)} GPU rows",
            where,
            hint="the output looks truncated; save `nvidia-smi topo -p2p r` again",
        )
    return i


def _legend(lines: list[Line]) -> dict[str, str]:
    """Status codes the file's own legend defines ('  CNS  = Chipset not supported')."""
    found: dict[str, str] = {}
    in_legend = False
    for line in lines:
        stripped = line.text.strip()
        if stripped.startswith("Legend"):
            in_legend = True
        elif in_legend and (m := _LEGEND_ENTRY.match(line.text)):
            found.setdefault(m.group(1), m.group(2))
        elif in_legend and stripped and _is_header(line):
            in_legend = False
    return found


def _results(matrix: _Matrix, legend: dict[str, str], filename: str, several: bool) -> list[Result]:
    what = CAPABILITY.get(matrix.capability or "")
    scope = SCOPE.format(what=what, capability=matrix.capability) if what else SCOPE_UNSAID
    if several:
        scope = AT_LINE.format(scope=scope, line=matrix.header.number)
    results = []
    for row, (line, cells) in enumerate(matrix.rows):
        for col, cell in enumerate(cells):
            if row == col:
                if cell != "X":
                    raise fail(
                        filename, f"expected 'X' where GPU{row} meets itself, found {cell!r}", line.number
                    )
                continue
            if cell in STATUS:
                meaning = STATUS[cell]
            elif _CODE.fullmatch(cell) and cell in legend and cell != "X":
                meaning = legend[cell]
            else:
                raise fail(
                    filename,
                    f"expected a P2P status (OK, CNS, GNS, TNS, NS, DR, U) between GPU{row} and "
                    f"GPU{col}, found {cell!r}",
                    line.number,
                    hint="the columns may be shifted; save `nvidia-smi topo -p2p r` output unedited",
                )
            note = STATUS_NOTE.format(scope=scope, code=cell, meaning=meaning)
            if cell == "U":
                note = UNKNOWN.format(note=note)
            elif cell not in STATUS:
                note = FROM_LEGEND.format(note=note)
            results.append(Result(metric="p2p", a=row, b=col, value=cell == "OK", tool=TOOL, note=note))
    return results
