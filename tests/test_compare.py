"""`advisor import` and `advisor compare` on real published tool outputs."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

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


# ---------------------------------------------------------------- a measurement of another machine shape

HERO = str(ROOT / "examples" / "2x4090-z790-hero.yaml")
NVBW8 = TOOLS / "nvbandwidth" / "issue15_8x4090_v0.2.txt"
NCCL6 = TOOLS / "nccltests" / "tinygrad_6x4090_single_size.txt"
NCCL6_JSON = TOOLS / "nccltests" / "tinygrad_6x4090_in_util_cu_json_layout.json"


def _refused(code: int, out: str, err: str) -> str:
    assert code == 2 and out == "" and "Traceback" not in err, (code, out, err)
    return err


def test_an_eight_gpu_nvbandwidth_run_is_refused_against_a_two_gpu_build(cli):
    """It once compared GPU0 and GPU1 and dropped the other six without a word."""
    for fmt in ((), ("--json",)):
        err = _refused(*cli("compare", HERO, str(NVBW8), *fmt))
        assert "the measurement has 8 GPUs (GPU0-GPU7), the build has 2" in err
        assert "would leave out GPU2-GPU7" in err
        assert "compare it with a build of 8 GPUs" in err and "--gpus 0,1" in err


def test_a_six_gpu_all_reduce_is_refused_not_shown_as_the_two_gpu_prediction(cli, tmp_path):
    """'6 GPUs predicted 7.58' set a 6-rank all-reduce against the 2-GPU build's figure; in text, in
    nccl-tests' -J layout, and once imported, the file is refused and says why."""
    imported = tmp_path / "nccl.json"
    assert cli("import", "auto", str(NCCL6), "-o", str(imported))[0] == 0
    for path in (NCCL6, NCCL6_JSON, imported):
        err = _refused(*cli("compare", HERO, str(path)))
        assert "the measurement has 6 GPUs (its all-reduce ran over 6), the build has 2" in err, path
        assert "compare it with a build of 6 GPUs" in err and "all_reduce_perf -g N" in err
    # an explicit GPU map cannot make a 6-GPU all-reduce a 2-GPU one
    err = _refused(*cli("compare", HERO, str(NCCL6), "--gpus", "0,1"))
    assert "nothing in the measurement is about the GPUs --gpus names" in err
    assert "the all-reduce over 6 GPUs cannot be set against the build's 2 GPUs" in err


def test_an_all_reduce_over_the_builds_gpu_count_is_compared(cli, write):
    """Like with like: the same 6-GPU file against a build of six 4090s is compared, over 6 GPUs."""
    build = write(
        "six.yaml",
        "topology:\n  sockets:\n    - vendor: amd\n      root_ports:\n"
        + "".join(
            f'        - {{id: "{h:x}0:01.1", host_bridge: "{h:x}0", children: [{{gpu: "RTX 4090"}}]}}\n'
            for h in range(1, 7)
        ),
    )
    code, out, err = cli("compare", str(build), str(NCCL6), "--json")
    assert code in (0, 1), err
    (row,) = json.loads(out)["rows"]
    measured = json.loads(cli("import", "auto", str(NCCL6))[1])["results"]
    busbw = [r["value"] for r in measured if r["metric"] == "busbw_gbps" and r["gpus"] == 6]
    assert row["where"] == "6 GPUs" and row["measured"] == max(busbw)


def test_gpus_maps_measured_gpus_onto_the_build_and_says_what_it_left_out(cli):
    code, out, err = cli("compare", HERO, str(NVBW8), "--gpus", "4,5", "--json")
    assert code in (0, 1), err
    report = json.loads(out)
    measured = json.loads(cli("import", "auto", str(NVBW8))[1])["results"]
    for row in report["rows"]:
        build_gpu = int(row["where"].removeprefix("GPU"))
        same = [
            r["value"] for r in measured if r["metric"] == row["metric"] and r.get("gpu") == 4 + build_gpu
        ]
        assert row["measured"] == round(statistics.median(same), 3), row
    assert {r["where"] for r in report["rows"]} == {"GPU0", "GPU1"}
    assert any("measured GPU4 compared as the build's GPU0, measured GPU5" in n for n in report["notes"])
    assert any("left out GPU0, GPU1, GPU2, GPU3, GPU6, GPU7 (not in --gpus)" in n for n in report["notes"])
    code, text, _ = cli("compare", HERO, str(NVBW8), "--gpus", "4,5")
    # the notes wrap at the terminal's width wherever the fixture's path puts the breaks
    assert "note:" in text and "measured GPU4" in " ".join(text.split())


