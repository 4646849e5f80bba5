"""`advisor accuracy --workload`: the model against published 1-GPU vs N-GPU results."""

from __future__ import annotations

import json

import yaml

from advisor.base.resources import bundled


def _report(cli) -> dict:
    code, out, err = cli("accuracy", "--workload", "--json")
    assert code == 0, err
    return json.loads(out)


def test_every_bundled_case_is_predicted_or_says_why_not(cli):
    report = _report(cli)
    cases = yaml.safe_load((bundled("calibration") / "workload-cases.yaml").read_text())["cases"]
    skipped = {c["id"] for c in cases if c.get("skip")}
    described = [c for c in cases if not c.get("skip")]
    # only the cases marked `skip:` are not described, each with its reason
    assert {item["case"] for item in report["not_described"]} == skipped
    assert all(item["reason"] for item in report["not_described"])
    # one row per measured GPU count above 1 of every described case
    counts = {c["id"]: sorted(int(n) for n in c["measured"]["values"]) for c in described}
    expected = [(cid, n) for cid, ns in counts.items() for n in ns if n > 1]
    assert [(r["case"], r["gpus"]) for r in report["rows"]] == expected
    # a row without a prediction says why; every figure is a row with one
    assert all(r["note"] for r in report["rows"] if r["predicted_speedup"] is None)
    assert report["summary"]["all"]["figures"] == sum(r["error_pct"] is not None for r in report["rows"])
    predicted = {r["case"] for r in report["rows"] if r["predicted_speedup"] is not None}
    assert predicted == {c["id"] for c in described}


def test_accuracy_summary_keeps_in_and_out_of_sample_apart(cli):
    report = _report(cli)
    s = report["summary"]
    assert s["out_of_sample"]["figures"] + s["in_sample"]["figures"] == s["all"]["figures"]
    assert s["all"]["median_abs_error_pct"] <= 15
    # communication-bound: the rows whose measured scaling efficiency is below 85%, recomputed here
    bound = [r for r in report["rows"] if r["measured_speedup"] / r["gpus"] < 0.85]
    assert bound and s["communication_bound"]["figures"] == sum(r["error_pct"] is not None for r in bound)
    assert s["communication_bound"]["cases"] == len({r["case"] for r in bound})
    assert s["communication_bound"]["not_predicted"] == sum(r["predicted_speedup"] is None for r in bound)


def test_zero2_with_accumulation_is_predicted_below_ddp_as_published(cli):
    rows = {r["case"]: r for r in _report(cli)["rows"]}
    zero2 = rows["tinyllama-issue1-4090-zero2-ga4-1v2"]
    ddp = rows["tinyllama-issue1-4090-ddp-ga4-1v2"]
    assert zero2["measured_speedup"] < ddp["measured_speedup"]
    assert zero2["predicted_speedup"] < ddp["predicted_speedup"]


def test_layer_split_decode_is_predicted_no_faster_than_one_gpu(cli):
    rows = [
        r for r in _report(cli)["rows"] if r["case"].startswith("xdai-llamacpp-may2024-4090-llama3-8b-f16-tg")
    ]
    assert rows and all(r["predicted_speedup"] <= 1.0 and r["measured_speedup"] < 1.0 for r in rows)


def test_text_report_names_cases_and_the_summary(cli):
    code, out, _ = cli("accuracy", "--workload")
    assert code == 0 and "lambda-4090-bertlarge" in out and "out-of-sample" in out and "not described" in out


def test_the_fitted_shm_overlap_is_what_the_cases_give_and_is_checked_left_out(cli):
    """overlap_under_shm is fitted on the cases that depend on it (issue 15 item 2): rules/workload.yaml
    holds the fit, and each of those cases is also predicted with the value the other cases give."""
    from advisor.model.constants import constants
    from advisor.workload.accuracy import fit, fit_table

    table = fit_table()
    c = constants("workload.yaml")["overlap_under_shm"]
    assert c.value == fit(table)
    assert set(c.sources) == set(table)  # its sources are exactly the cases it was fitted on
    report = _report(cli)
    fitted = [r for r in report["rows"] if r["in_sample"]]
    assert fitted and all(r["loo_predicted_speedup"] is not None for r in fitted if r["predicted_speedup"])
    s = report["summary"]
    assert s["leave_one_out"]["figures"] == s["all"]["figures"]
    assert s["leave_one_out"]["median_abs_error_pct"] >= s["in_sample"]["median_abs_error_pct"]
