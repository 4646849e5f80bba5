"""What the workload model answers: one predicted configuration (a strategy on k GPUs, its time split and
memory), a change predicted, and the whole analysis of a job on a build (1 GPU against N)."""

from __future__ import annotations

from dataclasses import dataclass, field

from advisor.model.build import Build
from advisor.model.predict import Figure, Prediction
from advisor.workload.hardware import Fabric
from advisor.workload.memory import Memory
from advisor.workload.models import Workload


@dataclass
class Config:
    gpus: int
    strategy: str
    task: str
    memory: Memory
    time: Figure  # training: one optimizer step; inference: one batch of requests, prompt to last token
    throughput: Figure  # training: samples/s; inference: generated tokens/s
    compute: Figure
    exposed_comm: Figure
    bubble: Figure
    extra: dict[str, Figure] = field(default_factory=dict)  # optimizer, ttft, decode step, ...
    fabric: str = ""
    comm_bytes_per_sample: float = 0.0
    notes: list[str] = field(default_factory=list)

    @property
    def fits(self) -> bool:
        return self.memory.fits

    @property
    def unknown(self) -> bool:
        """Its time rests on a catalog value that is null (an NVLink bridge's rate): shown as unknown."""
        return self.time.value is None

    def split(self) -> dict[str, float]:
        """Fractions of the time in compute, exposed communication and bubbles (the rest: optimizer)."""
        total = self.time.value or 0.0
        if total <= 0:
            return {"compute": 0.0, "exposed_comm": 0.0, "bubble": 0.0}
        return {
            "compute": (self.compute.value or 0.0) / total,
            "exposed_comm": (self.exposed_comm.value or 0.0) / total,
            "bubble": (self.bubble.value or 0.0) / total,
        }


@dataclass
class Change:
    change: str
    why: str
    config: Config | None
    speedup: float | None  # with the change: N GPUs over 1 GPU
    vs_now: float | None  # with the change, N GPUs / today's N GPUs (throughput)
    fits: bool
    vs_one_gpu_today: float | None = None  # with the change, N GPUs / today's single GPU
    gpus: int | None = None  # the GPUs the change runs on (more than today's for "more GPUs")
    hardware: bool = False  # the change is other hardware, not a setting of this build
    summary: str = ""  # what the change does to this build, in words (advise.describe_change)
    # the flags that, added to the command as run, run the change; None where no flag says it (a line of
    # the build file, as an NVLink bridge)
    flags: list[str] | None = None
    # how much the change alters what is trained: 0 not at all, 1 a little (8-bit optimizer state), 2
    # LoRA's adapters instead of every weight, 3 adapters over a 4-bit base
    quality: int = 0
    cost: str = ""  # what a change that makes a job fit costs (speed, quality), in words


@dataclass
class Analysis:
    workload: Workload
    build: Build
    prediction: Prediction
    gpus: int
    one: Config
    many: Config
    fabric: Fabric
    speedup: Figure | None
    efficiency: Figure | None
    bottleneck: str = ""
    changes: list[Change] = field(default_factory=list)
    strategies: list[Config] = field(default_factory=list)
    skipped_strategies: dict[str, str] = field(default_factory=dict)
    assumptions: list[str] = field(default_factory=list)
    run_as: list[str] = field(default_factory=list)  # inference: the engine flags the prediction assumes
    fit_note: str = ""  # when nothing on this build fits: the least it needs, and what hardware would
    fit_least: str = ""  # the least memory any change on this build needs, in words
    fit_takes: str = ""  # when no catalog hardware fits either: how many of the largest card it would take
    # memory savers of this build that do not make the job fit alone: (name, flags, GB per GPU)
    fit_short: list[tuple[str, list[str], float]] = field(default_factory=list)
    not_modelled: list[str] = field(default_factory=list)  # changes that exist but advisor cannot predict
    command: str | None = None  # the command line the user ran, where a face knows it (the CLI)
    serving: list = field(
        default_factory=list
    )  # --request-rate: rate.Serving on 1 GPU and on N (None: no fit)
    # how sure the speed-up is: its class (advisor.workload.confidence) and that class's typical range
    speedup_class: str | None = None
    speedup_interval: object | None = None  # confidence.Interval, None where the class has no range


def ratio(a: Config, b: Config) -> float | None:
    """Throughput of a over b, where both fit and both are known."""
    if not (a.fits and b.fits) or not b.throughput.value or a.throughput.value is None:
        return None
    return a.throughput.value / b.throughput.value
