"""cuda-samples `bandwidthTest` reader: H2D / D2H (pinned or pageable) and D2D per GPU."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from advisor.base.errors import UserError
from advisor.main import main
from advisor.measure import Measurement, detect, parse
from tests.mutate import mutated

FIXTURES = Path(__file__).parent / "fixtures" / "tools" / "bandwidthtest"


def read(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def load(name: str) -> Measurement:
    return parse("bandwidthtest", read(name), name)


def figures(m: Measurement) -> list[tuple[str, int | None, float]]:
    return [(r.metric, r.gpu, r.value) for r in m.results]


def test_quick_mode_pinned_gb_s() -> None:
    m = load("routergao_a100sxm4_quick_tabs.txt")
    assert figures(m) == [("h2d_gbps", 0, 12.3), ("d2h_gbps", 0, 13.2), ("device_mem_gbps", 0, 1157.5)]
    assert m.machine.gpus[0].name == "NVIDIA A100-SXM4-40GB"
    assert m.results[0].note == "host -> GPU; pinned host memory" and m.results[0].size_bytes == 32_000_000
    assert all(r.unit == "GB/s" for r in m.results)


def test_range_mode_is_read_at_its_largest_size() -> None:
    m = load("jdh4_a100pcie_range_device_all.txt")
    assert figures(m) == [("h2d_gbps", 0, 25.9), ("d2h_gbps", 0, 25.8), ("device_mem_gbps", 0, 1226.1)]
    assert all(r.size_bytes == 1_000_000_000 for r in m.results)
    assert "largest of 10 transfer sizes (Range mode)" in m.results[0].note


def test_old_mb_s_output_is_converted() -> None:
    m = load("k20c_mb_s_spaces.txt")
    assert figures(m) == [("h2d_gbps", 0, 6.1836), ("d2h_gbps", 0, 6.7108), ("device_mem_gbps", 0, 150.5243)]
    assert "converted from 6038.7 MB/s" in m.results[0].note and m.results[0].size_bytes == 33554432


def test_pageable_copies_are_marked_so_compare_skips_them() -> None:
    m = load("gtx1660ti_maxq_pageable_mb_s.txt")
    h2d, d2h, d2d = m.results
    assert "pageable host memory" in h2d.note and "pageable host memory" in d2h.note
    assert "pageable" not in d2d.note  # a device-to-device copy uses no host memory
    assert (h2d.value, d2h.value) == (3.2925, 3.07)


def test_device_all_over_two_gpus_is_a_sum_without_a_gpu() -> None:
    m = load("k80_2dev_cumulative_device_all.txt")
    assert [(g.index, g.name) for g in m.machine.gpus] == [(0, "Tesla K80"), (1, "Tesla K80")]
    assert figures(m) == [
        ("h2d_gbps", None, 19.9),
        ("d2h_gbps", None, 22.7),
        ("device_mem_gbps", None, 315.7),
    ]
    assert all(r.gpus == 2 and "one after another" in r.note for r in m.results)


def test_shmoo_write_combined_and_csv_forms() -> None:
    # constructed from the last cuda-samples source (printResultsReadable / printResultsCSV):
    # no real shmoo, --wc or --csv output was found published
    shmoo = (
        "[CUDA Bandwidth Test] - Starting...\nRunning on...\n\n Device 1: NVIDIA A100-PCIE-40GB\n"
        " Shmoo Mode\n\n.................................................................................\n"
        " Host to Device Bandwidth, 1 Device(s)\n PINNED Memory Transfers\n"
        " Write-Combined Memory Writes are Enabled   Transfer Size (Bytes)\tBandwidth(GB/s)\n"
        "   1000\t\t\t\t0.4\n   2000\t\t\t\t0.8\n   64000000\t\t\t25.1\n   68000000\t\t\t25.2\n\n"
    )
    (r,) = parse("auto", shmoo, "s.txt").results
    assert (r.metric, r.gpu, r.value, r.size_bytes) == ("h2d_gbps", 1, 25.2, 68_000_000)
    assert "write-combined" in r.note and "Shmoo mode" in r.note
    csv = (
        "bandwidthTest-H2D-Pinned, Bandwidth = 12.4 GB/s, Time = 0.00258 s, Size = 32000000 bytes, NumDevsUsed = 1\n"
        "bandwidthTest-D2H-Paged, Bandwidth = 9.1 GB/s, Time = 0.00352 s, Size = 32000000 bytes, NumDevsUsed = 1\n"
    )
    assert detect(csv) == "bandwidthtest"
    m = parse("bandwidthtest", csv, "c.txt")
    assert figures(m) == [("h2d_gbps", 0, 12.4), ("d2h_gbps", 0, 9.1)]
    assert "pageable" in m.results[1].note and "assumed" in m.results[0].note


def test_cut_and_edited_files_are_refused_with_line() -> None:
    text = read("routergao_a100sxm4_quick_tabs.txt")
    with pytest.raises(UserError, match=r"^cut.txt:\d+: the Host to Device table has a header but no rows"):
        parse("bandwidthtest", text.split("   32000000\t\t\t12.3")[0], "cut.txt")
    with pytest.raises(
        UserError, match=r"^v.txt:10: expected a number like 12.3 for the Host to Device bandwidth"
    ):
        parse("bandwidthtest", text.replace("12.3", "12"), "v.txt")
    with pytest.raises(UserError, match=r"^r.txt:10: expected a row '<bytes>  <bandwidth>'"):
        parse("bandwidthtest", text.replace("   32000000\t\t\t12.3", "   32 MB  12.3  fast"), "r.txt")
    with pytest.raises(UserError, match=r"^h.txt:9: expected the 'Transfer Size \(Bytes\)"):
        parse("bandwidthtest", text.replace("Transfer Size (Bytes)\tBandwidth(GB/s)", "Size", 1), "h.txt")
    two = read("k80_2dev_cumulative_device_all.txt").replace(" Device 1: Tesla K80\n", "")
    with pytest.raises(UserError, match=r"over 2 devices but the file lists 1"):
        parse("bandwidthtest", two, "two.txt")


def test_detection_and_wrong_tool() -> None:
    for name in sorted(p.name for p in FIXTURES.iterdir()):
        assert detect(read(name)) == "bandwidthtest", name
    p2p = (FIXTURES.parent / "p2p" / "stelline_2x6000ada_can_access.txt").read_text()
    with pytest.raises(UserError, match="it looks like p2pBandwidthLatencyTest output"):
        parse("bandwidthtest", p2p, "p.txt")


@pytest.mark.parametrize("name", sorted(p.name for p in FIXTURES.iterdir()))
def test_import_auto_json_on_every_fixture(name, capsys) -> None:
    assert main(["import", "auto", str(FIXTURES / name), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["source"]["tool"] == "bandwidthtest"
    assert [r["metric"] for r in data["results"]] == ["h2d_gbps", "d2h_gbps", "device_mem_gbps"]


TEXTS = [read(p.name) for p in sorted(FIXTURES.iterdir())]
NASTY = ["12.3", "12", "MB/s", "GB/s", "", "Device 0:", "Device(s)", "PAGEABLE", "٣", "9" * 30, "1e309"]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(), mutated(TEXTS, NASTY)))
def test_any_text_gives_a_measurement_or_a_user_error(text: str) -> None:
    try:
        m = parse("bandwidthtest", text, "x")
    except UserError:
        return
    assert all(isinstance(r.value, float) and r.value >= 0 for r in m.results)
    Measurement.model_validate_json(m.to_json())
