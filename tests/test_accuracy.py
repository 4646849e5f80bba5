"""The model against the published calibration cases."""

from __future__ import annotations

import json

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
