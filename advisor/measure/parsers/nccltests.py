"""Reader of nccl-tests output (all_reduce_perf and friends), plain text and `-J` JSON.

Columns are found from the header line, not by position, so every layout since 2019 reads:
`size count type time algbw busbw error` (no redop/root), with `redop`, with `root`, the
`#wrong` label, per-iteration `i_*` columns and a trailing timestamp. Each results table gives
one headline `busbw_gbps`: the large-message plateau, i.e. the median busbw of the largest
message sizes within 5 % of the table's peak (out-of-place, and in-place separately), because
the footer's "Avg bus bandwidth" averages every size and depends on the sweep. Per-size
busbw figures follow, each with a note saying so. Rows whose results the tool flagged as wrong
are left out of the plateau.
"""

from __future__ import annotations

import json
import re
import statistics
from dataclasses import dataclass, field
from typing import Any

from advisor.base.numbers import json_loads
from advisor.i18n import N_
from advisor.measure.models import GpuInfo, Machine, Measurement, Result, Source
from advisor.measure.parsers._common import (
    Line,
    check_not_empty,
    fail,
    is_float,
    is_int,
    normalise,
    not_this_tool,
    numbered_lines,
    shown,
    to_float,
)

TOOL = "nccl-tests"
PLATEAU_TOLERANCE = 0.05  # a size is on the plateau when its busbw is within 5 % of the peak
ERROR_COLUMN_LIMIT = 1e-3  # old 'error' column: max relative error; above this the result was wrong

_RANK = re.compile(
    r"^#\s*Rank\s+([0-9]{1,7})\s+(?:Group\s+[0-9]+\s+)?Pid\s+[0-9]+\s+on\s+(\S+)\s+"
    r"device\s+([0-9]{1,4})\s+\[([^\]]*)\]\s*(.*)$"
)
_THREADS = re.compile(r"^#\s*nThread\s+([0-9]{1,6})\s+nGpus\s+([0-9]{1,6})\b")
_VERSION = re.compile(r"^#\s*nccl-tests version\s+(\S+)")
_PROGRAM = re.compile(r"(?<![A-Za-z0-9_])([a-z][a-z_]{1,40})_perf(?:_mpi)?(?![A-Za-z0-9_])")
_FOOTER = re.compile(r"^#\s*Avg bus bandwidth\s*:")
_BDF = re.compile(r"^([0-9a-fA-F]{4}):([0-9a-fA-F]{2}):([0-9a-fA-F]{2})$")


@dataclass
class _Row:
    size: int
    busbw: list[float | None]  # out-of-place, in-place (None when absent)
    algbw: list[float | None]
    wrong: list[bool]
    line: int | None


@dataclass
class _Table:
    collective: str | None
    ranks: int | None
    rank_note: str | None
    rows: list[_Row] = field(default_factory=list)


def parse(text: str, filename: str) -> Measurement:
    """Read nccl-tests output (text or -J JSON) into a Measurement."""
    check_not_empty(text, filename, TOOL)
    body = normalise(text)
    if body.lstrip().startswith("{"):
        return _parse_json(body, filename)
    return _parse_text(body, filename)


# ----------------------------------------------------------------------------- text


def _parse_text(text: str, filename: str) -> Measurement:
    lines = numbered_lines(text)
    machine = Machine()
    version = None
    tables: list[_Table] = []
    preamble: list[Line] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if m := _VERSION.match(line.text):
            version = m.group(1)
        columns = _header_columns(line)
        if columns is None:
            preamble.append(line)
            i += 1
            continue
        table = _table_from_preamble(preamble, machine, filename)
        i = _read_rows(lines, i + 1, columns, table, filename)
        tables.append(table)
        preamble = []
    if not tables:
        raise not_this_tool(text, filename, TOOL, N_("no results header ('#  size  count  type ... busbw')"))
    results = [r for t in tables for r in _table_results(t, filename)]
    return Measurement(
        source=Source(tool=TOOL, file=filename, tool_version=version), machine=machine, results=results
    )


def _header_columns(line: Line) -> list[str] | None:
    """The column names if this is the results header line, else None."""
    if not line.text.lstrip().startswith("#"):
        return None
    tokens = line.text.lstrip().lstrip("#").split()
    if len(tokens) >= 4 and tokens[0] == "size" and tokens[1] == "count" and "busbw" in tokens:
        return tokens
    return None


