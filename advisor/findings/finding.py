"""The two types of the findings stage: a Rule (as written in rules/*.yaml) and a Finding (a rule that fired).

Every finding the tool reports, from a plan, a workload or a comparison with a measurement, is a
`Finding` made by a `Rule`: one registry, one documentation (`advisor rules list|explain`), one type
that travels to the faces.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from advisor.model.catalog.models import Strict

Severity = Literal["error", "warning", "info"]
Category = Literal[
    "lanes",
    "p2p",
    "nvlink",
    "numa",
    "power",
    "fit",
    "memory",
    "software",
    "workload",
    "catalog",
    "measurement",
]
# Where a rule is evaluated: once per build, per GPU, per GPU pair; per workload (only when one is
# given); per compared figure (only in `advisor compare`, for figures off by more than the tolerance).
Scope = Literal["build", "gpu", "pair", "workload", "compare"]
# Which job asks for findings, and the scopes each job evaluates.
JOB_SCOPES: dict[str, tuple[str, ...]] = {
    "plan": ("build", "gpu", "pair", "workload"),
    "workload": ("workload",),
    "compare": ("compare",),
}
SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}


class Rule(Strict):
    id: str = Field(pattern=r"^[A-Z][A-Z0-9]*[0-9]{3}$")
    category: Category
    severity: Severity
    scope: Scope
    title: str
    when: str
    message: str
    why: str
    fix: str
    example: str | None = None
    sources: list[str] = Field(min_length=1)
    supposes: dict[str, str] = Field(
        default_factory=dict,
        description="Scope compare: what the cause supposes about the measured machine (p2p: on|off, link: "
        "below|above, nvlink: as predicted); it is not offered where the files state otherwise",
    )

    @field_validator("supposes", mode="before")
    @classmethod
    def _yaml_on_off(cls, value: object) -> object:
        # YAML reads an unquoted `p2p: on` as true: the word the rule's author wrote is meant
        if isinstance(value, dict):
            return {
                k: {True: "on", False: "off"}.get(v, v) if isinstance(v, bool) else v
                for k, v in value.items()
            }
        return value


class Check(Strict):
    """A check that is a procedure, not a condition over facts (`advisor doctor` reading a device tree,
    `advisor validate` judging a quote's named parts), registered beside the rules so that every id the tool prints is documented (`advisor rules explain`)."""

    id: str = Field(pattern=r"^[A-Z][A-Z0-9]*[0-9]{3}$")
    category: Category
    severity: Severity
    scope: Literal["doctor", "quote"] = "doctor"
    claim: str | None = Field(
        None, description="The kind of quote claim it judges (pcie, p2p, ...); none for a check of parts"
    )
    title: str
    what: str = Field(description="What the check looks at and when it fires, in words")
    why: str
    fix: str
    example: str | None = None
    sources: list[str] = Field(min_length=1)


class CheckFile(Strict):
    kind: Literal["checks"]
    checks: list[Check]


class RuleFile(Strict):
    kind: Literal["rules"]
    rules: list[Rule]


class Finding(BaseModel):
    """A rule that fired, with its message filled in from the facts of its subject."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    id: str = Field(description="The rule's id; `advisor rules explain ID` documents it")
    category: Category
    severity: Severity
    message: str = Field(description="What is wrong, with the parts and numbers of this build")
    fix: str = Field(description="What to do about it")
    why: str = Field(description="Why it matters")
    subject: str = Field(description="'build', 'workload', 'GPU0', 'GPU0-GPU1', or the compared figure")

    @property
    def rank(self) -> tuple[int, str, str]:
        return SEVERITY_ORDER[self.severity], self.id, self.subject
