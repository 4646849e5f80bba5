"""The measurement file: what a measurement tool printed, read into one common shape.

Every reader in `advisor.measure.parsers` returns a `Measurement`: the tool and file it came
from, what the file says about the machine, and a flat list of `Result`s. A result is one
number (or path label, or yes/no) for one GPU or one directed GPU pair, with its unit and a
note saying what exactly the tool measured, so predictions can be compared metric by metric.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from advisor.base.errors import Problem, UserError
from advisor.base.files import atomic_write
from advisor.base.numbers import json_loads
from advisor.base.yamlio import read_text

Metric = Literal[
    "h2d_gbps",
    "d2h_gbps",
    "h2d_all_gbps",
    "d2h_all_gbps",
    "uni_gbps",
    "bidi_gbps",
    "latency_us",
    "busbw_gbps",
    "algbw_gbps",
    "link_gen",
    "link_width",
    "link_gen_max",
    "link_width_max",
    "path",
    "p2p",
    "device_mem_gbps",
    "bf16_tflops",
    "bar1_mb",
    "acs_on",
    "iommu",
    "nccl_transport",
]

METRICS: tuple[str, ...] = Metric.__args__  # type: ignore[attr-defined]
_TEXT_METRICS = {"path", "iommu", "nccl_transport"}
_BOOL_METRICS = {"p2p", "acs_on"}
_INT_METRICS = {"link_gen", "link_width", "link_gen_max", "link_width_max", "bar1_mb"}


# Sane ranges: a measurement file's numbers are a tool's figures for one machine
MAX_INDEX = 512  # GPU indices below this (the readers refuse larger matrices: parsers/_common.MAX_GPUS)
MAX_RANKS = 65536  # ranks of a collective (a multi-node nccl-tests run)
MAX_VALUE = 1e15  # any figure: GB/s, us, TFLOPS, link gen/width (a bandwidth of 1e15 GB/s is a typo)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, defer_build=True)


class Result(_Strict):
    """One measured figure. A pair (a, b) is directional a->b, as the tool prints row->column."""

    metric: Metric
    gpu: int | None = Field(default=None, ge=0, lt=MAX_INDEX, description="GPU index, for per-GPU figures")
    a: int | None = Field(default=None, ge=0, lt=MAX_INDEX, description="Row GPU of a directed pair")
    b: int | None = Field(default=None, ge=0, lt=MAX_INDEX, description="Column GPU of a directed pair")
    value: int | float | str | bool = Field(description="A number, a path label ('PHB', 'NV4') or a flag")
    unit: str | None = Field(default=None, description="'GB/s', 'us', or None for labels and flags")
    p2p: bool | None = Field(default=None, description="Whether the tool says P2P was on for this number")
    gpus: int | None = Field(
        default=None, ge=1, le=MAX_RANKS, description=f"Rank count, for collective results (1 to {MAX_RANKS})"
    )
    size_bytes: int | None = Field(
        default=None, ge=0, lt=2**63, description="Message size behind the figure (below 2^63)"
    )
    tool: str
    note: str | None = None

    @model_validator(mode="after")
    def _value_fits_metric(self) -> Result:
        value = self.value
        if self.metric in _BOOL_METRICS:
            if not isinstance(value, bool):
                raise ValueError(f"{self.metric} must be true or false, not {value!r}")
        elif self.metric in _TEXT_METRICS:
            if not isinstance(value, str) or not value:
                raise ValueError(f"{self.metric} must be a label such as 'PHB', not {value!r}")
        else:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ValueError(f"{self.metric} must be a number, not {value!r}")
            # an int past float range would make isfinite raise OverflowError; compare it exactly
            if (isinstance(value, float) and not math.isfinite(value)) or not 0 <= value <= MAX_VALUE:
                shown = repr(value) if len(repr(value)) <= 40 else f"a {len(str(int(value)))}-digit number"
                raise ValueError(f"{self.metric} must be a number from 0 to {MAX_VALUE:g}, not {shown}")
            if self.metric in _INT_METRICS:
                if value != int(value):
                    raise ValueError(f"{self.metric} must be a whole number, not {value!r}")
                self.value = int(value)
        if (self.a is None) != (self.b is None):
            raise ValueError("a pair needs both a and b")
        return self


class GpuInfo(_Strict):
    """What a tool says about one GPU; everything but the index may be unknown."""

    index: int = Field(ge=0)
    name: str | None = None
    bus_id: str | None = Field(default=None, description="PCI address, e.g. '0000:41:00.0'")
    pcie_gen_current: int | None = Field(default=None, ge=1, le=7)
    pcie_width_current: int | None = Field(default=None, ge=1, le=32)
    pcie_gen_max: int | None = Field(default=None, ge=1, le=7)
    pcie_width_max: int | None = Field(default=None, ge=1, le=32)
    numa_node: int | None = Field(default=None, ge=0, le=1023, description="NUMA node, 0 to 1023")


class Source(_Strict):
    """Which tool wrote the file, and which file it was."""

    tool: str
    file: str
    tool_version: str | None = None


class Machine(_Strict):
    """What the file says about the machine it was run on."""

    gpus: list[GpuInfo] = Field(default_factory=list)
    driver: str | None = None
    cuda: str | None = None
    hostname: str | None = None
    nodes: int | None = Field(
        default=None, ge=1, le=MAX_RANKS, description="Hosts the run spanned (a multi-node nccl-tests run)"
    )
    hosts: list[str] = Field(
        default_factory=list, description="The hosts of a multi-node run, as it names them"
    )


class Measurement(_Strict):
    """Everything read from one tool output file."""

    schema_version: int = 1
    source: Source
    machine: Machine = Field(default_factory=Machine)
    results: list[Result] = Field(default_factory=list)
    unmeasured: list[str] = Field(
        default_factory=list,
        description="What the tool tried and could not measure, with the reason (an all-reduce that hung): "
        "no figure stands in for it",
    )

    def to_json(self) -> str:
        """The measurement as stable, indented JSON (the on-disk form)."""
        return self.model_dump_json(indent=2, exclude_none=True) + "\n"

    def save(self, path: str | Path) -> None:
        """Write the measurement as JSON so that a crash never leaves half a file. A caller of the
        library gets the folders made; the CLI's -o refuses a missing folder before it runs."""
        atomic_write(path, self.to_json(), parents=True)

    @classmethod
    def from_file(cls, path: str | Path) -> Measurement:
        """Load a measurement saved by `save`; mistakes become a UserError naming the file."""
        path = Path(path)
        text = read_text(path)
        try:
            data = json_loads(text, str(path))  # NaN, 1e309, a 5000-digit number: refused at the line
        except json.JSONDecodeError as exc:
            raise UserError(
                problems=[Problem(f"this is not valid JSON: {exc.msg}", file=str(path), line=exc.lineno)]
            ) from None
        except RecursionError:
            raise UserError(problems=[Problem("this JSON is nested too deeply", file=str(path))]) from None
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            from advisor.base.validation import problems_from

            problems = problems_from(exc, data, str(path), cls)
            # the commands that write measurement files (the hint once named a command that does not exist)
            problems[
                -1
            ].hint = "this file should be written by `advisor import`, `advisor bench` or `advisor probe`"
            raise UserError(problems=problems) from None

    def find(self, metric: str, **where: object) -> list[Result]:
        """The results of one metric whose fields equal the given values (e.g. a=0, b=1)."""
        return [
            r
            for r in self.results
            if r.metric == metric and all(getattr(r, k) == v for k, v in where.items())
        ]
