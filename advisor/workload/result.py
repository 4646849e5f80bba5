"""One predicted configuration (a strategy on k GPUs) and its JSON form."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from advisor.model.predict import Figure
from advisor.workload.memory import Memory


def _r(x: float | None, nd: int = 4) -> float | None:
    return None if x is None else round(x, nd)


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

    def to_json(self, explain: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {"gpus": self.gpus, "strategy": self.strategy, "fits": self.fits}
        if self.task == "train":
            out["step_time_s"] = _r(self.time.value) if self.fits else None
            out["samples_per_s"] = _r(self.throughput.value, 2) if self.fits else None
        else:
            out["tokens_per_s"] = _r(self.throughput.value, 2) if self.fits else None
            out["ttft_s"] = _r(self.extra["ttft"].value) if self.fits else None
            out["decode_ms_per_token"] = (
                _r((self.extra["decode_step"].value or 0) * 1e3, 3) if self.fits else None
            )
        out |= {
            "compute_s": _r(self.compute.value),
            "exposed_comm_s": _r(self.exposed_comm.value),
            "bubble_s": _r(self.bubble.value),
        }
        out |= {f"{k}_s": _r(v.value) for k, v in self.extra.items() if k not in ("ttft", "decode_step")}
        out["split"] = {k: round(v, 3) for k, v in self.split().items()}
        out["interconnect"] = self.fabric
        out["memory"] = self.memory.to_json(explain)
        if self.notes:
            out["notes"] = self.notes
        if explain:
            figs = {
                "time": self.time,
                "throughput": self.throughput,
                "compute": self.compute,
                "exposed_comm": self.exposed_comm,
                "bubble": self.bubble,
                **self.extra,
            }
            out["derivation"] = {k: f.to_json() for k, f in figs.items()}
        return out
