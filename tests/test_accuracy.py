"""The model against the published calibration cases."""

from __future__ import annotations

import json

import pytest

from advisor.base.resources import bundled
from advisor.base.yamlio import load_file


def test_accuracy_meets_the_target_on_every_case(cli):
    code, out, _ = cli("accuracy", "--json")
    assert code == 0
    report = json.loads(out)
    assert report["not_described"] == []
    # read independently: one row per expected figure, a predicted number for every measured number
    data = load_file(bundled("calibration") / "cases.yaml")  # the loader's number typing: "22.04" vs "PHB"
    expects = [(case["id"], e) for case in data["cases"] for e in case["expect"]]
    numeric = [e for _, e in expects if e["metric"] != "path" and not isinstance(e["value"], str)]
    assert len(report["rows"]) == len(expects)
    assert report["summary"]["figures"] == len(numeric)
    assert report["summary"]["median_abs_error_pct"] <= 15
    assert report["summary"]["paths_right"] == report["summary"]["paths"]
    cases = [r["case"] for r in report["rows"]]
    assert cases == [cid for cid, _ in expects]  # every case, in file order
    assert set(cases) == {case["id"] for case in data["cases"]}


def test_accuracy_text_names_cases_and_errors(cli):
    code, out, _ = cli("accuracy")
    assert code == 0
    assert "kinghorn" in out and "median absolute error" in out and "not described" not in out


# ---------------------------------------------------------------- leave one out and typical ranges


def _loo():
    from advisor.model.accuracy import leave_one_out, run_cases

    rows, _ = run_cases()
    leave_one_out(rows)
    return rows


def test_intervals_file_is_what_the_cases_give_today():
    """rules/intervals.yaml is generated: a change to a constant or a case must regenerate it
    (`advisor accuracy --write-intervals`), or plan's typical ranges would describe another model."""
    from advisor.model.accuracy import write_intervals

    assert (bundled("rules") / "intervals.yaml").read_text() == write_intervals(_loo())


def test_a_constant_fitted_on_one_case_alone_cannot_predict_that_case_out_of_sample():
    rows = _loo()
    acs = next(r for r in rows if r.variant == "acs=on")
    assert acs.loo is None and acs.rests_on_own_case == ["acs_factor"]
    # a constant with other source cases is refitted without this one: the prediction moves
    staged = next(
        r
        for r in rows
        if r.case.startswith("kinghorn-2x4090") and r.metric == "uni_gbps"  # staged_efficiency[ada]
    )
    assert staged.loo is not None and staged.loo != staged.exact
    # and a figure whose case none of its constants was fitted on is already out of sample: unchanged
    from advisor.model.constants import constants

    table = constants()
    for r in rows:
        if r.error is None:
            continue
        fitted_on_it = any(r.case in table[c].sources for c, _ in r.groups if c in table)
        if not fitted_on_it:
            assert r.loo == r.exact, r.case


def test_leave_one_out_report_separates_in_sample_from_out_of_sample(cli):
    code, out, _ = cli("accuracy", "--loo", "--json")
    assert code == 0
    s = json.loads(out)["summary"]["leave_one_out"]
    assert s["all"]["figures"] == s["all"]["loo_figures"] + s["all"]["rest_on_own_case"]
    assert s["all"]["loo_median_pct"] >= s["all"]["in_sample_median_pct"]
    cov = s["coverage"]
    assert cov["figures"] == s["all"]["loo_figures"] and 0 < cov["inside"] <= cov["figures"]
    code, text, _ = cli("accuracy", "--loo")
    text = " ".join(text.split())  # the words as read, whatever the terminal's width wraps
    assert "rests on this case alone: acs_factor" in text
    # a constant fitted per architecture or platform keeps its key, which rich would take for markup
    assert "rests on this case alone: nvlink_efficiency[hopper]" in text
    assert f"{cov['inside']} of {cov['figures']} measured figures" in text


def test_plan_gives_each_figure_its_typical_range(cli):
    from tests.conftest import ROOT

    code, out, _ = cli("plan", str(ROOT / "examples" / "2x4090-z790-hero.yaml"), "--json")
    d = json.loads(out)
    pair = d["pairs"][0]
    lo, hi = pair["typical"]["uni_gbps"]
    assert lo <= pair["uni_gbps"] <= hi
    gpu = d["gpus"][0]
    assert gpu["typical"]["h2d_gbps"][0] <= gpu["h2d_gbps"] <= gpu["typical"]["h2d_gbps"][1]
    code, text, _ = cli("plan", str(ROOT / "examples" / "2x4090-z790-hero.yaml"))
    assert "typically: host copies x" in text and "each predicted without its own case" in text


