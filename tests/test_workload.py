"""`advisor workload` through the CLI: hand-computed formula cases, the trends that must hold, and
what a user sees (text, JSON, errors, the plan's workload section)."""

from __future__ import annotations

import json
import math

import pytest

from advisor.model.catalog.store import load_catalog
from advisor.model.constants import const
from advisor.workload.presets import presets

W = "workload.yaml"
Z790_2X4090 = ("--cpu", "i9-14900K", "--board", "ROG Maximus Z790 Hero", "--gpu", "RTX 4090:2")
RTX4090 = load_catalog().get("nvidia-rtx-4090")  # peak, memory bandwidth and VRAM from the catalog
PEAK, MEM_BW = RTX4090.bf16_tflops_dense * 1e12, RTX4090.memory_bandwidth_gbps * 1e9
S = 5e-5  # the JSON rounds times to 4 decimals: half a step of slack on top of rel


def c(name, key=None):
    return const(name, key, file=W)


def alpha(out) -> float:
    """NCCL ring latency of one all-reduce on 2 GPUs: base + 2(n-1) hops (rules/workload.yaml)."""
    hop = c("nccl_hop_latency_us", out["interconnect"]["transport"])
    return (c("nccl_base_latency_us") + 2 * hop) * 1e-6


def all_reduce(out, size: float) -> float:
    """One all-reduce of `size` bytes on 2 GPUs over PCIe (k = 1), as NCCL's tuner picks its protocol: LL at
    its latency and half the bus bandwidth, or Simple at 8.4 + 2 x 5.7 us and the full rate."""
    busbw = out["interconnect"]["busbw_gbps"] * 1e9
    transport = out["interconnect"]["transport"]
    ll = alpha(out) + size / (c("nccl_ll_bandwidth_share") * busbw)
    simple = (c("nccl_simple_base_latency_us") + 2 * c("nccl_simple_hop_latency_us", transport)) * 1e-6
    return min(ll, simple + size / busbw)


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
    rn50 = presets()["resnet-50"]  # parameters and forward FLOPs per image: rules/workload.yaml presets
    params = rn50.params
    # compute: 3 x forward FLOPs per image x 64 images / (catalog BF16 peak x MFU)
    t_gpu = 3 * rn50.forward_flops_per_sample * 64 / (PEAK * c("mfu_train", "cnn"))
    # eager PyTorch issues each parameter tensor's kernels from the host: the micro-step takes the longer
    t_host = rn50.param_tensors * c("host_us_per_param_tensor") * 1e-6
    t_micro = max(t_gpu, t_host)
    t_bwd = t_micro * 2 / 3
    # DDP gradients (grad_bytes, fp32 under autocast) in gradient_bucket_bytes buckets (a CNN has no
    # embedding, so its last bucket is a plain one); ring all-reduce on 2 GPUs: k = 2(2-1)/2 = 1
    grad = params * c("grad_bytes", "ddp")
    buckets = math.ceil(grad / c("gradient_bucket_bytes", "ddp"))
    # NCCL's protocol for each bucket's size: ring LL (base + 2(n-1) hops) at half the rate, or Simple
    t_comm = buckets * all_reduce(out, grad / buckets)
    t_last = all_reduce(out, grad / buckets)
    # the ring runs over SHM (2x 4090, stock driver): overlap_under_shm of the framework's overlap
    assert out["interconnect"]["transport"] == "SHM"
    exposed = max(t_comm - c("overlap_fraction") * c("overlap_under_shm") * t_bwd, t_last)
    # Adam: adam_step_bytes_per_param at the catalog memory bandwidth x optimizer_memory_efficiency
    t_opt = params * c("adam_step_bytes_per_param") / (MEM_BW * c("optimizer_memory_efficiency"))
    one, two = out["configurations"]
    assert one["step_time_s"] == pytest.approx(t_micro + t_opt, rel=2e-3, abs=S)
    assert two["step_time_s"] == pytest.approx(t_micro + exposed + t_opt, rel=2e-3, abs=S)
    assert two["exposed_comm_s"] == pytest.approx(exposed, rel=2e-3, abs=S)
    assert out["speedup"] == pytest.approx(2 * (t_micro + t_opt) / (t_micro + exposed + t_opt), rel=2e-3)
    assert out["efficiency"] == pytest.approx(out["speedup"] / 2, abs=1e-3)


