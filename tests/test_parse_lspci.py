"""`lspci -vv` reader: NVIDIA GPUs' LnkCap / LnkSta from real outputs."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from advisor.base.errors import UserError
from advisor.measure import Measurement, parse
from advisor.measure.parsers.lspci import GEN_BY_SPEED
from tests.mutate import mutated

FIXTURES = Path(__file__).parent / "fixtures" / "tools" / "lspci"


def read(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def load(name: str) -> Measurement:
    return parse("lspci", read(name), name)


def test_idle_gpus_show_downgraded_gen1_under_a_gen4_x16_capability() -> None:
    m = load("stelline_2x6000ada_downgraded_plus_raid.txt")
    assert [g.bus_id for g in m.machine.gpus] == ["0000:c1:00.0", "0000:c2:00.0"]  # the RAID card is left out
    for gpu in (0, 1):
        (gen,) = m.find("link_gen", gpu=gpu)
        (gen_max,) = m.find("link_gen_max", gpu=gpu)
        (width,) = m.find("link_width", gpu=gpu)
        (width_max,) = m.find("link_width_max", gpu=gpu)
        assert (gen.value, gen_max.value, width.value, width_max.value) == (1, 4, 16, 16)
        assert "downgraded" in gen.note and "under load" in gen.note
        assert "downgraded" not in width.note
    g = m.machine.gpus[0]
    assert (g.name, g.pcie_gen_current, g.pcie_gen_max) == ("AD102GL [RTX 6000 Ada Generation]", 1, 4)


def test_transfer_rates_map_to_generations() -> None:
    assert [GEN_BY_SPEED[s] for s in ("2.5", "5", "8", "16", "32", "64")] == [1, 2, 3, 4, 5, 6]
    text = read("stelline_2x6000ada_downgraded_plus_raid.txt").replace(
        "LnkSta: Speed 2.5GT/s (downgraded), Width x16", "LnkSta: Speed 32GT/s, Width x8 (downgraded)", 1
    )
    m = parse("lspci", text, "x.txt")
    (gen,) = m.find("link_gen", gpu=0)
    (width,) = m.find("link_width", gpu=0)
    assert (gen.value, width.value) == (5, 8) and "width is downgraded" in width.note


def test_lspci_without_root_says_to_use_sudo() -> None:
    # without root the capability list (LnkCap, LnkSta, ACS) is hidden; the BAR sizes are not
    m = load("tinygrad_4090_not_root_access_denied.txt")
    (bar1,) = m.find("bar1_mb", gpu=0)
    assert (
        bar1.value == 32768 and bar1.unit == "MiB"
    )  # "Memory at 28800000000 (64-bit, prefetchable) [size=32G]"
    assert "no link lines for 0000:01:00.0" in bar1.note and "sudo lspci -vv" in bar1.note
    assert not m.find("link_gen") and not m.find("acs_on")
    # with no BAR line either, nothing is left to read: the message says why
    text = read("tinygrad_4090_not_root_access_denied.txt")
    text = "\n".join(line for line in text.splitlines() if "Memory at" not in line)
    with pytest.raises(UserError) as err:
        parse("lspci", text, "tinygrad_4090_not_root_access_denied.txt")
    message = str(err.value)
    assert message.startswith(
        "tinygrad_4090_not_root_access_denied.txt:2: no LnkCap / LnkSta lines for the "
        "NVIDIA GPU(s) 0000:01:00.0: lspci was not allowed to read them"
    )
    assert "sudo lspci -vv" in message


def test_a_bar_larger_than_any_device_names_its_line_and_sizes_stay_exact() -> None:
    text = read("tinygrad_4090_not_root_access_denied.txt")
    line = next(i for i, t in enumerate(text.splitlines(), 1) if "[size=32G]" in t)
    # a damaged size hundreds of digits long: a clear error at its line, not a float overflow
    for size in ("9" * 400 + "K", "9" * 4000 + "G", "17179869184T"):
        with pytest.raises(UserError) as err:
            parse("lspci", text.replace("[size=32G]", f"[size={size}]"), "x.txt")
        assert str(err.value).startswith(f"x.txt:{line}: this BAR's size is larger than any PCIe device maps")
    # 2^64 bytes exactly is the largest a 64-bit BAR can be
    (bar1,) = parse("lspci", text.replace("[size=32G]", "[size=16777216T]"), "x.txt").find("bar1_mb", gpu=0)
    assert bar1.value == 1 << 44
    # a small BAR in KiB rounds to whole MiB, never below one
    (bar1,) = parse("lspci", text.replace("[size=32G]", "[size=1536K]"), "x.txt").find("bar1_mb", gpu=0)
    assert bar1.value == 2
    (bar1,) = parse("lspci", text.replace("[size=32G]", "[size=4K]"), "x.txt").find("bar1_mb", gpu=0)
    assert bar1.value == 1


def test_impossible_speed_names_the_line() -> None:
    text = read("stelline_2x6000ada_downgraded_plus_raid.txt").replace(
        "Speed 16GT/s, Width x16", "Speed 20GT/s, Width x16", 1
    )
    with pytest.raises(UserError, match=r"x.txt:26: LnkCap speed 20 GT/s is not a PCIe rate"):
        parse("lspci", text, "x.txt")


def test_no_nvidia_gpu_and_wrong_tool_and_empty_file() -> None:
    raid_only = read("stelline_2x6000ada_downgraded_plus_raid.txt").split("HighPoint Carrier Board")[1]
    with pytest.raises(UserError, match="lspci lists no NVIDIA GPU"):
        parse("lspci", raid_only, "raid.txt")
    p2p = (FIXTURES.parent / "p2p" / "stelline_2x6000ada_can_access.txt").read_text()
    with pytest.raises(UserError, match="it looks like p2pBandwidthLatencyTest output"):
        parse("lspci", p2p, "p2p.txt")
    with pytest.raises(UserError, match="the file is empty"):
        parse("lspci", "", "empty.txt")


# ----------------------------------------------------------------------------- properties

TEXTS = [read(p.name) for p in sorted(FIXTURES.iterdir())]
NASTY = [
    "Speed",
    "2.5GT/s",
    "7GT/s",
    "x99",
    "x0",
    "Width",
    "(downgraded)",
    "LnkSta:",
    "LnkCap:",
    "",
    "NVIDIA",
    "01:00.0",
    "VGA compatible controller:",
    "٣",
    "9" * 30,
    "nan",
]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(), mutated(TEXTS, NASTY)))
def test_any_text_gives_a_measurement_or_a_user_error(text: str) -> None:
    try:
        m = parse("lspci", text, "x")
    except UserError:
        return
    for r in m.results:
        if r.metric == "acs_on":
            assert isinstance(r.value, bool)
        elif r.metric == "bar1_mb":
            assert isinstance(r.value, int) and r.value >= 1
        else:
            assert isinstance(r.value, int) and 1 <= r.value <= 32
    Measurement.model_validate_json(m.to_json())
