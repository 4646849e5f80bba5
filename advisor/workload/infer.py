"""Inference on k GPUs: prefill (time to first token) and decode, with TP, PP or independent replicas.

Prefill is compute-bound (2N + 4*L*h*T FLOPs per token at mfu_prefill); a decode step reads every
weight and the KV cache (memory bandwidth x decode_memory_efficiency) and, with TP, does 2L small
all-reduces whose latency dominates without NVLink or P2P.

Expert parallel ("ep") is vLLM's single-node deployment (--data-parallel-size N --enable-expert-parallel,
https://github.com/vllm-project/vllm/blob/017025691b3006ed548f763fd394a846affa6064/docs/serving/expert_parallel_deployment.md):
attention and the shared weights replicated, each GPU its own sequences, the experts split E/N; every MoE
layer gathers the ranks' tokens and reduce-scatters the experts' outputs (the default
allgather_reducescatter backend, https://docs.vllm.ai/en/latest/serving/expert_parallel_deployment/), each
rank padded to the busiest one's tokens.

llama.cpp's row split ("row", -sm row; its only multi-GPU mode before January 2024, when -sm layer became
the default, https://github.com/ggml-org/llama.cpp/pull/4766) splits each weight matrix by rows: for every
matrix product the main GPU copies the activations to each other GPU, each computes its rows, and the
main GPU gathers the slices back and waits for them before the next op. A token costs, besides the split
weights, 2 copies per other GPU and one synchronisation per matrix of every layer (the synchronisation's
cost is row_split_sync_us, fitted on the published row-split decode cases).
"""

from __future__ import annotations

import math
from math import comb

from advisor.base.errors import UserError
from advisor.i18n import N_, _
from advisor.model.constants import const
from advisor.model.predict import Figure
from advisor.model.readiness import ENGINE_MAX_BYTES
from advisor.workload.comm import collective, custom_all_reduce, p2p
from advisor.workload.engines import custom_all_reduce_applies
from advisor.workload.hardware import Device, Fabric
from advisor.workload.memory import inference_memory
from advisor.workload.models import Workload
from advisor.workload.result import Config

W = "workload.yaml"


def _fig(
    value: float, formula: str, inputs: dict, consts: list[str] | None = None, unit: str = "s"
) -> Figure:
    return Figure(value, unit, formula, inputs, consts or [], "low")


def _linear_flops_per_token(w: Workload) -> float:
    return 2 * w.model.active  # a MoE token passes through its active parameters only


def _attention_flops_per_token(w: Workload, context: float) -> float:
    m = w.model
    return const("attention_flops_factor", file=W)["forward"] * m.layers * m.hidden * context


def _flops_per_token(w: Workload, context: float) -> float:
    return _linear_flops_per_token(w) + _attention_flops_per_token(w, context)


def _kv_bytes_per_token(w: Workload) -> float:
    m = w.model
    if m.kv_latent:  # MLA: one latent vector per token and layer
        return m.layers * m.kv_latent * w.kv_bytes_per_value
    return 2 * m.layers * (m.kv_heads or m.heads) * m.head_dim * w.kv_bytes_per_value


def kv_split(w: Workload, t: int) -> int:
    """Over how many tensor-parallel GPUs a sequence's KV cache is split: its KV heads' share, or none for
    MLA, whose single latent every GPU keeps whole (vLLM's MLA backend stores one latent vector per token,
    https://docs.vllm.ai/en/v0.10.2/api/vllm/attention/backends/mla/common.html; under TP it is duplicated
    on every device, https://docs.modular.com/max/api/python/generated/max.nn.attention.TensorParallelLatentAttentionWithRope/)."""
    return 1 if w.model.kv_latent else t


def experts_touched(w: Workload, tokens: float) -> float:
    """The share of a MoE layer's experts that `tokens` tokens routed top-k of E touch, with routing
    independent and uniform: 1 - (1 - k/E)^tokens (1 for a dense model). A decode step reads only
    these experts' weights; prefill's many tokens touch nearly all."""
    m = w.model
    if not m.moe:
        return 1.0
    return 1.0 - (1.0 - (m.active_experts or 1) / m.experts) ** max(tokens, 1.0)  # type: ignore[operator]


