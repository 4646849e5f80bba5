"""The output of `advisor compare --json` (its JSON Schema: `advisor catalog schema --output compare`)."""

from __future__ import annotations

from pydantic import Field

from advisor.findings.finding import Finding
from advisor.measure.compare import Row
from advisor.outputs.common import Output


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


def compare_output(rows: list[tuple[str, Row]]) -> CompareOutput:
    return CompareOutput(
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
