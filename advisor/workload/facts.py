"""The facts rules of scope `workload` can use (the name `workload` in a rule's condition)."""

from __future__ import annotations

from types import SimpleNamespace

from advisor.model.constants import const
from advisor.workload.analyse import Analysis


def workload_facts(a: Analysis) -> SimpleNamespace:
    w, many, one = a.workload, a.many, a.one
    split = many.split()
    gpus = [g.node for g in a.fabric.prediction.gpus]
    links = "/".join(f"x{n.link.width}" for n in gpus)
    gen = "/".join(sorted({f"Gen{n.link.gen}" for n in gpus}))
    per_micro = w.strategy in ("zero2", "zero3", "fsdp", "dataparallel")
    ddp_bytes = w.model.params * (
        4 if w.precision == "fp32" else const("grad_bytes", "ddp", file="workload.yaml")
    )
    samples = w.batch * w.accum * (a.gpus if w.strategy not in ("tp", "pp") else 1)
    step = many.extra.get("decode_step")
    decode_comm = (step.inputs.get("comm_s", 0.0) / step.value) if step is not None and step.value else 0.0
    by = {c.strategy: c for c in a.strategies}

    def sp(s: str) -> float:
        c = by.get(s)
        return round(c.throughput.value / one.throughput.value, 2) if c and c.fits and one.fits else -1.0

    best = max((c for c in a.strategies if c.fits), key=lambda c: c.throughput.value, default=None)
    return SimpleNamespace(
        task=w.task,
        strategy=w.strategy,
        strategy_name=w.strategy_name,
        model=w.model.label,
        model_key=w.model.key,
        params_b=round(w.model.params / 1e9, 2),
        precision=w.precision,
        batch=w.batch,
        seq=w.seq,
        accum=w.accum,
        gpus=a.gpus,
        gpu_model=", ".join(sorted({n.gpu.name for n in gpus if n.gpu})) or "?",
        links=f"{gen} {links}",
        transport=a.fabric.transport,
        busbw=round(a.fabric.busbw or 0.0, 1),
        speedup=round(a.speedup.value, 2) if a.speedup else -1.0,
        has_speedup=a.speedup is not None,
        efficiency=round(a.efficiency.value, 2) if a.efficiency else -1.0,
        comm_pct=round(100 * split["exposed_comm"]),
        bubble_pct=round(100 * split["bubble"]),
        compute_pct=round(100 * split["compute"]),
        fits=many.fits,
        fits_one=one.fits,
        mem_gb=round(many.memory.total.value, 1),
        mem_one_gb=round(one.memory.total.value, 1),
        usable_gb=round(many.memory.usable.value, 1),
        per_micro_step=per_micro,
        reductions_per_step=w.accum if per_micro else 1,
        comm_gb_per_step=round(many.comm_bytes_per_sample * samples / 1e9, 2),
        ddp_comm_gb_per_step=round(ddp_bytes / 1e9, 2),
        decode_comm_pct=round(100 * decode_comm),
        replicas_speedup=sp("replicas"),
        tp_speedup=sp("tp"),
        pp_speedup=sp("pp"),
        best_strategy=best.strategy if best else "-",
        best_tokens_per_s=round(best.throughput.value, 1) if best else 0.0,
        bottleneck=a.bottleneck,
    )