def _table_from_preamble(preamble: list[Line], machine: Machine, filename: str) -> _Table:
    """Collective name and rank count from the lines before a results header."""
    collective = None
    ranks: dict[int, tuple[str, int, str, str]] = {}
    threads = None
    for line in preamble:
        if m := _PROGRAM.search(line.text):
            collective = m.group(1)
        if m := _RANK.match(line.text.strip()):
            ranks[int(m.group(1))] = (m.group(2), int(m.group(3)), m.group(4), m.group(5).strip())
        elif m := _THREADS.match(line.text.strip()):
            threads = int(m.group(1)) * int(m.group(2))
    note = None
    if ranks:
        count = len(ranks)
        _add_gpus(ranks, machine)
        hosts = len({host for host, _dev, _hex, _name in ranks.values()})
        if hosts > 1:
            note = (
                f"{count} ranks on {hosts} nodes ({count // hosts} per node)"
                if count % hosts == 0
                else (f"{count} ranks on {hosts} nodes")
            )
    elif threads:
        count = threads
        note = (
            "rank count taken from nThread x nGpus (no '# Rank' lines; a multi-process run would have more)"
        )
    else:
        count = None
        note = "rank count unknown: the file has no '# Rank' or '# nThread' lines"
    return _Table(collective, count, note)


def _add_gpus(ranks: dict[int, tuple[str, int, str, str]], machine: Machine) -> None:
    hosts = {host for host, _dev, _hex, _name in ranks.values()}
    if len(hosts) > 1:
        # a run across nodes (mpirun -H a:8,b:8, torchrun --nnodes): its GPUs are several machines', so
        # none is listed as this machine's; the hosts say how many nodes the collective spanned
        machine.nodes = len(hosts)
        machine.hosts = sorted(hosts)[:64]
        return
    if machine.gpus:
        return
    machine.hostname = hosts.pop()
    seen: dict[int, GpuInfo] = {}
    for _rank, (_host, device, hexid, name) in sorted(ranks.items()):
        m = _BDF.match(hexid)
        bus = f"{m.group(1).lower()}:{m.group(2).lower()}:{m.group(3).lower()}.0" if m else None
        seen.setdefault(device, GpuInfo(index=device, name=name or None, bus_id=bus))
    machine.gpus = [seen[k] for k in sorted(seen)]


def _read_rows(lines: list[Line], i: int, columns: list[str], table: _Table, filename: str) -> int:
    """Read data rows until the footer; return the index after it."""
    busbw = [k for k, c in enumerate(columns) if c == "busbw"]
    algbw = [k for k, c in enumerate(columns) if c == "algbw"]
    wrong = [k for k, c in enumerate(columns) if c in ("#wrong", "error", "wrong")]
    if len(busbw) > 2 or len(algbw) != len(busbw):
        raise fail(
            filename,
            f"the results header has {len(busbw)} busbw and {len(algbw)} algbw columns; "
            "expected one of each for out-of-place and in-place",
            lines[i - 1].number,
        )
    expected = len(columns) + (1 if columns[-1] == "timestamp" else 0)
    header_line = lines[i - 1].number
    while i < len(lines):
        line = lines[i]
        stripped = line.text.strip()
        if _FOOTER.match(stripped):
            return i + 1
        if _header_columns(line) is not None:
            break
        tokens = line.tokens
        if not tokens or stripped.startswith("#") or not is_int(tokens[0]):
            i += 1  # blank, comment, or an interleaved NCCL INFO / warning line
            continue
        if len(tokens) != expected:
            raise fail(
                filename,
                f"expected {expected} columns ({' '.join(columns)}) in this results row, found {len(tokens)}",
                line.number,
                hint="the row may be cut short; rerun the test and save its full output",
            )
        table.rows.append(_row(tokens, busbw, algbw, wrong, columns, line.number, filename))
        i += 1
    where = lines[i].number if i < len(lines) else lines[-1].number
    if not table.rows:
        raise fail(
            filename,
            f"the results table that starts at line {header_line} has no rows and no '# Avg bus bandwidth' "
            "footer; the run looks cut short (hung or killed)",
            where,
            hint="rerun the test until it finishes; if you trimmed the output, keep the rows and the footer line",
        )
    # Published outputs often stop at the last row (the footer trimmed away), and a run that hung
    # ends the same way: the rows read are real measurements, kept with a note that says so.
    last = table.rows[-1].line or where
    cut = (
        f"no '# Avg bus bandwidth' footer after the table at line {header_line}: the output ends after "
        f"{len(table.rows)} size(s) (line {last}), trimmed when published or cut short by a hung or killed run"
    )
    table.rank_note = f"{table.rank_note}; {cut}" if table.rank_note else cut
    return i