def test_an_nvlink_pair_says_which_of_its_figures_have_no_out_of_sample_check(cli, write):
    build = write(
        "nv.yaml",
        "cpu: amd-ryzen-threadripper-pro-5975wx\nboard: asus-pro-ws-wrx80e-sage-se-wifi\n"
        "gpus: [{model: nvidia-rtx-3090, count: 2}]\nnvlink: [[0, 1]]\nsoftware: {cuda_p2p: true}\n",
    )
    code, out, err = cli("plan", str(build), "--json")
    assert code in (0, 1), err
    pair = json.loads(out)["pairs"][0]
    # one published bridged pair whose constant came from other cases (A100 NV12, nvlink_efficiency
    # fitted on 3090s) gives NVLink copies an out-of-sample check, pooled since it is only two
    # figures; no NVLink latency has one (each key rests on its own case)
    lo, hi = pair["typical"]["uni_gbps"]
    assert lo < pair["uni_gbps"] < hi and "latency_us" not in pair["typical"]
    ar = json.loads(out)["allreduce"]
    assert ar["transport"] == "NVLink" and ar["confidence"] == "low" and "typical" not in ar
    # the 3090's bridge has no published all-reduce: the figure borrows the A100's and says so
    assert "none over a GA102 bridge (3090, A6000) is published" in ar["confidence_note"]
    assert ar["busbw_gbps"] == pytest.approx(4 * 12.0 * 0.867, abs=0.05)  # NV4 x NCCL's SM86 per-link rate
    code, text, _ = cli("plan", str(build))
    assert "typically: NVLink copies x" in text and "not checked out of sample:" in text
    assert "NVLink latency" in text
    assert "low confidence: two published all-reduces over NVLink bridges" in text


def test_p2p_latency_adds_the_elements_of_the_path(cli, write):
    """A P2P write's latency is the GPU's own per-copy cost, the host platform's, each switch on the path by
    its chip's vendor and generation, and the socket link: Blackwell between root ports of a TR PRO 7000WX
    (Zen 4, the platform of EPYC 9004) 0.375 + 0.105; behind the ESC8000A-E13P's Broadcom PEX890xx switches on
    dual Turin 0.375 + 0 + 0.35; staged copies keep Blackwell's own 14.3 us."""
    direct = write(
        "d.yaml",
        "cpu: amd-ryzen-threadripper-pro-7975wx\nboard: asus-pro-ws-wrx90e-sage-se\n"
        "gpus: [{model: nvidia-rtx-5090, count: 2}]\nsoftware: {driver: patched-p2p, iommu: passthrough}\n",
    )
    d = json.loads(cli("plan", str(direct), "--json", "--explain")[1])
    pair = d["pairs"][0]
    assert pair["p2p"] and pair["latency_us"] == 0.48
    formula = pair["derivation"]["latency"]["formula"]
    assert "latency_p2p_endpoint_us[blackwell]" in formula
    assert "latency_p2p_platform_us[amd-threadripper-pro-7000wx]" in formula
    assert "latency_switch_hop_us" not in formula  # no switch between root ports
    switched = write(
        "s.yaml",
        "cpu: amd-epyc-9575f\ncpu_count: 2\nboard: asus-esc8000a-e13p\n"
        "gpus: [{model: nvidia-rtx-pro-6000-blackwell-server, count: 2}]\n",
    )
    d = json.loads(cli("plan", str(switched), "--json", "--explain")[1])
    pair = d["pairs"][0]
    assert pair["path"] == "PIX" and pair["latency_us"] == 0.72  # 0.725, shown to two places
    assert "1 x latency_switch_hop_us[broadcom-gen5]" in pair["derivation"]["latency"]["formula"]
    stock = write(
        "t.yaml",
        "cpu: amd-ryzen-threadripper-pro-7975wx\nboard: asus-pro-ws-wrx90e-sage-se\n"
        "gpus: [{model: nvidia-rtx-5090, count: 2}]\n",
    )
    pair = json.loads(cli("plan", str(stock), "--json")[1])["pairs"][0]
    assert not pair["p2p"] and pair["latency_us"] == 14.3 and pair["confidence"] == "calibrated"


