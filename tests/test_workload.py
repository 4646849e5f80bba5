"""`advisor workload` through the CLI: hand-computed formula cases, the trends that must hold, and
what a user sees (text, JSON, errors, the plan's workload section)."""

from __future__ import annotations

import json
import math

import pytest

from advisor.model.constants import const

W = "workload.yaml"
Z790_2X4090 = ("--cpu", "i9-14900K", "--board", "ROG Maximus Z790 Hero", "--gpu", "RTX 4090:2")


def c(name, key=None):
    return const(name, key, file=W)


@pytest.fixture
def workload_json(cli):
    def _run(*args: str) -> dict:
        code, out, err = cli("workload", *args, "--json")
        assert code == 0, err
        return json.loads(out)

    return _run


def _busbw(plan_json, *build) -> float:
    return plan_json(*build)["allreduce"]["busbw_gbps"]


def test_ddp_step_of_resnet50_by_hand(workload_json, plan_json):
    out = workload_json(*Z790_2X4090, "--train", "resnet-50", "--batch", "64")
    busbw = out["interconnect"]["busbw_gbps"] * 1e9
    assert busbw == pytest.approx(_busbw(plan_json, *Z790_2X4090) * 1e9, rel=0.01)
    params = 25_557_032
    # compute: 3 x forward FLOPs (8.18e9 per image) x 64 images / (165.2 TFLOPS x MFU)
    t_micro = 3 * 8.18e9 * 64 / (165.2e12 * c("mfu_train"))
    t_bwd = t_micro * 2 / 3
    # fp32 gradients (4 B) in 25 MB buckets: 102.2 MB -> 5 buckets;
    # ring all-reduce on 2 GPUs: k = 2(2-1)/2 = 1
    grad = params * 4
    buckets = math.ceil(grad / 25e6)
    assert buckets == 5
    alpha = (3.6 + 2 * 1.0) * 1e-6  # NCCL ring LL: base 3.6 us + 2(n-1) hops x 1.0 us (PCI)
    t_comm = buckets * alpha + grad / busbw
    t_last = alpha + grad / buckets / busbw
    exposed = max(t_comm - 1.0 * t_bwd, t_last)
    # Adam: 28 bytes per parameter at 1008 GB/s x 0.82
    t_opt = params * 28 / (1008e9 * 0.82)
    one, two = out["configurations"]
    assert one["step_time_s"] == pytest.approx(t_micro + t_opt, rel=2e-3)
    assert two["step_time_s"] == pytest.approx(t_micro + exposed + t_opt, rel=2e-3)
    assert two["exposed_comm_s"] == pytest.approx(exposed, rel=2e-3)
    assert out["speedup"] == pytest.approx(2 * (t_micro + t_opt) / (t_micro + exposed + t_opt), rel=2e-3)
    assert out["efficiency"] == pytest.approx(out["speedup"] / 2, abs=1e-3)


def test_tensor_parallel_decode_by_hand(workload_json):
    out = workload_json(*Z790_2X4090, "--infer", "8b", "--batch", "1", "--prompt", "512", "--gen", "256")
    busbw = out["interconnect"]["busbw_gbps"] * 1e9
    assert out["interconnect"]["transport"] == "SHM"
    eff, mfu = c("decode_memory_efficiency"), c("mfu_prefill")
    params, layers, hidden, kv_heads, head_dim = 8.030e9, 32, 4096, 8, 128
    weights = params * 2
    kv_per_token = 2 * layers * kv_heads * head_dim * 2  # K and V, bf16
    context = 512 + 256 / 2  # average context while generating
    mem = (weights / 2 + context * kv_per_token / 2) / (1008e9 * eff)
    flops = (2 * params + 4 * layers * hidden * context) / 2 / (165.2e12 * mfu)
    alpha = (3.6 + 2 * 1.0) * 1e-6
    comm = 2 * layers * (alpha + hidden * 2 / busbw)  # 64 all-reduces of 8 KB, k = 1 on 2 GPUs
    step = max(mem, flops) + comm
    two = out["configurations"][1]
    assert two["decode_ms_per_token"] == pytest.approx(step * 1e3, rel=2e-3)
    # time to first token: the 512-token prompt, compute-bound, + 64 all-reduces of 512 x 8 KB
    pf = 512 * (2 * params + 4 * layers * hidden * 512) / 2 / (165.2e12 * mfu)
    pf = max(pf, weights / 2 / (1008e9 * eff)) + 2 * layers * (alpha + 512 * hidden * 2 / busbw)
    assert two["ttft_s"] == pytest.approx(pf, rel=2e-3)
    assert two["tokens_per_s"] == pytest.approx(256 / (pf + 256 * step), rel=2e-3)


