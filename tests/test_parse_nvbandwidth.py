"""nvbandwidth reader: real text and -j JSON outputs (tests/fixtures/tools/README.md gives sources)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from advisor.base.errors import UserError
from advisor.measure import Measurement, parse

FIXTURES = Path(__file__).parent / "fixtures" / "tools" / "nvbandwidth"


def read(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def load(name: str) -> Measurement:
    return parse("nvbandwidth", read(name), name)


def one(m: Measurement, metric: str, **where: object):
    found = m.find(metric, **where)
    assert len(found) == 1, found
    return found[0]


def test_h2d_and_d2h_per_gpu_from_8x4090_issue15() -> None:
    m = load("issue15_8x4090_v0.2.txt")
    assert one(m, "h2d_gbps", gpu=0).value == 25.50
    assert one(m, "h2d_gbps", gpu=7).value == 26.31
    assert one(m, "d2h_gbps", gpu=4).value == 27.10
    assert one(m, "h2d_gbps", gpu=2).unit == "GB/s"
    assert len(m.results) == 16
    assert [g.name for g in m.machine.gpus] == ["NVIDIA GeForce RTX 4090"] * 8
    assert (m.machine.driver, m.machine.cuda, m.source.tool_version) == ("545.29.06", "12.3", "v0.2")
    assert "copy engine" in one(m, "h2d_gbps", gpu=0).note


def test_d2d_read_matrix_with_na_diagonal_from_6xA6000_issue50() -> None:
    m = load("issue50_6xA6000_v0.8_d2d_read.txt")
    r = one(m, "uni_gbps", a=0, b=1)
    assert (r.value, r.p2p, r.unit) == (26.34, True, "GB/s")
    assert "reads from GPU b" in r.note
    assert one(m, "uni_gbps", a=3, b=0).value == 21.82
    assert len(m.find("uni_gbps")) == 30  # 6 x 6 without the N/A diagonal
    assert not m.find("uni_gbps", a=2, b=2)
    assert m.source.tool_version == "v0.8"


def test_waived_d2d_test_means_no_pair_has_peer_access() -> None:
    m = load("issue13_2x2080ti_waived_v0.2.txt")
    assert [(r.a, r.b, r.value) for r in m.find("p2p")] == [(0, 1, False), (1, 0, False)]
    assert "waived device_to_device_memcpy_write_ce" in m.results[0].note
    assert not m.find("uni_gbps")


def test_sm_copy_and_bus_id_from_a100_issue42() -> None:
    m = load("issue42_a100_v0.8_h2d_sm.txt")
    r = one(m, "h2d_gbps", gpu=0)
    assert r.value == 25.13 and "SM copy kernel" in r.note
    assert m.machine.gpus[0].bus_id == "0000:99:00.0"
    assert m.machine.gpus[0].name == "NVIDIA A100-SXM4-40GB"


def test_json_with_string_cells_waived_tests_and_latency_in_ns() -> None:
    m = load("dcgm_1gpu_v0.5.json")
    assert (
        one(
            m, "h2d_gbps", gpu=0, note="host_to_device_memcpy_ce: host -> GPU, one GPU at a time, copy engine"
        ).value
        == 12.3964
    )
    assert (
        one(
            m, "d2h_gbps", gpu=0, note="device_to_host_memcpy_ce: GPU -> host, one GPU at a time, copy engine"
        ).value
        == 13.2001
    )
    bidi = [
        r for r in m.find("bidi_gbps", gpu=0) if r.note.startswith("host_to_device_bidirectional_memcpy_ce")
    ]
    assert bidi[0].value == 11.5031 and "direction only" in bidi[0].note
    assert [r.value for r in m.find("h2d_all_gbps")] == [12.3963, 12.3995]
    latency = one(m, "latency_us", gpu=0)
    assert latency.unit == "us" and latency.value == pytest.approx(0.649879)
    assert not m.find("p2p")  # one GPU: nothing to say about pairs
    assert (m.machine.driver, m.machine.cuda, m.source.tool_version) == ("565.02", "12.7", "v0.5")


def test_json_after_warning_lines_reads_the_same() -> None:
    plain = load("dcgm_1gpu_v0.5.json")
    noisy = parse("nvbandwidth", read("dcgm_1gpu_v0.5_with_warnings.json"), "x.json")
    assert [r.model_dump() for r in noisy.results] == [r.model_dump() for r in plain.results]


def test_bidirectional_d2d_keeps_the_total_matrix() -> None:
    """Constructed from nvbandwidth's writers (testcases_ce.cpp prints Read1, Read2, Total;
    json_output.cpp stacks their rows into one bandwidth_matrix) with issue50's numbers."""
    text = (
        "nvbandwidth Version: v0.8\n\nRunning device_to_device_bidirectional_memcpy_read_ce.\n"
        "memcpy CE CPU(row) <-> GPU(column) Read1 bandwidth (GB/s)\n           0         1\n"
        " 0       N/A     26.34\n 1     26.34       N/A\n\n"
        "memcpy CE CPU(row) <-> GPU(column) Read2 bandwidth (GB/s)\n           0         1\n"
        " 0       N/A     26.35\n 1     26.35       N/A\n\n"
        "memcpy CE CPU(row) <-> GPU(column) Total bandwidth (GB/s)\n           0         1\n"
        " 0       N/A     52.69\n 1     52.69       N/A\n\n"
    )
    m = parse("nvbandwidth", text, "bidir.txt")
    assert [(r.a, r.b, r.value) for r in m.find("bidi_gbps")] == [(0, 1, 52.69), (1, 0, 52.69)]
    doc = {
        "nvbandwidth": {
            "testcases": [
                {
                    "name": "device_to_device_bidirectional_memcpy_read_ce",
                    "status": "Passed",
                    "bandwidth_description": "memcpy CE CPU(row) <-> GPU(column) Total bandwidth (GB/s)",
                    "bandwidth_matrix": [
                        ["N/A", "26.34"],
                        ["26.34", "N/A"],
                        ["N/A", "26.35"],
                        ["26.35", "N/A"],
                        ["N/A", "52.69"],
                        ["52.69", "N/A"],
                    ],
                    "sum": 105.38,
                    "future_key": 1,
                }
            ]
        }
    }
    m = parse("nvbandwidth", json.dumps(doc), "bidir.json")
    assert [(r.a, r.b, r.value) for r in m.find("bidi_gbps")] == [(0, 1, 52.69), (1, 0, 52.69)]


