"""The output of `advisor workload --json` (and the `workload` key of `plan --train/--infer --json`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import Field

from advisor.findings.finding import Finding
from advisor.model.constants import constants
from advisor.outputs.common import ConstantOut, Derivation, Output

if TYPE_CHECKING:  # the model's types; importing the workload model itself is not needed to print it
    from advisor.workload.memory import Memory
    from advisor.workload.models import Workload
    from advisor.workload.rate import Serving
    from advisor.workload.result import Analysis, Change, Config


def _r(x: float | None, nd: int = 4) -> float | None:
    return None if x is None else round(x, nd)


class WorkloadSpecOut(Output):
    task: Literal["train", "infer"]
    model: str
    preset: str | None
    params: float
    strategy: str
    precision: str
    batch: int
    seq: int | None = None
    accum: int | None = None
    recompute: bool | None = None
    framework: str | None = Field(
        default=None,
        description="how the run reduces gradients (ddp, hf-trainer, megatron, deepspeed, fsdp, tensorflow, tf-cnn-benchmarks, "
        "horovod, torchtune, llama-factory, axolotl)",
    )
    accum_sync: str | None = Field(
        default=None, description="last (no_sync) or every accumulation micro-step"
    )
    baseline_batch: int | None = Field(
        default=None, description="the 1-GPU run's micro-batch, where it differs"
    )
    baseline_accum: int | None = None
    baseline_recompute: bool | None = Field(
        default=None, description="the 1-GPU run's activation recomputation, where it differs"
    )
    param_dtype: str | None = Field(
        default=None, description="the weights' own dtype where the model is loaded in 16 bits"
    )
    attention: str | None = Field(default=None, description="eager (scores in memory) or fused attention")
    host_memory_gbps: float | None = Field(
        default=None, description="one socket's memory bandwidth given for a CPU the catalog lacks"
    )
    optimizer: str | None = Field(default=None, description="adamw, adamw-8bit or sgd: the optimizer's state")
    lora_rank: int | None = Field(default=None, description="LoRA adapters' rank (null: full fine-tuning)")
    base_bits: int | None = Field(
        default=None, description="the frozen base's bits under LoRA (4: QLoRA's NF4)"
    )
    trainable_params: float | None = Field(
        default=None, description="parameters the optimizer updates (LoRA: the adapters)"
    )
    prompt: int | None = None
    gen: int | None = None
    quant: str | None = Field(default=None, description="inference: the weights' format (null: precision)")
    kv_cache: str | None = Field(default=None, description="inference: the KV cache's type (null: precision)")
    max_concurrency: bool | None = Field(
        default=None,
        description="inference: batch is what the KV cache admits on N GPUs, baseline_batch on one",
    )
    active_params: float | None = Field(
        default=None, description="a mixture of experts: parameters each token passes through"
    )
    request_rate: float | None = Field(
        default=None, description="inference: requests per second arriving (batch is then what it brings)"
    )
    request_cap: int | None = Field(
        default=None, description="inference: the most sequences in flight the user set (--batch)"
    )
    max_num_seqs: int | None = Field(
        default=None,
        description="inference: the serving engine's cap on the sequences a step advances (--max-num-seqs)",
    )


class ServingOut(Output):
    gpus: int
    strategy: str
    sustained: bool = Field(description="Whether the configuration keeps up with the rate")
    concurrency: float | None = Field(description="Mean requests in flight (Little's law), when sustained")
    latency_s: float | None = Field(description="One request, arrival to last token, when sustained")
    ttft_s: float = Field(description="One request's prefill")
    inter_token_ms: float | None = Field(description="Time between a sequence's tokens, when sustained")
    capacity_rps: float = Field(description="The most requests per second it keeps up with at its cap")
    cap: int = Field(description="The most sequences in flight (the KV cache's, or --batch)")
    batch: int = Field(description="Sequences a decode step advances in the steady state")
    derivation: dict[str, Derivation] | None = None


class InterconnectOut(Output):
    transport: str
    busbw_gbps: float | None
    pair_gbps: float | None
    pair_latency_us: float | None


class MemoryOut(Output):
    per_gpu_gb: dict[str, float | None] = Field(
        description="Weights, gradients, optimizer, activations, KV cache"
    )
    total_gb: float | None
    usable_gb: float | None
    fits: bool
    notes: list[str]
    max_sequences: int | None = Field(
        default=None,
        description="inference: concurrent sequences of prompt + gen tokens the KV cache space admits",
    )
    derivation: dict[str, Derivation] | None = None


class SplitOut(Output):
    compute: float | None
    exposed_comm: float | None
    bubble: float | None


class ConfigOut(Output):
    gpus: int
    strategy: str
    fits: bool
    step_time_s: float | None = Field(default=None, description="Training: one optimizer step")
    samples_per_s: float | None = None
    tokens_per_s: float | None = Field(default=None, description="Inference: generated tokens per second")
    ttft_s: float | None = None
    decode_ms_per_token: float | None = None
    compute_s: float | None
    exposed_comm_s: float | None
    bubble_s: float | None
    optimizer_s: float | None = None
    split: SplitOut
    interconnect: str
    memory: MemoryOut
    unknown: list[str] | None = Field(
        default=None,
        description="Catalog facts the time of this configuration could not be computed without (its "
        "figures are then null): an unknown is never a 0",
    )
    notes: list[str] | None = None
    derivation: dict[str, Derivation] | None = None


class ChangeOut(Output):
    change: str
    why: str
    fits: bool
    predicted_speedup: float | None = Field(description="With the change: N GPUs over 1 GPU")
    vs_now: float | None = Field(description="With the change: N GPUs over today's N GPUs")
    vs_one_gpu_today: float | None
    throughput: float | None
    unit: str | None
    summary: str = Field(
        default="", description="What the change does to this build, in words (the text output's line)"
    )
    gpus: int | None = Field(default=None, description="GPUs the change runs on")
    hardware: bool = Field(default=False, description="Other hardware, not a setting of this build")
    memory_per_gpu_gb: float | None = Field(default=None, description="With the change")
    usable_gb: float | None = None
    step_time_s: float | None = Field(
        default=None, description="Training, with the change: one optimizer step"
    )
    flags: list[str] | None = Field(
        default=None,
        description="The flags that, added to the command as run, run the change; null where no flag says it "
        "(an NVLink bridge is a line of the build file)",
    )
    command: str | None = Field(
        default=None, description="The command that runs the change (the command as run with `flags`)"
    )
    quality: int = Field(
        default=0,
        description="How much the change alters what is trained: 0 not at all, 1 a little (8-bit optimizer "
        "state), 2 LoRA adapters instead of every weight, 3 adapters over a 4-bit base",
    )
    cost: str = Field(default="", description="What a change that makes the job fit costs (speed, quality)")


class ShortOut(Output):
    change: str
    flags: list[str]
    memory_per_gpu_gb: float = Field(description="With this change alone: still more than is usable")


class WorkloadDerivation(Output):
    speedup: Derivation | None
    efficiency: Derivation | None


class SpeedupRangeOut(Output):
    lo: float = Field(description="The speed-up's low end: the prediction x the class's lowest ratio")
    hi: float = Field(description="The speed-up's high end")
    figures: int = Field(description="Published speed-ups of the class the range rests on")
    median_abs_error_pct: float = Field(description="The class's median leave-one-out error")
    large_errors: bool = Field(description="The class's predictions are often far off: read it as a hint")


class WorkloadOutput(Output):
    schema_version: Literal[1] = 1
    workload: WorkloadSpecOut
    gpus: int
    interconnect: InterconnectOut
    speedup: float | None = Field(description="Throughput on N GPUs over one GPU")
    efficiency: float | None = Field(description="Speed-up over N")
    speedup_class: str | None = Field(
        default=None,
        description="What bounds the speed-up: compute-bound, staged comm-bound, P2P, NVLink or serving "
        "(advisor.workload.confidence)",
    )
    speedup_range: SpeedupRangeOut | None = Field(
        default=None,
        description="The speed-up's typical range: where 80% of the published speed-ups of its class fell, "
        "each predicted without its own case (rules/workload-intervals.yaml)",
    )
    fits_one_gpu: bool
    fits: bool
    bottleneck: str
    configurations: list[ConfigOut] = Field(description="One GPU, then N GPUs")
    memory: MemoryOut
    changes: list[ChangeOut]
    fit_note: str | None = Field(
        default=None, description="When nothing on this build fits: the least it needs, what hardware would"
    )
    not_enough: list[ShortOut] | None = Field(
        default=None,
        description="When no setting of this build runs the job as asked: each memory saver that is not "
        "enough alone, with its memory per GPU",
    )
    not_modelled: list[str] | None = Field(
        default=None, description="Changes that exist but advisor does not predict (no figure is given)"
    )
    gradients: str | None = Field(
        default=None, description="Training: gradient size and what a ring moves of it per GPU"
    )
    assumptions: list[str]
    run_as: list[str] = Field(
        default_factory=list,
        description="Inference: the vLLM / llama.cpp commands that serve the job as predicted",
    )
    serving: list[ServingOut | None] | None = Field(
        default=None,
        description="--request-rate: one GPU, then N GPUs, at the rate (null where one sequence does not fit)",
    )
    strategies: list[ConfigOut] | None = None
    strategies_not_possible: dict[str, str] | None = None
    derivation: WorkloadDerivation | None = None
    constants: dict[str, ConstantOut] | None = None
    findings: list[Finding] | None = Field(
        default=None, description="Workload findings (`advisor workload` only)"
    )


def workload_spec(w: Workload) -> WorkloadSpecOut:
    m = w.model
    more = (
        dict(
            seq=w.seq,
            accum=w.accum,
            recompute=w.recompute,
            framework=w.framework,
            accum_sync=w.accum_sync,
            baseline_batch=w.baseline_batch,
            baseline_accum=w.baseline_accum,
            baseline_recompute=w.baseline_recompute,
            param_dtype=w.param_dtype,
            attention=w.attention,
            optimizer=w.optimizer,
            lora_rank=w.lora_rank,
            base_bits=w.base_bits if w.lora_rank is not None else None,
            trainable_params=round(w.trainable),
        )
        if w.task == "train"
        else dict(
            prompt=w.prompt,
            gen=w.gen,
            quant=w.quant,
            kv_cache=w.kv_cache,
            max_concurrency=w.max_concurrency or None,
            baseline_batch=w.baseline_batch,
            request_rate=w.request_rate,
            request_cap=w.request_cap,
            max_num_seqs=w.max_num_seqs,
        )
    )
    if m.moe:
        more["active_params"] = round(m.active)
    if w.host_memory_gbps is not None:
        more["host_memory_gbps"] = w.host_memory_gbps
    return WorkloadSpecOut(
        task=w.task,
        model=m.key if not m.custom else m.name,
        preset=m.key,
        params=m.params,
        strategy=w.strategy,
        precision=w.precision,
        batch=w.batch,
        **more,
    )


def memory_out(mem: Memory, explain: bool) -> MemoryOut:
    extra = (
        {
            "derivation": {
                k: Derivation.of(f)
                for k, f in {
                    **mem.terms,
                    "total": mem.total,
                    "usable": mem.usable,
                    **({"max_sequences": mem.max_sequences} if mem.max_sequences else {}),
                }.items()
            }
        }
        if explain
        else {}
    )
    return MemoryOut(
        per_gpu_gb={k: _r(f.value, 2) for k, f in mem.terms.items()},
        total_gb=_r(mem.total.value, 2),
        usable_gb=_r(mem.usable.value, 2),
        fits=mem.fits,
        notes=list(mem.notes),
        max_sequences=None if mem.max_sequences is None else mem.max_sequences.value,
        **extra,
    )


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else seconds * 1e3


def config_out(c: Config, explain: bool = False) -> ConfigOut:
    fits = c.fits
    more: dict = {}
    if c.task == "train":
        more |= dict(
            step_time_s=_r(c.time.value) if fits else None,
            samples_per_s=_r(c.throughput.value, 2) if fits else None,
        )
    else:
        more |= dict(
            tokens_per_s=_r(c.throughput.value, 2) if fits else None,
            ttft_s=_r(c.extra["ttft"].value) if fits else None,
            decode_ms_per_token=_r(_ms(c.extra["decode_step"].value), 3) if fits else None,
        )
    if "optimizer" in c.extra:
        more["optimizer_s"] = _r(c.extra["optimizer"].value)
    if c.notes:
        more["notes"] = list(c.notes)
    if c.unknown:
        more["unknown"] = list(c.time.missing)
    if explain:
        figs = {
            "time": c.time,
            "throughput": c.throughput,
            "compute": c.compute,
            "exposed_comm": c.exposed_comm,
            "bubble": c.bubble,
            **c.extra,
        }
        more["derivation"] = {k: Derivation.of(f) for k, f in figs.items()}
    split = {k: None for k in ("compute", "exposed_comm", "bubble")} if c.unknown else c.split()
    return ConfigOut(
        gpus=c.gpus,
        strategy=c.strategy,
        fits=fits,
        compute_s=_r(c.compute.value),
        exposed_comm_s=_r(c.exposed_comm.value),
        bubble_s=_r(c.bubble.value),
        split=SplitOut(**{k: None if v is None else round(v, 3) for k, v in split.items()}),
        interconnect=c.fabric,
        memory=memory_out(c.memory, explain),
        **more,
    )


def change_out(ch: Change, a: Analysis | None = None) -> ChangeOut:
    from advisor.workload.advise import run_line

    def r(x: float | None) -> float | None:
        return None if x is None else round(x, 2)

    return ChangeOut(
        change=ch.change,
        why=ch.why,
        fits=ch.fits,
        predicted_speedup=r(ch.speedup),
        vs_now=r(ch.vs_now),
        vs_one_gpu_today=r(ch.vs_one_gpu_today),
        throughput=None if ch.config is None or not ch.fits else _r(ch.config.throughput.value, 2),
        unit=None if ch.config is None else ch.config.throughput.unit,
        summary=ch.summary,
        gpus=ch.gpus,
        hardware=ch.hardware,
        memory_per_gpu_gb=None if ch.config is None else _r(ch.config.memory.total.value, 2),
        usable_gb=None if ch.config is None else _r(ch.config.memory.usable.value, 2),
        step_time_s=_r(ch.config.time.value, 4)
        if ch.config is not None and ch.config.task == "train"
        else None,
        flags=None if ch.flags is None else list(ch.flags),
        command=run_line(a, ch) if a is not None else None,
        quality=ch.quality,
        cost=ch.cost,
    )


def serving_out(sv: Serving, explain: bool = False) -> ServingOut:
    figs = {
        k: f
        for k, f in (
            ("concurrency", sv.concurrency),
            ("latency", sv.latency),
            ("ttft", sv.ttft),
            ("inter_token", sv.inter_token),
            ("capacity", sv.capacity),
        )
        if f is not None
    }
    return ServingOut(
        gpus=sv.gpus,
        strategy=sv.strategy,
        sustained=sv.sustained,
        concurrency=_r(sv.concurrency.value, 2) if sv.concurrency else None,
        latency_s=_r(sv.latency.value) if sv.latency else None,
        ttft_s=_r(sv.ttft.value),
        inter_token_ms=_r(sv.inter_token.value * 1e3, 3) if sv.inter_token else None,
        capacity_rps=_r(sv.capacity.value, 3),
        cap=sv.cap,
        batch=sv.batch,
        derivation={k: Derivation.of(f) for k, f in figs.items()} if explain else None,
    )


def _gradients(a: Analysis) -> str | None:
    w = a.workload
    if w.task != "train" or w.strategy in ("tp", "pp"):
        return None
    from advisor.workload.train import gradient_traffic

    return gradient_traffic(w, a.gpus)


def _range(a: Analysis) -> SpeedupRangeOut | None:
    iv = a.speedup_interval
    if iv is None or a.speedup is None or a.speedup.value is None:
        return None
    sp = a.speedup.value
    return SpeedupRangeOut(
        lo=round(sp * iv.lo, 3),
        hi=round(sp * iv.hi, 3),
        figures=iv.figures,
        median_abs_error_pct=iv.median_abs_error_pct,
        large_errors=iv.large,
    )


def workload_output(
    a: Analysis, explain: bool = False, findings: list[Finding] | None = None
) -> WorkloadOutput:
    fab = a.fabric
    more: dict = {}
    if a.strategies:
        more["strategies"] = [config_out(c, explain) for c in a.strategies]
        more["strategies_not_possible"] = dict(a.skipped_strategies)
    if explain:
        more["derivation"] = WorkloadDerivation(
            speedup=Derivation.of(a.speedup) if a.speedup else None,
            efficiency=Derivation.of(a.efficiency) if a.efficiency else None,
        )
        more["constants"] = {
            c.name: ConstantOut.of(c, note=True) for c in constants("workload.yaml").values()
        }
    if findings is not None:
        more["findings"] = findings
    if a.serving:
        more["serving"] = [None if sv is None else serving_out(sv, explain) for sv in a.serving]
    # as the text says them: only where no setting of this build runs the job as asked
    short = not a.many.fits and not any(c.quality == 0 and not c.hardware for c in a.changes)
    return WorkloadOutput(
        schema_version=1,
        workload=workload_spec(a.workload),
        gpus=a.gpus,
        interconnect=InterconnectOut(
            transport=fab.transport,
            busbw_gbps=_r(fab.busbw, 2),
            pair_gbps=_r(fab.p2p_gbps, 2),
            pair_latency_us=_r(fab.p2p_latency_us, 2),
        ),
        speedup=_r(a.speedup.value, 3) if a.speedup else None,
        efficiency=_r(a.efficiency.value, 3) if a.efficiency else None,
        speedup_class=a.speedup_class,
        speedup_range=_range(a),
        fits_one_gpu=a.one.fits,
        fits=a.many.fits,
        bottleneck=a.bottleneck,
        configurations=[config_out(c, explain) for c in ([a.one] if a.gpus == 1 else [a.one, a.many])],
        memory=memory_out(a.many.memory, explain),
        changes=[change_out(c, a) for c in a.changes],
        fit_note=a.fit_note or None,
        not_enough=[ShortOut(change=n, flags=list(f), memory_per_gpu_gb=gb) for n, f, gb in a.fit_short]
        if short
        else None,
        not_modelled=list(a.not_modelled) if short else None,
        gradients=_gradients(a),
        assumptions=list(a.assumptions),
        run_as=list(a.run_as),
        **more,
    )
