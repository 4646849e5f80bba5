"""Inference as people serve: quantized weights and KV cache, the concurrency the KV
cache admits, and mixtures of experts, each checked against the published figure it rests on."""

from __future__ import annotations

import json

import pytest

TR = ("--cpu", "Threadripper PRO 7975WX", "--board", "WRX90E-SAGE")


def _run(cli, gpu: str, *args) -> dict:
    code, out, err = cli("workload", *TR, "--gpu", gpu, *args, "--json")
    assert code == 0, err
    return json.loads(out)


def _config(out: dict, gpus: int) -> dict:
    return next(c for c in out["configurations"] if c["gpus"] == gpus)


def test_a_q4_k_m_70b_weighs_what_llama_cpp_says(cli):
    """llama.cpp's quantize README: Llama 3.1 70B in Q4_K_M is 43.1 GB (4.8944 bits/weight)."""
    out = _run(cli, "RTX 6000 Ada:1", "--infer", "llama-3.1-70b", "--quant", "q4_k_m", "--batch", "1")
    assert out["memory"]["per_gpu_gb"]["weights"] == pytest.approx(43.1, abs=0.2)
    assert out["workload"]["quant"] == "q4_k_m"


@pytest.mark.parametrize("gpu, measured", [("RTX 4090", 19.22), ("RTX 3090", 16.57)])
def test_layer_split_70b_q4_k_m_decode_on_two_cards(cli, gpu, measured):
    """XiongjieDai's llama.cpp benchmarks (May 2024, tg 512): Llama 3 70B Q4_K_M on 2 x 4090 19.22
    tokens/s, on 2 x 3090 16.57; llama.cpp's layer split runs the halves one after the other."""
    out = _run(
        cli, f"{gpu}:2", "--infer", "llama-3.1-70b", "--quant", "q4_k_m", "--strategy", "pp",
        "--batch", "1", "--prompt", "1", "--gen", "512",
    )  # fmt: skip
    assert not out["fits_one_gpu"]
    predicted = 1000 / _config(out, 2)["decode_ms_per_token"]
    assert predicted == pytest.approx(measured, rel=0.10)


def test_tensor_parallel_on_two_cards_admits_more_than_twice_the_sequences(cli):
    """The weights split in two leave more room per card, and each card holds half of every sequence's
    KV heads: 2 cards take more than twice one card's concurrency."""
    out = _run(cli, "RTX 4090:2", "--infer", "llama-3.1-8b", "--strategy", "tp", "--batch", "1")
    one, two = (_config(out, n)["memory"]["max_sequences"] for n in (1, 2))
    assert one >= 1 and two > 2 * one


def test_an_fp8_kv_cache_doubles_the_concurrency(cli):
    args = ("--infer", "llama-3.1-8b", "--batch", "1", "--prompt", "2048", "--gen", "512")
    f16 = _run(cli, "RTX 4090:1", *args)["memory"]["max_sequences"]
    fp8 = _run(cli, "RTX 4090:1", *args, "--kv-cache", "fp8")["memory"]["max_sequences"]
    assert fp8 == pytest.approx(2 * f16, abs=1)
    # the KV cache term itself halves
    a = _run(cli, "RTX 4090:1", *args)["memory"]["per_gpu_gb"]["kv_cache"]
    b = _run(cli, "RTX 4090:1", *args, "--kv-cache", "fp8")["memory"]["per_gpu_gb"]["kv_cache"]
    assert b == pytest.approx(a / 2, rel=0.02)


def test_a_mixture_of_experts_holds_all_its_weights_but_reads_few_per_token(cli):
    """Qwen3-30B-A3B (30.5B total, 3.3B active, 8 of 128 experts): as big as a dense 32B in memory, far
    faster to decode one sequence; with 64 sequences a step touches nearly every expert."""
    args = ("--quant", "q4_k_m", "--prompt", "1", "--gen", "256")
    moe = _run(cli, "RTX 4090:1", "--infer", "qwen3-30b-a3b", "--batch", "1", *args)
    dense = _run(cli, "RTX 4090:1", "--infer", "qwen3-32b", "--batch", "1", *args)
    assert moe["workload"]["active_params"] == pytest.approx(3.3e9, rel=0.03)
    assert moe["memory"]["per_gpu_gb"]["weights"] > 0.9 * dense["memory"]["per_gpu_gb"]["weights"]
    assert _config(moe, 1)["decode_ms_per_token"] < 0.25 * _config(dense, 1)["decode_ms_per_token"]
    busy = _run(cli, "RTX 4090:1", "--infer", "qwen3-30b-a3b", "--batch", "64", *args)
    # per sequence a busy step is cheaper, but the step reads most of the experts: slower per step
    assert _config(busy, 1)["decode_ms_per_token"] > 3 * _config(moe, 1)["decode_ms_per_token"]