def _step_weights(w: Workload, tokens: float) -> float:
    """Bytes of weights one step over `tokens` tokens reads: the dense share and the experts touched."""
    total, experts = w.weight_bytes()
    return total - experts + experts * experts_touched(w, tokens)


def busiest_rank_experts(w: Workload, n: int, tokens: float) -> float:
    """The experts the busiest of n expert-parallel GPUs reads in one layer for `tokens` routed tokens:
    each of its ceil(E/n) experts is touched with probability q = 1 - (1 - k/E)^tokens, independently
    (the experts_touched routing), so the busiest rank's count is the maximum of n binomials,
    E[max] = sum over x < owned of 1 - P(X <= x)^n. A batch of 1 on Mixtral (E 8, k 2) over 2 GPUs reads
    1.46 experts on the busier GPU where tensor parallel reads 1 expert's worth on each."""
    m = w.model
    experts, k = m.experts or 1, m.active_experts or 1
    owned = math.ceil(experts / n)
    q = 1.0 - (1.0 - k / experts) ** max(tokens, 1.0)
    cdf, expected = 0.0, 0.0
    for x in range(owned):
        cdf += comb(owned, x) * q**x * (1.0 - q) ** (owned - x)
        expected += 1.0 - min(cdf, 1.0) ** n
    return expected


def _ep_step_weights(w: Workload, n: int, tokens: float) -> tuple[float, float]:
    """Bytes of weights the busiest expert-parallel GPU reads in one step over `tokens` tokens of all
    ranks: the shared weights whole (replicated) and its own touched experts; and the expert count."""
    total, experts = w.weight_bytes()
    busiest = busiest_rank_experts(w, n, tokens)
    return total - experts + experts * busiest / (w.model.experts or 1), busiest


def _tokens_compute_s(w: Workload, tokens: float, context: float, dev: Device) -> float:
    """`tokens` tokens through the model at `context`: the linear layers' 2 x active FLOPs at the rate of
    the weights' format where the GPU multiplies in it (fp8 W8A8 on Ada, Hopper and Blackwell, NVFP4 W4A4 on
    Blackwell: the activations are quantised too), the attention's at the 16-bit rate. Formats that widen
    their weights to 16 bits before multiplying (AWQ/GPTQ int4, GGUF, fp8 on Ampere) run at the 16-bit rate."""
    linear = tokens * _linear_flops_per_token(w)
    attention = tokens * _attention_flops_per_token(w, context)
    return (linear / dev.linear + attention / dev.peak_tflops) / (1e12 * const("mfu_prefill", file=W))


def _memory_s(nbytes: float, dev: Device) -> float:
    return nbytes / (dev.mem_gbps * 1e9 * const("decode_memory_efficiency", file=W))


def _tp_all_reduce(size_bytes: float, fab: Fabric, count: float, custom: bool) -> Figure:
    """A TP all-reduce: the serving engine's custom kernel where it takes it (under its size cap),
    NCCL's otherwise."""
    if custom and size_bytes < ENGINE_MAX_BYTES:
        return custom_all_reduce(size_bytes, fab, count)
    return collective("all-reduce", size_bytes, fab, count)


def _ep_exchange(size_bytes: float, fab: Fabric, layers: float) -> Figure:
    """An expert-parallel MoE layer's token exchange: an all-gather of every rank's hidden states before
    the experts and a reduce-scatter of their outputs after, each of the gathered array's size."""
    gather = collective("all-gather", size_bytes, fab, layers)
    scatter = collective("reduce-scatter", size_bytes, fab, layers)
    return Figure(
        gather.value + scatter.value,
        "s",
        _("layers x (all-gather + reduce-scatter)(N x tokens per rank x h x bytes)"),
        gather.inputs | {"all_gather_s": round(gather.value, 6), "reduce_scatter_s": round(scatter.value, 6)},
        gather.constants,
        gather.confidence,
    )


# each engine's time per tensor-parallel decode step: vLLM and SGLang hand the step to worker processes from
# one Python scheduler; TensorRT-LLM's ranks run one MPI process each (measured apart, fitted apart)
STEP_OVERHEAD = {
    "vllm": "engine_decode_step_overhead_us",
    "sglang": "engine_decode_step_overhead_us",
    "tensorrt-llm": "trtllm_decode_step_overhead_us",
}

ACT_BYTES = 4  # ggml keeps activations in f32 between ops (src1 of a matrix product, its dst)


