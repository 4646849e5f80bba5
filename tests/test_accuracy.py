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


def test_blackwell_p2p_latency_depends_on_a_switch_in_the_path(cli, write):
    """Blackwell P2P writes between root ports take ~0.39 us (8x RTX 5090, dual EPYC 9575F), behind the
    ESC8000A-E13P's PCIe switches 0.72 us: the constant is chosen by architecture and attachment, not by
    the path class alone, and staged copies use Blackwell's own 14.3 us."""
    direct = write(
        "d.yaml",
        "cpu: amd-ryzen-threadripper-pro-7975wx\nboard: asus-pro-ws-wrx90e-sage-se\n"
        "gpus: [{model: nvidia-rtx-5090, count: 2}]\nsoftware: {driver: patched-p2p, iommu: passthrough}\n",
    )
    pair = json.loads(cli("plan", str(direct), "--json")[1])["pairs"][0]
    assert pair["p2p"] and pair["latency_us"] == 0.39
    switched = write(
        "s.yaml",
        "cpu: amd-epyc-9575f\ncpu_count: 2\nboard: asus-esc8000a-e13p\n"
        "gpus: [{model: nvidia-rtx-pro-6000-blackwell-server, count: 2}]\n",
    )
    pair = json.loads(cli("plan", str(switched), "--json")[1])["pairs"][0]
    assert pair["path"] == "PIX" and pair["latency_us"] == 0.72
    stock = write(
        "t.yaml",
        "cpu: amd-ryzen-threadripper-pro-7975wx\nboard: asus-pro-ws-wrx90e-sage-se\n"
        "gpus: [{model: nvidia-rtx-5090, count: 2}]\n",
    )
    pair = json.loads(cli("plan", str(stock), "--json")[1])["pairs"][0]
    assert not pair["p2p"] and pair["latency_us"] == 14.3 and pair["confidence"] == "calibrated"
