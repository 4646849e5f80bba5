"""An Answer as its --json output model (advisor/outputs/recommend.py), which the text, Markdown and app
faces render too."""

from __future__ import annotations

from advisor.model.prices import Price, rate
from advisor.outputs.recommend import (
    BuildOut,
    CountsOut,
    FindingBrief,
    LineOut,
    PriceOut,
    RecommendOutput,
    UnpricedOut,
    WhyCount,
)
from advisor.outputs.workload import workload_spec
from advisor.recommend.search import Answer, Candidate


def _r(x: float | None, nd: int = 2) -> float | None:
    return None if x is None else round(x, nd)


def price_out(p: Price) -> PriceOut:
    return PriceOut(
        amount=round(p.amount, 2),
        currency=p.currency,
        original=p.original,
        original_currency=p.original_currency,
        date=p.date,
        condition=p.condition,  # type: ignore[arg-type]
        kind=p.kind,
        source=p.source,
        says=p.says,
        stale=p.stale,
        converted=p.converted,
    )


def build_out(c: Candidate, rank: int | None) -> BuildOut:
    a = c.assessment
    findings = (
        []
        if a is None
        else [
            FindingBrief(id=f.id, severity=f.severity, message=f.message)
            for f in a.findings
            if f.severity != "info"
        ]
    )
    speed = c.speed or 0.0
    return BuildOut(
        rank=rank,
        cpu=c.cpu.id,
        board=c.board.id,
        gpu=c.gpu.id,
        gpus=c.count,
        slots=c.slots,
        psu_w=c.psu_w,
        power_w=c.power_w,
        price=round(c.price, 2),
        lines=[
            LineOut(
                kind=ln.kind,  # type: ignore[arg-type]
                part=ln.part,
                name=ln.name,
                count=ln.count,
                owned=ln.owned,
                unit_price=None if ln.unit is None else price_out(ln.unit),
                total=round(ln.total, 2),
            )
            for ln in c.lines
        ],
        speed=round(speed, 4),
        unit=c.unit,
        speed_low=_r(c.interval[0], 4) if c.interval else None,
        speed_high=_r(c.interval[1], 4) if c.interval else None,
        speed_class=c.speed_class,
        speed_per_1000=round(1000 * speed / c.price, 4) if c.price else 0.0,
        limits=list(c.limits),
        why=c.why,
        dominated_by=c.dominated_by,
        stale_prices=c.stale,
        converted_prices=c.converted,
        findings=findings,
        build=c.build.model_dump(exclude_unset=True, exclude_defaults=True),
    )


def answer_output(ans: Answer) -> RecommendOutput:
    c = ans.constraints
    converted = any(x.converted for x in ans.front + ans.others)
    return RecommendOutput(
        workload=workload_spec(ans.workload),
        currency=ans.currency,
        budget=c.budget,
        constraints={
            "min_gpus": c.min_gpus,
            "max_gpus": c.max_gpus,
            "form": c.form,
            "circuit": None
            if c.circuit is None
            else {"volts": c.circuit[0], "amps": c.circuit[1], "continuous_w": c.circuit_w()},
            "used": c.used,
            "own": [{"part": p, "count": n} for p, n in c.own],
            "exclude_vendors": list(c.exclude_vendors),
        },
        as_of=ans.today,
        rate=rate().words() if converted else None,
        front=[build_out(x, i) for i, x in enumerate(ans.front, start=1)],
        others=[build_out(x, None) for x in ans.others],
        cheapest=1 if ans.front else None,
        fastest=len(ans.front) if ans.front else None,
        no_price_known=[UnpricedOut(kind=k, part=p, name=n) for k, p, n in ans.unpriced],
        counts=CountsOut(
            enumerated=ans.counts.enumerated,
            pruned=[WhyCount(why=ans.counts.words(k), count=v) for k, v in sorted(ans.counts.pruned.items())],
            evaluated=ans.counts.evaluated,
            rejected=[
                WhyCount(why=ans.counts.words(k), count=v) for k, v in sorted(ans.counts.rejected.items())
            ],
            front=ans.counts.front,
        ),
        notes=list(ans.notes),
    )
