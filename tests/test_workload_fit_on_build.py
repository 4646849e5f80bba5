"""A job that does not fit is first told what makes it fit on the user's own build, each change
predicted and runnable, and only then offered other hardware.

"Fine-tune Llama 3 8B on 2x RTX 4090" used to read "Nothing on this build fits" and be offered two
RTX PRO 6000 cards, while `--qlora` on the same build predicts 9.9 GB per GPU. These tests drive the
CLI (and the app's Job view, which renders the same analysis) as that user would.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys

import pytest
from textual.widgets import Static

from advisor.tui.app import AdvisorApp
from tests.conftest import ROOT
from tests.tui_settle import settle

HERO = str(ROOT / "examples" / "2x4090-z790-hero.yaml")
CARD_GB = 24  # the RTX 4090's memory


@pytest.fixture(autouse=True)
def state_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("ADVISOR_STATE_DIR", str(tmp_path / "state"))


def flat(text: str) -> str:
    return " ".join(text.split())


def run(*args: str) -> subprocess.CompletedProcess:
    """`advisor ...` as a user runs it: a real process."""
    return subprocess.run(
        [sys.executable, "-m", "advisor", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env=dict(os.environ, COLUMNS="100"),
    )


def workload_json(cli, *args: str) -> dict:
    code, out, err = cli("workload", *args, "--json")
    assert code == 0, err
    return json.loads(out)


def test_fine_tuning_8b_on_two_4090s_is_first_told_what_fits_on_the_build(cli):
    out = workload_json(cli, HERO, "--train", "llama-3-8b")
    assert out["fits"] is False
    changes = out["changes"]
    on_build = [i for i, c in enumerate(changes) if not c["hardware"]]
    hardware = [i for i, c in enumerate(changes) if c["hardware"]]
    assert on_build and hardware, changes
    assert max(on_build) < min(hardware)  # this build's changes first, other hardware after them
    for c in (changes[i] for i in on_build):
        assert c["fits"] and c["memory_per_gpu_gb"] < CARD_GB and c["memory_per_gpu_gb"] <= c["usable_gb"]
        assert c["throughput"] > 0 and c["step_time_s"] > 0 and c["predicted_speedup"] > 1
        assert c["cost"].startswith("costs ") and c["flags"]
        assert c["command"].startswith("advisor workload ") and c["command"].endswith(" ".join(c["flags"]))
    flags = [changes[i]["flags"] for i in on_build]
    assert ["--lora", "16"] in flags and ["--qlora"] in flags
    qlora = next(changes[i] for i in on_build if changes[i]["flags"] == ["--qlora"])
    assert "quality" in qlora["cost"] and qlora["quality"] > 0
    # full training does not fit here: every memory saver of the build is sized, none is enough alone
    short = {s["change"]: s for s in out["not_enough"]}
    assert {"8-bit AdamW", "ZeRO-2", "FSDP / ZeRO-3", "activation recomputation"} <= set(short)
    assert all(s["memory_per_gpu_gb"] > changes[0]["usable_gb"] for s in short.values())
    assert short["8-bit AdamW"]["flags"] == ["--optimizer", "adamw-8bit"]
    assert any("CPU offload" in n and "no figure" in n for n in out["not_modelled"])
    assert not out["fit_note"].startswith("Nothing on this build fits")
    assert "as asked does not fit on this build" in out["fit_note"]


def test_the_report_lists_the_builds_own_changes_before_hardware_with_the_commands():
    done = run("workload", HERO, "--train", "llama-3-8b")
    assert done.returncode == 0, done.stderr
    text = flat(done.stdout)
    assert "Nothing on this build fits" not in text
    first = text.index("On this build, what makes it fit")
    assert first < text.index("• LoRA rank 16: fits (") < text.index("• QLoRA: fits (9.9 of 23.2 GB per GPU)")
    assert text.index("• QLoRA: fits") < text.index("Other hardware:") < text.index("RTX PRO 6000")
    assert f"run: advisor workload {HERO} --train llama-3-8b --qlora" in text
    assert "Not enough alone on this build" in text and "Not modelled: CPU offload" in text


def test_each_suggested_command_runs_the_predicted_job(cli):
    """The command printed with a change is the change: run as printed, it predicts the same memory,
    throughput and speed-up."""
    for args in (["--train", "llama-3-8b"], ["--train", "1.3b", "--batch", "8"]):
        out = workload_json(cli, HERO, *args)
        on_build = [c for c in out["changes"] if not c["hardware"]]
        assert on_build
        for c in on_build:
            words = shlex.split(c["command"])
            # the command as run (with its --json) and the change's flags
            assert words[:2] == ["advisor", "workload"] and "--json" in words
            code, rerun, err = cli(*words[1:])
            assert code == 0, err
            again = json.loads(rerun)
            assert again["fits"] is True
            assert again["memory"]["total_gb"] == c["memory_per_gpu_gb"]
            assert again["configurations"][-1]["samples_per_s"] == c["throughput"]
            assert again["speedup"] == pytest.approx(c["predicted_speedup"], abs=0.01)


def test_what_keeps_the_training_result_comes_first_then_the_fastest(cli):
    """1.3B at micro-batch 8: sharding, recomputation and smaller micro-batches train the same model and
    come before 8-bit AdamW, LoRA and QLoRA; within each, the fastest first."""
    out = workload_json(cli, HERO, "--train", "1.3b", "--batch", "8")
    on_build = [c for c in out["changes"] if not c["hardware"]]
    keys = [(c["quality"], -c["throughput"]) for c in on_build]
    assert keys == sorted(keys)
    assert on_build[0]["quality"] == 0 and any(c["quality"] > 0 for c in on_build)
    assert any(c["flags"] == ["--batch", "1", "--accum", "8"] for c in on_build)
    # the job runs as asked on this build, so no "not enough" list and no other hardware to run it
    assert out["not_enough"] is None and out["not_modelled"] is None


async def test_the_job_view_shows_the_builds_own_changes_first():
    app = AdvisorApp(HERO)
    async with app.run_test(size=(110, 40)) as pilot:
        await pilot.press("8")
        await settle(pilot)
        app.query_one("#wl-model").value = "llama-3.1-8b"
        await settle(pilot)
        report = flat(str(app.query_one("#wl-report", Static).render()))
    assert "Nothing on this build fits" not in report
    assert report.index("LoRA rank 16: fits") < report.index("QLoRA: fits") < report.index("Other hardware:")
    assert "flags: --qlora" in report  # the app has no command line: the flags that run it


def test_a_served_model_that_does_not_fit_is_offered_quantized_weights_on_the_build(cli):
    """Llama 3.1 70B in bf16 needs 70.7 GB per 4090: in 4 bits it fits the two cards, said before other
    cards, with its cost and the command; the command predicts what the change says."""
    out = workload_json(cli, HERO, "--infer", "70b")
    assert out["fits"] is False
    first = out["changes"][0]
    assert not first["hardware"] and first["flags"] == ["--quant", "int4"] and first["quality"] > 0
    assert first["memory_per_gpu_gb"] < CARD_GB and "quality" in first["cost"]
    # every change of this build comes before the first of other hardware
    kinds = [c["hardware"] for c in out["changes"]]
    assert kinds == sorted(kinds)
    code, rerun, err = cli(*shlex.split(first["command"])[1:])
    assert code == 0, err
    again = json.loads(rerun)
    assert again["fits"] is True and again["memory"]["total_gb"] == first["memory_per_gpu_gb"]
    assert again["configurations"][-1]["tokens_per_s"] == first["throughput"]


def test_70b_on_two_4090s_is_offered_awq_with_vllm_tp_and_gguf_with_llama_cpp_layer_and_row_split(cli):
    """The inference half of "make it fit, then make it fast": a 70B model on 2x 24 GB gets, on the build, its
    weights in 4-bit AWQ/GPTQ served by vLLM with tensor parallel, and in the best GGUF type that fits served
    by llama.cpp with its layer split and with its row split; each is predicted, and its command predicts
    what the change says."""
    out = workload_json(cli, HERO, "--infer", "70b")
    on_build = [c for c in out["changes"] if not c["hardware"]]
    flags = [c["flags"] for c in on_build]
    assert ["--quant", "int4"] in flags
    gguf = [c for c in on_build if "llama.cpp" in c["change"]]
    assert {c["flags"][-1] for c in gguf} == {"pp", "row"}
    assert len({c["flags"][1] for c in gguf}) == 1  # the same GGUF type for both splits
    quant = gguf[0]["flags"][1]
    assert quant.startswith("q") and all(c["fits"] and c["memory_per_gpu_gb"] < CARD_GB for c in gguf)
    # the layer split decodes faster than the row split on GeForce cards without P2P
    layer = next(c for c in gguf if c["flags"][-1] == "pp")
    row = next(c for c in gguf if c["flags"][-1] == "row")
    assert layer["throughput"] > row["throughput"]
    for c in (layer, row):
        code, rerun, err = cli(*shlex.split(c["command"])[1:])
        assert code == 0, err
        again = json.loads(rerun)
        assert again["configurations"][-1]["tokens_per_s"] == c["throughput"]
        assert any("llama.cpp" in r and ("-sm layer" in r or "-sm row" in r) for r in again["run_as"])
