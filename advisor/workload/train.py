"""Training step time on k GPUs: DDP, DataParallel, ZeRO-2, ZeRO-3/FSDP, tensor and pipeline parallel.

Compute: a transformer's PaLM model FLOPs at gemm_efficiency of the peak plus its memory-bound ops at
the memory bandwidth (a CNN: its FLOPs at mfu_train); communication runs on the
build's predicted all-reduce bus bandwidth (comm.py). Formulas: ../shared/reference/workload-models.md.
"""

from __future__ import annotations

import math

from advisor.base.errors import UnknownFigure, UserError
from advisor.i18n import _
from advisor.model.constants import const
from advisor.model.predict import Figure
from advisor.workload.comm import collective, p2p
from advisor.workload.hardware import Device, Fabric
from advisor.workload.memory import training_memory
from advisor.workload.models import Workload
from advisor.workload.result import Config

W = "workload.yaml"


def _fig(
    value: float,
    formula: str,
    inputs: dict,
    consts: list[str] | None = None,
    conf: str = "low",
    unit: str = "s",
) -> Figure:
    return Figure(value, unit, formula, inputs, consts or [], conf)


def micro_step_compute(w: Workload, dev: Device) -> tuple[Figure, float]:
    """Forward + backward of one micro-batch on one GPU, and the forward's share of it."""
    m = w.model
    if m.transformer:
        return _transformer_compute(w, dev)
    mfu = const("mfu_train", m.kind, file=W)
    flops = 3 * m.forward_flops_per_sample * w.batch  # forward + backward (2x forward)
    t = flops / (dev.peak_tflops * 1e12 * mfu)
    return _fig(
        t,
        "3 x forward_flops_per_sample x b / (peak x mfu_train)",
        {
            "forward_flops_per_sample": m.forward_flops_per_sample,
            "b": w.batch,
            "flops": flops,
            "peak_tflops": dev.peak_tflops,
            "mfu_train": mfu,
        },
        ["mfu_train"],
    ), 1 / 3


def transformer_flops(w: Workload) -> tuple[float, str, list[str], float]:
    """PaLM's model FLOPs of one micro-batch's forward + backward (6N + 12 L h s per token; a frozen LoRA
    base skips its weight gradients; recompute adds a forward), the formula, its constants, and the
    forward's share."""
    m = w.model
    att = const("attention_flops_factor", file=W)
    per_param = const("recompute_flops_factor", file=W) if w.recompute else 6
    consts = ["attention_flops_factor"] + (["recompute_flops_factor"] if w.recompute else [])
    params_term = f"{per_param} x params"
    if w.lora_rank is not None:
        # a frozen weight needs no weight gradient: its backward is the input gradient only
        frozen = const("lora_frozen_flops_factor", file=W) + (per_param - 6)
        per_param_flops = frozen * m.active + 6 * w.trainable
        params_term = _("{frozen} x params (frozen) + 6 x adapters").format(frozen=frozen)
        consts.append("lora_frozen_flops_factor")
        fwd_share = 2 / frozen
    else:
        per_param_flops = per_param * m.active  # a MoE token: its active parameters
        fwd_share = 2 / per_param
    flops_token = per_param_flops + att["train"] * (per_param / 6) * m.layers * m.hidden * w.seq
    formula = f"({params_term} + 12 x L x h x s{' x 8/6' if w.recompute else ''}) x b x s"
    return flops_token * w.batch * w.seq, formula, consts, fwd_share


def activation_bytes(w: Workload) -> tuple[float, bool]:
    """Korthikanti et al.'s activation memory of one micro-batch, summed over the layers: L s b (34 h +
    5 a s) bytes at 2-byte activations, the 5 a s term only where the attention scores are written to
    memory (not under FlashAttention / SDPA); x 2 for fp32 training. Returns (bytes, scores counted)."""
    m = w.model
    scores = scores_in_memory(w)
    per_token = 34 * m.hidden + (5 * (m.heads or 0) * w.seq if scores else 0)
    scale = 2.0 if w.precision == "fp32" else 1.0
    return m.layers * w.seq * w.batch * per_token * scale, scores


def scores_in_memory(w: Workload) -> bool:
    """Whether the attention scores are written to memory: eager attention (--attention eager) does, a fused
    kernel does not; else the model kind's usual (rules/workload.yaml attention_scores_in_memory)."""
    if w.attention is not None:
        return w.attention == "eager"
    return bool(const("attention_scores_in_memory", w.model.kind, file=W))