def test_mixtral_counts_as_its_card_says():
    from advisor.workload.presets import resolve

    m = resolve("mixtral-8x7b")
    # Mistral: 46.7B total, 12.9B used per token
    assert m.active == pytest.approx(12.9e9, rel=0.01)
    from advisor.workload.presets import with_dims

    # the same shape given as dimensions counts the same total
    d = with_dims(
        resolve("llama-3.1-8b"),
        {"layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 8, "ffn": 14336, "vocab": 32000,
         "experts": 8, "active_experts": 2},
    )  # fmt: skip
    assert d.params == pytest.approx(46.7e9, rel=0.01) and d.active == pytest.approx(12.9e9, rel=0.01)


@pytest.mark.parametrize(
    "args, says",
    [
        (("--train", "llama-3.1-8b", "--quant", "int4"), "--quant is for inference"),
        (("--infer", "llama-3.1-8b", "--quant", "q4_k_x"), "'q4_k_x' is not a format advisor knows"),
        (("--infer", "llama-3.1-8b", "--kv-cache", "int3"), "'int3' is not a format advisor knows"),
        (("--infer", "llama-3.1-8b", "--active-experts", "2"), "--active-experts needs --experts"),
        (("--infer", "llama-3.1-8b", "--experts", "4", "--active-experts", "8"), "more than the 4 experts"),
        (("--infer", "llama-3.1-8b", "--experts", "8"), "--experts needs --active-experts"),
    ],
)
def test_bad_inference_formats_exit_2(cli, args, says):
    code, _, err = cli("workload", *TR, "--gpu", "RTX 4090:2", *args)
    assert code == 2
    assert says in " ".join(err.split())


@pytest.mark.parametrize("method, stored", [("awq", "int4"), ("GPTQ", "int4"), ("w8a8", "int8")])
def test_a_quantization_method_by_name_is_its_storage_format_said_on_stderr(cli, method, stored):
    """vLLM's --quantization and model cards name the method (AWQ, GPTQ): the same prediction as the
    format it stores, and the reading said."""
    job = ("workload", *TR, "--gpu", "RTX 4090:2", "--infer", "llama-3.1-70b", "--json")
    code, out, err = cli(*job, "--quant", method)
    assert code in (0, 1), err
    assert f"read --quant {method.lower()} as {stored} (how it stores the weights)" in err
    code, same, _ = cli(*job, "--quant", stored)
    assert json.loads(out)["workload"] == json.loads(same)["workload"]


def test_the_engine_flags_that_give_the_prediction(cli):
    """vLLM for a 16-bit TP job (with why its custom all-reduce is off without P2P), llama.cpp alone
    for a GGUF type, each with the split, concurrency and KV cache type the prediction assumed."""
    hero = ("--cpu", "i9-14900K", "--board", "ROG Maximus Z790 Hero", "--gpu", "RTX 4090:2")
    code, out, _ = cli(
        "workload", *hero, "--infer", "llama-3.1-8b", "--strategy", "tp", "--batch", "8",
        "--kv-cache", "fp8", "--json",
    )  # fmt: skip
    (vllm,) = json.loads(out)["run_as"]
    assert "--tensor-parallel-size 2" in vllm and "--max-num-seqs 8" in vllm
    assert "--kv-cache-dtype fp8" in vllm and "custom all-reduce" in vllm
    code, out, _ = cli(
        "workload", *hero, "--infer", "llama-3.1-70b", "--quant", "q4_k_m", "--strategy", "pp",
        "--batch", "1", "--json",
    )  # fmt: skip
    (llama,) = json.loads(out)["run_as"]
    assert llama.startswith("llama.cpp:") and "-sm layer" in llama
    code, out, _ = cli(
        "workload", *hero, "--infer", "llama-3.1-8b", "--quant", "fp8", "--kv-cache", "q8_0", "--json"
    )
    (none,) = json.loads(out)["run_as"]
    assert none.startswith("no engine advisor knows serves --quant fp8 with --kv-cache q8_0")
    code, out, _ = cli("workload", *hero, "--infer", "llama-3.1-8b", "--strategy", "tp", "--batch", "4")
    assert "Run it as" in out and "vllm serve MODEL --tensor-parallel-size 2" in " ".join(out.split())


