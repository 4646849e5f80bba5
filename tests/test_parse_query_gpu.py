"""`nvidia-smi --query-gpu=... --format=csv` reader: GPU list and PCIe link gen / width."""

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

FIXTURES = Path(__file__).parent / "fixtures" / "tools" / "query_gpu"


def read(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def load(name: str) -> Measurement:
    return parse("query-gpu", read(name), name)


def value(m: Measurement, metric: str, gpu: int) -> int:
    (r,) = m.find(metric, gpu=gpu)
    return r.value


def test_eight_l40s_idle_at_gen1_with_gen4_x16_max() -> None:
    m = load("mlperf40_wiwynn_8xL40S_header.txt")
    assert [g.index for g in m.machine.gpus] == list(range(8))
    g = m.machine.gpus[7]
    assert (g.pcie_gen_current, g.pcie_gen_max, g.pcie_width_current, g.pcie_width_max) == (1, 4, 16, 16)
    assert value(m, "link_gen", 3) == 1 and value(m, "link_gen_max", 3) == 4
    assert len(m.results) == 32
    assert "read it under load" in m.find("link_gen", gpu=0)[0].note


def test_names_and_a_x8_card_in_a_x16_slot() -> None:
    m = load("llamabench_2x5060ti_gen3_x8.txt")
    assert [g.name for g in m.machine.gpus] == ["NVIDIA GeForce RTX 5060 Ti"] * 2
    assert (value(m, "link_width", 0), value(m, "link_width_max", 0)) == (8, 8)
    assert (value(m, "link_width", 1), value(m, "link_width_max", 1)) == (8, 16)


def test_without_index_rows_are_numbered_in_order_and_driver_is_read() -> None:
    m = load("c16_2x5060ti_driver_gen1_idle.txt")
    assert m.machine.driver == "595.71.05"
    assert [(g.index, g.pcie_gen_current, g.pcie_gen_max, g.pcie_width_current) for g in m.machine.gpus] == [
        (0, 1, 3, 4),
        (1, 1, 3, 4),
    ]
    assert "row order" in m.results[0].note


def test_noheader_output_takes_its_columns_from_the_saved_command_line() -> None:
    # built from the real L40S output as `--format=csv,noheader,nounits` would print it
    text = read("mlperf40_wiwynn_8xL40S_header.txt").replace("--format=csv", "--format=csv,noheader,nounits")
    text = "\n".join(ln for ln in text.splitlines() if not ln.startswith("index,")) + "\n"
    m = parse("query-gpu", text, "noheader.txt")
    assert m.results == load("mlperf40_wiwynn_8xL40S_header.txt").results
    bare = "\n".join(ln for ln in text.splitlines() if ln and ln[0].isdigit()) + "\n"
    with pytest.raises(UserError, match="no CSV header naming query fields"):
        parse("query-gpu", bare, "bare.txt")
    assert detect(bare) is None  # numbers alone could be anything: name the tool


def test_units_in_the_header_bus_ids_and_na() -> None:
    # constructed in the documented format (reference §5): units in brackets, [N/A] cells
    text = (
        "index, name, pci.bus_id, memory.total [MiB], pcie.link.gen.current, pcie.link.gen.max, "
        "pcie.link.gen.hostmax, pcie.link.width.current, pcie.link.width.max\n"
        "0, NVIDIA RTX A6000, 00000000:4F:00.0, 49140 MiB, 1, 4, [N/A], 16, 16\n"
    )
    m = parse("query-gpu", text, "u.txt")
    assert m.machine.gpus[0].bus_id == "0000:4f:00.0" and m.machine.gpus[0].pcie_gen_max == 4
    assert m.find("link_gen_max", gpu=0)[0].value == 4 and len(m.find("link_gen_max")) == 1


def test_bad_values_name_the_line() -> None:
    text = read("llamabench_2x5060ti_gen3_x8.txt")
    with pytest.raises(UserError, match=r"^g.txt:4: pcie.link.gen.max is '9', which no PCIe link has"):
        parse("query-gpu", text.replace("3, 3, 8, 16", "3, 9, 8, 16"), "g.txt")
    with pytest.raises(UserError, match=r"^w.txt:3: expected a link width \(lanes\) for pcie.link.width.max"):
        parse("query-gpu", text.replace("3, 3, 8, 8", "3, 3, 8, wide"), "w.txt")
    with pytest.raises(UserError, match=r"^c.txt:3: expected 6 comma-separated values"):
        parse("query-gpu", text.replace("3, 3, 8, 8", "3, 3, 8"), "c.txt")
    with pytest.raises(UserError, match=r"^d.txt:4: GPU index 0 appears twice"):
        parse("query-gpu", text.replace("1, NVIDIA", "0, NVIDIA"), "d.txt")
    with pytest.raises(UserError, match="lists no GPUs"):
        parse("query-gpu", text.split("0, NVIDIA")[0], "e.txt")


@pytest.mark.parametrize("name", sorted(p.name for p in FIXTURES.iterdir()))
def test_import_auto_json_on_every_fixture(name, capsys) -> None:
    assert main(["import", "auto", str(FIXTURES / name), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["source"]["tool"] == "query-gpu"
    assert {r["metric"] for r in data["results"]} == {
        "link_gen",
        "link_gen_max",
        "link_width",
        "link_width_max",
    }


TEXTS = [read(p.name) for p in sorted(FIXTURES.iterdir())]
NASTY = ["[N/A]", "0", "99", "16x", "", ",", "index,", "pcie.link.gen.max", "٣", "9" * 30, "--format=csv"]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(), mutated(TEXTS, NASTY)))
def test_any_text_gives_a_measurement_or_a_user_error(text: str) -> None:
    try:
        m = parse("query-gpu", text, "x")
    except UserError:
        return
    Measurement.model_validate_json(m.to_json())