def _transformer_compute(w: Workload, dev: Device) -> tuple[Figure, float]:
    """Two terms, as a roofline: the GEMMs at gemm_efficiency of the dense tensor peak, plus the
    memory-bound work (normalisations, softmax, element-wise ops) moving activation_traffic_factor x
    the activations through memory. The fit and its leave-one-out errors: `advisor accuracy --workload`."""
    flops, flops_formula, consts, fwd_share = transformer_flops(w)
    gemm = const("gemm_efficiency", file=W)
    t_gemm = flops / (dev.peak_tflops * 1e12 * gemm)
    acts, scores = activation_bytes(w)
    k = const("activation_traffic_factor", file=W)
    mem_eff = const("decode_memory_efficiency", file=W)
    recompute = const("recompute_flops_factor", file=W) / 6 if w.recompute else 1.0
    if dev.mem_gbps is None:
        raise UnknownFigure(
            _("the memory-bound time on {gpu}").format(gpu=dev.names), [f"{dev.names}: memory_bandwidth_gbps"]
        )
    t_mem = acts * k * recompute / (dev.mem_gbps * 1e9 * mem_eff)
    inputs = {
        "params": w.model.params,
        "L": w.model.layers,
        "h": w.model.hidden,
        "a": w.model.heads,
        "s": w.seq,
        "b": w.batch,
        "flops": flops,
        "peak_tflops": dev.peak_tflops,
        "gemm_efficiency": gemm,
        "t_gemm_s": round(t_gemm, 6),
        "activation_bytes": round(acts),
        "attention_scores_in_memory": scores,
        "activation_traffic_factor": k,
        "mem_gbps": dev.mem_gbps,
        "t_memory_bound_s": round(t_mem, 6),
    }
    if w.lora_rank is not None:
        inputs["adapters"] = round(w.trainable)
    formula = (
        f"{flops_formula} / (peak x gemm_efficiency) + L x s x b x (34 h"
        + (" + 5 a s" if scores else "")
        + ")"
        + (" x 2 (fp32)" if w.precision == "fp32" else "")
        + (" x 8/6 (recompute)" if w.recompute else "")
        + _(" x activation_traffic_factor / (memory bandwidth x decode_memory_efficiency)")
    )
    return _fig(
        t_gemm + t_mem,
        formula,
        inputs,
        [
            *consts,
            "gemm_efficiency",
            "activation_traffic_factor",
            "attention_scores_in_memory",
            "decode_memory_efficiency",
        ],
    ), fwd_share


def optimizer_time(w: Workload, dev: Device, shards: int) -> Figure:
    if dev.mem_gbps is None:
        raise UnknownFigure(
            _("the optimizer step on {gpu}").format(gpu=dev.names), [f"{dev.names}: memory_bandwidth_gbps"]
        )
    b = const("adam_step_bytes_per_param", w.optimizer, file=W)
    eff = const("optimizer_memory_efficiency", file=W)
    t = w.trainable / shards * b / (dev.mem_gbps * 1e9 * eff)
    return _fig(
        t,
        _(
            "trained params / {shards} x adam_step_bytes_per_param[{optimizer}] / (memory bandwidth x efficiency)"
        ).format(shards=shards, optimizer=w.optimizer),
        {
            "params": w.trainable,
            "shards": shards,
            "bytes_per_param": b,
            "mem_gbps": dev.mem_gbps,
            "efficiency": eff,
        },
        ["adam_step_bytes_per_param", "optimizer_memory_efficiency"],
    )


def gradient_size(w: Workload) -> Figure:
    """The gradients one data-parallel step reduces: params x bytes per gradient element. `advisor
    workload`'s step times and plan's WL001 both take it from here (two copies once gave 2.6 GB in one, 5.3 GB
    in the other for the same DDP job)."""
    if w.precision == "fp32":
        per, why = 4, _("fp32 gradients: --precision fp32")
    elif w.framework == "tf-cnn-benchmarks":
        per, why = (
            2,
            _("fp16 gradients: tf_cnn_benchmarks casts them to fp16 for the all-reduce under --use_fp16"),
        )
    elif w.param_dtype is not None:
        per = 4 if w.param_dtype == "fp32" else 2
        why = _("{dtype} gradients: the weights themselves are {dtype} (--param-dtype)").format(
            dtype=w.param_dtype
        )
    else:
        per = const("grad_bytes", w.strategy, file=W)
        why = (
            _("fp32 gradients: DDP under torch.autocast keeps fp32 weights")
            if per == 4
            else _("{precision} gradients: ZeRO/FSDP reduce in 16 bits").format(precision=w.precision)
        )
    if w.lora_rank is not None:
        why = _("{why}; LoRA rank {rank}: only the adapters' gradients").format(why=why, rank=w.lora_rank)
    return Figure(
        w.trainable * per,
        "B",
        _("trained params x bytes per gradient"),
        {"params": w.trainable, "bytes_per_gradient": per, "why": why},
        ["grad_bytes"],
        "calibrated",
    )