def test_max_concurrency_serves_what_each_kv_cache_admits(cli):
    """--max-concurrency: one card serves as many sequences as its KV cache holds, two cards with TP as
    many as theirs (more than twice: the weights split too), and the throughputs compare those."""
    out = _run(cli, "RTX 4090:2", "--infer", "llama-3.1-8b", "--strategy", "tp", "--max-concurrency")
    spec = out["workload"]
    one, two = _config(out, 1), _config(out, 2)
    assert spec["max_concurrency"] is True
    assert (
        spec["batch"] == two["memory"]["max_sequences"]
        and spec["baseline_batch"] == one["memory"]["max_sequences"]
    )
    assert spec["batch"] > 2 * spec["baseline_batch"] >= 2
    assert one["fits"] and two["fits"]
    assert out["speedup"] == pytest.approx(two["tokens_per_s"] / one["tokens_per_s"], rel=0.01)
    # llama.cpp has no tensor parallel (its row split is --strategy row): vLLM's command only
    (vllm,) = out["run_as"]
    assert f"--max-num-seqs {spec['batch']}" in vllm


@pytest.mark.parametrize(
    "args, says",
    [
        (("--train", "llama-3.1-8b", "--max-concurrency"), "--max-concurrency is for inference"),
        (("--infer", "llama-3.1-8b", "--max-concurrency", "--batch", "4"), "leave --batch out"),
    ],
)
def test_max_concurrency_with_training_or_a_batch_exits_2(cli, args, says):
    code, _, err = cli("workload", *TR, "--gpu", "RTX 4090:2", *args)
    assert code == 2 and says in " ".join(err.split())


def test_a_build_that_serves_with_sglang_gets_sglangs_flags(cli):
    code, out, err = cli(
        "workload", *TR, "--gpu", "RTX 6000 Ada:2", "--engine", "sglang", "--infer", "llama-3.1-8b",
        "--strategy", "tp", "--batch", "16", "--kv-cache", "fp8", "--json",
    )  # fmt: skip
    assert code == 0, err
    # an fp8 KV cache is not llama.cpp's: SGLang's line alone, in vLLM's place
    (server,) = json.loads(out)["run_as"]
    assert server.startswith("SGLang: python -m sglang.launch_server") and "--tp-size 2" in server
    assert "--max-running-requests 16" in server and "--kv-cache-dtype fp8_e5m2" in server


def test_run_as_says_whether_vllm_custom_all_reduce_takes_the_tp_all_reduces(cli):
    """vLLM's custom_all_reduce.py: 2, 4, 6 or 8 GPUs; beyond 2, only with NVLink between all of them;
    never without P2P. The note follows the build's transport and the GPU count."""

    def note(*args):
        code, out, err = cli("workload", *args, "--infer", "llama-3.1-8b", "--strategy", "tp", "--json")
        assert code == 0, err
        return json.loads(out)["run_as"][0]

    tr = ("--cpu", "Threadripper PRO 7985WX", "--board", "Pro WS WRX90E-SAGE SE")
    assert "NCCL would use the same P2P links" in note(*tr, "--gpu", "RTX 6000 Ada:2")
    # CUDA P2P works, NCCL (on AMD with 4 GPUs, P2P only up to PXB) would use SHM: vLLM still gates on NVLink
    assert "beyond 2 GPUs without NVLink" in note(*tr, "--gpu", "RTX 6000 Ada:4")
    assert "without P2P vLLM skips" in note(*tr, "--gpu", "RTX 4090:2")
    # an Intel root complex: NCCL keeps SHM, vLLM's own P2P check passes and its kernel takes over
    hero = ("--cpu", "i9-14900K", "--board", "ROG Maximus Z790 Hero", "--gpu", "RTX A6000:2")
    assert "where NCCL would use SHM" in note(*hero)


