"""One job, one answer, driven as a new user meets it: `advisor workload`, `advisor plan` and the
app's Job view ask one question and must give one answer.

- one default job for every face (the CLI said "does not fit" at micro-batch 8, the Job view 0.45x at 1);
- a job that does not fit always gets the changes that make it fit, each predicted, or a plain statement
  that nothing on this build fits and what hardware would;
- WL006's fix fits where it is shown (no "See `advisor workload`" inside `advisor workload`);
- one gradient size (plan's WL001 said 2.6 GB of fp16 gradients, workload all-reduced 5.3 GB);
- WL001 says which job it assumed, and gives way to the job the user asked about;
- change lines say plainly what the change does to this build.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest
from textual.widgets import Input, Select, Static

from advisor.model.constants import const
from advisor.tui.app import AdvisorApp
from advisor.workload import defaults
from advisor.workload.presets import presets
from tests.conftest import ROOT
from tests.tui_settle import settle

HERO = str(ROOT / "examples" / "2x4090-z790-hero.yaml")
ONE_4090 = ["--cpu", "i9-14900K", "--board", "ROG Maximus Z790 Hero", "--gpu", "RTX 4090"]
SIZE = (100, 30)


@pytest.fixture(autouse=True)
def state_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("ADVISOR_STATE_DIR", str(tmp_path / "state"))


def flat(text: str) -> str:
    """Text with its line wrapping undone (the report wraps to the terminal or pane width)."""
    return " ".join(text.split())


def advisor(*args: str) -> str:
    """`advisor ...` as a user runs it: a real process, its stdout."""
    done = subprocess.run(
        [sys.executable, "-m", "advisor", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env=dict(os.environ, COLUMNS="100"),
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def workload_json(cli, *args: str) -> dict:
    code, out, err = cli("workload", *args, "--json")
    assert code == 0, err
    return json.loads(out)


def speedup(text: str) -> float:
    m = re.search(r"Speed-up: ([0-9.]+)x one GPU", flat(text))
    assert m, f"no speed-up in:\n{text}"
    return float(m.group(1))


async def job_report(pilot, **fields: str) -> str:
    """Open the Job view (key 8), set the form's fields, and return the report it shows."""
    app = pilot.app
    await pilot.press("8")
    await settle(pilot)
    for key, value in fields.items():
        widget = app.query_one(f"#wl-{key}")
        widget.value = value
        await settle(pilot)
    return str(app.query_one("#wl-report", Static).render())


# ------------------------------------------------------------------------------- 1. one default job


async def test_the_cli_and_the_job_view_answer_the_default_question_alike():
    cli_text = advisor("workload", HERO, "--train", "1.3b")
    assert "does not fit" not in cli_text  # the default job runs on one 24 GB card: a speed-up to give
    app = AdvisorApp(HERO)
    async with app.run_test(size=SIZE) as pilot:
        report = await job_report(pilot)
        form = {k: app.query_one(f"#wl-{k}", Input).value for k in ("batch", "seq", "accum")}
        model = app.query_one("#wl-model", Select).value
    assert (model, form) == (
        defaults.MODEL,
        {"batch": str(defaults.BATCH["train"]), "seq": str(defaults.SEQ), "accum": str(defaults.ACCUM)},
    )
    assert speedup(report) == speedup(cli_text)
    assert f"micro-batch {defaults.BATCH['train']} x {defaults.SEQ} tokens" in flat(cli_text)
    assert f"micro-batch {defaults.BATCH['train']} x {defaults.SEQ} tokens" in flat(report)


def test_the_help_states_the_defaults_the_command_uses(cli):
    helptext = flat(advisor("workload", "--help"))
    assert f"micro-batch per GPU (default {defaults.BATCH['train']})" in helptext
    out = workload_json(cli, HERO, "--train", "1.3b")
    w = out["workload"]
    assert (w["batch"], w["seq"], w["accum"], w["strategy"], w["precision"]) == (
        defaults.BATCH["train"],
        defaults.SEQ,
        defaults.ACCUM,
        defaults.STRATEGY["train"],
        defaults.PRECISION,
    )