def grad_bytes(w: Workload) -> float:
    return gradient_size(w).value or 0.0


def gradient_traffic(w: Workload, n: int) -> str:
    """How big the gradients are and what a ring moves of them per GPU, in words, for the
    data-parallel strategies: '1.32B parameters x 4 B (fp32 ...) = 5.3 GB; a ring all-reduce moves
    2(N-1)/N = 1.00 x 5.3 GB = 5.3 GB per GPU'. Empty for TP and PP (no gradient reduction)."""
    if w.strategy in ("tp", "pp"):
        return ""
    g = gradient_size(w)
    size = (g.value or 0.0) / 1e9
    head = _("{params}B parameters x {bytes} B ({why}) = {size} GB").format(
        params=f"{w.trainable / 1e9:.3g}",
        bytes=g.inputs["bytes_per_gradient"],
        why=g.inputs["why"],
        size=f"{size:.3g}",
    )
    if n < 2:
        return _("{head}; one GPU reduces nothing").format(head=head)
    if w.strategy == "dataparallel":
        return _("{head}; DataParallel reduces them onto GPU0 on every micro-step").format(head=head)
    if w.strategy == "ddp":
        text, k, expr = (
            _("{head}; a ring all-reduce moves {expr} = {k} x {size} GB = {moved} GB per GPU"),
            2 * (n - 1) / n,
            "2(N-1)/N",
        )
    else:
        text, k, expr = (
            _("{head}; a ring reduce-scatter moves {expr} = {k} x {size} GB = {moved} GB per GPU"),
            (n - 1) / n,
            "(N-1)/N",
        )
    return text.format(head=head, expr=expr, k=f"{k:.2f}", size=f"{size:.1f}", moved=f"{k * size:.1f}")


def overlap_key(w: Workload) -> str:
    """The overlap_fraction entry of the job's framework and strategy (rules/workload.yaml)."""
    from advisor.workload.frameworks import overlap_key as key

    return key(w)


def overlap(key: str, fab: Fabric) -> tuple[float, bool]:
    """The share of the compute a reduction or gather can hide behind: the framework's overlap_fraction,
    times overlap_under_shm where NCCL stages through host memory (the copies then compete with the compute
    for the GPU's and the host's bandwidth). Returns (overlap, over SHM)."""
    o = const("overlap_fraction", key, file=W)
    shm = fab.transport == "SHM"
    if shm:
        o *= const("overlap_under_shm", file=W)
    elif fab.transport in ("P2P", "NVLink"):
        o *= const("overlap_under_p2p", file=W)
    return o, shm


def embedding_bytes(w: Workload, per_value: float) -> float:
    """The input embedding's gradient: its bucket is ready only at the end of the backward pass (the
    embedding is the first layer), and a tensor larger than the bucket cap is a bucket of its own. 0 for a
    model without a vocabulary (a CNN) or for LoRA, which leaves the embedding frozen."""
    m = w.model
    if not (m.vocab and m.hidden) or w.lora_rank is not None:
        return 0.0
    return float(m.vocab * m.hidden * per_value)


def _bucketed(
    kind: str,
    size: float,
    bucket: float,
    fab: Fabric,
    t_bwd: float,
    key: str = "default",
    last_bytes: float = 0.0,
) -> tuple[Figure, Figure]:
    """All of a bucketed reduction, and what of it stays exposed after overlapping the backward pass: the
    rest of the reduction past what the backward pass hides, and never less than the last bucket, which is
    ready only when the backward pass ends (the bucket, or the input embedding's gradient where that is
    larger). Over SHM the copies compete with the backward pass (overlap_under_shm)."""
    o, shm = overlap(key, fab)
    buckets = max(1, math.ceil(size / bucket))
    total = collective(kind, size / buckets, fab, buckets)
    last_size = min(size, max(size / buckets, last_bytes))
    last = collective(kind, last_size, fab, 1)
    exposed = max(total.value - o * t_bwd, last.value)
    return total, _fig(
        exposed,
        f"max(T_comm - overlap_fraction[{key}]" + (" x overlap_under_shm" if shm else "") + " x T_backward, "
        "T_last_bucket)",
        {
            "T_comm": round(total.value, 5),
            "T_backward": round(t_bwd, 5),
            "overlap": round(o, 4),
            "T_last_bucket": round(last.value, 5),
            "last_bucket_bytes": round(last_size),
            "buckets": buckets,
            "bucket_bytes": round(size / buckets),
        },
        ["overlap_fraction", "gradient_bucket_bytes"]
        + (["overlap_under_shm"] if shm else ["overlap_under_p2p"])
        + total.constants,
    )


