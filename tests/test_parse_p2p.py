"""p2pBandwidthLatencyTest reader: real outputs (tests/fixtures/tools/README.md gives sources)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from advisor.base.errors import UserError
from advisor.measure import Measurement, parse
from tests.mutate import mutated

FIXTURES = Path(__file__).parent / "fixtures" / "tools" / "p2p"


def read(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def load(name: str) -> Measurement:
    return parse("p2p", read(name), name)


def pick(m: Measurement, metric: str, a: int, b: int, *, p2p: bool | None = None, note: str = ""):
    found = [r for r in m.find(metric, a=a, b=b) if (p2p is None or r.p2p is p2p) and note in (r.note or "")]
    assert len(found) == 1, found
    return found[0]


def test_kinghorn_4090_disabled_uni_is_22_02() -> None:
    m = load("kinghorn_2x4090_driver525_cannot_access.txt")
    r = pick(m, "uni_gbps", 0, 1, note="P2P disabled")
    assert (r.value, r.unit, r.p2p) == (22.02, "GB/s", False)
    assert pick(m, "uni_gbps", 1, 0, note="P2P disabled").value == 22.05
    assert pick(m, "bidi_gbps", 0, 1, note="P2P disabled").value == 30.92
    assert [g.bus_id for g in m.machine.gpus] == ["0000:41:00.0", "0000:61:00.0"]
    assert m.machine.gpus[0].name == "NVIDIA GeForce RTX 4090"


def test_enabled_figure_of_a_pair_that_cannot_access_peer_is_a_staged_copy() -> None:
    m = load("kinghorn_2x4090_driver525_cannot_access.txt")
    r = pick(m, "uni_gbps", 0, 1, note="p2p writes")
    assert r.value == 22.18
    assert r.p2p is False
    assert "cannot access GPU 1 as a peer" in r.note and "staged copy" in r.note
    assert pick(m, "bidi_gbps", 1, 0, note="cannot access").value == 30.84
    assert [(r.a, r.b, r.value) for r in m.find("p2p")] == [(0, 1, False), (1, 0, False)]


def test_latency_gpu_and_cpu_tables_and_diagonal_skipped() -> None:
    m = load("kinghorn_2x4090_driver525_cannot_access.txt")
    assert pick(m, "latency_us", 0, 1, note="GPU-timed (events); P2P disabled").value == 10.83
    assert pick(m, "latency_us", 0, 1, note="CPU-timed (wall clock); P2P disabled").value == 5.49
    staged = pick(m, "latency_us", 0, 1, note="GPU-timed (events); p2p writes")
    assert staged.value == 10.49 and staged.p2p is False
    assert all(r.a != r.b for r in m.results)
    assert not [r for r in m.results if r.value == 913.74]  # the diagonal (local copy)
    assert len(m.results) == 2 + 4 * 2 + 4 * 2  # access flags, 4 bandwidth and 4 latency tables


def test_nvlink_and_pcie_p2p_pairs_on_4x3090() -> None:
    m = load("valdemardi_4x3090_nvlink_patched.txt")
    nvlink = pick(m, "uni_gbps", 0, 2, p2p=True)
    assert nvlink.value == 52.72 and "p2p writes" in nvlink.note
    assert pick(m, "uni_gbps", 0, 1, p2p=True).value == 25.66
    assert pick(m, "bidi_gbps", 0, 2, p2p=True).value == 101.46
    assert "sum of the two" in pick(m, "bidi_gbps", 0, 2, p2p=True).note
    assert pick(m, "latency_us", 0, 1, p2p=True, note="GPU-timed").value == 1.06
    assert len(m.machine.gpus) == 4 and all(r.value for r in m.find("p2p"))


def test_native_p2p_on_2x6000ada() -> None:
    m = load("stelline_2x6000ada_can_access.txt")
    assert pick(m, "uni_gbps", 0, 1, p2p=True).value == 26.32
    assert pick(m, "bidi_gbps", 1, 0, p2p=True).value == 52.10
    assert pick(m, "uni_gbps", 0, 1, p2p=False).value == 22.23


def test_p2p_reads_matrix_and_trimmed_copies() -> None:
    m = load("nccl814_6gpu_p2p_reads_excerpt.txt")
    assert pick(m, "uni_gbps", 2, 3, note="p2p reads").value == 10.22
    assert pick(m, "uni_gbps", 2, 3, note="p2p writes").value == 10.01
    assert not m.find("p2p")  # the excerpt has no CAN/CANNOT lines
    m = load("kinghorn_2x4090_update_bidi_only.txt")
    assert pick(m, "bidi_gbps", 0, 1, p2p=False, note="disabled").value == 30.92


def test_value_cut_mid_number_is_refused() -> None:
    with pytest.raises(UserError) as err:
        load("tinygrad44_2x4090_truncated.txt")
    message = str(err.value)
    assert message.startswith("tinygrad44_2x4090_truncated.txt:31: expected a number like 12.33")
    assert "'924'" in message and "cut short" in message


def test_row_with_too_few_numbers() -> None:
    text = read("valdemardi_4x3090_nvlink_patched.txt").replace(
        "     2  11.25  11.22 833.78  11.21", "     2  11.25  11.22 833.78", 1
    )
    with pytest.raises(UserError) as err:
        parse("p2p", text, "p2p.txt")
    assert str(err.value).startswith(
        "p2p.txt:33: expected 4 numbers in the 'Unidirectional P2P=Disabled "
        "Bandwidth Matrix (GB/s)' matrix row for GPU 2, found 3"
    )


def test_matrix_cut_after_its_first_row() -> None:
    text = read("stelline_2x6000ada_can_access.txt")
    cut = text[: text.index("     1  22.32 813.80")]
    with pytest.raises(
        UserError, match=r"the file ends after 1 of 2 rows of the 'Unidirectional P2P=Disabled"
    ):
        parse("p2p", cut, "cut.txt")


def test_wrong_tool_and_empty_file() -> None:
    nccl = (FIXTURES.parent / "nccltests" / "tinygrad_6x4090_single_size.txt").read_text()
    with pytest.raises(UserError, match="it looks like nccl-tests output"):
        parse("p2p", nccl, "nccl.txt")
    with pytest.raises(UserError, match="the file is empty"):
        parse("p2p", "", "empty.txt")


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
    "D\\D",
    "GPU",
    "CPU",
    "0",
    "1.00",
    "12.345",
    "Device=0 CANNOT Access Peer Device=9",
    "P2P=Enabled Latency Matrix (us)",
]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(), mutated(TEXTS, NASTY)))
def test_any_text_gives_a_measurement_or_a_user_error(text: str) -> None:
    try:
        m = parse("p2p", text, "x")
    except UserError:
        return
    assert all(math.isfinite(r.value) for r in m.results if isinstance(r.value, float))
    Measurement.model_validate_json(m.to_json())