def test_a_switch_of_unnamed_chip_reads_the_default_and_says_low_confidence(cli, write):
    """A switch whose chip the tree does not name adds the median of the measured vendors' latency, and the
    figure is marked low confidence; naming a Microchip Switchtec part adds next to nothing, so a fabric of
    them stays flat from PIX to PXB (the three-level c-payne fabric measured 0.45-0.53 us on every tier)."""

    def tree(chip: str) -> str:
        sw = f"chip: {chip}, " if chip else ""
        return (
            "topology:\n  sockets:\n    - family: amd-threadripper-pro-7000wx\n      vendor: amd\n      root_ports:\n"
            f"        - {{id: a, host_bridge: a, children: [{{switch: top, {sw}gen: 5, width: 16, children: ["
            f"{{switch: l1, {sw}gen: 5, width: 16, children: [{{gpu: RTX PRO 6000 Blackwell Server}}]}}, "
            f"{{switch: l2, {sw}gen: 5, width: 16, children: [{{gpu: RTX PRO 6000 Blackwell Server}}]}}]}}]}}\n"
        )

    unnamed = json.loads(cli("plan", str(write("u.yaml", tree(""))), "--json", "--explain")[1])["pairs"][0]
    named = json.loads(
        cli("plan", str(write("n.yaml", tree("Microchip Switchtec PM50100"))), "--json", "--explain")[1]
    )["pairs"][0]
    assert unnamed["path"] == named["path"] == "PXB"
    assert "3 x latency_switch_hop_us[default]" in unnamed["derivation"]["latency"]["formula"]
    assert unnamed["derivation"]["latency"]["confidence"] == "low"
    assert "3 x latency_switch_hop_us[microchip-gen5]" in named["derivation"]["latency"]["formula"]
    assert named["latency_us"] == 0.49 and unnamed["latency_us"] > 1.0


# ---------------------------------------------------------------- held-out cases


def test_no_constant_rests_on_a_held_out_case():
    """The held-out cases are machines no constant is fitted on: none may be named as a constant's source,
    and none may also be a calibration case."""
    from advisor.model.constants import constants

    held = {c["id"] for c in load_file(bundled("calibration") / "held-out.yaml")["cases"]}
    calibration = {c["id"] for c in load_file(bundled("calibration") / "cases.yaml")["cases"]}
    assert held and not held & calibration
    for c in constants().values():
        assert not held & set(c.sources), c.name
    for fam in load_file(bundled("rules") / "intervals.yaml")["families"].values():
        assert not held & set(fam["cases"])


def test_held_out_cases_are_reported_apart_and_meet_the_targets(cli):
    """`advisor accuracy --json` reports the held-out machines apart from calibration, by metric and family:
    bandwidth within 5% and latency within 12% (median), path classes 95% right, and the 80% ranges holding
    the measured values within 10 points of 80%."""
    code, out, _ = cli("accuracy", "--json")
    assert code == 0
    report = json.loads(out)
    held = report["held_out"]
    expects = [e for c in load_file(bundled("calibration") / "held-out.yaml")["cases"] for e in c["expect"]]
    assert held["not_described"] == [] and len(held["rows"]) == len(expects)
    assert {r["case"] for r in held["rows"]}.isdisjoint({r["case"] for r in report["rows"]})
    s = held["summary"]
    assert s["by_metric"]["bandwidth"]["median_abs_error_pct"] <= 5
    assert s["by_metric"]["latency"]["median_abs_error_pct"] <= 12
    assert s["by_metric"]["path"]["right_pct"] >= 95
    cov = s["coverage"]
    assert cov["nominal_pct"] == 80 and abs(cov["pct"] - 80) <= 10
    assert sum(f["figures"] for f in cov["by_family"].values()) == cov["figures"]
    numeric = [r for r in held["rows"] if r["metric"] != "path"]
    assert all("inside_80pct_range" in r for r in numeric)
    assert cov["inside"] == sum(r["inside_80pct_range"] for r in numeric)


def test_accuracy_text_shows_calibration_and_held_out_apart(cli):
    code, text, _ = cli("accuracy")
    assert code == 0
    words = " ".join(text.split())
    assert "Calibration (in sample):" in words and "Held out (calibration/held-out.yaml" in words
    assert "inside their 80% range (nominal 80%)" in words
    code, text, _ = cli("accuracy", "--loo")
    words = " ".join(text.split())
    assert "Median absolute error, in sample and leave-one-out" in words and "Held out:" in words