def _micro_inputs(a: int, micro: Figure) -> dict:
    """accum and T_micro with T_micro's own derivation, so `--explain` shows how a micro-step's time
    was reached (its formula, and the GEMM and memory-bound terms of a transformer)."""
    terms = {k: micro.inputs[k] for k in ("t_gemm_s", "t_memory_bound_s") if k in micro.inputs}
    return {"accum": a, "T_micro": round(micro.value or 0.0, 6), "T_micro_formula": micro.formula} | terms


def host_issue(w: Workload) -> Figure | None:
    """The host's time to issue one micro-step's forward and backward kernels from eager PyTorch: the
    model's parameter tensors x host_us_per_param_tensor. Measured on CNNs (a convolution, its batch norm
    and activation per few tensors); a transformer layer issues a different mix (attention, fused
    optimizers, FSDP's and DeepSpeed's own hooks), not measured, so for transformers and for a model whose
    tensor count is not in the registry the step is taken as GPU-bound: None. So it is under TensorFlow and
    Horovod, whose graphs are issued by the framework's runtime, not by Python one layer at a time."""
    count = w.model.param_tensors
    if (
        count is None
        or w.model.kind != "cnn"
        or w.framework in ("tensorflow", "tf-cnn-benchmarks", "horovod")
    ):
        return None
    us = const("host_us_per_param_tensor", file=W)
    return _fig(
        count * us * 1e-6,
        _("parameter tensors x host_us_per_param_tensor"),
        {"param_tensors": count, "host_us_per_param_tensor": us},
        ["host_us_per_param_tensor"],
    )


def host_bound(gpu: Figure, w: Workload, n: int, strategy: str) -> tuple[Figure, str]:
    """One micro-step's time per GPU: the GPU's compute, or the host's issue time where that is longer (a
    small batch leaves the GPU waiting for kernels). DataParallel issues every replica's kernels from one
    process: its host time grows by dataparallel_host_share of a replica's for each GPU after the first.
    Tensor and pipeline parallel are modelled for transformers only, which host_issue leaves GPU-bound.
    Returns the figure and a note where the host bounds the step."""
    host = host_issue(w)
    if host is None:
        return gpu, ""
    t_host, consts = host.value, list(host.constants)
    inputs = dict(host.inputs)
    if strategy == "dataparallel":
        share = const("dataparallel_host_share", file=W)
        t_host *= 1 + share * (n - 1)
        consts.append("dataparallel_host_share")
        inputs |= {"dataparallel_host_share": share, "replicas": n}
    if t_host <= gpu.value:
        return gpu, ""
    formula = (
        _("parameter tensors x host_us_per_param_tensor x (1 + dataparallel_host_share x (N - 1))")
        if strategy == "dataparallel"
        else host.formula
    )
    note = _(
        "host-bound: issuing a micro-step's kernels takes the CPU {host} ms, longer than the GPU's {gpu} ms"
    ).format(host=f"{1e3 * t_host:.1f}", gpu=f"{1e3 * gpu.value:.1f}")
    return _fig(
        t_host, formula, inputs | {"gpu_compute_s": round(gpu.value, 5)}, gpu.constants + consts
    ), note


def _per_step(a: int, micro: Figure) -> Figure:
    return _fig(a * (micro.value or 0.0), "accum x T_micro", _micro_inputs(a, micro), micro.constants)


