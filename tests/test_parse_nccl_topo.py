"""NCCL's topology XML: read a real NCCL dump, export the planned machine in the same format, read it
back to the same paths, and compare NCCL's view with the plan."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from advisor.base.errors import UserError
from advisor.base.yamlio import load_file
from advisor.measure import detect, parse
from advisor.measure.parsers.ncclxml import export, nccl_class, paths, read
from advisor.model.buildfile import build_from_data
from advisor.model.catalog.store import load_catalog
from advisor.model.engine import evaluate
from tests.conftest import ROOT

FIXTURES = Path(__file__).parent / "fixtures" / "tools" / "nccl_topo"
HGX = FIXTURES / "simai_8xa100_4cx6.xml"


def test_real_hgx_a100_dump_gpus_numa_and_nvswitch_paths() -> None:
    text = HGX.read_text()
    assert detect(text) == "nccl-topo"
    m = parse("nccl-topo", text, HGX.name)
    assert [g.index for g in m.machine.gpus] == list(range(8))
    assert m.machine.gpus[0].bus_id == "0000:13:00.0" and m.machine.gpus[0].pcie_gen_max == 4
    assert [g.numa_node for g in m.machine.gpus] == [0, 0, 0, 0, 1, 1, 1, 1]
    # every GPU's NVLinks go to NVSwitches (tclass 0x068000): NCCL sees every pair as NVL
    assert {r.value for r in m.find("path")} == {"NVL"} and len(m.find("path")) == 8 * 7


def test_the_same_dump_without_nvlink_gives_the_pcie_classes() -> None:
    """The <nvlink> lines taken out of the real dump: two GPUs under one switch tree are PXB, under
    different trees of one CPU PHB, across CPUs SYS."""
    text = re.sub(r"\s*<nvlink [^>]*/>", "", HGX.read_text())
    p = paths(read(text, "x.xml"))
    assert p[(0, 1)] == "PXB" and p[(0, 2)] == "PHB" and p[(0, 4)] == "SYS" and p[(2, 3)] == "PXB"


BUILDS = [
    "examples/2x4090-z790-hero.yaml",
    "tests/fixtures/builds/8x-rtxpro6000-esc8000a.yaml",
]


@pytest.mark.parametrize("build", BUILDS)
def test_export_reads_back_to_the_plans_paths(build) -> None:
    catalog = load_catalog()
    pred = evaluate(build_from_data(load_file(ROOT / build)), catalog)
    got = paths(read(export(pred), "exported.xml"))
    assert got == {(q.a, q.b): nccl_class(q.path) for q in pred.pairs}


def test_under_nps4_the_export_gives_each_root_complex_its_numa_node() -> None:
    """bios.nps 4: NCCL reads each root complex's GPUs under a <cpu> of its own, so pairs across root
    complexes of one socket read back SYS, as the plan's NCCL class says; the switch pairs stay PIX."""
    from advisor.model.build import Build

    build = build_from_data(load_file(ROOT / "tests/fixtures/builds/8x-rtxpro6000-esc8000a.yaml"))
    build = Build.model_validate(build.model_dump() | {"bios": {"nps": 4}})
    pred = evaluate(build, load_catalog())
    text = export(pred)
    got = paths(read(text, "exported.xml"))
    assert got == {(q.a, q.b): nccl_class(q.nccl_path) for q in pred.pairs}
    assert "SYS" in got.values() and "PIX" in got.values()
    assert text.count("<cpu ") > pred.machine.sockets


def test_export_keeps_nvlink_bridges_chipset_slots_and_switch_trees(write) -> None:
    catalog = load_catalog()
    cases = {
        "nv.yaml": "cpu: amd-ryzen-threadripper-pro-5975wx\nboard: asus-pro-ws-wrx80e-sage-se-wifi\n"
        "gpus: [{model: nvidia-rtx-3090, count: 4}]\nnvlink: [[0, 1], [2, 3]]\nsoftware: {cuda_p2p: true}\n",
        "chipset.yaml": "cpu: intel-core-i9-14900k\nboard: asus-rog-strix-z790-e-gaming-wifi\n"
        "gpus: [{model: nvidia-rtx-4090, count: 3}]\n",
    }
    seen = set()
    for name, text in cases.items():
        pred = evaluate(build_from_data(load_file(write(name, text))), catalog)
        xml = export(pred)
        got = paths(read(xml, name))
        assert got == {(q.a, q.b): nccl_class(q.path) for q in pred.pairs}, name
        seen |= set(got.values())
        assert xml.startswith('<system version="1">') and "<nvlink" in xml or name != "nv.yaml"
    assert {"NVL", "PHB"} <= seen


def test_cli_export_then_compare_says_every_path_agrees(cli, tmp_path) -> None:
    out = tmp_path / "topo.xml"
    build = str(ROOT / "tests" / "fixtures" / "builds" / "8x-rtxpro6000-esc8000a.yaml")
    code, _, err = cli("export", "nccl-topo", build, "-o", str(out))
    assert code == 0 and "wrote" in err and out.read_text().startswith("<system")
    code, text, _ = cli("compare", build, str(out), "--json")
    rows = [r for r in json.loads(text)["rows"] if r["metric"] == "path"]
    assert len(rows) == 28 and not any(r["flagged"] for r in rows)
    assert {r["predicted"] for r in rows} == {"PIX", "PHB", "SYS"}  # NODE is NCCL's PHB


def test_compare_names_where_nccls_view_differs(cli, tmp_path) -> None:
    """A dump whose GPUs sit under one switch while the plan has them on separate root ports."""
    build = str(ROOT / "examples" / "2x4090-z790-hero.yaml")
    xml = (
        '<system version="1">\n  <cpu numaid="0" arch="x86_64" vendor="GenuineIntel">\n'
        '    <pci busid="0000:01:00.0" class="0x060400" link_speed="16.0 GT/s PCIe" link_width="16">\n'
        '      <pci busid="0000:02:00.0" class="0x030000" vendor="0x10de"><gpu dev="0" sm="89" rank="0" gdr="1"/></pci>\n'
        '      <pci busid="0000:03:00.0" class="0x030000" vendor="0x10de"><gpu dev="1" sm="89" rank="1" gdr="1"/></pci>\n'
        "    </pci>\n  </cpu>\n</system>\n"
    )
    f = tmp_path / "dump.xml"
    f.write_text(xml)
    code, text, _ = cli("compare", build, str(f), "--json")
    (row,) = [r for r in json.loads(text)["rows"] if r["metric"] == "path"]
    assert row["predicted"] == "PHB" and row["measured"] == "PIX" and row["flagged"]


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('<!DOCTYPE system [<!ENTITY x "y">]><system version="1"><cpu/></system>', "refused for safety"),
        ("<system><cpu numaid='0'></system>", "not well-formed XML"),
        ('<topology version="1"><cpu/></topology>', "starts with <system>"),
        (
            '<system version="1"><cpu numaid="0"><pci busid="0000:01:00.0" class="0x060400"/></cpu></system>',
            "no GPU",
        ),
    ],
)
def test_bad_topology_files_are_clear_errors(text, says) -> None:
    with pytest.raises(UserError) as exc:
        parse("nccl-topo", text, "bad.xml")
    assert says in exc.value.render() and "bad.xml" in exc.value.render()