def test_a_named_engine_runs_2_gpu_tp_all_reduces_over_p2p_where_nccl_would_stage(cli):
    """2x RTX A6000 behind an Intel root complex: CUDA P2P works, NCCL's default level keeps SHM. With
    vLLM named, its custom all-reduce (gates from its source) carries the prefill's all-reduces over
    P2P: time to first token drops; the decode step's tiny all-reduces barely change (latency-bound)."""
    hero = ("--cpu", "i9-14900K", "--board", "ROG Maximus Z790 Hero", "--gpu", "RTX A6000:2")
    job = ("--infer", "llama-3.1-8b", "--strategy", "tp", "--prompt", "512", "--gen", "256", "--json")

    def two(*extra):
        code, out, err = cli("workload", *hero, *extra, *job)
        assert code == 0, err
        d = json.loads(out)
        return next(c for c in d["configurations"] if c["gpus"] == 2), d["run_as"][0]

    from advisor.model.constants import const

    nccl, note_nccl = two()
    vllm, note_vllm = two("--engine", "vllm")
    assert vllm["ttft_s"] < nccl["ttft_s"] * 0.95
    # the engine's own step overhead aside (engine_decode_step_overhead_us, and its CPU time for the one
    # running sequence, engine_decode_per_sequence_us), the decode step barely changes
    engine_ms = (
        const("engine_decode_step_overhead_us", file="workload.yaml")
        + const("engine_decode_per_sequence_us", file="workload.yaml")
    ) / 1000
    assert (
        abs(vllm["decode_ms_per_token"] - engine_ms - nccl["decode_ms_per_token"])
        < 0.05 * nccl["decode_ms_per_token"]
    )
    assert "pessimistic here" in note_nccl and "the prediction follows it" in note_vllm


def _hypergeometric_max(experts: int, k: int, ranks: int) -> float:
    """E[busiest rank's experts] for one token routed to k distinct experts of `experts`, split evenly
    over 2 ranks: the exact count by enumerating which experts the token picks."""
    from itertools import combinations

    owned = experts // ranks
    picks = list(combinations(range(experts), k))
    return sum(max(sum(1 for e in p if e < owned), sum(1 for e in p if e >= owned)) for p in picks) / len(
        picks
    )


def test_the_busiest_expert_parallel_rank_reads_more_than_a_tensor_parallel_share():
    """One token of Mixtral (top 2 of 8) over 2 GPUs: tensor parallel reads half of each of 2 experts on
    each GPU (1 expert's worth); expert parallel's busier GPU holds both experts 3 times in 7, so it
    reads 10/7 = 1.43 on average. The model's independent-routing figure stays near the exact one, and a
    prefill's many tokens touch all of each rank's experts."""
    from advisor.workload.defaults import workload
    from advisor.workload.infer import busiest_rank_experts
    from advisor.workload.presets import presets

    w = workload("infer", presets()["mixtral-8x7b"], strategy="ep")
    exact = _hypergeometric_max(8, 2, 2)
    assert exact == pytest.approx(10 / 7)
    assert busiest_rank_experts(w, 2, 1) == pytest.approx(exact, abs=0.05)
    assert busiest_rank_experts(w, 2, 4096) == pytest.approx(4.0, abs=1e-6)
    # one rank holds every expert: the expected touched count, E x (1 - (1 - k/E)^tokens)
    assert busiest_rank_experts(w, 1, 3) == pytest.approx(8 * (1 - (6 / 8) ** 3))


