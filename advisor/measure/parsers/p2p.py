"""Reader of cuda-samples p2pBandwidthLatencyTest output.

Reads the bandwidth matrices (unidirectional and bidirectional, P2P disabled and enabled)
and the latency matrices. Where the header says "Device=i CANNOT Access Peer Device=j",
the tool's "P2P=Enabled" figure for that pair is really the staged copy through host memory,
so it is recorded with p2p=False and a note. Diagonal entries (a GPU copying to itself, i.e.
its memory bandwidth) are skipped.
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
    iter_pairs,
    not_this_tool,
    numbered_lines,
    to_float,
)

TOOL = "p2p"
_DEVICE = re.compile(
    r"^\s*Device:\s*([0-9]{1,4}),\s*(.*?),\s*pciBusID:\s*([0-9a-fA-F]{1,4}),"
    r"\s*pciDeviceID:\s*([0-9a-fA-F]{1,4}),\s*pciDomainID:\s*([0-9a-fA-F]{1,8})\s*$"
)
_ACCESS = re.compile(r"^\s*Device=([0-9]{1,4})\s+(CAN|CANNOT)\s+Access\s+Peer\s+Device=([0-9]{1,4})\s*$")
_TITLE = re.compile(
    r"^(?:(Unidirectional|Bidirectional)\s+)?P2P=(Disabled|Enabled)\s+"
    r"(Bandwidth|Latency)\s*(?:\((P2P (?:Writes|Reads))\))?\s*Matrix\s*\((GB/s|us)\)\s*$"
)
_CONNECTIVITY = re.compile(r"^\s*P2P Connectivity Matrix\s*$")
_HEADER_LABELS = {"D\\D", "GPU", "CPU"}
_METRIC_BY_KIND: dict[str, Metric] = {"uni": "uni_gbps", "bidi": "bidi_gbps", "latency": "latency_us"}


@dataclass
class _Matrix:
    """One printed matrix: its title fields and the row values, by row GPU."""

    kind: str  # uni | bidi | latency
    p2p_on: bool
    copy: str | None  # 'P2P Writes' / 'P2P Reads' / None
    timer: str | None  # 'GPU' / 'CPU' / None (latency only)
    title_line: int
    rows: dict[int, list[float]]


def parse(text: str, filename: str) -> Measurement:
    """Read p2pBandwidthLatencyTest output into a Measurement."""
    check_not_empty(text, filename, TOOL)
    lines = numbered_lines(text)
    gpus: dict[int, GpuInfo] = {}
    access: dict[tuple[int, int], bool] = {}
    matrices: list[_Matrix] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if m := _DEVICE.match(line.text):
            index = int(m.group(1))
            bus = f"{int(m.group(5), 16):04x}:{int(m.group(3), 16):02x}:{int(m.group(4), 16):02x}.0"
            gpus[index] = GpuInfo(index=index, name=m.group(2).strip() or None, bus_id=bus)
        elif m := _ACCESS.match(line.text):
            access[(int(m.group(1)), int(m.group(3)))] = m.group(2) == "CAN"
        elif _CONNECTIVITY.match(line.text):
            i = _skip_table(lines, i + 1, filename, "P2P Connectivity Matrix")
            continue
        elif m := _TITLE.match(line.text.strip()):
            i = _read_matrices(lines, i, m, filename, matrices)
            continue
        i += 1
    if not matrices:
        raise not_this_tool(
            text, filename, TOOL, N_("no 'P2P=... Bandwidth Matrix' or 'Latency Matrix' title")
        )
    results = _access_results(access) + [r for mx in matrices for r in _matrix_results(mx, access)]
    return Measurement(
        source=Source(tool=TOOL, file=filename),
        machine=Machine(gpus=[gpus[k] for k in sorted(gpus)]),
        results=results,
    )


def _read_header(line: Line, filename: str, context: str) -> tuple[str, int]:
    """Check a header row ('D\\D 0 1 2' or 'GPU 0 1 2'); return its label and column count."""
    tokens = line.tokens
    if not tokens or tokens[0] not in _HEADER_LABELS:
        raise fail(
            filename,
            f"expected the column header of the {context} (like 'D\\D  0  1'), found {line.text.strip()!r}",
            line.number,
        )
    columns = tokens[1:]
    if len(columns) > MAX_GPUS:
        raise fail(
            filename,
            f"the {context} has {len(columns)} columns; more than {MAX_GPUS} GPUs is not supported",
            line.number,
        )
    if not columns or any(not is_int(t) or int(t) != k for k, t in enumerate(columns)):
        raise fail(
            filename,
            f"expected GPU numbers 0, 1, 2, ... in the column header of the {context}, "
            f"found {' '.join(columns)!r}",
            line.number,
        )
    return tokens[0], len(columns)


def _read_rows(
    lines: list[Line], i: int, n: int, filename: str, context: str, numeric: bool = True
) -> tuple[dict[int, list[float]], int]:
    """Read the n rows after a header; return them and the index after the table."""
    rows: dict[int, list[float]] = {}
    while i < len(lines) and len(rows) < n:
        line = lines[i]
        tokens = line.tokens
        if not tokens:
            break
        if not is_int(tokens[0]):
            break
        gpu = int(tokens[0])
        if gpu != len(rows):
            raise fail(
                filename,
                f"expected the row for GPU {len(rows)} in the {context}, found a row for GPU {gpu}",
                line.number,
            )
        values = tokens[1:]
        if len(values) != n:
            raise fail(
                filename,
                f"expected {n} numbers in the {context} row for GPU {gpu}, found {len(values)}",
                line.number,
                hint="the file may be cut short or edited; save the tool's full output again",
            )
        what = f"the {context}, row GPU {gpu}"
        rows[gpu] = [to_float(v, filename, line.number, what, decimals=2) for v in values] if numeric else []
        i += 1
    if len(rows) < n:
        where = lines[i].number if i < len(lines) else lines[-1].number
        ending = "the file ends" if all(not ln.text.strip() for ln in lines[i:]) else "the table ends"
        raise fail(
            filename,
            f"{ending} after {len(rows)} of {n} rows of the {context}",
            where,
            hint="the output looks truncated; rerun the test and save its full output",
        )
    return rows, i


def _skip_table(lines: list[Line], i: int, filename: str, context: str) -> int:
    if i >= len(lines):
        raise fail(filename, f"the file ends right after the {context} title", lines[-1].number)
    _label, n = _read_header(lines[i], filename, context)
    _rows, i = _read_rows(lines, i + 1, n, filename, context, numeric=False)
    return i


def _read_matrices(lines: list[Line], i: int, m: re.Match[str], filename: str, out: list[_Matrix]) -> int:
    """Read a titled matrix; a latency matrix may hold a GPU-timed and a CPU-timed table."""
    direction, state, measure, copy, _unit = m.groups()
    kind = "latency" if measure == "Latency" else ("bidi" if direction == "Bidirectional" else "uni")
    title = lines[i].text.strip()
    title_line = lines[i].number
    i += 1
    tables = 0
    while i < len(lines):
        while i < len(lines) and not lines[i].text.strip():
            i += 1
        if i >= len(lines) or not lines[i].tokens or lines[i].tokens[0] not in _HEADER_LABELS:
            break
        if tables and kind != "latency":
            break
        label, n = _read_header(lines[i], filename, f"'{title}' matrix")
        rows, i = _read_rows(lines, i + 1, n, filename, f"'{title}' matrix")
        timer = label if label in ("GPU", "CPU") else None
        out.append(_Matrix(kind, state == "Enabled", copy, timer, title_line, rows))
        tables += 1
    if not tables:
        where = lines[i].number if i < len(lines) else lines[-1].number
        raise fail(
            filename,
            f"expected the column header of the '{title}' matrix after its title",
            where,
            hint="the output looks truncated or edited",
        )
    return i


def _access_results(access: dict[tuple[int, int], bool]) -> list[Result]:
    return [
        Result(
            metric="p2p",
            a=a,
            b=b,
            value=ok,
            tool=TOOL,
            note="cudaDeviceCanAccessPeer as printed in the header (Device=a CAN/CANNOT Access Peer)",
        )
        for (a, b), ok in sorted(access.items())
    ]


def _matrix_results(mx: _Matrix, access: dict[tuple[int, int], bool]) -> list[Result]:
    n = len(mx.rows)
    metric: Metric = _METRIC_BY_KIND[mx.kind]
    unit = "us" if mx.kind == "latency" else "GB/s"
    results = []
    for a, b in iter_pairs(n):
        value = mx.rows[a][b]
        parts = []
        if mx.kind == "bidi":
            parts.append("both directions at once, sum of the two (as the tool reports)")
        if mx.kind == "latency":
            parts.append(
                {"GPU": "GPU-timed (events)", "CPU": "CPU-timed (wall clock)"}.get(
                    mx.timer or "", "timer not stated in this older format"
                )
            )
        if mx.copy:
            parts.append(mx.copy.lower())
        p2p = mx.p2p_on
        if mx.p2p_on and access.get((a, b)) is False:
            p2p = False
            parts.append(
                f"GPU {a} cannot access GPU {b} as a peer, so this 'P2P=Enabled' figure is the "
                "staged copy through host memory"
            )
        elif not mx.p2p_on:
            parts.append("P2P disabled: staged through host memory")
        results.append(
            Result(
                metric=metric,
                a=a,
                b=b,
                value=value,
                unit=unit,
                p2p=p2p,
                tool=TOOL,
                note="; ".join(parts) or None,
            )
        )
    return results
