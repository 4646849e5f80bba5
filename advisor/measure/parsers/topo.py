"""Reader of `nvidia-smi topo -m` (the GPUDirect communication matrix).

Each GPU x GPU cell becomes a `path` result for that directed pair ('PHB', 'NODE', 'SYS',
'PIX', 'PXB', 'NV4', ...; the 'X' diagonal is skipped). NIC rows and columns are read past,
and the 'NUMA Affinity' column fills `numa_node` of each GPU. Cells may be separated by tabs
(what nvidia-smi prints) or spaces (what a copy from a terminal or web page often holds);
the legend below the matrix is ignored.
"""

from __future__ import annotations

import re

from advisor.i18n import N_
from advisor.measure.models import GpuInfo, Machine, Measurement, Result, Source
from advisor.measure.parsers._common import (
    MAX_GPUS,
    Line,
    check_not_empty,
    fail,
    is_int,
    not_this_tool,
    numbered_lines,
)

TOOL = "topo"
KNOWN_PATHS = {"X", "SYS", "NODE", "PHB", "PXB", "PIX", "SOC", "PSB"}
_NVLINK = re.compile(r"^NV[0-9]{1,3}$")
_LABEL = re.compile(r"^[A-Z][A-Z0-9]{0,7}$")
_DEVICE = re.compile(r"^(GPU|NIC|mlx[0-9]+_)[0-9]{1,4}$")
_P2P_CODES = {"OK", "CNS", "GNS", "TNS", "NS", "DR", "U"}


def parse(text: str, filename: str) -> Measurement:
    """Read `nvidia-smi topo -m` output into a Measurement."""
    check_not_empty(text, filename, TOOL)
    lines = numbered_lines(text)
    start = next((k for k, ln in enumerate(lines) if _is_header(ln)), None)
    if start is None:
        raise not_this_tool(text, filename, TOOL, N_("no matrix header starting with 'GPU0'"))
    header = lines[start]
    columns, extra = _split_header(header)
    gpu_columns = [k for k, c in enumerate(columns) if c.startswith("GPU")]
    if len(columns) > MAX_GPUS:
        raise fail(
            filename,
            f"the matrix has {len(columns)} columns; more than {MAX_GPUS} devices is not supported",
            header.number,
        )
    if [columns[k] for k in gpu_columns] != [f"GPU{n}" for n in range(len(gpu_columns))]:
        raise fail(
            filename,
            f"expected GPU columns GPU0, GPU1, ... in the header, found {' '.join(columns)!r}",
            header.number,
        )
    gpus: list[GpuInfo] = []
    results: list[Result] = []
    for line in lines[start + 1 :]:
        tokens = line.tokens
        if not tokens or tokens[0].startswith("Legend"):
            break
        label = tokens[0]
        if not _DEVICE.match(label):
            raise fail(
                filename,
                f"expected a matrix row starting with GPU<n> or NIC<n>, found {line.text.strip()!r}",
                line.number,
            )
        cells = tokens[1 : 1 + len(columns)]
        if len(cells) < len(columns):
            raise fail(
                filename,
                f"expected {len(columns)} cells in the row for {label}, found {len(cells)}",
                line.number,
                hint="the file may be cut short or edited; save `nvidia-smi topo -m` again",
            )
        if not label.startswith("GPU"):
            continue
        index = int(label[3:])
        if index != len(gpus):
            raise fail(filename, f"expected the row for GPU{len(gpus)}, found {label}", line.number)
        gpus.append(_gpu_info(index, tokens[1 + len(columns) :], extra, line, filename))
        for k in gpu_columns:
            other = int(columns[k][3:])
            cell = cells[k]
            _check_cell(cell, index, other, line, filename)
            if other == index:
                continue
            note = (
                None
                if cell in KNOWN_PATHS or _NVLINK.match(cell)
                else f"connection type {cell!r} is not in the legend this reader knows"
            )
            results.append(Result(metric="path", a=index, b=other, value=cell, tool=TOOL, note=note))
    if len(gpus) != len(gpu_columns):
        raise fail(
            filename,
            f"the matrix has {len(gpu_columns)} GPU columns but {len(gpus)} GPU rows",
            lines[-1].number,
            hint="the output looks truncated; save `nvidia-smi topo -m` again",
        )
    return Measurement(source=Source(tool=TOOL, file=filename), machine=Machine(gpus=gpus), results=results)


def _is_header(line: Line) -> bool:
    tokens = line.tokens
    return bool(tokens) and tokens[0] == "GPU0" and (len(tokens) == 1 or not _cellish(tokens[1]))


def _cellish(token: str) -> bool:
    return token == "X" or token in KNOWN_PATHS or bool(_NVLINK.match(token)) or token in _P2P_CODES


def _split_header(line: Line) -> tuple[list[str], list[str]]:
    """Device column names, and the names of the affinity columns after them."""
    tokens = line.tokens
    k = 0
    while k < len(tokens) and _DEVICE.match(tokens[k]):
        k += 1
    rest = " ".join(tokens[k:])
    extra = [name for name in ("CPU Affinity", "NUMA Affinity", "GPU NUMA ID") if name in rest]
    return tokens[:k], extra


def _check_cell(cell: str, row: int, col: int, line: Line, filename: str) -> None:
    if cell in _P2P_CODES:
        raise fail(
            filename,
            f"this is `nvidia-smi topo -p2p` output (status code {cell!r} between GPU{row} "
            f"and GPU{col}); only the `nvidia-smi topo -m` matrix is read here",
            line.number,
            hint="run `nvidia-smi topo -m` and save that",
        )
    if row == col and cell != "X":
        raise fail(filename, f"expected 'X' where GPU{row} meets itself, found {cell!r}", line.number)
    if row != col and (cell == "X" or not _LABEL.match(cell)):
        raise fail(
            filename,
            f"expected a connection type (PHB, SYS, NV4, ...) between GPU{row} and GPU{col}, found {cell!r}",
            line.number,
            hint="the columns may be shifted; save `nvidia-smi topo -m` output unedited",
        )


def _gpu_info(index: int, values: list[str], names: list[str], line: Line, filename: str) -> GpuInfo:
    numa = None
    if "NUMA Affinity" in names:
        position = names.index("NUMA Affinity")
        if position < len(values):
            token = values[position]
            if is_int(token):
                numa = int(token)
            elif token not in ("N/A", "-"):
                raise fail(
                    filename,
                    f"expected a NUMA node number or N/A for GPU{index}, found {token!r}",
                    line.number,
                )
    return GpuInfo(index=index, numa_node=numa)