def test_expert_parallel_fits_a_moe_where_replicas_do_not(cli):
    """Qwen3-30B-A3B in fp8 on 2 x 4090: a whole copy (31 GB) does not fit a 24 GB card; expert parallel
    keeps the shared weights on both and 64 of the 128 experts on each, so it fits and each rank admits its
    own sequences."""
    out = _run(
        cli, "RTX 4090:2", "--infer", "qwen3-30b-a3b", "--quant", "fp8", "--strategy", "ep", "--batch", "8"
    )
    by = {s["strategy"]: s for s in out["strategies"]}
    assert not by["replicas"]["fits"] and by["ep"]["fits"] and by["tp"]["fits"]
    ep, tp = by["ep"]["memory"]["per_gpu_gb"]["weights"], by["tp"]["memory"]["per_gpu_gb"]["weights"]
    assert tp < ep < 1.1 * tp  # the shared weights (1.5B parameters) are whole on each GPU
    assert _config(out, 2)["strategy"] == "ep"


def test_expert_parallel_exchanges_less_than_tensor_parallel_over_host_memory(cli):
    """Without P2P (SHM), a tensor-parallel decode step all-reduces twice a layer; expert parallel's
    all-gather and reduce-scatter once a layer move about half of that, but its busiest GPU reads the
    shared weights whole and more experts, so at 8 sequences its decode is slower on the 4090s, as vLLM's
    docs say EP pays at scale."""
    out = _run(
        cli, "RTX 4090:2", "--infer", "qwen3-30b-a3b", "--quant", "fp8", "--strategy", "ep", "--batch", "8"
    )
    by = {s["strategy"]: s for s in out["strategies"]}
    assert by["ep"]["exposed_comm_s"] < 0.8 * by["tp"]["exposed_comm_s"]
    assert by["ep"]["decode_ms_per_token"] > by["tp"]["decode_ms_per_token"]


def test_expert_parallel_says_its_engine_flags(cli):
    out = _run(
        cli, "RTX 4090:2", "--infer", "qwen3-30b-a3b", "--quant", "fp8", "--strategy", "ep", "--batch", "8"
    )
    vllm = next(r for r in out["run_as"] if r.startswith("vLLM"))
    assert "--data-parallel-size 2 --enable-expert-parallel" in vllm
    assert "--max-num-seqs 4" in vllm  # the cap is per data-parallel rank
    assert not any(r.startswith("llama.cpp") for r in out["run_as"])


def test_expert_parallel_of_a_dense_model_exits_2(cli):
    code, out, err = cli(
        "workload", *TR, "--gpu", "RTX 4090:2", "--infer", "llama-3.1-8b", "--strategy", "ep"
    )
    assert code == 2
    assert "dense model" in err and "--strategy tp, pp or replicas" in err


def test_explain_on_a_multi_gpu_inference_job_shows_every_configurations_derivation(cli):
    """--explain after the strategies table: each configuration's figures, expert parallel's own
    formula among them (the table's columns once shadowed the configurations and it crashed)."""
    code, out, err = cli(
        "workload", *TR, "--gpu", "RTX 4090:2", "--infer", "mixtral-8x7b", "--quant", "int4",
        "--strategy", "ep", "--explain",
    )  # fmt: skip
    assert code == 0, err
    assert "Derivations" in out and "Traceback" not in err
    flat = " ".join(out.split())
    assert "1 GPU decode_step = " in flat and "2 GPU decode_step = " in flat
    assert "the busiest GPU's touched experts" in flat
    assert "shared params + 4 of 8 experts per layer" in flat
    assert "keep 1 of 2 data-parallel ranks busy" in flat


def _serving(cli, gpu: str, *args) -> tuple[dict, dict]:
    out = _run(cli, gpu, "--infer", "llama-3.1-8b", *args)
    one, many = out["serving"]
    return one, many


def test_a_request_rate_finds_each_configurations_steady_state(cli):
    """Little's law ties the three figures together: requests in flight = rate x time per request, and a
    request takes its prefill plus gen tokens at the time between tokens. Two 4090s with TP halve the
    decode step, so the same rate keeps fewer requests in flight, each done sooner."""
    one, many = _serving(cli, "RTX 4090:2", "--request-rate", "2")
    for sv in (one, many):
        assert sv["sustained"]
        assert sv["concurrency"] == pytest.approx(2 * sv["latency_s"], rel=0.01)
        assert sv["latency_s"] == pytest.approx(sv["ttft_s"] + 256 * sv["inter_token_ms"] / 1e3, rel=0.01)
        assert sv["batch"] >= sv["concurrency"] and sv["batch"] <= sv["cap"]
    assert one["strategy"] == "single" and many["strategy"] == "tp"
    assert many["latency_s"] < one["latency_s"] and many["concurrency"] < one["concurrency"]
    assert many["capacity_rps"] > one["capacity_rps"]