def test_tensor_parallel_decode_by_hand(workload_json):
    out = workload_json(*Z790_2X4090, "--infer", "8b", "--batch", "1", "--prompt", "512", "--gen", "256")
    assert out["interconnect"]["transport"] == "SHM"
    eff, mfu = c("decode_memory_efficiency"), c("mfu_prefill")
    att = c("attention_flops_factor")["forward"]  # forward FLOPs: 2N + att x L x h x T per token
    m = presets()["llama-3.1-8b"]  # the model's shape: rules/workload.yaml presets
    params, layers, hidden, kv_heads, head_dim = m.params, m.layers, m.hidden, m.kv_heads, m.hidden // m.heads
    weights = params * 2
    kv_per_token = 2 * layers * kv_heads * head_dim * 2  # K and V, bf16
    context = 512 + 256 / 2  # average context while generating
    mem = (weights / 2 + context * kv_per_token / 2) / (MEM_BW * eff)
    flops = (2 * params + att * layers * hidden * context) / 2 / (PEAK * mfu)
    comm = 2 * layers * all_reduce(out, hidden * 2)  # 2L all-reduces of h x 2 B, k = 1 on 2 GPUs
    step = max(mem, flops) + comm
    two = out["configurations"][1]
    assert two["decode_ms_per_token"] == pytest.approx(step * 1e3, rel=2e-3)
    # time to first token: the 512-token prompt, compute-bound, + 2L all-reduces of 512 x h x 2 B
    pf = 512 * (2 * params + att * layers * hidden * 512) / 2 / (PEAK * mfu)
    pf = max(pf, weights / 2 / (MEM_BW * eff)) + 2 * layers * all_reduce(out, 512 * hidden * 2)
    assert two["ttft_s"] == pytest.approx(pf, rel=2e-3, abs=S)
    assert two["tokens_per_s"] == pytest.approx(256 / (pf + 256 * step), rel=2e-3)


def test_memory_terms_by_hand(workload_json):
    out = workload_json(*Z790_2X4090, "--train", "7b", "--batch", "2", "--seq", "1024")
    mem = out["memory"]["per_gpu_gb"]
    m = presets()["llama-2-7b"]  # params, hidden, layers, vocab: rules/workload.yaml presets
    s = c("model_state_bytes_per_param")  # bytes per parameter by state (rules/workload.yaml)
    # DDP under autocast: fp32 weights (amp_weights) + fp32 grads + Adam m, v (adam_moments)
    assert mem["weights"] == pytest.approx(m.params * s["amp_weights"] / 1e9, abs=0.01)
    assert mem["optimizer"] == pytest.approx(m.params * s["adam_moments"] / 1e9, abs=0.01)
    # Korthikanti: base x s b h bytes per layer (flash attention), L layers; logits bytes x s b vocab
    per_layer, logits = c("activation_bytes_per_layer")["base"], c("logits_bytes_per_token")
    acts = per_layer * 1024 * 2 * m.hidden * m.layers + logits * 1024 * 2 * m.vocab
    assert mem["activations"] == pytest.approx(acts / 1e9, abs=0.01)
    usable = RTX4090.vram_gb * c("vram_bytes_per_gb") * c("vram_usable_fraction")  # catalog GB read as GiB
    assert out["memory"]["usable_gb"] == pytest.approx(usable / 1e9, abs=0.01)
    assert out["memory"]["fits"] is False and out["speedup"] is None
    zero3 = workload_json(
        *Z790_2X4090, "--train", "7b", "--batch", "2", "--seq", "1024", "--strategy", "zero3"
    )
    # ZeRO-3 on 2 GPUs: fp32 master, m, v (adam_fp32) sharded in two
    assert zero3["memory"]["per_gpu_gb"]["optimizer"] == pytest.approx(
        m.params * s["adam_fp32"] / 2 / 1e9, abs=0.01
    )


def test_pipeline_bubble_by_hand(workload_json):
    out = workload_json(
        *Z790_2X4090, "--train", "1b", "--strategy", "pp", "--batch", "1", "--seq", "512", "--accum", "4"
    )
    two = out["configurations"][1]
    # 1F1B with p = 2 stages and m = 4 micro-batches: bubble = (p-1) x per-micro-batch stage time,
    # compute = m x T_micro / p, so bubble / (compute + exposed) = (p - 1) / m
    # (the JSON rounds each time to 0.1 ms)
    assert two["bubble_s"] == pytest.approx((two["compute_s"] + two["exposed_comm_s"]) / 4, abs=1.5e-4)


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
    # the findings (and the verdict, which counts them) differ: WL001's assumed job gives way to the job asked
    assert {k: v for k, v in with_wl.items() if k not in ("workload", "findings", "verdict")} == {
        k: v for k, v in plain.items() if k not in ("findings", "verdict")
    }
    assert "WL001" in {f["id"] for f in plain["findings"]}
    assert "WL001" not in {f["id"] for f in with_wl["findings"]}
    code, out, _ = cli("plan", *Z790_2X4090, "--train", "resnet-50")
    assert code == 0 and "Workload" in out and "Speed-up" in out


def test_custom_parameter_count_borrows_the_nearest_shape(workload_json):
    out = workload_json(*Z790_2X4090, "--train", "3b", "--batch", "1", "--seq", "256", "--recompute")
    assert out["workload"]["params"] == 3e9
    assert any("shape" in a for a in out["assumptions"])
