"""`advisor import` and `advisor compare` on real published tool outputs."""

from __future__ import annotations

import json
import statistics

from tests.conftest import ROOT

TOOLS = ROOT / "tests" / "fixtures" / "tools"
STELLINE_TREE = """
topology:
  sockets:
    - vendor: amd
      root_ports:
        - {id: "c0:01.1", host_bridge: "c0", children: [{gpu: "RTX 6000 Ada"}]}
        - {id: "c0:03.1", host_bridge: "c0", children: [{gpu: "RTX 6000 Ada"}]}
"""


def test_import_writes_a_measurement_file(cli, tmp_path):
    out = tmp_path / "m.json"
    code, stdout, err = cli(
        "import", "p2p", str(TOOLS / "p2p" / "stelline_2x6000ada_can_access.txt"), "-o", str(out)
    )
    assert code == 0, err
    data = json.loads(out.read_text())
    uni = [r for r in data["results"] if r["metric"] == "uni_gbps" and r.get("p2p") is True]
    assert uni and {r["value"] for r in uni} == {26.32}


def test_compare_agrees_where_the_build_matches_the_machine(cli, write):
    build = write("stelline.yaml", STELLINE_TREE)
    code, out, _ = cli(
        "compare", str(build), str(TOOLS / "p2p" / "stelline_2x6000ada_can_access.txt"), "--json"
    )
    assert code == 0
    rows = {(r["metric"], r["where"]): r for r in json.loads(out)["rows"]}
    assert rows[("uni_gbps", "GPU0-GPU1")]["flagged"] is False
    assert 0.95 < rows[("uni_gbps", "GPU0-GPU1")]["ratio"] < 1.05


def test_compare_flags_a_gap_and_names_likely_causes(cli, tmp_path):
    m = tmp_path / "m.json"
    cli("import", "auto", str(TOOLS / "p2p" / "kinghorn_2x4090_driver525_cannot_access.txt"), "-o", str(m))
    code, out, _ = cli("compare", str(ROOT / "examples" / "2x4090-z790-hero.yaml"), str(m), "--json")
    assert code == 1
    report = json.loads(out)
    uni = next(r for r in report["rows"] if r["metric"] == "uni_gbps")
    assert uni["flagged"] and uni["ratio"] > 1.5
    assert any(c["id"] == "CMP014" and "x16" in c["message"] for c in uni["causes"])


def test_import_of_garbage_is_a_clear_error(cli, write):
    path = write("junk.txt", "hello world\nnothing to see\n")
    code, _, err = cli("import", "auto", str(path))
    assert code == 2 and "could not tell which tool" in err


def test_a_build_from_topo_reproduces_its_path_classes(cli, tmp_path):
    from advisor.base.yamlio import dumps
    from advisor.measure.models import Measurement, Result, Source
    from advisor.measure.to_build import build_from

    labels = {
        (0, 1): "PIX",
        (0, 2): "PXB",
        (1, 2): "PXB",
        (0, 3): "NODE",
        (1, 3): "NODE",
        (2, 3): "NODE",
        (0, 4): "SYS",
        (1, 4): "SYS",
        (2, 4): "SYS",
        (3, 4): "SYS",
    }
    results = [Result(metric="path", a=a, b=b, value=v, tool="topo") for (a, b), v in labels.items()]
    meas = Measurement(source=Source(tool="topo", file="t"), results=results)
    build = tmp_path / "b.yaml"
    build.write_text(dumps(build_from([meas], "RTX 6000 Ada")))
    code, out, err = cli("plan", str(build), "--json")
    assert code == 0, err
    got = {(p["a"], p["b"]): p["path"] for p in json.loads(out)["pairs"]}
    assert got == labels


def test_from_machine_on_a_real_topo_output(cli, tmp_path):
    out = tmp_path / "b.yaml"
    code, _, err = cli(
        "from-machine",
        str(TOOLS / "topo" / "stelline_2x6000ada_spaces_nics.txt"),
        "--gpu",
        "RTX 6000 Ada",
        "-o",
        str(out),
    )
    assert code == 0, err
    code, plan, _ = cli("plan", str(out), "--json")
    assert json.loads(plan)["pairs"][0]["path"] == "PHB"
    code, _, err = cli("from-machine", str(TOOLS / "topo" / "stelline_2x6000ada_spaces_nics.txt"))
    assert code == 2 and "GPU model" in err


def test_compare_reads_the_gpu_timed_latency_not_the_wall_clock_table(cli, write):
    """p2pBandwidthLatencyTest prints a GPU-timed and a CPU-timed latency table; the model's latency is
    the GPU-timed one, so the wall-clock table must not be pooled into the measured figure."""
    build = write(
        "tr.yaml",
        """
topology:
  sockets:
    - vendor: amd
      root_ports:
        - {id: "40:01.1", host_bridge: "40", children: [{gpu: "RTX 4090"}]}
        - {id: "60:01.1", host_bridge: "60", children: [{gpu: "RTX 4090"}]}
software: {cuda_p2p: false}
""",
    )
    path = TOOLS / "p2p" / "kinghorn_2x4090_driver525_cannot_access.txt"
    code, out, _ = cli("compare", str(build), str(path), "--json")
    lat = next(r for r in json.loads(out)["rows"] if r["metric"] == "latency_us")
    lines = path.read_text().splitlines()
    gpu = []  # the off-diagonal GPU-timed values of both latency tables (this pair cannot access its
    for i, line in enumerate(lines):  # peer, so the 'P2P=Enabled' table is staged too)
        if "Latency" in line and "Matrix" in line:
            assert lines[i + 1].split()[0] == "GPU"
            gpu += [float(lines[i + 2].split()[2]), float(lines[i + 3].split()[1])]
    assert len(gpu) == 4 and lat["measured"] == round(statistics.median(gpu), 3)
    assert lat["measured"] > 10  # the wall-clock table's 5.4-5.5 us would pull a pooled median below 9