def test_memory_terms_by_hand(workload_json):
    out = workload_json(*Z790_2X4090, "--train", "7b", "--batch", "2", "--seq", "1024")
    mem = out["memory"]["per_gpu_gb"]
    # DDP under autocast: 4 (fp32 weights) + 4 (fp32 grads) + 8 (Adam m, v) bytes per parameter
    assert mem["weights"] == pytest.approx(6.738e9 * 4 / 1e9, abs=0.01)
    assert mem["optimizer"] == pytest.approx(6.738e9 * 8 / 1e9, abs=0.01)
    # Korthikanti: 34 s b h bytes per layer (flash attention), 32 layers; logits 4 s b vocab
    acts = 34 * 1024 * 2 * 4096 * 32 + 4 * 1024 * 2 * 32000
    assert mem["activations"] == pytest.approx(acts / 1e9, abs=0.01)
    assert out["memory"]["usable_gb"] == pytest.approx(24 * 2**30 * 0.9 / 1e9, abs=0.01)
    assert out["memory"]["fits"] is False and out["speedup"] is None
    zero3 = workload_json(
        *Z790_2X4090, "--train", "7b", "--batch", "2", "--seq", "1024", "--strategy", "zero3"
    )
    assert zero3["memory"]["per_gpu_gb"]["optimizer"] == pytest.approx(6.738e9 * 12 / 2 / 1e9, abs=0.01)


def test_pipeline_bubble_by_hand(workload_json):
    out = workload_json(
        *Z790_2X4090, "--train", "1b", "--strategy", "pp", "--batch", "1", "--seq", "512", "--accum", "4"
    )
    two = out["configurations"][1]
    # 1F1B with p = 2 stages and m = 4 micro-batches: bubble = (p-1) x per-micro-batch stage time,
    # compute = m x T_micro / p, so bubble / (compute + exposed) = (p - 1) / m
    assert two["bubble_s"] == pytest.approx((two["compute_s"] + two["exposed_comm_s"]) / 4, rel=1e-3)


def test_the_seed_question_text(cli):
    code, out, err = cli("workload", *Z790_2X4090, "--train", "resnet-50", "--batch", "64")
    assert code == 0, err
    for words in ("1 GPU", "2 GPUs", "Speed-up", "Bottleneck", "Memory per GPU", "What to change", "SHM"):
        assert words in out


def test_json_has_the_stable_keys(workload_json):
    out = workload_json(*Z790_2X4090, "--train", "1b", "--batch", "1", "--seq", "512")
    for key in (
        "gpus",
        "speedup",
        "efficiency",
        "bottleneck",
        "configurations",
        "memory",
        "changes",
        "assumptions",
        "interconnect",
        "workload",
    ):
        assert key in out
    for cfg in out["configurations"]:
        for key in ("step_time_s", "compute_s", "exposed_comm_s", "bubble_s", "memory"):
            assert key in cfg
    assert "fits" in out["memory"] and "per_gpu_gb" in out["memory"]
    change = out["changes"][0]
    assert {"change", "predicted_speedup", "vs_now"} <= set(change)


def test_accumulation_is_a_listed_change_with_its_effect(workload_json):
    out = workload_json(*Z790_2X4090, "--train", "1b", "--batch", "1", "--seq", "512")
    accum = next(ch for ch in out["changes"] if ch["change"].startswith("--accum 8"))
    assert accum["vs_now"] > 1.5 and accum["predicted_speedup"] > out["speedup"]