def test_bad_gpu_maps_are_clear_errors(cli):
    cases = {
        "0": "names 1 GPU(s), the build has 2",
        "0,x": "'x' is not a GPU number or '-'",
        "3,3": "names measured GPU3 twice",
        "0,9": "names measured GPU9, which none of the files shows",
        "-,-": "maps no GPU",
    }
    for value, message in cases.items():
        code, _, err = cli("compare", HERO, str(NVBW8), f"--gpus={value}")
        assert code == 2 and message in err and "Traceback" not in err, (value, err)


def test_a_file_of_fewer_gpus_is_compared_as_the_builds_first_and_says_so(cli):
    """bandwidthTest measures device 0 only: its figures are the build's GPU0's, and the output says so.
    A file whose all-GPU host copies ran on 1 GPU cannot stand for the build's 2 and is refused."""
    code, out, err = cli(
        "compare", HERO, str(TOOLS / "bandwidthtest" / "routergao_a100sxm4_quick_tabs.txt"), "--json"
    )
    report = json.loads(out)
    assert code in (0, 1) and {r["where"] for r in report["rows"]} == {"GPU0"}
    assert any("the file shows 1 GPU (GPU0) of the build's 2" in n for n in report["notes"])
    dcgm = str(TOOLS / "nvbandwidth" / "dcgm_1gpu_v0.5.json")
    err = _refused(*cli("compare", HERO, dcgm))
    assert "the measurement has 1 GPU (GPU0), the build has 2" in err and "ran over 1" in err
    assert "--gpus 0,-" in err
    # the user's map: measured GPU0 is the build's GPU0 and GPU1 was not measured; the all-GPU copies go
    code, out, err = cli("compare", HERO, dcgm, "--gpus", "0,-", "--json")
    report = json.loads(out)
    assert code in (0, 1) and {r["where"] for r in report["rows"]} == {"GPU0"}, err
    assert not any(r["metric"].endswith("_all_gbps") for r in report["rows"])
    assert any("left out the" in n and "every GPU copying at once over 1 GPU" in n for n in report["notes"])


def _shape(results: list[dict], gpus: list[dict]) -> tuple[int, set[int]]:
    shown = {g["index"] for g in gpus}
    for r in results:
        shown.update(r[k] for k in ("gpu", "a", "b") if k in r)
    ranks = {r.get("gpus") for r in results if r["metric"] == "busbw_gbps"}
    return (max(shown) + 1 if shown else 0), ranks


def test_every_real_tool_output_is_compared_whole_or_refused(cli):
    """Each readable fixture of every tool the compare path reads, against the 2-GPU build: a file that
    shows a GPU the build lacks, or an all-reduce over another count, is refused naming both counts;
    any other is compared with rows about the build's GPUs only."""
    checked = 0
    for path in sorted(TOOLS.glob("*/*")):
        if path.name == "README.md":
            continue
        code, out, _ = cli("import", "auto", str(path))
        if code != 0:
            continue  # a truncated copy: refused by its reader (tests/test_parse_*.py)
        m = json.loads(out)
        count, ranks = _shape(m["results"], m.get("machine", {}).get("gpus", []))
        code, out, err = cli("compare", HERO, str(path), "--json")
        if count > 2 or ranks - {2}:
            assert code == 2 and "the build has 2" in err and "the measurement has" in err, (path, err)
            assert f"the measurement has {max([count, *(r or 0 for r in ranks)])} GPU" in err, (path, err)
        else:
            assert code in (0, 1) or "ran over 1" in err, (path, err)
            if code != 2:
                rows = json.loads(out)["rows"]
                assert {r["where"] for r in rows} <= {"GPU0", "GPU1", "GPU0-GPU1", "2 GPUs"}, path
        checked += 1
    assert checked >= 45


