"""Reader of NVIDIA nvbandwidth output, plain text and `-j` JSON.

Test names decide what a matrix means: host_to_device_memcpy_* -> h2d_gbps per GPU,
device_to_host_memcpy_* -> d2h_gbps, host_to_all / all_to_host -> h2d_all_gbps / d2h_all_gbps,
device_to_device_memcpy_read/write_* -> uni_gbps per directed pair with p2p=True,
*_bidirectional_* -> bidi_gbps as the tool defines it (one direction under duplex load for host
tests, the 'Total' matrix for GPU pairs), latency tests -> latency_us, device_local_copy ->
device_mem_gbps. 'N/A' cells, waived tests, unknown tests and unknown JSON keys are skipped.
A waived device-to-device test on a machine with two or more GPUs means nvbandwidth found no
pair with peer access, which is recorded as p2p=False for every pair.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from advisor.base.numbers import json_loads
from advisor.i18n import N_
from advisor.measure.models import GpuInfo, Machine, Measurement, Metric, Result, Source
from advisor.measure.parsers._common import (
    MAX_GPUS,
    Line,
    check_not_empty,
    fail,
    is_int,
    iter_pairs,
    normalise,
    not_this_tool,
    numbered_lines,
    shown,
    to_float,
)

TOOL = "nvbandwidth"
_VERSION = re.compile(r"^\s*nvbandwidth Version:\s*(\S+)")
_CUDA = re.compile(r"^\s*CUDA Runtime Version:\s*([0-9]{4,6})\s*$")
_DRIVER = re.compile(r"^\s*Driver Version:\s*(\S+)\s*$")
_DEVICE = re.compile(r"^\s*Device ([0-9]{1,4}):(.*)$")
_JSON_DEVICE = re.compile(r"^\s*([0-9]{1,4}):(.*)$")
_BDF_AT_END = re.compile(r"\(([0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2})\)$")
_HOST_AT_END = re.compile(r":\s*\(([^()]*)\)$")
_RUNNING = re.compile(r"^\s*Running (\w+)\.\s*$")
_WAIVING = re.compile(r"^\s*Waiving (\w+)\.\s*$")
_STATUS = re.compile(r"^\s*(Waived|Error|ERROR|Not Found):")
_DESCRIPTION_START = ("memcpy ", "memory latency", "Device to Device Latency")
_DESCRIPTION_END = ("(GB/s)", "(ns)")
_SUM = re.compile(r"^\s*SUM (\w+) ")
_TOTAL = re.compile(r"\bTotal\b")
_ONE_DIRECTION = re.compile(r"\b(Read|Write)[12]\b")


@dataclass
class _Test:
    name: str
    matrices: list[tuple[str, list[list[float | None]]]] = field(default_factory=list)


def parse(text: str, filename: str) -> Measurement:
    """Read nvbandwidth output (text or -j JSON) into a Measurement."""
    check_not_empty(text, filename, TOOL)
    body = normalise(text)
    start = _json_start(body)
    if start is not None:
        return _parse_json(body, start, filename)
    return _parse_text(body, filename)


# ----------------------------------------------------------------------------- text


def _parse_text(text: str, filename: str) -> Measurement:
    lines = numbered_lines(text)
    machine = Machine()
    version = None
    tests: list[_Test] = []
    waived: list[str] = []
    current: _Test | None = None
    seen_tool = False
    runs = 1
    i = 0
    while i < len(lines):
        line = lines[i]
        t = line.text
        if m := _VERSION.match(t):
            version, seen_tool = m.group(1), True
        elif m := _CUDA.match(t):
            machine.cuda = _cuda_version(int(m.group(1)))
        elif m := _DRIVER.match(t):
            machine.driver = m.group(1)
        elif m := _DEVICE.match(t):
            name, bdf = _name_and_bdf(m.group(2))
            gpu = _gpu(int(m.group(1)), name, bdf)
            known = next((g for g in machine.gpus if g.index == gpu.index), None)
            if known is None:
                machine.gpus.append(gpu)
            elif (known.name, known.bus_id) != (gpu.name, gpu.bus_id):
                raise fail(
                    filename,
                    f"device {gpu.index} is {gpu.name or '?'} here but {known.name or '?'} earlier in the "
                    "file: it holds runs from different machines",
                    line.number,
                    hint="import each machine's output as its own file",
                )
            else:
                runs += 1 if gpu.index == 0 else 0  # the device list again: another run appended
        elif m := _RUNNING.match(t):
            current, seen_tool = _Test(m.group(1)), True
            tests.append(current)
        elif m := _WAIVING.match(t):
            waived.append(m.group(1))
            current, seen_tool = None, True
        elif _STATUS.match(t):
            current = None  # 'Waived: ' / 'Error: ...' for the test just announced, or one never run
        elif _is_description(t):
            seen_tool = True
            if current is None:
                current = _test_named_by_sum(lines, i)
                if current is None:
                    raise fail(
                        filename,
                        f"found a result matrix ({t.strip()!r}) with no 'Running <test>.' "
                        "line before it or 'SUM <test>' line after it",
                        line.number,
                        hint="keep the 'Running ...' lines when copying nvbandwidth output",
                    )
                tests.append(current)
            matrix, i = _read_text_matrix(lines, i + 1, filename, current.name)
            current.matrices.append((t.strip(), matrix))
            continue
        i += 1
    if not seen_tool:
        raise not_this_tool(text, filename, TOOL, N_("no 'nvbandwidth Version' or 'Running <test>.' line"))
    _check_gpu_indices(machine, filename)
    results = _results(tests, waived, len(machine.gpus), filename)
    if runs > 1:
        for r in results:
            r.note = (
                f"{r.note}; " if r.note else ""
            ) + f"the file holds {runs} runs of nvbandwidth appended: each is kept"
    return Measurement(
        source=Source(tool=TOOL, file=filename, tool_version=version), machine=machine, results=results
    )


def _test_named_by_sum(lines: list[Line], i: int) -> _Test | None:
    """The test a matrix belongs to, from the 'SUM <test> <value>' line that follows it."""
    for line in lines[i + 1 : i + 200]:
        if _RUNNING.match(line.text) or _is_description(line.text):
            return None
        if m := _SUM.match(line.text):
            return _Test(m.group(1))
    return None


def _read_text_matrix(
    lines: list[Line], i: int, filename: str, test: str
) -> tuple[list[list[float | None]], int]:
    """Read the header of column numbers and the rows under a description line."""
    context = f"{test} matrix"
    if i >= len(lines) or all(not ln.text.strip() for ln in lines[i:]):
        raise fail(
            filename,
            f"the file ends right after the description of {test}",
            lines[i - 1].number,
            hint="the output looks truncated; rerun nvbandwidth and save its full output",
        )
    header = lines[i].tokens
    if len(header) > MAX_GPUS:
        raise fail(
            filename,
            f"the {context} has {len(header)} columns; more than {MAX_GPUS} GPUs is not supported",
            lines[i].number,
        )
    if not header or any(not is_int(t) or int(t) != k for k, t in enumerate(header)):
        raise fail(
            filename,
            f"expected the column numbers 0, 1, 2, ... of the {context}, found {lines[i].text.strip()!r}",
            lines[i].number,
        )
    n = len(header)
    rows: list[list[float | None]] = []
    i += 1
    while i < len(lines):
        tokens = lines[i].tokens
        if not tokens or not is_int(tokens[0]):
            break
        if int(tokens[0]) != len(rows):
            raise fail(
                filename,
                f"expected the row for {_row_name(test, len(rows))} in the {context}, found row {tokens[0]}",
                lines[i].number,
            )
        cells = tokens[1:]
        if len(cells) != n:
            raise fail(
                filename,
                f"expected {n} values in the {context} row for {_row_name(test, len(rows))}, "
                f"found {len(cells)}",
                lines[i].number,
                hint="the file may be cut short or edited; save nvbandwidth's full output again",
            )
        rows.append([_cell(c, filename, lines[i].number, context, decimals=2) for c in cells])
        i += 1
    if not rows:
        where = lines[i].number if i < len(lines) else lines[-1].number
        raise fail(
            filename,
            f"the {context} has a header but no rows",
            where,
            hint="the output looks truncated; rerun nvbandwidth and save its full output",
        )
    if _pairwise(test) and len(rows) != n:
        where = lines[i].number if i < len(lines) else lines[-1].number
        raise fail(
            filename,
            f"the {context} has {len(rows)} rows, expected {n} (one per GPU)",
            where,
            hint="the output looks truncated; rerun nvbandwidth and save its full output",
        )
    return rows, i


def _cell(
    token: str, filename: str, line: int | None, context: str, decimals: int | None = None
) -> float | None:
    if token.upper() in ("N/A", "NA", "-"):
        return None
    return to_float(token, filename, line, f"a cell of the {context}", decimals=decimals)


def _row_name(test: str, row: int) -> str:
    if _pairwise(test):
        return f"GPU {row}"
    return "the CPU" if row == 0 else f"CPU row {row}"


# ----------------------------------------------------------------------------- JSON


def _json_start(text: str) -> int | None:
    """Where the JSON object starts: at the top, or on the first line that is just '{'.

    nvbandwidth (like DCGM's wrapper sees it) may print warnings before the JSON.
    """
    stripped = text.lstrip()
    if stripped.startswith("{"):
        return len(text) - len(stripped)
    m = re.search(r"^\{\s*$", text, re.MULTILINE)
    if m and '"nvbandwidth"' in text[m.start() :]:
        return m.start()
    return None


def _parse_json(text: str, start: int, filename: str) -> Measurement:
    try:
        data, _end = json_loads(text, filename, start)  # NaN, 1e309, 5000 digits: refused at the line
    except json.JSONDecodeError as exc:
        raise fail(
            filename,
            f"this is not valid JSON: {exc.msg}",
            exc.lineno,
            hint="the file may be cut short; rerun nvbandwidth -j and save its full output",
        ) from None
    except RecursionError:
        raise fail(filename, "this JSON is nested too deeply to be nvbandwidth output") from None
    root = data.get("nvbandwidth") if isinstance(data, dict) else None
    if not isinstance(root, dict):
        raise not_this_tool(text, filename, TOOL, N_('no top-level "nvbandwidth" object'))
    machine = Machine(driver=_str(root.get("Driver Version")))
    cuda = root.get("CUDA Runtime Version")
    if isinstance(cuda, int) and not isinstance(cuda, bool) and 1000 <= cuda < 1000000:
        machine.cuda = _cuda_version(cuda)
    devices = root.get("GPU Device list")
    if isinstance(devices, list):
        for k, entry in enumerate(devices):
            m = _JSON_DEVICE.match(entry) if isinstance(entry, str) else None
            rest = m.group(2).strip() if m else ""
            host = _HOST_AT_END.search(rest)
            if host:
                rest = rest[: host.start()].strip()
            name, bdf = _name_and_bdf(rest)
            if not m or bdf is None:
                raise fail(
                    filename, f"GPU Device list entry {k} is not like '0: <name> (<bus id>)': {entry!r}"
                )
            machine.gpus.append(_gpu(int(m.group(1)), name, bdf))
            if host and host.group(1).strip() and not machine.hostname:
                machine.hostname = host.group(1).strip()
    _check_gpu_indices(machine, filename)
    testcases = root.get("testcases", [])
    if not isinstance(testcases, list):
        raise fail(filename, '"testcases" should be a list of tests')
    tests, waived = [], []
    for k, case in enumerate(testcases):
        if not isinstance(case, dict) or not isinstance(case.get("name"), str):
            raise fail(filename, f"testcases[{k}] has no test name")
        status = case.get("status")
        if status == "Waived":
            waived.append(case["name"])
            continue
        if status not in ("Passed", None) or "bandwidth_matrix" not in case:
            continue
        test = _Test(case["name"])
        test.matrices = _json_matrices(case, k, filename)
        tests.append(test)
    results = _results(tests, waived, len(machine.gpus), filename)
    return Measurement(
        source=Source(tool=TOOL, file=filename, tool_version=_str(root.get("version"))),
        machine=machine,
        results=results,
    )


def _json_matrices(case: dict[str, Any], k: int, filename: str) -> list[tuple[str, list[list[float | None]]]]:
    """The matrices of one JSON test; a bidirectional GPU test holds its three stacked.

    nvbandwidth appends the rows of Read1/Read2/Total to one bandwidth_matrix and keeps the
    last description, so 3N rows of N cells mean three N x N matrices, Total last.
    """
    name = case["name"]
    description = _str(case.get("bandwidth_description")) or name
    raw = case["bandwidth_matrix"]
    if not isinstance(raw, list) or not raw or not all(isinstance(r, list) for r in raw):
        raise fail(filename, f"testcases[{k}] ({name}): bandwidth_matrix should be a list of rows")
    n = len(raw[0])
    context = f"{name} matrix"
    if n > MAX_GPUS or len(raw) > 3 * MAX_GPUS:
        raise fail(
            filename,
            f"testcases[{k}] ({name}): the matrix is larger than {MAX_GPUS} GPUs, which is not supported",
        )
    rows = []
    for r, row in enumerate(raw):
        if len(row) != n:
            raise fail(
                filename,
                f"testcases[{k}] ({name}): row {r} of bandwidth_matrix has {len(row)} cells, expected {n}",
            )
        rows.append([_json_cell(c, filename, context) for c in row])
    if _pairwise(name) and len(rows) == 3 * n and "bidirectional" in name:
        return [(description, rows[2 * n :])]
    if _pairwise(name) and len(rows) != n:
        raise fail(filename, f"testcases[{k}] ({name}): bandwidth_matrix has {len(rows)} rows, expected {n}")
    return [(description, rows)]


def _json_cell(cell: Any, filename: str, context: str) -> float | None:
    if isinstance(cell, bool):
        raise fail(filename, f"expected a number or 'N/A' in the {context}, found {cell!r}")
    if isinstance(cell, (int, float)):
        if isinstance(cell, int) and abs(cell) > 10**15:
            raise fail(filename, f"expected a bandwidth in the {context}, found {shown(cell)}")
        cell = repr(float(cell))
    if not isinstance(cell, str):
        raise fail(filename, f"expected a number or 'N/A' in the {context}, found {cell!r}")
    return _cell(cell.strip(), filename, None, context)


# ----------------------------------------------------------------------------- meaning


def _pairwise(test: str) -> bool:
    return test.startswith("device_to_device")


def _engine(test: str) -> str:
    return "SM copy kernel" if test.endswith("_sm") else "copy engine"


def _results(tests: list[_Test], waived: list[str], gpu_count: int, filename: str) -> list[Result]:
    results: list[Result] = []
    for test in tests:
        matrices = test.matrices
        if _pairwise(test.name) and "bidirectional" in test.name and len(matrices) > 1:
            totals = [mx for mx in matrices if _TOTAL.search(mx[0])]
            matrices = totals[-1:] if totals else matrices[-1:]
        for description, rows in matrices:
            results.extend(_test_results(test.name, description, rows))
    pair_tests = [w for w in waived if _pairwise(w) or w.startswith(("all_to_one", "one_to_all"))]
    if pair_tests and gpu_count >= 2:
        names = ", ".join(sorted(set(pair_tests)))
        for a, b in iter_pairs(gpu_count):
            results.append(
                Result(
                    metric="p2p",
                    a=a,
                    b=b,
                    value=False,
                    tool=TOOL,
                    note=f"nvbandwidth waived {names}: it found no GPU pair with peer access",
                )
            )
    return results


# Copy tests that map straight to one metric: test name (without _ce/_sm) -> (per gpu or pair, metric, note).
_SIMPLE_TESTS: dict[str, tuple[str, Metric, str]] = {
    "host_to_device_memcpy": ("gpu", "h2d_gbps", "host -> GPU, one GPU at a time"),
    "device_to_host_memcpy": ("gpu", "d2h_gbps", "GPU -> host, one GPU at a time"),
    "host_to_all_memcpy": ("gpu", "h2d_all_gbps", "host -> this GPU while host -> all GPUs run at once"),
    "all_to_host_memcpy": ("gpu", "d2h_all_gbps", "this GPU -> host while all GPUs -> host run at once"),
    "host_to_device_bidirectional_memcpy": (
        "gpu",
        "bidi_gbps",
        "host -> GPU direction only, measured while a GPU -> host copy runs",
    ),
    "device_to_host_bidirectional_memcpy": (
        "gpu",
        "bidi_gbps",
        "GPU -> host direction only, measured while a host -> GPU copy runs",
    ),
    "host_to_all_bidirectional_memcpy": (
        "gpu",
        "bidi_gbps",
        "host -> GPU direction only, all GPUs at once with GPU -> host copies",
    ),
    "all_to_host_bidirectional_memcpy": (
        "gpu",
        "bidi_gbps",
        "GPU -> host direction only, all GPUs at once with host -> GPU copies",
    ),
    "device_to_device_memcpy_read": ("pair", "uni_gbps", "GPU a reads from GPU b (data flows b -> a)"),
    "device_to_device_memcpy_write": ("pair", "uni_gbps", "GPU a writes to GPU b (data flows a -> b)"),
}


def _test_results(test: str, description: str, rows: list[list[float | None]]) -> list[Result]:
    base = re.sub(r"_(ce|sm)$", "", test)
    engine = _engine(test)
    ns = "(ns)" in description
    out: list[Result] = []

    def per_gpu(metric: Metric, note: str, scale: float = 1.0, unit: str = "GB/s") -> None:
        for col, value in enumerate(rows[0]):
            if value is None or value == 0.0:
                continue
            out.append(
                Result(
                    metric=metric,
                    gpu=col,
                    value=round(value * scale, 6),
                    unit=unit,
                    tool=TOOL,
                    note=f"{test}: {note}",
                )
            )

    def per_pair(metric: Metric, note: str, scale: float = 1.0, unit: str = "GB/s") -> None:
        for a, b in iter_pairs(min(len(rows), len(rows[0]))):
            value = rows[a][b]
            if value is None or value == 0.0:
                continue
            out.append(
                Result(
                    metric=metric,
                    a=a,
                    b=b,
                    value=round(value * scale, 6),
                    unit=unit,
                    p2p=True,
                    tool=TOOL,
                    note=f"{test}: {note}",
                )
            )

    simple = _SIMPLE_TESTS.get(base)
    if simple is not None:
        scope, metric, note = simple
        (per_gpu if scope == "gpu" else per_pair)(metric, f"{note}, {engine}")
    elif base.startswith("device_to_device_bidirectional_memcpy"):
        if _TOTAL.search(description):
            per_pair("bidi_gbps", f"both directions at once, sum of the two ('Total'), {engine}")
        elif not _ONE_DIRECTION.search(description):
            per_pair(
                "bidi_gbps", f"one direction measured under bidirectional load (no 'Total' printed), {engine}"
            )
    elif test == "host_device_latency_sm":
        per_gpu("latency_us", "host <-> GPU memory latency (pointer chase)", 1e-3 if ns else 1.0, "us")
    elif test == "device_to_device_latency_sm":
        per_pair("latency_us", "GPU a <-> GPU b memory latency (pointer chase)", 1e-3 if ns else 1.0, "us")
    elif test == "device_local_copy":
        per_gpu("device_mem_gbps", "copy within the GPU's own memory (read + write of the buffer)")
    return out


# ----------------------------------------------------------------------------- helpers


def _is_description(text: str) -> bool:
    """A matrix title such as 'memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)'."""
    stripped = text.strip()
    return stripped.startswith(_DESCRIPTION_START) and stripped.endswith(_DESCRIPTION_END)


def _name_and_bdf(rest: str) -> tuple[str, str | None]:
    """'NVIDIA A100 (00000000:99:00)' -> ('NVIDIA A100', '00000000:99:00'); the bus part is optional."""
    rest = rest.strip()
    m = _BDF_AT_END.search(rest)
    if m is None:
        return rest, None
    return rest[: m.start()].strip(), m.group(1)


def _gpu(index: int, name: str, bdf: str | None) -> GpuInfo:
    bus = None
    if bdf:
        domain, bus_no, device = bdf.split(":")
        bus = f"{int(domain, 16):04x}:{int(bus_no, 16):02x}:{int(device, 16):02x}.0"
    return GpuInfo(index=index, name=name.strip() or None, bus_id=bus)


def _check_gpu_indices(machine: Machine, filename: str) -> None:
    indices = [g.index for g in machine.gpus]
    if indices != list(range(len(indices))):
        raise fail(filename, f"the device list numbers GPUs {indices}, expected 0, 1, 2, ...")


def _cuda_version(code: int) -> str:
    return f"{code // 1000}.{(code % 1000) // 10}"


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
