"""Pieces every JSON output shares: a figure's derivation, a model constant, the output base class."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from advisor.model.constants import Constant
from advisor.model.predict import Figure


class Output(BaseModel):
    """An output model: fields left unset (derivations without --explain, optional sections) are not printed."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    def dump(self) -> dict[str, Any]:
        # by alias: a key that is a Python keyword ("class") is written as the output names it
        return self.model_dump(mode="json", exclude_unset=True, by_alias=True)

    def json_text(self) -> str:
        import json

        return json.dumps(self.dump(), indent=2)


class Derivation(Output):
    """How a predicted figure was computed (`--explain`)."""

    value: float | None = Field(description="The figure, rounded to 3 decimals")
    unit: str
    formula: str = Field(description="The formula in words and symbols")
    inputs: dict[str, Any] = Field(description="The inputs of the formula, by name")
    constants: list[str] = Field(description="Names of the constants used (see `constants`)")
    confidence: str = Field(
        description="calibrated (fitted on published measurements), low, or spec (read from a specification: "
        "a PCIe link's raw rate)"
    )
    typical: list[float] | None = Field(
        default=None, description="Typical range [lo, hi], from leave-one-out errors (rules/intervals.yaml)"
    )

    @classmethod
    def of(cls, f: Figure) -> Derivation:
        return cls(
            value=None if f.value is None else round(f.value, 3),
            unit=f.unit,
            formula=f.formula,
            inputs=f.inputs,
            constants=list(f.constants),
            confidence=f.confidence,
            **({"typical": list(f.interval)} if f.interval is not None else {}),
        )


class ConstantOut(Output):
    value: Any
    unit: str
    note: str | None = None
    sources: list[str] = Field(description="URLs, or calibration case ids (calibration/cases.yaml)")

    @classmethod
    def of(cls, c: Constant, note: bool = False) -> ConstantOut:
        if note:
            return cls(value=c.value, unit=c.unit, note=c.note, sources=list(c.sources))
        return cls(value=c.value, unit=c.unit, sources=list(c.sources))


def r1(x: float | None) -> float | None:
    return None if x is None else round(x, 1)