def test_a_bench_file_of_four_gpus_is_refused(cli, write):
    """`advisor bench` on a 4-GPU machine (its file format, written here) against the 2-GPU build."""
    results = [
        {"metric": "h2d_gbps", "gpu": i, "value": 25.0, "unit": "GB/s", "tool": "advisor-bench"}
        for i in range(4)
    ] + [{"metric": "busbw_gbps", "value": 20.0, "gpus": 4, "unit": "GB/s", "tool": "advisor-bench"}]
    bench = write(
        "bench.json",
        json.dumps(
            {
                "schema_version": 1,
                "source": {"tool": "advisor-bench", "file": "-"},
                "machine": {"gpus": [{"index": i, "name": "NVIDIA GeForce RTX 4090"} for i in range(4)]},
                "results": results,
            }
        ),
    )
    err = _refused(*cli("compare", HERO, str(bench)))
    assert "the measurement has 4 GPUs (GPU0-GPU3), the build has 2" in err
    code, out, err = cli("compare", HERO, str(bench), "--gpus", "2,3", "--json")
    assert code in (0, 1), err
    report = json.loads(out)
    assert {r["metric"] for r in report["rows"]} == {"h2d_gbps"}
    assert any(
        "left out GPU0, GPU1 (not in --gpus); the all-reduce over 4 GPUs" in n for n in report["notes"]
    )


def test_compare_in_a_real_process_refuses_another_shape():
    """The command as a user types it."""
    import os
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "advisor", "compare", HERO, str(NVBW8)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=120,
        check=False,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert "the measurement has 8 GPUs (GPU0-GPU7), the build has 2" in done.stderr


# ---------------------------------------------------------------- causes agree with what the files state

KINGHORN = TOOLS / "p2p" / "kinghorn_2x4090_driver525_cannot_access.txt"


def _causes(report: dict) -> list[dict]:
    return [c for r in report["rows"] for c in r["causes"]]


def test_a_pair_that_cannot_access_its_peer_is_never_said_to_run_p2p(cli, tmp_path):
    """p2pBandwidthLatencyTest printed 'CANNOT Access Peer': the files state P2P was off, so 'P2P seems
    active ... set software.driver: patched-p2p' (CMP011) contradicts them; the wider-links cause stays."""
    imported = tmp_path / "m.json"
    cli("import", "auto", str(KINGHORN), "-o", str(imported))
    for path in (KINGHORN, imported):
        code, out, _ = cli("compare", HERO, str(path), "--json")
        causes = _causes(json.loads(out))
        assert code == 1 and causes
        assert not any(c["id"] == "CMP011" for c in causes), path
        assert not any("P2P seems active" in c["message"] or "patched-p2p" in c["fix"] for c in causes)
        assert any(c["id"] == "CMP014" for c in causes)
        code, text, _ = cli("compare", HERO, str(path))
        assert "P2P seems active" not in text and "patched-p2p" not in text
    # the driver's own matrix says the same in another file: GNS (GPU not supported) for both directions
    gns = TOOLS / "topo_p2p" / "club3090_1124_2x5090_gns_rw.txt"
    code, out, _ = cli("compare", HERO, str(KINGHORN), str(gns), "--json")
    assert not any(c["id"] == "CMP011" for c in _causes(json.loads(out)))


def _valdemardi_build(cli, tmp_path, nvlink: bool) -> Path:
    """The 4x RTX 3090 machine of the valdemardi README as `from-machine` writes it from its topo -m,
    with the patched P2P driver it runs; without its two NVLink bridges where `nvlink` is False."""
    import yaml

    out = tmp_path / "v4.yaml"
    code, _, err = cli(
        "from-machine",
        str(TOOLS / "topo" / "valdemardi_4x3090_nv4_tabs.txt"),
        "--gpu",
        "RTX 3090",
        "-o",
        str(out),
    )
    assert code == 0, err
    data = yaml.safe_load(out.read_text())
    if not nvlink:
        data.pop("nvlink")
    data["software"] = {"driver": "patched-p2p"}
    out.write_text(yaml.safe_dump(data))
    return out


def _flagged(out: str) -> dict[tuple[str, str], set[str]]:
    return {
        (r["metric"], r["where"]): {c["id"] for c in r["causes"]}
        for r in json.loads(out)["rows"]
        if r["flagged"]
    }