def train_config(w: Workload, n: int, dev: Device, fab: Fabric) -> Config:
    """The step on n GPUs; n = 1 is plain single-GPU training of the same micro-batch."""
    if w.strategy in ("tp", "pp") and not w.model.transformer:
        raise UserError(
            _("{strategy} is modelled for transformer models, not {model}").format(
                strategy=w.strategy_name, model=w.model.key
            ),
            hint=_("use --strategy ddp (or zero2/zero3/fsdp) for this model"),
        )
    strategy = w.strategy if n > 1 else "single"
    gpu_micro, fwd_share = micro_step_compute(w, dev)
    micro, host_note = host_bound(gpu_micro, w, n, strategy)
    t_micro = micro.value
    t_bwd = t_micro * (1 - fwd_share)
    a = w.accum
    mem = training_memory(w, n, dev.vram_gb)
    zero = _fig(0.0, _("none"), {})
    notes: list[str] = [host_note] if host_note else []
    bubble = zero
    samples = w.batch * a * (n if strategy in ("ddp", "dataparallel", "zero2", "zero3", "fsdp") else 1)
    if strategy == "single":
        opt = optimizer_time(w, dev, 1)
        compute = _per_step(a, micro)
        exposed = zero
        comm_bytes = 0.0
    elif strategy in ("ddp", "dataparallel"):
        opt = optimizer_time(w, dev, 1)
        g = grad_bytes(w)
        compute = _per_step(a, micro)
        from advisor.workload.frameworks import bucket_bytes

        bucket = bucket_bytes(w, g)
        if strategy == "ddp":
            per = g / w.trainable if w.trainable else 0.0
            total, exp = _bucketed(
                "all-reduce", g, bucket, fab, t_bwd, overlap_key(w), embedding_bytes(w, per)
            )
            syncs = a if w.sync_every else 1
            exposed = _fig(
                syncs * exp.value,
                (
                    _("on every accumulation micro-step (no no_sync): accum x {formula}")
                    if syncs > 1
                    else _("once per step (no_sync on the other accumulation micro-steps): {formula}")
                ).format(formula=exp.formula),
                exp.inputs | {"gradient_bytes": round(g), "reductions_per_step": syncs},
                exp.constants,
                exp.confidence,
            )
            comm_bytes = g * syncs
        else:
            # DataParallel: weights replicated from GPU0 and gradients reduced to it on every micro-step,
            # without overlap; the whole step is then slowed by the measured single-process overhead.
            wbytes = (
                w.model.params * const("lora_base_bytes_per_param", w.base_bits, file=W) + w.trainable * 4
                if w.lora_rank is not None
                else w.model.params * 4
            )  # with LoRA the frozen base is replicated in its own bytes, the adapters in fp32
            rep = collective("all-gather", wbytes * n / (n - 1) if n > 1 else 0, fab, a)
            red = collective("reduce-scatter", g * n / (n - 1) if n > 1 else 0, fab, a)
            exposed = _fig(
                rep.value + red.value,
                _("accum x (replicate weights + reduce gradients), not overlapped"),
                {"replicate_s": round(rep.value, 5), "reduce_s": round(red.value, 5), "accum": a},
                rep.constants,
                "low",
            )
            comm_bytes = (wbytes + g) * a
    elif strategy == "zero2":
        opt = optimizer_time(w, dev, n)
        g = grad_bytes(w)
        bucket = const("zero_bucket_elements", file=W) * (4 if w.precision == "fp32" else 2)
        total, exp = _bucketed("reduce-scatter", g, bucket, fab, t_bwd, overlap_key(w))
        gather = collective("all-gather", w.trainable * w.bytes_per_value, fab)
        exposed = _fig(
            a * exp.value + gather.value,
            _(
                "accum x exposed reduce-scatter (every micro-step: gradients are partitioned) + all-gather of "
                "the updated weights once"
            ),
            {
                "accum": a,
                "exposed_reduce_scatter_s": round(exp.value, 5),
                "all_gather_s": round(gather.value, 5),
            },
            exp.constants + ["zero_bucket_elements"],
        )
        compute = _per_step(a, micro)
        comm_bytes = a * g + w.trainable * w.bytes_per_value
    elif strategy in ("zero3", "fsdp"):
        opt = optimizer_time(w, dev, n)
        layers = w.model.layers or 1
        # FSDP gathers every layer's weights: with LoRA the frozen base too, in its own bytes
        wb = (
            w.model.params * const("lora_base_bytes_per_param", w.base_bits, file=W)
            if w.lora_rank is not None
            else w.model.params * w.bytes_per_value
        )
        g = grad_bytes(w)
        ag = collective("all-gather", wb / layers, fab)
        rs = collective("reduce-scatter", g / layers, fab)
        t_fwd_l = t_micro * fwd_share / layers
        t_bwd_l = t_bwd / layers
        o, shm = overlap(overlap_key(w), fab)

        def hidden(compute: float, comm: float) -> float:
            # the prefetched collective hides behind the layer's compute as far as the overlap allows
            return compute + comm - o * min(compute, comm)

        per_micro = layers * (hidden(t_fwd_l, ag.value) + hidden(t_bwd_l, ag.value + rs.value))
        exposed_micro = per_micro - t_micro
        exposed = _fig(
            a * exposed_micro,
            "accum x layers x [T_fwd/L + AG - o min(T_fwd/L, AG) + T_bwd/L + AG + RS - o min(T_bwd/L, AG + RS)]"
            " - compute, o = overlap_fraction"
            + (" x overlap_under_shm" if shm else "")
            + _("; 3 collectives per layer on every micro-step"),
            {
                "accum": a,
                "layers": layers,
                "AG_layer_s": round(ag.value, 6),
                "RS_layer_s": round(rs.value, 6),
                "AG_layer_bytes": round(wb / layers),
                "T_fwd_layer_s": round(t_fwd_l, 6),
                "T_bwd_layer_s": round(t_bwd_l, 6),
                "overlap": round(o, 4),
            },
            ["overlap_fraction", "overlap_under_shm" if shm else "overlap_under_p2p", *ag.constants],
        )
        compute = _per_step(a, micro)
        comm_bytes = a * (2 * wb + g)
    elif strategy == "tp":
        _check_divides(w, n)
        opt = optimizer_time(w, dev, n)
        act = w.batch * w.seq * w.model.hidden * w.bytes_per_value
        ar = collective("all-reduce", act, fab, 4 * w.model.layers * a)
        compute = _fig(
            a * t_micro / n, "accum x T_micro / t", _micro_inputs(a, micro) | {"t": n}, micro.constants
        )
        exposed = _fig(
            ar.value,
            _(
                "accum x 4 all-reduces per layer (2 forward, 2 backward) of b x s x h x bytes, not overlapped "
                "(Megatron)"
            ),
            ar.inputs,
            ar.constants,
            ar.confidence,
        )
        comm_bytes = 4 * w.model.layers * a * act
    elif strategy == "pp":
        opt = optimizer_time(w, dev, n)
        act = w.batch * w.seq * w.model.hidden * w.bytes_per_value
        x = p2p(act, fab, 2)  # activations forward, their gradients backward
        c = t_micro / n
        compute = _fig(
            a * c,
            _("micro-batches x T_micro / stages"),
            {"micro_batches": a, "T_micro": t_micro, "stages": n},
            micro.constants,
        )
        exposed = _fig(
            a * x.value, _("micro-batches x (send activations + receive gradients)"), x.inputs, x.constants
        )
        bubble = _fig(
            (n - 1) * (c + x.value),
            _("(stages - 1) x (T_micro/stages + p2p): 1F1B fill and drain"),
            {"stages": n, "micro_batches": a, "bubble_fraction": round((n - 1) / (a + n - 1), 3)},
            ["attention_flops_factor"],
        )
        comm_bytes = 2 * act * a
        if a < n:
            notes.append(
                _("{accum} micro-batch(es) for {stages} stages: raise --accum to fill the pipeline").format(
                    accum=a, stages=n
                )
            )
    else:
        raise UserError(
            _("strategy {strategy} is not a training strategy").format(strategy=repr(w.strategy)),
            hint=_("ddp, dataparallel, zero2, zero3, fsdp, tp or pp"),
        )
    step = compute.value + exposed.value + bubble.value + opt.value
    time = _fig(
        step,
        _("compute + exposed communication + bubble + optimizer step"),
        {
            "compute_s": round(compute.value, 5),
            "exposed_comm_s": round(exposed.value, 5),
            "bubble_s": round(bubble.value, 5),
            "optimizer_s": round(opt.value, 5),
        },
        [],
    )
    thr = _fig(
        samples / step,
        _("samples per step / step time"),
        {"samples_per_step": samples, "step_s": round(step, 5)},
        unit="samples/s",
    )
    return Config(
        n,
        strategy,
        "train",
        mem,
        time,
        thr,
        compute,
        exposed,
        bubble,
        {"optimizer": opt},
        fab.label,
        comm_bytes / samples,
        notes,
    )


def _check_divides(w: Workload, n: int) -> None:
    heads = w.model.heads or 0
    if heads % n:
        raise UserError(
            _("tensor parallel size {n} does not divide {model}'s {heads} attention heads").format(
                n=n, model=w.model.key, heads=heads
            ),
            hint=_("use a TP size that divides the head count, or --gpus with such a number"),
        )