def test_a_rate_above_capacity_says_the_queue_grows(cli):
    """Just below one card's capacity it keeps up; above, it does not, and the text says so."""
    one, _ = _serving(cli, "RTX 4090:2", "--request-rate", "1")
    cap = one["capacity_rps"]
    below, _ = _serving(cli, "RTX 4090:2", "--request-rate", f"{0.95 * cap:.3f}")
    above, many = _serving(cli, "RTX 4090:2", "--request-rate", f"{1.05 * cap:.3f}")
    assert below["sustained"] and not above["sustained"] and many["sustained"]
    assert above["latency_s"] is None and above["batch"] == above["cap"]
    code, out, err = cli(
        "workload",
        *TR,
        "--gpu",
        "RTX 4090:2",
        "--infer",
        "llama-3.1-8b",
        "--request-rate",
        f"{1.05 * cap:.3f}",
    )
    assert code == 0, err
    assert "no: the queue grows" in out and "requests in flight" in out


def test_batch_caps_the_sequences_in_flight_under_a_rate(cli):
    """--batch with --request-rate is the engine's --max-num-seqs: a cap of 2 takes far fewer requests
    per second than the KV cache's 70."""
    free, _ = _serving(cli, "RTX 4090:2", "--request-rate", "1")
    capped, _ = _serving(cli, "RTX 4090:2", "--request-rate", "1", "--batch", "2")
    assert capped["cap"] == 2 and free["cap"] > 2
    assert capped["capacity_rps"] < free["capacity_rps"] / 2


@pytest.mark.parametrize(
    "args, says",
    [
        (("--train", "1b", "--request-rate", "2"), "--request-rate is for inference"),
        (("--infer", "8b", "--request-rate", "0"), "positive number of requests per second"),
        (("--infer", "8b", "--request-rate", "-3"), "positive number of requests per second"),
        (("--infer", "8b", "--request-rate", "2", "--max-concurrency"), "leave --max-concurrency out"),
    ],
)
def test_bad_request_rates_exit_2(cli, args, says):
    code, out, err = cli("workload", *TR, "--gpu", "RTX 4090:2", *args)
    assert code == 2 and says in err and "Traceback" not in err


def test_deepseek_v3_counts_as_its_readme_says():
    """DeepSeek's README: 671B total, 37B activated; 58 of its 61 layers carry 256 routed experts of
    2048 (8 per token) and the first 3 a dense MLP, which the count must follow."""
    from advisor.workload.presets import resolve

    m = resolve("deepseek-r1")
    assert m.key == "deepseek-v3"
    assert m.params == pytest.approx(671e9)
    assert m.expert_params == pytest.approx(58 * 256 * 3 * 7168 * 2048)
    assert m.active == pytest.approx(37e9, rel=0.03)


def test_mla_keeps_one_latent_per_token_whole_on_every_tensor_parallel_gpu(cli):
    """MLA's KV cache entry is kv_lora_rank 512 + rope 64 = 576 values per token and layer (61 x 576 x 2
    bytes = 70,272 bytes a token in 16 bits, against 61 x 2 x 128 heads x 128 x 2 = 4.0 MB for the same
    heads unshared); tensor parallel does not split it, so every GPU holds all of it."""
    args = ("--infer", "deepseek-v3", "--quant", "q2_k", "--batch", "16", "--prompt", "512", "--gen", "256")
    out = _run(cli, "RTX PRO 6000 Blackwell:4", *args, "--strategy", "tp")
    per_seq_tokens = 16 * (512 + 256)
    kv = {c["gpus"]: c["memory"]["per_gpu_gb"]["kv_cache"] for c in out["configurations"]}
    assert kv[4] == pytest.approx(61 * 576 * 2 * per_seq_tokens / 1e9, rel=0.02)
    assert kv[4] == pytest.approx(kv[1], rel=1e-6)  # not split by TP
    assert _config(out, 4)["fits"] and not out["fits_one_gpu"]


