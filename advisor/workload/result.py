"""One predicted configuration: a strategy on k GPUs, its time split and memory."""

from __future__ import annotations

from dataclasses import dataclass, field

from advisor.model.predict import Figure
from advisor.workload.memory import Memory


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
