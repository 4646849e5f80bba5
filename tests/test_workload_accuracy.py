"""`advisor accuracy --workload`: the model against published 1-GPU vs N-GPU results."""

from __future__ import annotations

import json


def _report(cli) -> dict:
    code, out, err = cli("accuracy", "--workload", "--json")
    assert code == 0, err
    return json.loads(out)


def test_every_bundled_case_is_predicted_or_says_why_not(cli):
    report = _report(cli)
    assert report["summary"]["all"]["figures"] >= 30
    assert all(item["reason"] for item in report["not_described"])
    predicted = {r["case"] for r in report["rows"] if r["predicted_speedup"] is not None}
    assert len(predicted) >= 15


def test_accuracy_summary_keeps_in_and_out_of_sample_apart(cli):
    s = _report(cli)["summary"]
    assert s["out_of_sample"]["figures"] + s["in_sample"]["figures"] == s["all"]["figures"]
    assert s["all"]["median_abs_error_pct"] <= 15
    assert s["communication_bound"]["figures"] >= 10


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