def test_the_default_job_fits_one_24_gb_card_and_twice_its_batch_does_not(cli):
    """Why the default micro-batch is 1 (advisor/workload/defaults.py): the first answer is a speed-up."""
    assert workload_json(cli, *ONE_4090, "--train", defaults.MODEL)["fits"] is True
    two = defaults.BATCH["train"] * 2
    assert workload_json(cli, *ONE_4090, "--train", defaults.MODEL, "--batch", str(two))["fits"] is False


# ------------------------------------------------- 2. a job that does not fit gets changes that fit


@pytest.mark.parametrize(
    "args",
    [
        [HERO, "--train", "7b"],
        [HERO, "--train", "13b"],
        [HERO, "--train", "70b"],
        [HERO, "--infer", "70b"],
        [HERO, "--train", "7b", "--gpus", "1"],
        [*ONE_4090, "--train", "7b"],
        [HERO, "--train", "1.3b", "--batch", "8"],
    ],
    ids=["7b", "13b", "70b", "infer-70b", "7b-one-of-two", "7b-one-4090", "1.3b-batch-8"],
)
def test_a_job_that_does_not_fit_always_gets_what_makes_it_fit(cli, args):
    out = workload_json(cli, *args)
    assert out["fits"] is False
    fitting = [c for c in out["changes"] if c["fits"]]
    for c in fitting:  # each predicted: memory within the card, and a throughput
        assert c["memory_per_gpu_gb"] <= c["usable_gb"] and c["throughput"] > 0
        assert c["summary"].startswith("fits (")
    if not any(not c["hardware"] for c in fitting):
        # nothing on this build fits: said plainly, with what hardware would (listed, or how much it takes)
        assert out["fit_note"].startswith("Nothing on this build fits")
        assert fitting or "It would take at least" in out["fit_note"]
    code, text, _ = cli("workload", *args)
    assert "What to change" in text


def test_a_fitting_change_is_what_the_model_predicts_for_the_changed_job(cli):
    out = workload_json(cli, HERO, "--train", "1.3b", "--batch", "8")
    change = next(c for c in out["changes"] if c["flags"] == ["--batch", "1", "--accum", "8"])
    rerun = workload_json(cli, HERO, "--train", "1.3b", "--batch", "1", "--accum", "8")
    assert rerun["fits"] is True
    assert change["throughput"] == rerun["configurations"][1]["samples_per_s"]
    assert change["memory_per_gpu_gb"] == rerun["memory"]["total_gb"]
    assert change["predicted_speedup"] == pytest.approx(rerun["speedup"], abs=0.01)


def test_70b_training_says_how_many_of_the_largest_card_it_would_take(cli):
    out = workload_json(cli, HERO, "--train", "70b")
    m = re.search(r"at least (\d+)x (.+?) \((\d+) GB", out["fit_note"])
    assert m, out["fit_note"]
    k, vram = int(m.group(1)), float(m.group(3))
    # computed, not written down: 16 B of model state per parameter over k cards must fit, over k-1 not
    usable = (
        vram
        * const("vram_bytes_per_gb", file="workload.yaml")
        * const("vram_usable_fraction", file="workload.yaml")
    )
    states = presets()["llama-3.1-70b"].params * 16
    assert states / k < usable < states / (k - 1)


# ------------------------------------------------------------- 3. WL006 fits where it is shown


def test_wl006_in_advisor_workload_names_the_changes_not_the_command():
    text = flat(advisor("workload", HERO, "--train", "1.3b", "--batch", "8"))
    fix = text[text.index("WL006") :]
    assert "See `advisor workload`" not in fix and "advisor workload" not in fix
    assert "What makes it fit, as predicted: on this build, " in fix
    assert "micro-batch 1 with accumulation 8 (23.0 GB per GPU)" in fix
    # 7B: only LoRA and QLoRA fit the two 24 GB cards; the fix says training every weight does not
    seven = flat(advisor("workload", HERO, "--train", "7b"))
    fix = seven[seven.index("WL006") :]
    assert "advisor workload" not in fix
    assert "training all 6.74B parameters as asked does not fit on this build (the least it needs" in fix
    assert "on this build, LoRA rank 16 (" in fix and "which change what is trained" in fix
    # DeepSeek V3 (671B, latent attention: no LoRA modelled): nothing on this build fits
    huge = flat(advisor("workload", HERO, "--train", "deepseek-v3"))
    fix = huge[huge.index("WL006") :]
    assert (
        "advisor workload" not in fix and "nothing on this build (the least it needs on this build is" in fix
    )