def _row(
    tokens: list[str],
    busbw: list[int],
    algbw: list[int],
    wrong: list[int],
    columns: list[str],
    line: int,
    filename: str,
) -> _Row:
    size = tokens[0]
    if not is_int(size):
        raise fail(filename, f"expected the message size in bytes, found {size!r}", line)
    bus = [to_float(tokens[k], filename, line, "busbw") for k in busbw]
    alg = [to_float(tokens[k], filename, line, "algbw") for k in algbw]
    bad = [_is_wrong(tokens[k], columns[k], filename, line) for k in wrong]
    bad += [False] * (len(bus) - len(bad))
    return _Row(int(size), _pad(bus), _pad(alg), bad[:2] + [False] * (2 - len(bad[:2])), line)


def _is_wrong(token: str, column: str, filename: str, line: int) -> bool:
    if token.upper() == "N/A":
        return False
    if not is_float(token):
        raise fail(
            filename, f"expected a count of wrong elements in the {column} column, found {token!r}", line
        )
    value = float(token)
    return value > (ERROR_COLUMN_LIMIT if column == "error" else 0)


def _pad(values: list[float]) -> list[float | None]:
    return (list(values) + [None, None])[:2]


# ----------------------------------------------------------------------------- JSON


def _parse_json(text: str, filename: str) -> Measurement:
    try:
        data = json_loads(text, filename)  # NaN, 1e309, a 5000-digit number: refused at the line
    except json.JSONDecodeError as exc:
        raise fail(
            filename,
            f"this is not valid JSON: {exc.msg}",
            exc.lineno,
            hint="the file may be cut short; the run must finish for nccl-tests to close its JSON",
        ) from None
    except RecursionError:
        raise fail(filename, "this JSON is nested too deeply to be nccl-tests output") from None
    if not isinstance(data, dict) or not isinstance(data.get("results"), list):
        raise not_this_tool(text, filename, TOOL, N_('no top-level "results" list'))
    config: dict[str, Any] = data["config"] if isinstance(data.get("config"), dict) else {}
    machine = Machine()
    ranks, note = _json_ranks(config, machine)
    args = data.get("args")
    program = args[0] if isinstance(args, list) and args and isinstance(args[0], str) else ""
    m = _PROGRAM.search(program)
    table = _Table(m.group(1) if m else None, ranks, note)
    for k, entry in enumerate(data["results"]):
        table.rows.append(_json_row(entry, k, filename))
    if "average_bus_bandwidth" not in data:
        raise fail(
            filename,
            'the JSON has no "average_bus_bandwidth"; the run looks cut short',
            hint="rerun the test until it finishes",
        )
    return Measurement(
        source=Source(tool=TOOL, file=filename), machine=machine, results=_table_results(table, filename)
    )


def _json_ranks(config: dict[str, Any], machine: Machine) -> tuple[int | None, str | None]:
    per_process = 1
    for key in ("nthreads", "ngpus"):
        value = config.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and 0 < value < 1_000_000:
            per_process *= value
    devices = config.get("devices")
    if isinstance(devices, list) and devices:
        # nccl-tests records one device line per process, so ranks = processes x threads x GPUs
        hosts = {d.get("hostname") for d in devices if isinstance(d, dict)}
        if len(hosts) == 1 and isinstance(next(iter(hosts)), str):
            machine.hostname = next(iter(hosts))
        named = sorted(h for h in hosts if isinstance(h, str))
        if len(named) > 1:
            machine.nodes = len(named)
            machine.hosts = named[:64]
            ranks = len(devices) * per_process
            return ranks, f"{ranks} ranks on {len(named)} nodes"
        return len(devices) * per_process, None
    if "nthreads" in config or "ngpus" in config:
        return per_process, "rank count taken from nthreads x ngpus (no device list)"
    return None, "rank count unknown: the JSON has no config"


def _json_row(entry: Any, k: int, filename: str) -> _Row:
    if not isinstance(entry, dict):
        raise fail(filename, f"results[{k}] should be an object with size and busbw figures")
    size = entry.get("size")
    if not isinstance(size, int) or isinstance(size, bool) or not 0 <= size < 2**63:
        raise fail(filename, f"results[{k}].size should be a whole number of bytes, found {shown(size)}")
    bus: list[float | None] = []
    alg: list[float | None] = []
    bad: list[bool] = []
    for place in ("out_of_place", "in_place"):
        part = entry.get(place)
        if part is None:
            bus.append(None)
            alg.append(None)
            bad.append(False)
            continue
        if not isinstance(part, dict):
            raise fail(filename, f"results[{k}].{place} should be an object")
        bus.append(_json_number(part.get("bus_bw"), f"results[{k}].{place}.bus_bw", filename))
        alg.append(_json_number(part.get("alg_bw"), f"results[{k}].{place}.alg_bw", filename))
        wrong = part.get("nwrong")
        bad.append(isinstance(wrong, (int, float)) and not isinstance(wrong, bool) and wrong > 0)
    return _Row(size, bus, alg, bad, None)