def test_a_latent_attention_preset_cannot_be_redimensioned_or_lora_counted(cli):
    code, _, err = cli("workload", *TR, "--gpu", "RTX 4090:2", "--infer", "deepseek-v3", "--layers", "30")
    assert code == 2 and "cannot be re-dimensioned" in err
    code, _, err = cli("workload", *TR, "--gpu", "RTX 4090:2", "--train", "deepseek-v3", "--lora", "16")
    assert code == 2 and "latent attention" in err


def test_vllm_tensor_parallel_pays_its_step_overhead_and_one_gpu_does_not(cli):
    """A vLLM job hands each tensor-parallel decode step to its worker processes: the 2-GPU step carries
    engine_decode_step_overhead_us (fitted on published vLLM runs), the 1-GPU step and a job that names no
    engine do not, so at one request the engine gains less from the second card."""
    from advisor.model.constants import const

    overhead_ms = const("engine_decode_step_overhead_us", file="workload.yaml") / 1000
    per_seq_ms = const("engine_decode_per_sequence_us", file="workload.yaml") / 1000
    assert overhead_ms > 0
    args = ("--infer", "llama-3.1-8b", "--strategy", "tp", "--batch", "1", "--prompt", "1", "--gen", "256")
    plain = _run(cli, "RTX 6000 Ada:2", *args)
    vllm = _run(cli, "RTX 6000 Ada:2", *args, "--engine", "vllm")
    # one GPU: only the engine's CPU time for its one sequence
    one_plain, one_vllm = _config(plain, 1)["decode_ms_per_token"], _config(vllm, 1)["decode_ms_per_token"]
    assert one_vllm == pytest.approx(one_plain + per_seq_ms, abs=0.01)
    two_plain, two_vllm = _config(plain, 2)["decode_ms_per_token"], _config(vllm, 2)["decode_ms_per_token"]
    assert two_vllm == pytest.approx(two_plain + overhead_ms + per_seq_ms, abs=0.01)
    assert vllm["speedup"] < plain["speedup"]


def test_a_named_engine_pays_its_cpu_time_per_sequence_which_tensor_parallel_does_not_shrink(cli):
    """Under hundreds of requests an engine's Python side (scheduling, input preparation, detokenising) costs
    engine_decode_per_sequence_us per running sequence every step, on one GPU and on many: published runs of
    7-8B models under hundreds of requests gain little from more GPUs. A job that names vLLM is predicted to
    gain less from tensor parallel at 256 requests than the same job naming no engine, and less than at one."""
    from advisor.model.constants import const

    assert const("engine_decode_per_sequence_us", file="workload.yaml") > 0
    many = (
        "--infer",
        "llama-3.1-8b",
        "--strategy",
        "tp",
        "--batch",
        "256",
        "--prompt",
        "200",
        "--gen",
        "200",
    )
    plain = _run(cli, "RTX 6000 Ada:4", *many)
    vllm = _run(cli, "RTX 6000 Ada:4", *many, "--engine", "vllm")
    assert vllm["speedup"] < plain["speedup"]
    assert _config(vllm, 1)["decode_ms_per_token"] > _config(plain, 1)["decode_ms_per_token"]
    one = _run(
        cli,
        "RTX 6000 Ada:4",
        "--infer",
        "llama-3.1-8b",
        "--strategy",
        "tp",
        "--batch",
        "1",
        "--prompt",
        "200",
        "--gen",
        "200",
        "--engine",
        "vllm",
    )
    assert vllm["speedup"] < one["speedup"]


