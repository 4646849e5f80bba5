"""The model against the published calibration cases."""

from __future__ import annotations

import json


def test_accuracy_meets_the_target_on_every_case(cli):
    code, out, _ = cli("accuracy", "--json")
    assert code == 0
    report = json.loads(out)
    assert report["not_described"] == []
    assert report["summary"]["figures"] >= 40
    assert report["summary"]["median_abs_error_pct"] <= 15
    assert report["summary"]["paths_right"] == report["summary"]["paths"]
    cases = {r["case"] for r in report["rows"]}
    assert len(cases) >= 12


def test_accuracy_text_names_cases_and_errors(cli):
    code, out, _ = cli("accuracy")
    assert code == 0
    assert "kinghorn" in out and "median absolute error" in out and "not described" not in out
