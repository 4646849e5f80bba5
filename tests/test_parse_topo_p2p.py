"""`nvidia-smi topo -p2p r|w|n|a|p` reader: the driver's P2P status per directed GPU pair."""

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

FIXTURES = Path(__file__).parent / "fixtures" / "tools" / "topo_p2p"


def read(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def load(name: str) -> Measurement:
    return parse("topo-p2p", read(name), name)


def status(m: Measurement, a: int, b: int) -> bool:
    (r,) = m.find("p2p", a=a, b=b)
    return r.value


def test_geforce_5090_pair_is_gpu_not_supported_both_ways() -> None:
    m = load("club3090_1124_2x5090_gns_rw.txt")
    assert [(r.a, r.b, r.value) for r in m.results] == [(0, 1, False), (1, 0, False)]
    assert "GNS = GPU not supported" in m.results[0].note
    assert "was not saved with the output" in m.results[0].note  # no command line in this paste
    assert [g.index for g in m.machine.gpus] == [0, 1]


def test_space_separated_copy_reads_the_same() -> None:
    tabs = load("club3090_1124_2x5090_gns_rw.txt")
    spaces = load("club3090_1130_2x5090_gns_spaces.txt")
    assert [(r.a, r.b, r.value, r.note) for r in spaces.results] == [
        (r.a, r.b, r.value, r.note) for r in tabs.results
    ]


def test_read_capability_from_the_saved_command_line() -> None:
    m = load("valdemardi_4x3090_p2p_read_ok.txt")
    assert len(m.results) == 12 and all(r.value is True for r in m.results)
    assert m.results[0].note == "P2P read status from `nvidia-smi topo -p2p r`: OK = Status Ok"


def test_prop_matrix_after_a_failed_command_and_a_cut_legend() -> None:
    m = load("aikitoria13_5gpu_prop_ok_excerpt.txt")
    assert len(m.results) == 20 and status(m, 3, 4) and status(m, 4, 0)
    assert "`nvidia-smi topo -p2p p`" in m.results[0].note


def test_read_and_write_matrices_in_one_file_are_both_kept() -> None:
    # built from the real 'r' output: the same matrix saved again after its 'w' command line
    text = read("valdemardi_4x3090_p2p_read_ok.txt")
    both = text + text.replace("-p2p r", "-p2p w").replace("OK\tX", "CNS\tX", 1)
    m = parse("topo-p2p", both, "rw.txt")
    assert len(m.results) == 24
    reads = [r for r in m.results if "P2P read status" in r.note]
    writes = [r for r in m.results if "P2P write status" in r.note]
    assert len(reads) == len(writes) == 12
    (w10,) = [r for r in writes if (r.a, r.b) == (1, 0)]
    assert w10.value is False and "CNS = Chipset not supported" in w10.note


def test_unknown_cell_and_truncation_are_refused_with_line() -> None:
    text = read("club3090_1124_2x5090_gns_rw.txt")
    with pytest.raises(
        UserError, match=r"^bad.txt:2: expected a P2P status .* between GPU0 and GPU1, found 'PHB'"
    ):
        parse("topo-p2p", text.replace("X\tGNS", "X\tPHB"), "bad.txt")
    with pytest.raises(UserError, match=r"^cut.txt:\d+: the matrix has 2 GPU columns but 1 GPU rows"):
        parse("topo-p2p", text.split(" GPU1\tGNS")[0], "cut.txt")
    with pytest.raises(UserError, match=r"^self.txt:2: expected 'X' where GPU0 meets itself"):
        parse("topo-p2p", text.replace("GPU0\tX", "GPU0\tOK"), "self.txt")
    with pytest.raises(UserError, match=r"^short.txt:3: expected 2 cells in the row for GPU1, found 1"):
        parse("topo-p2p", text.replace("GPU1\tGNS\tX", "GPU1\tGNS"), "short.txt")


def test_a_status_defined_only_by_the_files_legend_is_read_as_not_ok() -> None:
    text = read("club3090_1124_2x5090_gns_rw.txt").replace("X\tGNS", "X\tIOB", 1)
    text += "  IOB  = Blocked by IOMMU\n"  # a code newer drivers might add (constructed)
    m = parse("topo-p2p", text, "new.txt")
    (r,) = m.find("p2p", a=0, b=1)
    assert r.value is False and "IOB = Blocked by IOMMU" in r.note and "does not know" in r.note


def test_detection_tells_p2p_status_from_topo_m_and_the_topo_reader_still_refuses_it() -> None:
    for name in sorted(p.name for p in FIXTURES.iterdir()):
        assert detect(read(name)) == "topo-p2p", name
    topo_m = (FIXTURES.parent / "topo" / "club3090_2x5090_phb_tabs.txt").read_text()
    assert detect(topo_m) == "topo"
    with pytest.raises(UserError, match="it looks like `nvidia-smi topo -m` output"):
        parse("topo-p2p", topo_m, "m.txt")
    with pytest.raises(UserError, match=r"this is `nvidia-smi topo -p2p` output"):
        parse("topo", read("valdemardi_4x3090_p2p_read_ok.txt"), "r.txt")


@pytest.mark.parametrize("name", sorted(p.name for p in FIXTURES.iterdir()))
def test_import_auto_json_on_every_fixture(name, capsys) -> None:
    assert main(["import", "auto", str(FIXTURES / name), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["source"]["tool"] == "topo-p2p"
    assert data["results"] and all(r["metric"] == "p2p" for r in data["results"])


TEXTS = [read(p.name) for p in sorted(FIXTURES.iterdir())]
NASTY = ["X", "OK", "CNS", "GNS", "GPU0", "GPU9", "", "\t", "٣", "nvidia-smi topo -p2p z", "Legend:", "U"]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(), mutated(TEXTS, NASTY)))
def test_any_text_gives_a_measurement_or_a_user_error(text: str) -> None:
    try:
        m = parse("topo-p2p", text, "x")
    except UserError:
        return
    assert all(isinstance(r.value, bool) for r in m.results)
    Measurement.model_validate_json(m.to_json())