def _json_number(value: Any, where: str, filename: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise fail(filename, f"{where} should be a number, found {shown(value)}")
    if isinstance(value, int) and abs(value) > 10**15:
        raise fail(filename, f"{where} should be a bandwidth in GB/s, found {shown(value)}")
    return to_float(repr(float(value)), filename, None, where)


# ----------------------------------------------------------------------------- meaning


def _table_results(table: _Table, filename: str) -> list[Result]:
    name = f"{table.collective}_perf" if table.collective else "collective not named in the file"
    results: list[Result] = []
    for place, label in ((0, "out-of-place"), (1, "in-place")):
        plateau = _plateau(table.rows, place)
        if plateau is None:
            continue
        busbw, algbw, sizes, peak, left_out = plateau
        note = (
            f"{name}: large-message plateau, {label}: median busbw of {len(sizes)} size(s) "
            f"{sizes[0]}..{sizes[-1]} B within {PLATEAU_TOLERANCE:.0%} of the peak {peak:g} GB/s"
        )
        if len(sizes) == 1 and len(table.rows) == 1:
            note += "; only one message size was run, so it may be below the plateau"
        elif len(sizes) == 1:
            note += (
                "; only the peak size is within the band, so the curve shows no clear plateau "
                "(still rising at the largest size, or noisy)"
            )
        if left_out:
            note += f"; {left_out} size(s) with results the tool flagged as wrong left out"
        if table.rank_note:
            note += f"; {table.rank_note}"
        results.append(
            Result(
                metric="busbw_gbps",
                value=busbw,
                note=note,
                gpus=table.ranks,
                size_bytes=sizes[-1],
                unit="GB/s",
                tool=TOOL,
            )
        )
        if algbw is not None:
            results.append(
                Result(
                    metric="algbw_gbps",
                    value=algbw,
                    note=note.replace("busbw", "algbw", 1),
                    gpus=table.ranks,
                    size_bytes=sizes[-1],
                    unit="GB/s",
                    tool=TOOL,
                )
            )
    if not results:
        first = table.rows[0].line if table.rows else None
        raise fail(
            filename,
            f"the {name} results table has no usable rows (every busbw is 0, missing or flagged wrong)",
            first,
        )
    for row in table.rows:
        for place, label in ((0, "out-of-place"), (1, "in-place")):
            value = row.busbw[place]
            if value is None or row.wrong[place]:
                continue
            results.append(
                Result(
                    metric="busbw_gbps",
                    value=value,
                    gpus=table.ranks,
                    size_bytes=row.size,
                    unit="GB/s",
                    tool=TOOL,
                    note=f"{name}: one message size, {label}",
                )
            )
    return results


def _plateau(rows: list[_Row], place: int) -> tuple[float, float | None, list[int], float, int] | None:
    """Median busbw (and algbw) over the largest sizes within tolerance of the peak.

    Walks down from the largest size: skips sizes below the band (a drop at the very end), then
    takes sizes while they stay within it.
    """
    usable: list[tuple[int, float, float | None]] = []
    for r in rows:
        bus = r.busbw[place]
        if bus is not None and bus > 0 and not r.wrong[place]:
            usable.append((r.size, bus, r.algbw[place]))
    usable.sort(key=lambda t: t[0])
    left_out = sum(1 for r in rows if r.busbw[place] is not None and r.wrong[place])
    if not usable:
        return None
    peak = max(bw for _s, bw, _a in usable)
    floor = peak * (1 - PLATEAU_TOLERANCE)
    block: list[tuple[int, float, float | None]] = []
    for entry in reversed(usable):
        if entry[1] >= floor:
            block.append(entry)
        elif block:
            break
    block.reverse()
    busbw = round(statistics.median(bw for _s, bw, _a in block), 6)
    algs = [a for _s, _b, a in block if a is not None]
    algbw = round(statistics.median(algs), 6) if len(algs) == len(block) else None
    return busbw, algbw, [s for s, _b, _a in block], peak, left_out
