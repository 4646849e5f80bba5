"""The --json outputs of `catalog list`, `catalog audit`, `rules list`, `rules facts` and `accuracy`, as
typed models with a published schema (`advisor catalog schema --output NAME`), like every other output.

Their figures are computed elsewhere (advisor.model.catalog.audit, advisor.findings, the accuracy
modules); these models fix their shape, so a script reading them can rely on the keys and types."""

from __future__ import annotations

from typing import Any

from pydantic import Field, RootModel

from advisor.findings.finding import Check, Rule
from advisor.outputs.common import Output


class CatalogPartOut(Output):
    id: str
    kind: str = Field(description="cpu, board, gpu, card (a partner card) or system")
    name: str
    card_of: str | None = Field(default=None, description="a partner card's GPU")
    socket: str | None = None
    verified: bool
    unverified_fields: list[str]
    sources: list[str]
    price_usd: float | None = None


class CatalogListOutput(RootModel[list[CatalogPartOut]]):
    def json_text(self) -> str:
        import json

        return json.dumps([p.dump() for p in self.root], indent=2)


class KindCount(Output):
    kind: str
    parts: int
    verified: int
    verified_share: float


class NullCount(Output):
    kind: str
    field: str
    used_for: str = Field(description="what the model loses where the field is null")
    missing: int
    of: int
    parts: list[str]
    goal: bool = Field(description="the catalog's goal is no null here")


class DomainCount(Output):
    domain: str
    class_: str = Field(alias="class", description="primary, secondary or refused")
    citations: int
    parts: int


class SourcesOut(Output):
    citations: int
    primary_citations: int
    primary_share: float
    domains: list[DomainCount]


class RefusedOut(Output):
    id: str
    file: str
    sources: list[str]


class ValueBasisOut(Output):
    counts: dict[str, int] = Field(description="values by basis: primary, secondary, inferred")
    parts: dict[str, dict[str, str]] = Field(
        description="per part, each value's basis (secondary or inferred)"
    )


class SourcingOut(Output):
    sourced: int = Field(description="entries whose every model-relevant value that is not null is sourced")
    sourced_share: float
    weakest_basis: dict[str, int] = Field(
        description="sourced entries by their weakest value: primary, secondary (a reputable review) or "
        "inferred; none: entries that know none of the model-relevant values"
    )
    unsourced: dict[str, list[str]] = Field(
        description="per entry that is not sourced, its model-relevant values that rest on no source"
    )


class GoalOut(Output):
    verified_share: float
    verified_met: bool
    sourced_share: float
    sourced_met: bool
    nulls: dict[str, int]
    nulls_met: bool


class AuditOutput(Output):
    parts: int
    verified: int
    verified_share: float
    kinds: list[KindCount]
    nulls: list[NullCount]
    sources: SourcesOut
    refused: list[RefusedOut]
    secondary_only: list[str]
    value_basis: ValueBasisOut
    sourcing: SourcingOut
    goal: GoalOut


class RulesListOutput(RootModel[list[Rule | Check]]):
    def json_text(self) -> str:
        import json

        return json.dumps([r.model_dump(mode="json") for r in self.root], indent=2)


class FactOut(Output):
    fact: str = Field(description="scope.name, as a rule names it")
    scopes: str = Field(description="the rule scopes that see it, comma-separated")
    name: str
    type: str
    unit: str
    description: str
    source: str


class FactsOutput(RootModel[list[FactOut]]):
    def json_text(self) -> str:
        import json

        return json.dumps([f.dump() for f in self.root], indent=2)


class AccuracyOutput(Output):
    """`advisor accuracy --json`: the bandwidth model on the calibration cases and the held-out ones."""

    summary: dict[str, Any] = Field(description="medians and counts by metric and class (in sample, LOO)")
    rows: list[dict[str, Any]] = Field(description="each compared figure: case, metric, measured, predicted")
    not_described: list[dict[str, Any]]
    held_out: dict[str, Any] = Field(description="the same for the held-out machines, never fitted on")


class WorkloadAccuracyOutput(Output):
    """`advisor accuracy --workload --json`: the workload model's speed-ups against the published ones."""

    summary: dict[str, Any]
    intervals: dict[str, Any] = Field(description="each class of speed-up's range, from out-of-sample errors")
    held_out_in_interval: dict[str, Any]
    rows: list[dict[str, Any]]
    not_described: list[dict[str, Any]]
    compute_fit: dict[str, Any] = Field(description="the 1-GPU step's fitted constants and their rows")