def test_tensorrt_llm_tensor_parallel_pays_its_own_step_overhead(cli):
    """TensorRT-LLM runs one MPI process per tensor-parallel rank: a build that names it pays
    trtllm_decode_step_overhead_us (fitted on published TensorRT-LLM runs) on each 2-GPU decode step, none on
    one GPU and none of vLLM's CPU time per sequence; the commands it prints are trtllm-serve's."""
    from advisor.model.constants import const

    overhead_ms = const("trtllm_decode_step_overhead_us", file="workload.yaml") / 1000
    assert overhead_ms > 0
    args = ("--infer", "llama-3.1-8b", "--strategy", "tp", "--batch", "4", "--prompt", "1", "--gen", "256")
    plain = _run(cli, "RTX 6000 Ada:2", *args)
    trt = _run(cli, "RTX 6000 Ada:2", *args, "--engine", "tensorrt-llm")
    assert _config(trt, 1)["decode_ms_per_token"] == pytest.approx(_config(plain, 1)["decode_ms_per_token"])
    two_plain, two_trt = _config(plain, 2)["decode_ms_per_token"], _config(trt, 2)["decode_ms_per_token"]
    assert two_trt == pytest.approx(two_plain + overhead_ms, abs=0.01)
    assert trt["speedup"] < plain["speedup"]
    code, out, err = cli("workload", *TR, "--gpu", "RTX 6000 Ada:2", *args, "--engine", "tensorrt-llm")
    assert code == 0, err
    assert "trtllm-serve MODEL --tp_size 2" in out and "vllm serve" not in out


def test_one_sequence_over_a_layer_split_is_slower_than_on_one_gpu(cli):
    """llama.cpp's -sm layer and transformers' device_map: the host waits at every GPU boundary of each token
    (layer_split_sync_us), so one sequence decodes a little slower on 2 and 4 GPUs than on one, as the
    published llama-bench runs do (Llama 3 8B F16, tg 512: 54.84 tokens/s on one RTX 4090, 53.64 on two, 53.10
    on four). A build that names a serving engine sends the activations without that wait."""
    from advisor.model.constants import const

    sync_ms = const("layer_split_sync_us", file="workload.yaml") / 1000
    assert sync_ms > 0
    args = ("--infer", "llama-3.1-8b", "--strategy", "pp", "--batch", "1", "--prompt", "1", "--gen", "512")
    out = _run(cli, "RTX 4090:4", *args)
    one, four = _config(out, 1)["decode_ms_per_token"], _config(out, 4)["decode_ms_per_token"]
    assert four > one
    assert 1000 / four == pytest.approx(53.10, rel=0.10)
    assert 0.9 < one / four < 1.0
    vllm = _run(cli, "RTX 4090:4", *args, "--engine", "vllm")
    # the engine's own CPU time per sequence is paid on one GPU and four alike; only the wait differs
    gap_plain = four - one
    gap_vllm = _config(vllm, 4)["decode_ms_per_token"] - _config(vllm, 1)["decode_ms_per_token"]
    assert gap_plain - gap_vllm == pytest.approx(3 * sync_ms, abs=0.01)


def test_an_nvfp4_or_fp8_model_multiplies_at_its_own_tensor_rate_where_the_gpu_has_it(cli):
    """NVFP4 (W4A4) on Blackwell and fp8 (W8A8) on Ada run their linear layers on the card's FP4 / FP8 tensor
    cores (the RTX 5090's 1676 dense FP4 TFLOPS against 209.5 BF16, its whitepaper's FP32-accumulate rows),
    so a long prompt prefills several times faster than the same model in AWQ int4 (W4A16), which widens its
    weights to 16 bits first. An Ampere card has no FP4 or FP8 tensor cores: there both run at the 16-bit
    rate. A Blackwell card whose FP4 peak the catalog lacks says so rather than guessing it."""
    args = ("--infer", "qwen3-8b", "--batch", "8", "--prompt", "8192", "--gen", "1")

    def ttft(gpu: str, quant: str) -> float:
        return _config(_run(cli, f"{gpu}:2", *args, "--quant", quant), 1)["ttft_s"]

    assert ttft("RTX 5090", "nvfp4") < ttft("RTX 5090", "int4") / 2
    assert ttft("RTX 4090", "fp8") < ttft("RTX 4090", "int4") / 1.5
    assert ttft("RTX 3090", "nvfp4") == pytest.approx(ttft("RTX 3090", "int4"), rel=1e-9)
    assert ttft("RTX 3090", "fp8") == pytest.approx(ttft("RTX 3090", "int4"), rel=1e-9)
    code, out, _ = cli("workload", *TR, "--gpu", "RTX 5070 Ti:2", *args, "--quant", "nvfp4")
    assert code == 0 and "catalog has no peak for this format" in " ".join(out.split())
    assert "fp4_tflops_dense" in out