def test_p2p_stated_on_is_never_said_to_be_off_and_nvlink_is_named(cli, tmp_path):
    """valdemardi's p2pBandwidthLatencyTest ran with P2P enabled; where its bidirectional P2P copy is
    slow, 'P2P may not be active' (CMP010) contradicts the file and the P2P-on cause (CMP015) is offered.
    With the machine's topo -m beside it, the pairs its NVLink bridges join are NVLink's (CMP021), not
    ACS or the IOMMU, and a path NV4 is not 'the cards are not where the build puts them' (CMP020)."""
    p2p = TOOLS / "p2p" / "valdemardi_4x3090_nvlink_patched.txt"
    topo = TOOLS / "topo" / "valdemardi_4x3090_nv4_tabs.txt"
    build = str(_valdemardi_build(cli, tmp_path, nvlink=False))
    code, out, _ = cli("compare", build, str(p2p), "--json")
    alone = _flagged(out)
    assert code == 1 and alone[("bidi_gbps", "GPU0-GPU1")] == {"CMP015"}
    assert all("CMP010" not in ids and "CMP011" not in ids for ids in alone.values())
    code, out, _ = cli("compare", build, str(p2p), str(topo), "--json")
    both = _flagged(out)
    for where in ("GPU0-GPU2", "GPU1-GPU3"):  # the bridged pairs
        assert both[("uni_gbps", where)] == {"CMP021"} and both[("path", where)] == {"CMP021"}
        assert both[("latency_us", where)] == {"CMP021"}  # alone, it was blamed on ACS or the IOMMU
        assert alone[("latency_us", where)] == {"CMP015"}
    assert both[("bidi_gbps", "GPU0-GPU1")] == {"CMP015"}  # no NVLink there: unchanged
    # the build with the bridges agrees with the file on NVLink: the NV4 pairs are not flagged
    code, out, _ = cli("compare", str(_valdemardi_build(cli, tmp_path, nvlink=True)), str(topo), "--json")
    assert code == 0 and not _flagged(out)


def test_a_link_the_files_read_rules_out_the_link_causes(cli, write):
    """`nvidia-smi --query-gpu` (lines in its format) read beside a host-copy figure: a link at the
    predicted Gen4 x16 rules out 'the link trained narrower' (CMP001) for a slow copy; a maximum of Gen4
    x8 rules out 'the link is better than the build says' (CMP003) for a fast one."""
    one = write(
        "one.yaml",
        "topology:\n  sockets:\n    - vendor: amd\n      root_ports:\n"
        '        - {id: "c0:01.1", host_bridge: "c0", children: [{gpu: "RTX 4090"}]}\n',
    )
    header = (
        "nvidia-smi --query-gpu=index,name,pcie.link.gen.current,pcie.link.gen.max,pcie.link.width.current,"
        "pcie.link.width.max --format=csv\nindex, name, pcie.link.gen.current, pcie.link.gen.max, "
        "pcie.link.width.current, pcie.link.width.max\n"
    )
    slow = TOOLS / "nvbandwidth" / "dcgm_1gpu_v0.5.json"  # 12.4 GB/s H2D against a Gen4 x16 prediction
    code, out, _ = cli("compare", str(one), str(slow), "--json")
    assert "CMP001" in _flagged(out)[("h2d_gbps", "GPU0")]
    x16 = write("x16.csv", header + "0, NVIDIA GeForce RTX 4090, 4, 4, 16, 16\n")
    code, out, _ = cli("compare", str(one), str(slow), str(x16), "--json")
    assert "CMP001" not in _flagged(out)[("h2d_gbps", "GPU0")]
    # the hero build predicts x8/x8; measured GPU0 and GPU1 of the 8x 4090 run copy twice as fast
    x8 = write(
        "x8.csv", header + "0, NVIDIA GeForce RTX 4090, 4, 4, 8, 8\n1, NVIDIA GeForce RTX 4090, 4, 4, 8, 8\n"
    )
    wide = write(
        "wide.csv",
        header + "0, NVIDIA GeForce RTX 4090, 1, 4, 16, 16\n1, NVIDIA GeForce RTX 4090, 1, 4, 16, 16\n",
    )
    code, out, _ = cli("compare", HERO, str(NVBW8), "--gpus", "0,1", "--json")
    assert _flagged(out)[("h2d_gbps", "GPU0")] == {"CMP003"}
    code, out, _ = cli("compare", HERO, str(NVBW8), str(x8), "--gpus", "0,1", "--json")
    assert _flagged(out)[("h2d_gbps", "GPU0")] == set()
    code, out, _ = cli("compare", HERO, str(NVBW8), str(wide), "--gpus", "0,1", "--json")
    assert _flagged(out)[("h2d_gbps", "GPU0")] == {"CMP003"}  # an idle Gen1 x16 is no bound: the cause stays