def test_inference_compares_tp_pp_and_replicas(workload_json):
    out = workload_json(*Z790_2X4090, "--infer", "1b", "--batch", "8")
    assert {s["strategy"] for s in out["strategies"]} == {"tp", "pp", "replicas"}
    replicas = next(s for s in out["strategies"] if s["strategy"] == "replicas")
    # memory-bound decode: one GPU already batches 8 sequences almost for free
    assert replicas["tokens_per_s"] >= out["configurations"][0]["tokens_per_s"]
    busy = workload_json(*Z790_2X4090, "--infer", "1b", "--batch", "256")
    replicas = next(s for s in busy["strategies"] if s["strategy"] == "replicas")
    assert replicas["tokens_per_s"] > 1.7 * busy["configurations"][0]["tokens_per_s"]
    assert one_gpu_ttft(busy) > replicas["ttft_s"]


def one_gpu_ttft(out):
    return out["configurations"][0]["ttft_s"]


def test_a_model_that_does_not_fit_on_one_gpu_gets_no_speedup(workload_json):
    out = workload_json(
        "--cpu", "TR PRO 7985WX", "--board", "WRX90E-SAGE", "--gpu", "RTX A6000:4", "--infer", "70b"
    )
    one, four = out["configurations"]
    assert out["fits_one_gpu"] is False and out["speedup"] is None and out["efficiency"] is None
    assert one["tokens_per_s"] is None and four["tokens_per_s"] > 0
    assert "does not fit on one GPU" in out["bottleneck"]


def test_explain_carries_derivations_and_sources(workload_json):
    out = workload_json(*Z790_2X4090, "--train", "resnet-50", "--batch", "64", "--explain")
    d = out["configurations"][1]["derivation"]["exposed_comm"]
    assert "overlap_fraction" in d["constants"] and d["formula"]
    assert out["constants"]["mfu_train"]["sources"]
    assert out["derivation"]["speedup"]["formula"]


def test_fewer_gpus_than_the_build_uses_the_first_ones(workload_json):
    out = workload_json(
        "--cpu",
        "TR PRO 7985WX",
        "--board",
        "WRX90E-SAGE",
        "--gpu",
        "RTX A6000:4",
        "--train",
        "resnet-50",
        "--gpus",
        "2",
    )
    assert out["gpus"] == 2 and len(out["configurations"]) == 2
    assert any("first 2" in a for a in out["assumptions"])


@pytest.mark.parametrize(
    "args,words",
    [
        (("--train", "llama-9000"), "no model preset"),
        (("--train", "resnet-50", "--gpus", "3"), "more than the 2 GPU"),
        (("--train", "resnet-50", "--batch", "0"), "at least 1"),
        (("--infer", "resnet-50"), "decoder LLMs"),
        (("--train", "resnet-50", "--strategy", "replicas"), "not one for training"),
        (("--train", "resnet-50", "--strategy", "tp"), "transformer"),
    ],
)
def test_bad_input_is_one_clear_error(cli, args, words):
    code, out, err = cli("workload", *Z790_2X4090, *args)
    assert code == 2 and words in err and "Traceback" not in err


def test_unknown_preset_says_did_you_mean(cli):
    code, _, err = cli("workload", *Z790_2X4090, "--train", "lama-2-7b")
    assert code == 2 and "did you mean" in err and "llama-2-7b" in err


def test_tp_size_must_divide_the_heads(cli):
    code, _, err = cli(
        "workload",
        "--cpu",
        "i9-14900K",
        "--board",
        "ROG Strix Z790-E",
        "--gpu",
        "RTX 4090:3",
        "--infer",
        "8b",
    )
    assert code == 2 and "does not divide" in err


def test_plan_gets_a_workload_section_and_keeps_the_rest(plan_json, cli):
    plain = plan_json(*Z790_2X4090)
    with_wl = plan_json(*Z790_2X4090, "--train", "resnet-50", "--batch", "64")
    assert with_wl["workload"]["speedup"] > 1
    assert {k: v for k, v in with_wl.items() if k not in ("workload", "findings")} == {
        k: v for k, v in plain.items() if k != "findings"
    }
    code, out, _ = cli("plan", *Z790_2X4090, "--train", "resnet-50")
    assert code == 0 and "Workload" in out and "Speed-up" in out


def test_custom_parameter_count_borrows_the_nearest_shape(workload_json):
    out = workload_json(*Z790_2X4090, "--train", "3b", "--batch", "1", "--seq", "256", "--recompute")
    assert out["workload"]["params"] == 3e9
    assert any("shape" in a for a in out["assumptions"])
