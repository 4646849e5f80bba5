"""How sure a speed-up is: every predicted speed-up names its class and carries the range the published
speed-ups of that class fell in, each predicted without its own case; a class with large errors says so;
rules/workload-intervals.yaml is what the calibration cases give (never the held-out ones)."""

from __future__ import annotations

import json

import pytest
import yaml

from advisor.base.resources import bundled

HERO = ("--cpu", "i9-14900K", "--board", "ROG Maximus Z790 Hero", "--gpu", "RTX 4090:2")


def _ranges() -> dict:
    return yaml.safe_load((bundled("rules") / "workload-intervals.yaml").read_text())["classes"]


def test_the_intervals_file_is_what_the_calibration_cases_give():
    from advisor.workload.accuracy import run_cases, write_intervals

    rows, _ = run_cases()
    assert (bundled("rules") / "workload-intervals.yaml").read_text() == write_intervals(rows)
    held = {r.case for r in rows if r.held_out}
    for name, c in _ranges().items():
        assert not held & set(c["cases"]), name  # a held-out case never sets a range
        assert 0 < c["lo"] <= c["hi"] and c["figures"] >= 3
        # a class whose range strays more than 25% from the prediction, or whose median error is above 15%,
        # is said to have large errors
        wide = c["lo"] < 0.75 or c["hi"] > 1.25 or c["median_abs_error_pct"] > 15
        assert c["large_errors"] == wide, name


def test_every_speed_up_names_its_class_and_carries_its_range(cli):
    code, out, err = cli("workload", *HERO, "--train", "opt-1.3b", "--json")
    assert code == 0, err
    d = json.loads(out)
    assert d["speedup_class"] == "staged comm-bound"  # 2x RTX 4090 without P2P: NCCL over host memory
    iv = _ranges()["staged comm-bound"]
    r = d["speedup_range"]
    assert r["lo"] == pytest.approx(d["speedup"] * iv["lo"], abs=2e-3)
    assert r["hi"] == pytest.approx(d["speedup"] * iv["hi"], abs=2e-3)
    assert r["figures"] == iv["figures"] and r["large_errors"] == iv["large_errors"]
    code, text, _ = cli("workload", *HERO, "--train", "opt-1.3b")
    text = " ".join(text.split())
    assert f"How sure: staged comm-bound: typically {r['lo']:.2f}-{r['hi']:.2f}x" in text
    if iv["large_errors"]:
        assert "this class's predictions are often far off" in text


def test_inference_is_the_serving_class_and_one_gpu_has_no_range(cli):
    code, out, err = cli("workload", *HERO, "--infer", "8b", "--json")
    assert code == 0, err
    assert json.loads(out)["speedup_class"] == "serving"
    code, out, err = cli("workload", *HERO, "--gpus", "1", "--train", "1b", "--json")
    assert code == 0, err
    d = json.loads(out)
    assert d["speedup_class"] is None and d["speedup_range"] is None


def test_the_accuracy_report_checks_the_ranges_on_the_held_out_cases(cli):
    code, out, err = cli("accuracy", "--workload", "--json")
    assert code == 0, err
    d = json.loads(out)
    cov = d["held_out_in_interval"]
    held = [r for r in d["rows"] if r["held_out"] and r["predicted_speedup"] and r["class"] in _ranges()]
    assert cov["figures"] == len(held)
    inside = sum(
        _ranges()[r["class"]]["lo"]
        <= r["measured_speedup"] / r["predicted_speedup"]
        <= _ranges()[r["class"]]["hi"]
        for r in held
    )
    assert cov["inside"] == inside
    assert set(d["intervals"]) == set(_ranges())
