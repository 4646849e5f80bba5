"""The output of `advisor compare --json` (its JSON Schema: `advisor catalog schema --output compare`)."""

from __future__ import annotations

from pydantic import Field

from advisor.findings.finding import Finding
from advisor.measure.compare import Row
from advisor.measure.settle import Settled
from advisor.outputs.common import Output
from advisor.outputs.plan import ReadinessOut, readiness_out


class CompareRowOut(Output):
    metric: str
    where: str = Field(description="GPU0, GPU0-GPU1 or 'N GPUs'")
    predicted: float | int | str | None
    measured: float | int | str | bool
    ratio: float | None = Field(description="measured / predicted, 3 decimals")
    flagged: bool = Field(description="off by more than the tolerance")
    causes: list[Finding] = Field(description="Likely causes, first suspect first (rules of scope compare)")
    source: str = Field(description="The measurement file the figure came from")


class CompareOutput(Output):
    rows: list[CompareRowOut]
    flagged: int = Field(description="How many rows are off by more than the tolerance")
    readiness: list[ReadinessOut] = Field(
        default_factory=list,
        description="P2P readiness judged again with what the files show (BAR1 sizes, ACS, the kernel's IOMMU "
        "mode, the driver's own P2P matrix): the plan's UNKNOWNs the files settle become PASS or FAIL",
    )
    settled: list[str] = Field(default_factory=list, description="What each file settled, in words")
    settled_layers: list[str] = Field(
        default_factory=list, description="The layers the files decided, as 'GPU0-GPU1 driver'"
    )
    notes: list[str] = Field(
        default_factory=list,
        description="How each file's GPUs were matched with the build's (a file of fewer GPUs, --gpus) and "
        "what --gpus left out",
    )


def compare_output(
    rows: list[tuple[str, Row]], settled: Settled | None = None, notes: list[str] | None = None
) -> CompareOutput:
    return CompareOutput(
        notes=list(notes or []),
        readiness=readiness_out(settled.rows) if settled else [],
        settled=list(settled.read) if settled else [],
        settled_layers=[f"GPU{a}-GPU{b} {layer}" for a, b, layer in settled.changed] if settled else [],
        rows=[
            CompareRowOut(
                metric=r.metric,
                where=r.where,
                predicted=r.predicted,
                measured=r.measured,
                ratio=None if r.ratio is None else round(r.ratio, 3),
                flagged=r.flagged,
                causes=r.causes,
                source=source,
            )
            for source, r in rows
        ],
        flagged=sum(1 for _, r in rows if r.flagged),
    )