def _row_split(tokens: float, w: Workload, fab: Fabric) -> Figure:
    """llama.cpp -sm row: per matrix of each layer one synchronisation, and per other GPU a copy of the
    activations out (tokens x input width) and of its output rows back (tokens x output width / n),
    each at the pair's latency and one-way bandwidth (staged through host memory without P2P)."""
    m, n = w.model, fab.gpus
    if not (m.hidden and m.heads and m.ffn and m.layers):
        raise UserError(
            _("the row split's copies need {model}'s shape: hidden size, heads and MLP width").format(
                model=m.key
            ),
            hint=_("describe the model: --layers --hidden --heads --kv-heads --ffn"),
        )
    h, q = m.hidden, m.heads * m.head_dim
    kv = (m.kv_heads or m.heads) * m.head_dim
    # (input width, output width) of q, k, v, o and the MLP's matrices
    mats = [(h, q), (h, kv), (h, kv), (q, h)]
    mats += [(h, m.ffn)] * (m.mlp_matrices - 1) + [(m.ffn, h)]
    count = m.layers * len(mats)
    moved = (n - 1) * m.layers * sum(tokens * (i + o / n) * ACT_BYTES for i, o in mats)
    copies = 2 * (n - 1) * count
    sync = const("row_split_sync_us", file=W)
    # the copies as point-to-point sends: copies x (pair latency + average copy / pair bandwidth)
    sends = p2p(moved / copies, fab, copies)
    return Figure(
        count * sync * 1e-6 + sends.value,
        "s",
        _(
            "matrices x row_split_sync_us + 2(n-1) x matrices x pair latency + bytes copied / pair one-way bandwidth"
        ),
        {"matrices": count, "copies": copies, "bytes": round(moved), "sync_us": sync}
        | {k: v for k, v in sends.inputs.items() if k in ("latency_us", "pair_gbps", "via")},
        ["row_split_sync_us", *sends.constants],
        "low",
    )


def _pipeline_slots(tokens: int, p: int) -> tuple[int, int, int]:
    """(chunk-stage times, chunks, batches) of a pipelined prefill of `tokens` tokens over p stages: each
    logical batch of prefill_batch_tokens is split into chunks of prefill_chunk_tokens that fill and drain
    the pipeline, (c + p - 1) chunk-stage times for its c chunks."""
    ub = int(const("prefill_chunk_tokens", file=W))
    nb = max(ub, int(const("prefill_batch_tokens", file=W)))
    slots = chunks = fills = 0
    left = max(1, tokens)
    while left > 0:
        take = min(left, nb)
        c = max(1, math.ceil(take / ub))
        slots += c + p - 1
        chunks += c
        fills += 1
        left -= take
    return slots, chunks, fills


def sequences(w: Workload, n: int, strategy: str) -> tuple[int, int]:
    """(model replicas, sequences each GPU group serves) for the batch of w on n GPUs."""
    if strategy == "replicas":
        return min(n, w.batch), math.ceil(w.batch / n)
    if strategy == "ep":  # data-parallel attention: each rank serves its share of the sequences
        return 1, math.ceil(w.batch / n)
    return 1, w.batch


# a decode step's formula, by strategy (the others: every GPU group reads its weights and KV cache)
_DECODE_STEP = {
    "tp": N_(
        "max((weights/t + sequences x context x KV bytes/t) / (mem bw x eff), FLOPs / (t x peak x mfu)) + 2 x "
        "layers x all-reduce(sequences x h x bytes)"
    ),
    "row": N_(
        "max((weights/t + sequences x context x KV bytes) / (mem bw x eff), FLOPs / (t x peak x mfu)) + layers x "
        "matrices x (row_split_sync_us + 2(n-1) x (pair latency + copy / pair bw))"
    ),
    "default": N_(
        "max((weights/t + sequences x context x KV bytes/t) / (mem bw x eff), FLOPs / (t x peak x mfu))"
    ),
}