def test_no_compare_rule_is_offered_against_a_fact_the_files_state():
    """The mechanism, on every bundled compare rule that supposes something: for each value the files
    can state against its supposition, evaluate_compare never returns it, while with nothing stated it
    fires wherever its condition holds. Facts built for each kind of row a rule can be about."""
    from advisor.findings.collect import prediction_facts
    from advisor.findings.evaluate import compare_rules, evaluate_compare
    from advisor.findings.facts import SUPPOSITIONS, RowFacts
    from advisor.model.buildfile import load_build
    from advisor.model.catalog.store import load_catalog
    from advisor.model.engine import evaluate

    catalog = load_catalog()
    build, gpus, pairs = prediction_facts(evaluate(load_build(HERO), catalog), catalog)
    against = {
        ("p2p", "on"): {"tool_p2p": "off"},
        ("p2p", "off"): {"tool_p2p": "on"},
        ("link", "below"): {"link_read": "not below"},
        ("link", "above"): {"link_read": "not above"},
        ("nvlink", "as predicted"): {"nvlink_read": "extra"},
    }
    assert set(against) == {(k, v) for k, vs in SUPPOSITIONS.items() for v in vs}
    rules = [r for r in compare_rules() if r.supposes]
    fired = 0
    for rule in rules:
        for kind, metric in (
            ("host", "h2d_gbps"),
            ("link", "link_width"),
            ("pair", "uni_gbps"),
            ("path", "path"),
        ):
            for ratio in (0.5, 2.0):
                base = dict(
                    metric=metric,
                    kind=kind,
                    quantity="x",
                    where="w",
                    predicted="1",
                    measured="2",
                    ratio=ratio,
                    pct=int(100 * ratio),
                    off_pct=50,
                    slower=ratio < 1,
                    faster=ratio > 1,
                    tool_p2p="unknown",
                    predicted_p2p="off",
                    transport="",
                    copy_kind="ce",
                    link_read="unknown",
                    nvlink_read="unknown",
                )
                gpu = gpus[0] if kind in ("host", "link") else None
                pair = pairs[0] if kind in ("pair", "path") else None
                free = {f.id for f in evaluate_compare([rule], build, RowFacts(**base), gpu, pair)}
                for key, value in rule.supposes.items():
                    # what is stated for the supposition itself also decides a rule's condition (CMP015
                    # asks for tool_p2p 'on'): judge the guard on the facts that make the condition hold
                    facts = RowFacts(**{**base, **against[(key, value)]})
                    got = {f.id for f in evaluate_compare([rule], build, facts, gpu, pair)}
                    assert rule.id not in got, (rule.id, kind, key, value)
                    fired += rule.id in free
    assert fired > 0


def test_only_the_all_reduce_is_set_against_the_all_reduce_prediction(cli, write):
    """nccl-tests files may hold several collectives (the DGX-2 fixture has all_gather, all_reduce and
    broadcast); a 2-rank file of that shape (written here): the broadcast's higher busbw is another
    quantity and is not the measured all-reduce."""
    notes = {
        "all_reduce_perf": 20.0,
        "broadcast_perf": 35.0,
        "all_gather_perf": 30.0,
    }
    results = [
        {
            "metric": "busbw_gbps",
            "value": value,
            "gpus": 2,
            "unit": "GB/s",
            "tool": "nccl-tests",
            "note": f"{name}: large-message plateau, out-of-place",
        }
        for name, value in notes.items()
    ]
    meas = write(
        "three.json",
        json.dumps({"schema_version": 1, "source": {"tool": "nccl-tests", "file": "x"}, "results": results}),
    )
    code, out, err = cli("compare", HERO, str(meas), "--json")
    (row,) = json.loads(out)["rows"]
    assert row["metric"] == "busbw_gbps" and row["where"] == "2 GPUs" and row["measured"] == 20.0, err


def test_a_note_shows_a_file_name_without_its_control_characters(cli, tmp_path):
    odd = tmp_path / "bw\x1b[31mred.txt"
    odd.write_text((TOOLS / "bandwidthtest" / "routergao_a100sxm4_quick_tabs.txt").read_text())
    code, out, _ = cli("compare", HERO, str(odd))
    assert code in (0, 1) and "\x1b" not in out and "bw\\x1b[31mred.txt" in out.replace("\n", "")