def test_truncated_output_is_refused_with_the_line() -> None:
    with pytest.raises(UserError) as err:
        parse("nvbandwidth", read("tinygrad29_8x5090_truncated.txt"), "t.txt")
    assert str(err.value).startswith(
        "t.txt:32: the file ends right after the description of device_to_host_bidirectional_memcpy_ce"
    )


def test_row_with_a_missing_value_names_the_line_and_counts() -> None:
    text = read("issue15_8x4090_v0.2.txt").replace("26.09     26.31\n", "26.09\n", 1)
    with pytest.raises(UserError) as err:
        parse("nvbandwidth", text, "f.txt")
    assert str(err.value).startswith(
        "f.txt:24: expected 8 values in the host_to_device_memcpy_ce matrix row for the CPU, found 7"
    )


def test_value_cut_short_is_refused() -> None:
    text = read("issue15_8x4090_v0.2.txt").replace("26.31\n", "26.3\n", 1)
    with pytest.raises(UserError, match="expected a number like 12.33"):
        parse("nvbandwidth", text, "f.txt")


def test_truncated_json_is_refused() -> None:
    text = read("dcgm_1gpu_v0.5.json")
    with pytest.raises(UserError, match="not valid JSON"):
        parse("nvbandwidth", text[: len(text) // 2], "cut.json")


def test_wrong_tool_and_empty_file() -> None:
    p2p = (FIXTURES.parent / "p2p" / "stelline_2x6000ada_can_access.txt").read_text()
    with pytest.raises(UserError, match="looks like p2pBandwidthLatencyTest output"):
        parse("nvbandwidth", p2p, "p2p.txt")
    with pytest.raises(UserError, match="the file is empty"):
        parse("nvbandwidth", "  \n", "empty.txt")
    with pytest.raises(UserError, match='no top-level "nvbandwidth" object'):
        parse("nvbandwidth", '{"results": []}', "other.json")


# ----------------------------------------------------------------------------- properties

TEXTS = [read(p.name) for p in sorted(FIXTURES.iterdir())]
NASTY = [
    "nan",
    "inf",
    "-1",
    "1e999",
    "٣",
    "N/A",
    "X",
    "",
    "9" * 30,
    "\t",
    "#",
    "{",
    "}",
    "[",
    "]",
    '"',
    "Waived: ",
    "Running x_ce.",
    "0",
    "1.00",
    "SUM a 1",
    "Device 9: x",
    "null",
    "true",
    "1e5",
]


@st.composite
def mutated(draw: st.DrawFn, texts: list[str] = TEXTS) -> str:
    lines = draw(st.sampled_from(texts)).split("\n")
    for _ in range(draw(st.integers(1, 4))):
        k = draw(st.integers(0, max(0, len(lines) - 1)))
        op = draw(st.sampled_from(["drop", "dup", "cut", "token", "swap"]))
        if not lines:
            break
        if op == "drop":
            del lines[k]
        elif op == "dup":
            lines.insert(k, lines[k])
        elif op == "cut":
            lines = lines[:k] + [lines[k][: draw(st.integers(0, len(lines[k])))]]
        elif op == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[k], lines[j] = lines[j], lines[k]
        else:
            tokens = lines[k].split(" ")
            t = draw(st.integers(0, len(tokens) - 1))
            tokens[t] = draw(st.sampled_from(NASTY) | st.text(max_size=5))
            lines[k] = " ".join(tokens)
    return "\n".join(lines)


def check_clean(m: Measurement) -> None:
    for r in m.results:
        if isinstance(r.value, float):
            assert math.isfinite(r.value)
    Measurement.model_validate_json(m.to_json())


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(), mutated()))
def test_any_text_gives_a_measurement_or_a_user_error(text: str) -> None:
    try:
        m = parse("nvbandwidth", text, "x")
    except UserError:
        return
    check_clean(m)


def test_runs_appended_to_one_file_are_read_as_runs_of_one_machine() -> None:
    text = (FIXTURES / "issue15_8x4090_v0.2.txt").read_text(encoding="utf-8")
    once = parse("nvbandwidth", text, "once.txt")
    twice = parse("nvbandwidth", text + "\n" + text, "twice.txt")
    assert len(twice.machine.gpus) == len(once.machine.gpus) == 8
    assert len(twice.results) == 2 * len(once.results)
    assert all("2 runs of nvbandwidth appended" in r.note for r in twice.results)


def test_runs_from_two_machines_in_one_file_are_refused() -> None:
    text = (FIXTURES / "issue15_8x4090_v0.2.txt").read_text(encoding="utf-8")
    other = text.replace("NVIDIA GeForce RTX 4090", "NVIDIA RTX A6000")
    with pytest.raises(UserError, match="holds runs from different machines"):
        parse("nvbandwidth", text + "\n" + other, "mixed.txt")
