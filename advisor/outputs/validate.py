"""The output of `advisor validate --json` (its JSON Schema: `advisor catalog schema --output validate`)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from advisor.outputs.common import Output
from advisor.outputs.plan import PlanOutput


class QuoteLineOut(Output):
    line: int
    text: str
    status: Literal["matched", "recognized", "unmatched", "not_in_catalog"]
    kind: str | None = Field(description="cpu, board, gpu, psu, ram, nvme or nvlink")
    part_id: str | None
    part_name: str | None
    confidence: float | None = Field(description="Match score 0-100")
    qty: int
    price: float | None
    value: int | None = Field(description="PSU watts, RAM GB, NVMe drive count")
    socket: str | None = Field(description="M.2 socket named for an NVMe drive")


class QuoteClaimOut(Output):
    text: str
    line: int
    kind: str = Field(description="pcie_x16, nvlink, p2p or psu")
    gen: int | None


class QuoteOut(Output):
    file: str
    format: str = Field(description="text, csv or yaml")
    lines: list[QuoteLineOut]
    claims: list[QuoteClaimOut]
    build: dict[str, Any] = Field(description="The build the quote describes, as a build file would")
    missing: list[str]
    notes: list[str]


class ClaimVerdict(Output):
    claim: str
    line: int
    kind: str
    verdict: bool | Literal["unknown"] = Field(description="true: holds; false: does not hold; 'unknown'")
    why: str


class ValidateOutput(Output):
    verdict: Literal["PASS", "PROBLEMS", "INCOMPLETE"]
    exit_code: int = Field(description="0 PASS, 1 PROBLEMS or INCOMPLETE")
    quote: QuoteOut
    missing: list[str] = Field(description="Part kinds no line of the quote names")
    not_in_catalog: list[QuoteLineOut]
    build_problems: list[str]
    plan: PlanOutput | None
    claims: list[ClaimVerdict]
    false_claims: list[ClaimVerdict]
