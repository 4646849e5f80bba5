"""The output of `advisor recommend --json`: the Pareto front of price against the job's speed, the builds
off it with what beats them, the parts left out for want of a price, and how the search went."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from advisor.outputs.common import Output
from advisor.outputs.workload import WorkloadSpecOut


class PriceOut(Output):
    amount: float = Field(description="In the answer's currency")
    currency: str
    original: float = Field(description="The price as read, in its own currency")
    original_currency: str
    date: str | None = Field(
        description="When the price held (YYYY-MM or YYYY-MM-DD); null: an undated launch price"
    )
    condition: Literal["new", "used"]
    kind: str = Field(
        description="list, market, launch (the catalog's undated price_usd) or yours (--prices)"
    )
    source: str = Field(description="A URL, or the price list's file:line")
    says: str = ""
    stale: bool = Field(description="Older than the stale age on the day asked, or undated")
    converted: bool = Field(description="Converted from another currency at the stated rate")


class LineOut(Output):
    kind: Literal["cpu", "board", "gpu"]
    part: str = Field(description="Catalog id")
    name: str
    count: int
    owned: int = Field(description="Of them, the ones you have (--own): they cost nothing")
    unit_price: PriceOut | None
    total: float


class FindingBrief(Output):
    id: str
    severity: str
    message: str


class BuildOut(Output):
    rank: int | None = Field(description="Place on the front, cheapest first; null for a build off the front")
    cpu: str
    board: str
    gpu: str
    gpus: int
    slots: list[str] = Field(description="The slot of each GPU, in CUDA order")
    psu_w: int | None = Field(
        description="The PSU size the build is planned with (1.3x board power, rounded up)"
    )
    power_w: int | None = Field(description="Board power: GPUs, CPU and the rest of the system")
    price: float = Field(description="What it costs to buy, in the answer's currency (owned parts excluded)")
    lines: list[LineOut]
    speed: float = Field(description="The job's predicted speed on all the build's GPUs")
    unit: str = Field(description="samples/s (training), tokens/s (inference) or requests/s (--request-rate)")
    speed_low: float | None = Field(
        description="The speed-up class's typical range applied to the speed (null with one GPU: the classes "
        "cover N-GPU speed-ups)"
    )
    speed_high: float | None = None
    speed_class: str | None = Field(description="compute-bound, staged comm-bound, P2P, NVLink or serving")
    speed_per_1000: float = Field(description="Speed per 1,000 of the answer's currency")
    limits: list[str] = Field(description="What limits the build: lanes, P2P, memory, power, communication")
    why: str = Field(
        description="On the front: what it buys over the next cheaper front build; off it: what beats it"
    )
    dominated_by: int | None = Field(
        default=None, description="Off the front: the rank of the front build that beats it"
    )
    stale_prices: bool
    converted_prices: bool
    findings: list[FindingBrief] = Field(
        description="plan's warnings on the build (a build with an error is never listed)"
    )
    build: dict = Field(description="The build as a build file (`advisor plan` takes it)")


class WhyCount(Output):
    why: str
    count: int


class CountsOut(Output):
    enumerated: int = Field(description="CPU x board x GPU model x GPU count combinations of the catalog")
    pruned: list[WhyCount] = Field(
        description="Combinations set aside by a bound before any prediction, by bound"
    )
    evaluated: int = Field(description="Builds assessed (plan with the job: its prediction and the job)")
    rejected: list[WhyCount] = Field(description="Assessed builds set aside, by why")
    front: int


class UnpricedOut(Output):
    kind: str
    part: str
    name: str


class RecommendOutput(Output):
    kind: Literal["recommend"] = "recommend"
    workload: WorkloadSpecOut
    currency: str
    budget: float | None
    constraints: dict = Field(
        description="GPU count range, form, circuit, used, owned parts, excluded vendors"
    )
    as_of: str = Field(description="The day prices were judged stale against")
    rate: str | None = Field(description="The stated, dated exchange rate used, where a price was converted")
    front: list[BuildOut]
    others: list[BuildOut] = Field(description="The best off-front build of each GPU model and count")
    cheapest: int | None = Field(description="Rank of the cheapest build that runs the job")
    fastest: int | None = Field(description="Rank of the fastest build within the budget")
    no_price_known: list[UnpricedOut] = Field(
        description="Parts left out of the search: no price is known for them"
    )
    counts: CountsOut
    notes: list[str]
