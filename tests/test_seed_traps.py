"""The traps of the seed story, each against the published result it came from:
DataParallel vs DDP, NCCL_P2P_DISABLE=1, ZeRO reducing every micro-step, tensor-split decode on PCIe
without P2P, and two RTX 4090s training slower than one. Each test reads `advisor accuracy --workload
--json`, the figures a user sees, and checks the published numbers are the ones the case carries."""

from __future__ import annotations

import contextlib
import io
import json

import pytest
import yaml

from advisor.base.resources import bundled
from advisor.main import main


@pytest.fixture(scope="module")
def report() -> dict:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["accuracy", "--workload", "--json"])
    assert code == 0
    return json.loads(out.getvalue())


@pytest.fixture(scope="module")
def cases() -> dict:
    data = yaml.safe_load((bundled("calibration") / "workload-cases.yaml").read_text())
    return {c["id"]: c for c in data["cases"]}


def _row(report: dict, case: str, gpus: int = 2) -> dict:
    return next(r for r in report["rows"] if r["case"] == case and r["gpus"] == gpus)


def _rate(runtime_s: float, gpus: int) -> float:
    """run_clm's 200 steps of 4 samples per GPU in `runtime_s` (the Hugging Face TITAN RTX benchmark)."""
    return round(200 * 4 * gpus / runtime_s, 3)


def test_dataparallel_is_slower_than_ddp_as_on_two_titan_rtx(report, cases):
    # published: 1 GPU 102 s, DataParallel 110.5948 s, DDP 101.9003 s for the same 200 steps
    dp, ddp = cases["hf-titanrtx-gpt2-dp-nvlink-1v2"], cases["hf-titanrtx-gpt2-ddp-nvlink-1v2"]
    assert dp["measured"]["values"] == {1: _rate(102, 1), 2: _rate(110.5948, 2)}
    assert ddp["measured"]["values"] == {1: _rate(102, 1), 2: _rate(101.9003, 2)}
    r_dp, r_ddp = _row(report, dp["id"]), _row(report, ddp["id"])
    assert r_dp["predicted_speedup"] < r_ddp["predicted_speedup"]
    # the gap, 8.5% measured, is the modelled one within a few points: the copies from and to GPU0 that
    # nothing hides. No constant is fitted on this run (GPT-2's step is GPU-bound, so DataParallel's host
    # share does not reach it): its prediction is out of sample as it stands.
    measured_gap = r_ddp["measured_speedup"] / r_dp["measured_speedup"]
    assert not r_dp["in_sample"] and r_dp["loo_predicted_speedup"] is None
    assert r_ddp["predicted_speedup"] / r_dp["predicted_speedup"] == pytest.approx(measured_gap, abs=0.05)
    assert abs(r_ddp["error_pct"]) <= 6  # DDP over the bridge: 2.00x measured


def test_nccl_p2p_disable_costs_what_it_cost_on_two_titan_rtx(report, cases):
    # published: DDP 101.9 s over the NVLink bridge, 131.4 s with NCCL_P2P_DISABLE=1
    off = cases["hf-titanrtx-gpt2-ddp-no-p2p-1v2"]
    assert off["build"]["software"] == {"nccl_p2p_disable": True}
    assert off["measured"]["values"][2] == _rate(131.4367, 2)
    r_off, r_on = _row(report, off["id"]), _row(report, "hf-titanrtx-gpt2-ddp-nvlink-1v2")
    assert r_off["predicted_speedup"] < r_on["predicted_speedup"]
    assert abs(r_off["error_pct"]) < 10 and r_off["loo_predicted_speedup"] is not None
    assert abs(r_off["loo_predicted_speedup"] / r_off["measured_speedup"] - 1) < 0.10


def test_zero2_reducing_every_micro_step_is_slower_than_ddp_on_two_4090s(report, cases):
    # published (whyNLP/tinyllama#1): ZeRO-2 1.8k, DDP 2.7k tokens/s on 2x4090 at accumulation 4,
    # 1.8k on one 4090
    z, d = cases["tinyllama-issue1-4090-zero2-ga4-1v2"], cases["tinyllama-issue1-4090-ddp-ga4-1v2"]
    assert z["measured"]["values"] == {1: 1800.0, 2: 1800.0} and d["measured"]["values"] == {
        1: 1800.0,
        2: 2700.0,
    }
    r_z, r_d = _row(report, z["id"]), _row(report, d["id"])
    assert r_z["predicted_speedup"] < r_d["predicted_speedup"]
    assert abs(r_d["error_pct"]) < 10
    # a known miss the report keeps visible: ZeRO-2 measured no gain at all, the model says 1.5x
    assert r_z["error_pct"] > 25


def test_tensor_split_decode_without_p2p_is_slower_than_one_gpu(report, cases):
    # published (XiongjieDai's Dec 2023 llama-bench): LLaMA 7B f16 tg 60.92 tok/s on one 4090, 48.46 on
    # two, 50.66 on three, 35.28 on six, with llama.cpp splitting every matrix by rows and no P2P between
    # GeForce cards; two RTX A6000 (P2P) went from 43.96 to 47.15
    geforce = "xdai-llamacpp-dec2023-4090-llama7b-f16-tg-1v2v3v6"
    assert cases[geforce]["measured"]["values"] == {1: 60.92, 2: 48.46, 3: 50.66, 6: 35.28}
    assert cases[geforce]["run"]["strategy"] == "row"
    rows = [r for r in report["rows"] if r["case"] == geforce]
    assert [r["gpus"] for r in rows] == [2, 3, 6]
    assert all(r["measured_speedup"] < 1 and r["predicted_speedup"] < 1 for r in rows)
    assert all(r["loo_predicted_speedup"] < 1 for r in rows)
    pro = _row(report, "xdai-llamacpp-dec2023-a6000-llama7b-f16-tg-1v2")
    assert pro["measured_speedup"] > 1 and pro["predicted_speedup"] > 1
    # the P2P card pays less per split matrix than the staged GeForce pair
    assert pro["predicted_speedup"] > _row(report, geforce)["predicted_speedup"]


def test_two_4090s_train_slower_than_one_when_every_step_reduces(report, cases):
    # published (whyNLP/tinyllama#1): DDP on 2x4090 at accumulation 1, 1.5k tokens/s, against one 4090
    # at accumulation 4, 1.8k tokens/s
    c = cases["tinyllama-issue1-4090-ddp-ga1-1v2"]
    assert c["measured"]["values"] == {1: 1800.0, 2: 1500.0}
    assert c["run"]["accum"] == 1 and c["run"]["baseline_accum"] == 4
    r = _row(report, c["id"])
    assert r["measured_speedup"] < 1 and r["predicted_speedup"] < 1 and r["loo_predicted_speedup"] < 1