async def test_wl006_in_the_job_view_names_the_changes_not_the_command():
    app = AdvisorApp(HERO)
    async with app.run_test(size=SIZE) as pilot:
        report = flat(await job_report(pilot, model="llama-2-7b"))
    assert "WL006" in report and "What to change" in report
    assert "advisor workload" not in report
    fix = report[report.index("WL006") :]
    assert "as asked does not fit on this build (the least it needs" in fix and "LoRA rank 16 (" in fix


# ------------------------------------------------------------------------ 4. one gradient size


def test_plan_and_workload_give_one_gradient_size_with_its_derivation(cli, plan_json):
    p = presets()[defaults.MODEL].params
    per = const("grad_bytes", "ddp", file="workload.yaml")  # DDP under autocast: fp32 gradients, 4 B
    size = f"{p * per / 1e9:.1f} GB"
    plan_text = flat(advisor("plan", HERO))
    wl001 = plan_text[plan_text.index("WL001") : plan_text.index("fix:", plan_text.index("WL001"))]
    assert f"= {size}" in wl001 and "2(N-1)/N" in wl001 and "2.6 GB" not in wl001
    work = flat(advisor("workload", HERO, "--train", "1.3b"))
    assert f"Gradients: {p / 1e9:.2f}B parameters x {per} B" in work and f"= {size}" in work
    assert workload_json(cli, HERO, "--train", "1.3b")["gradients"] in wl001
    # the all-reduce time WL001 quotes is the workload model's for the same job
    explained = workload_json(cli, HERO, "--train", "1.3b", "--explain")
    t_comm = explained["configurations"][1]["derivation"]["exposed_comm"]["inputs"]["T_comm"]
    assert f"about {round(t_comm, 2):g} s per step" in wl001


# --------------------------------------------------- 5. WL001 says which job it assumed, or is quiet


def test_wl001_names_the_job_it_assumed_and_gives_way_to_the_users_job(plan_json):
    plain = {f["id"]: f for f in plan_json(HERO)["findings"]}
    message = plain["WL001"]["message"]
    assert "No job was given, so this assumes the default one, DDP training of opt-1.3b" in message
    assert f"micro-batch {defaults.BATCH['train']} x {defaults.SEQ} tokens" in message
    assert "2 GPUs are predicted at" in message
    asked = {f["id"] for f in plan_json(HERO, "--train", "7b")["findings"]}
    assert "WL001" not in asked and "WL006" in asked


# --------------------------------------------------------------------- 6. plain change lines


def test_change_lines_say_what_the_change_does_to_this_build(cli):
    text = flat(advisor("workload", HERO, "--train", "1.3b"))
    assert "with the same change" not in text and "today's" not in text
    out = workload_json(cli, HERO, "--train", "1.3b")
    assert out["changes"]
    for c in out["changes"]:
        assert f"{c['change']}: {c['summary']} — {c['why']}" in text
        assert f"{c['gpus']} GPUs run " in c["summary"]
        assert c["summary"].startswith("fits (") == c["hardware"]  # other cards: say they fit too
        assert f"{c['vs_now']:.2f}x the speed of the job as asked" in c["summary"]
        if c["predicted_speedup"] is not None and c["predicted_speedup"] < 1:
            assert "one GPU run the same way would still be faster" in c["summary"]
        elif c["predicted_speedup"] is not None:
            assert f"that is {c['predicted_speedup']:.2f}x one GPU run the same way" in c["summary"]
    accum = next(c for c in out["changes"] if c["change"].startswith("--accum 8"))
    assert accum["vs_now"] > 1 and "(slower)" not in accum["summary"]