def infer_config(w: Workload, n: int, dev: Device, fab: Fabric, engine: str | None = None) -> Config:
    """The job on n GPUs. `engine` (the build's software.engine) makes a 2-GPU TP job's all-reduces
    follow vLLM's / SGLang's custom kernel where their gates let it run over P2P while NCCL would
    stage through host memory; without it the prediction is NCCL's."""
    m = w.model
    if m.kind != "decoder":
        raise UserError(
            _("inference is modelled for decoder LLMs (prefill and decode), not {model}").format(model=m.key)
        )
    strategy = w.strategy if n > 1 else "single"
    if strategy == "tp" and (m.heads or 0) % n:
        raise UserError(
            _("tensor parallel size {n} does not divide {model}'s {heads} attention heads").format(
                n=n, model=m.key, heads=m.heads
            ),
            hint=_("use a TP size that divides the head count (--gpus), or --strategy pp/replicas"),
        )
    if strategy == "ep" and not m.moe:
        raise UserError(
            _("expert parallel splits a mixture of experts' experts; {model} is a dense model").format(
                model=m.key
            ),
            hint=_("use --strategy tp, pp or replicas, or describe the experts (--experts --active-experts)"),
        )
    replicas, seqs = sequences(w, n, strategy)
    t = n if strategy in ("tp", "row") else 1
    p = n if strategy == "pp" else 1
    kv_tok = _kv_bytes_per_token(w)
    ctx_prefill, ctx_decode = w.prompt, w.prompt + w.gen / 2
    act_bytes = m.hidden * w.bytes_per_value
    mem = inference_memory(w, n, dev.vram_gb, seqs)
    custom = (
        strategy == "tp"
        and engine in ("vllm", "sglang")
        and fab.transport not in ("NVLink", "P2P")
        and custom_all_reduce_applies(n, fab.transport, fab.pair_via in ("pcie-p2p", "nvlink"))
    )
    notes: list[str] = []

    # prefill: all prompts of the replica's sequences at once
    pf_flops = seqs * w.prompt * _flops_per_token(w, ctx_prefill)
    pf_weights = _step_weights(w, seqs * w.prompt)
    pf_compute = max(
        _tokens_compute_s(w, seqs * w.prompt, ctx_prefill, dev) / t, _memory_s(pf_weights / t, dev)
    )
    if strategy == "tp":
        pf_comm = _tp_all_reduce(seqs * w.prompt * act_bytes, fab, 2 * m.layers, custom)
    elif strategy == "row":
        pf_comm = _row_split(seqs * w.prompt, w, fab)
    elif strategy == "pp":
        # the prompt flows through the stages in micro-batches of prefill_chunk_tokens; the pipeline holds
        # one logical batch (prefill_batch_tokens) at a time, so each batch fills and drains it: its c chunks
        # take (c + p - 1) chunk-stage times
        slots, chunks, fills = _pipeline_slots(seqs * w.prompt, p)
        pf_compute = max(pf_compute * slots / (chunks * p), _memory_s(pf_weights, dev))
        pf_comm = p2p(seqs * w.prompt * act_bytes / chunks, fab, fills * (p - 1))
    elif strategy == "ep":
        pf_weights, _busiest = _ep_step_weights(w, n, n * seqs * w.prompt)
        pf_compute = max(_tokens_compute_s(w, seqs * w.prompt, ctx_prefill, dev), _memory_s(pf_weights, dev))
        pf_comm = _ep_exchange(n * seqs * w.prompt * act_bytes, fab, m.layers)
    else:
        pf_comm = Figure(0.0, "s", _("no communication"), {}, [])
    ttft = _fig(
        pf_compute + pf_comm.value,
        _("max(prompt FLOPs / (t x peak x mfu_prefill), weights / (t x mem bw x eff)) + communication"),
        {
            "sequences": seqs,
            "prompt": w.prompt,
            "flops": pf_flops,
            "t": t,
            "compute_s": round(pf_compute, 6),
            "comm_s": round(pf_comm.value, 6),
        }
        | ({"linear_peak_tflops": dev.linear_tflops, "quant": w.quant} if dev.linear_tflops else {}),
        ["mfu_prefill", "decode_memory_efficiency", "attention_flops_factor"],
    )
    if dev.linear_basis:
        notes.append(
            _(
                "{quant}: the linear layers run at a tensor peak read from a review or reasoned, not from a "
                "vendor page ({basis}), so the compute is less certain"
            ).format(quant=w.quant, basis=dev.linear_basis)
        )
    if dev.linear_missing:
        notes.append(
            _(
                "{quant}: the catalog has no peak for this format ({missing}), so its linear layers are taken "
                "at the 16-bit tensor rate and the compute-bound parts are predicted slower than they run"
            ).format(quant=w.quant, missing=dev.linear_missing)
        )

    # decode: one step advances every sequence of the replica by one token
    if strategy == "pp":
        micro = min(seqs, p)
        per_micro = seqs / micro
        stage_mem = _memory_s(_step_weights(w, per_micro) / p + per_micro * ctx_decode * kv_tok / p, dev)
        stage_cmp = _tokens_compute_s(w, per_micro, ctx_decode, dev) / p
        hop = p2p(per_micro * act_bytes, fab, 1)
        # without a serving engine (llama.cpp's -sm layer, transformers' device_map) the host drives the
        # split: at each of the p-1 boundaries it waits for one GPU's layers before it copies the activations
        # and launches the next GPU's, so a token pays a host round trip per boundary that one GPU does not
        sync = const("layer_split_sync_us", file=W) * 1e-6 * (p - 1) / p if engine is None else 0.0
        t_stage = max(stage_mem, stage_cmp) + hop.value + sync
        cycle = max(micro, p) * t_stage
        work, comm_tok = micro * (t_stage - hop.value - sync), micro * (hop.value + sync)
        bubble_tok = cycle - micro * t_stage
        step_formula = _(
            "max(micro-batches, stages) x stage time; stage = max(weights/p + KV, FLOPs/p) + p2p"
        ) + (_(" + (p-1)/p x layer_split_sync_us") if sync else "")
        step_inputs = {"micro_batches": micro, "stages": p, "stage_s": round(t_stage, 6)}
        if sync:
            step_inputs["layer_split_sync_s"] = round(sync * p, 6)
    elif strategy == "ep":
        step_weights, busiest = _ep_step_weights(w, n, n * seqs)
        mem_s = _memory_s(step_weights + seqs * ctx_decode * kv_tok, dev)
        cmp_s = _tokens_compute_s(w, seqs, ctx_decode, dev)
        work = max(mem_s, cmp_s)
        comm_tok = _ep_exchange(n * seqs * act_bytes, fab, m.layers).value
        bubble_tok, cycle = 0.0, work + comm_tok
        step_formula = _(
            "max((shared weights + the busiest GPU's touched experts + its sequences x context x KV bytes) / "
            "(mem bw x eff), FLOPs / (peak x mfu)) + layers x (all-gather + reduce-scatter)(N x sequences x h x "
            "bytes)"
        )
        step_inputs = {
            "ranks": n,
            "weights_read_gb": round(step_weights / 1e9, 3),
            "busiest_rank_experts_per_layer": round(busiest, 3),
            "experts_per_rank": math.ceil((m.experts or 1) / n),
            "memory_s": round(mem_s, 6),
            "compute_s": round(cmp_s, 6),
            "comm_s": round(comm_tok, 6),
            "bound": "memory" if mem_s >= cmp_s else "compute",
        }
    else:
        step_weights = _step_weights(w, seqs)
        # row split: the KV cache and attention stay on the main GPU (llama.cpp's --main-gpu)
        kv_share = kv_split(w, t) if strategy == "tp" else 1
        mem_s = _memory_s(step_weights / t + seqs * ctx_decode * kv_tok / kv_share, dev)
        cmp_s = _tokens_compute_s(w, seqs, ctx_decode, dev) / t
        work = max(mem_s, cmp_s)
        if strategy == "tp":
            ar = _tp_all_reduce(seqs * act_bytes, fab, 2 * m.layers, custom)
            comm_tok = ar.value
        elif strategy == "row":
            row_tok = _row_split(seqs, w, fab)
            comm_tok = row_tok.value
        else:
            comm_tok = 0.0
        bubble_tok = 0.0
        cycle = work + comm_tok
        step_formula = _(_DECODE_STEP.get(strategy, _DECODE_STEP["default"]))
        step_inputs = {
            "t": t,
            "weights_read_gb": round(step_weights / 1e9, 3),
            "memory_s": round(mem_s, 6),
            "compute_s": round(cmp_s, 6),
            "comm_s": round(comm_tok, 6),
            "bound": "memory" if mem_s >= cmp_s else "compute",
        }
    # a serving engine's own time per decode step under tensor parallel besides the GPUs' work: it hands each
    # step to its worker processes and waits for them (one process runs a single GPU, so none there)
    engine_named = engine in ("vllm", "sglang")
    step_const = STEP_OVERHEAD.get(engine or "")
    step_overhead = const(step_const, file=W) * 1e-6 if step_const and strategy == "tp" else 0.0
    # and, on any number of GPUs, its CPU work for each running sequence every step (gathering the last
    # step's tokens, scheduling, preparing the inputs, detokenising): it does not shrink with more GPUs
    per_seq = const("engine_decode_per_sequence_us", file=W) * 1e-6 * seqs if engine_named else 0.0
    overhead = step_overhead + per_seq
    cycle += overhead
    step = _fig(
        cycle,
        step_formula + (_(" + the engine's step overhead") if overhead else ""),
        step_inputs
        | {"sequences": seqs, "context": ctx_decode}
        | ({"engine_overhead_s": round(overhead, 6)} if overhead else {})
        | ({"engine_per_sequence_s": round(per_seq, 6)} if per_seq else {}),
        ["decode_memory_efficiency", "mfu_prefill"]
        + (["row_split_sync_us"] if strategy == "row" else ["nccl_base_latency_us", "nccl_hop_latency_us"])
        + (["layer_split_sync_us"] if strategy == "pp" and engine is None else [])
        + ([step_const] if step_overhead else [])
        + (["engine_decode_per_sequence_us"] if per_seq else []),
    )
    total = ttft.value + w.gen * cycle
    # expert parallel: the ranks step together, padded to the busiest, but only real sequences count
    tokens = replicas * seqs * w.gen if strategy == "replicas" else w.batch * w.gen
    time = _fig(
        total,
        _("TTFT + gen x decode step"),
        {"ttft_s": round(ttft.value, 6), "gen": w.gen, "decode_step_s": round(cycle, 6)},
    )
    thr = _fig(
        tokens / total,
        _("generated tokens / (TTFT + gen x decode step), summed over replicas")
        if strategy == "replicas"
        else _("generated tokens / (TTFT + gen x decode step)"),
        {"tokens": tokens, "replicas": replicas, "time_s": round(total, 6)},
        unit="tokens/s",
    )
    compute = _fig(
        pf_compute + w.gen * (work + overhead),
        _("prefill compute + gen x (decode work + the engine's step overhead)")
        if overhead
        else _("prefill compute + gen x decode work"),
        {},
    )
    exposed = _fig(
        pf_comm.value + w.gen * comm_tok,
        _("prefill communication + gen x decode communication"),
        {"decode_comm_per_token_s": round(comm_tok, 7)},
        pf_comm.constants,
    )
    bubble = _fig(w.gen * bubble_tok, _("gen x pipeline idle time per decode step"), {})
    if strategy == "replicas" and w.batch < n:
        notes.append(
            _("{batch} concurrent sequence(s) keep only {replicas} of {n} replicas busy").format(
                batch=w.batch, replicas=replicas, n=n
            )
        )
    if strategy == "pp" and seqs < p:
        notes.append(
            _("{seqs} concurrent sequence(s) cannot fill {stages} pipeline stages").format(
                seqs=seqs, stages=p
            )
        )
    if strategy == "ep" and w.batch < n:
        notes.append(
            _(
                "{batch} sequence(s) keep {batch} of {n} data-parallel ranks busy; the others run empty "
                "forward passes in step with them (vLLM's dummy batches), so the experts still split"
            ).format(batch=w.batch, n=n)
        )
    elif strategy == "ep" and w.batch % n:
        notes.append(
            _(
                "{batch} sequences over {n} data-parallel ranks: the ranks step together, each padded to {seqs}"
            ).format(batch=w.batch, n=n, seqs=seqs)
        )
    if strategy == "tp":
        comm_bytes = 2 * m.layers * seqs * act_bytes
    elif strategy == "row":
        comm_bytes = row_tok.inputs["bytes"]
    elif strategy == "ep":
        comm_bytes = 2 * m.layers * n * seqs * act_bytes
    else:
        comm_bytes = 0.0
    return Config(
        n,
        strategy,
        "infer",
        mem,
        time,
        thr,
        compute,
        exposed,
        bubble,
        {"ttft": ttft, "decode_step": step},
        fab.label,
        comm_bytes,
        notes,
    )
