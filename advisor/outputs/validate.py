"""The output of `advisor validate --json` (its JSON Schema: `advisor catalog schema --output validate`)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from advisor.outputs.common import Output
from advisor.outputs.plan import PlanOutput


class PartOut(Output):
    kind: str = Field(description="cpu, board, gpu, psu, ram, nvme, nic or bridge")
    name: str
    part_id: str | None = Field(description="The catalog part, for a CPU, board or GPU found in the catalog")
    in_catalog: bool
    confidence: float | None = Field(description="Name match score 0-100 (100: exact name or part number)")
    value: int | None = Field(description="PSU usable watts, RAM GB")
    socket: str | None = Field(description="The M.2 socket an NVMe drive is in, where the quote names it")
    how: str = Field(description="How it was recognised")


class QuoteLineOut(Output):
    line: int
    text: str
    status: Literal[
        "part",
        "recognized",
        "not_in_catalog",
        "title",
        "mention",
        "total",
        "claim",
        "header",
        "continued",
        "other",
    ] = Field(
        description="part: a catalog CPU/board/GPU; recognized: PSU, RAM, SSD, NIC, bridge; not_in_catalog: a part "
        "the catalog lacks; title: repeats the items (not counted); mention: names a part outside the parts "
        "list (a summary, a per-card table, a candidate, prose): shown and cross-checked, not counted; total, "
        "claim, header; continued: the rest of the table row above (a wrapped description); other: not a part"
    )
    parts: list[PartOut]
    qty: int
    qty_source: str = Field(description="Where the quantity was read ('4x', the qty column, ...)")
    qty_unclear: bool
    price: float | None
    currency: str | None
    read_as: str = Field(
        default="",
        description="How the line was read, in words ('a mention outside the parts list: not counted')",
    )


class ClaimVerdict(Output):
    id: str = Field(
        description="The check that judged the claim, one per kind of claim (CLM001...): `advisor rules explain ID`"
    )
    claim: str
    line: int
    about: str = Field(
        description="pooled_memory, p2p, nvlink, numa, numa_split, psu, full_speed, pcie, memory_channels, "
        "scaling or fit (slot spacing, airflow)"
    )
    verdict: bool | Literal["unknown"] = Field(description="true: holds; false: does not hold; 'unknown'")
    why: str


class SpecCheckOut(Output):
    line: int
    part_id: str
    says: str = Field(description="The part's spec as the quote writes it ('7x PCIe 5.0 x16')")
    catalog: str = Field(description="What the catalog lists for it")
    agrees: bool
    source: str | None = Field(description="The catalog entry's first source")


class PartCheckOut(Output):
    id: str = Field(
        description="QTE001: the PSU against the parts' power; QTE002: the CPU's lanes against the GPUs; "
        "QTE003: the model the quote states against the GPUs' memory"
    )
    severity: Literal["error", "warning"]
    message: str


class QuoteOut(Output):
    file: str
    format: str = Field(description="text, csv, yaml or json")
    lines: list[QuoteLineOut]
    build: dict[str, Any] = Field(description="The build the quote describes, as a build file would")
    details: dict[str, Any] = Field(
        description="A structured quote's other keys (vendor, title, totals, ...)"
    )
    missing: list[str]
    notes: list[str]


class ValidateOutput(Output):
    verdict: Literal["PASS", "WARN", "PROBLEMS", "INCOMPLETE"] = Field(
        description="PROBLEMS: the build cannot run as quoted (an error, a false claim); INCOMPLETE: a part "
        "the catalog lacks or a part kind missing; WARN: it runs below what its parts allow (a GPU below its "
        "link or on chipset lanes, no P2P, NCCL over host memory), named in the summary; PASS: none of these"
    )
    exit_code: int = Field(description="0 PASS, 1 WARN, PROBLEMS or INCOMPLETE")
    summary: str = Field(description="What matters most, in one sentence")
    quote: QuoteOut
    missing: list[str] = Field(description="Part kinds no line of the quote names")
    not_in_catalog: list[QuoteLineOut]
    build_problems: list[str]
    plan: PlanOutput | None
    claims: list[ClaimVerdict]
    false_claims: list[ClaimVerdict]
    ask_vendor: list[str] = Field(description="What to ask the vendor for")
    alternatives: list[str] = Field(description="Outcomes that depend on a choice the quote leaves open")
    spec_checks: list[SpecCheckOut] = Field(
        description="A part's spec written in the quote (a board's slot list), checked against the catalog"
    )
    part_checks: list[PartCheckOut] = Field(
        default_factory=list,
        description="What the named parts settle when the build cannot be evaluated (a part the catalog lacks): "
        "the PSU against the GPUs' power, the CPU's lanes against the GPU count; an error makes the verdict PROBLEMS",
    )
