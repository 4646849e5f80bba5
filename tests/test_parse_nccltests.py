"""nccl-tests reader: real text outputs of every column layout, and the -J JSON layout."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from advisor.base.errors import UserError
from advisor.measure import Measurement, parse
from tests.mutate import mutated

FIXTURES = Path(__file__).parent / "fixtures" / "tools" / "nccltests"


def read(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def load(name: str) -> Measurement:
    return parse("nccl-tests", read(name), name)


def plateau(m: Measurement, metric: str = "busbw_gbps", place: str = "out-of-place", collective: str = ""):
    found = [r for r in m.find(metric) if f"plateau, {place}" in r.note and r.note.startswith(collective)]
    assert len(found) == 1, found
    return found[0]


def at_size(m: Measurement, size: int, place: str = "out-of-place", collective: str = ""):
    found = [
        r
        for r in m.find("busbw_gbps", size_bytes=size)
        if r.note.endswith(f"one message size, {place}") and r.note.startswith(collective)
    ]
    assert len(found) <= 1, found
    return found[0] if found else None


def test_single_size_run_of_6x4090() -> None:
    m = load("tinygrad_6x4090_single_size.txt")
    bus = plateau(m)
    assert (bus.value, bus.gpus, bus.size_bytes, bus.unit) == (24.58, 6, 33554432, "GB/s")
    assert "only one message size was run" in bus.note and bus.note.startswith("all_reduce_perf")
    assert plateau(m, place="in-place").value == 24.50
    assert plateau(m, "algbw_gbps").value == 14.75
    assert m.machine.hostname == "tiny14"
    assert [g.name for g in m.machine.gpus] == ["NVIDIA GeForce RTX 4090"] * 6


def test_plateau_of_a_full_sweep_not_the_avg_bus_bandwidth() -> None:
    m = load("a3mega_16xH100_sweep.txt")
    bus = plateau(m)
    assert bus.value == pytest.approx((330.58 + 338.82) / 2)  # 4 GiB and 8 GiB are within 5 % of the peak
    assert (bus.gpus, bus.size_bytes) == (16, 8589934592)
    assert "4294967296..8589934592" in bus.note
    assert at_size(m, 1073741824).value == 297.86
    assert at_size(m, 1073741824, "in-place").value == 298.82
    assert not [r for r in m.results if r.value == 70.742]  # the footer average is not a result
    assert m.machine.gpus == []  # two hosts: GPU list would be ambiguous


def test_oldest_layouts_and_three_collectives_in_one_file() -> None:
    m = load("dgx2_12xV100_three_collectives_old_layouts.txt")
    reduce = plateau(m, collective="all_reduce_perf")
    assert (reduce.value, reduce.gpus, reduce.size_bytes) == (123.14, 12, 8589934592)
    gather = plateau(m, collective="all_gather_perf")
    assert (
        gather.value == 71.11 and "2 size(s) with results the tool flagged as wrong left out" in gather.note
    )
    assert at_size(m, 4294967280, collective="all_gather_perf") is None  # error column 1e+00
    assert plateau(m, place="in-place", collective="all_gather_perf").value == 110.55
    assert plateau(m, collective="broadcast_perf").value == 121.52
    assert at_size(m, 1073741824, collective="all_reduce_perf").value == 123.14


def test_old_layout_with_an_nccl_info_line_inside_the_table() -> None:
    m = load("azureml_4xK80_old_layout_info_line.txt")
    bus = plateau(m)
    assert (bus.value, bus.gpus) == (2.54, 4)
    assert len([r for r in m.find("busbw_gbps") if "one message size" in r.note]) == 14
    assert bus.note.startswith("collective not named in the file")


def test_validation_off_na_column_and_a_noisy_sweep() -> None:
    m = load("t4_3node_validation_off_na.txt")
    bus = plateau(m)
    assert (bus.value, bus.gpus) == (0.69, 3)
    assert "no clear plateau" in bus.note


def test_json_layout_of_util_cu() -> None:
    m = load("tinygrad_6x4090_in_util_cu_json_layout.json")
    bus = plateau(m)
    assert (bus.value, bus.gpus, bus.size_bytes) == (24.58, 6, 33554432)
    assert plateau(m, place="in-place").value == 24.50
    assert m.machine.hostname == "tiny14"


def test_json_cut_short_or_unfinished_is_refused() -> None:
    text = read("tinygrad_6x4090_in_util_cu_json_layout.json")
    with pytest.raises(UserError, match="not valid JSON"):
        parse("nccl-tests", text[:300], "cut.json")
    doc = json.loads(text)
    del doc["average_bus_bandwidth"]
    with pytest.raises(UserError, match="the run looks cut short"):
        parse("nccl-tests", json.dumps(doc), "unfinished.json")
    doc = json.loads(text)
    doc["results"][0]["out_of_place"]["bus_bw"] = "nan"
    with pytest.raises(UserError, match=r"results\[0\].out_of_place.bus_bw should be a number"):
        parse("nccl-tests", json.dumps(doc), "nan.json")


def test_output_without_its_footer_is_read_with_a_note() -> None:
    # published outputs often stop at the last row; a hung run ends the same way: the rows are kept
    text = read("a3mega_16xH100_sweep.txt")
    cut = text[: text.index("  2147483648")]
    full = parse("nccl-tests", text, "full.txt")
    m = parse("nccl-tests", cut, "trimmed.txt")
    sizes = {r.size_bytes for r in m.results}
    assert sizes and max(sizes) < 2147483648
    assert len(m.results) < len(full.results)
    summaries = [r for r in m.results if "plateau" in (r.note or "")]
    assert summaries and all("no '# Avg bus bandwidth' footer" in r.note for r in summaries)
    assert all("footer" not in (r.note or "") for r in full.results)


def test_a_table_without_rows_or_footer_is_refused() -> None:
    text = read("a3mega_16xH100_sweep.txt")
    header_end = text.index("\n", text.index("#       size")) + 1
    with pytest.raises(UserError) as err:
        parse("nccl-tests", text[:header_end], "hung.txt")
    assert "hung.txt:" in str(err.value)
    assert "has no rows and no '# Avg bus bandwidth' footer; the run looks cut short" in str(err.value)


def test_row_cut_mid_way_names_the_line() -> None:
    text = read("a3mega_16xH100_sweep.txt").replace(
        "   24361  176.31  330.58      0    24365  176.27  330.51      0", "   24361  176.31  330.58", 1
    )
    with pytest.raises(UserError) as err:
        parse("nccl-tests", text, "f.txt")
    assert str(err.value).startswith(
        "f.txt:61: expected 13 columns (size count type redop root time algbw "
        "busbw #wrong time algbw busbw #wrong) in this results row, found 8"
    )


def test_wrong_tool_and_empty_file() -> None:
    topo = (FIXTURES.parent / "topo" / "club3090_2x5090_phb_tabs.txt").read_text()
    with pytest.raises(UserError, match="it looks like `nvidia-smi topo -m` output"):
        parse("nccl-tests", topo, "topo.txt")
    with pytest.raises(UserError, match="the file is empty"):
        parse("nccl-tests", "\n\n", "empty.txt")


# ----------------------------------------------------------------------------- properties

TEXTS = [read(p.name) for p in sorted(FIXTURES.iterdir())]
NASTY = [
    "nan",
    "inf",
    "-1",
    "1e999",
    "٣",
    "N/A",
    "",
    "9" * 30,
    "\t",
    "#",
    "busbw",
    "size",
    "count",
    "0",
    "1e+00",
    "# Avg bus bandwidth    : 1",
    "{",
    "}",
    "null",
    '"nan"',
]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(), mutated(TEXTS, NASTY)))
def test_any_text_gives_a_measurement_or_a_user_error(text: str) -> None:
    try:
        m = parse("nccl-tests", text, "x")
    except UserError:
        return
    assert all(math.isfinite(r.value) for r in m.results if isinstance(r.value, float))
    Measurement.model_validate_json(m.to_json())


def test_a_run_across_nodes_says_its_nodes_and_lists_no_gpus_as_one_machines() -> None:
    """mpirun over two 8-GPU hosts: the ranks are 16, the hosts 2; no GPU list is this machine's (each host
    has its own GPU0), and the result says how the ranks spread, so compare can set it against a
    two-node build."""
    m = load("a3mega_16xH100_sweep.txt")
    assert m.machine.nodes == 2 and m.machine.hosts == ["ztan-mig-235z", "ztan-mig-gq73"]
    assert m.machine.gpus == [] and m.machine.hostname is None
    bus = plateau(m)
    assert bus.gpus == 16 and "16 ranks on 2 nodes (8 per node)" in bus.note
    three = load("t4_3node_validation_off_na.txt")
    assert three.machine.nodes == 3 and all(r.gpus == 3 for r in three.find("busbw_gbps"))


def test_a_json_run_across_nodes_counts_its_hosts() -> None:
    data = json.loads(read("tinygrad_6x4090_in_util_cu_json_layout.json"))
    one = data["config"]["devices"][0]
    data["config"]["devices"] = [one | {"hostname": "node0"}, one | {"hostname": "node1", "rank": 1}]
    m = parse("nccl-tests", json.dumps(data), "two-hosts.json")
    assert m.machine.nodes == 2 and m.machine.hosts == ["node0", "node1"]
    # one process of 6 GPUs per host: 12 ranks
    assert all(r.gpus == 12 for r in m.find("busbw_gbps"))
    assert "12 ranks on 2 nodes" in plateau(m).note
