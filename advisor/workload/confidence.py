"""How sure a predicted speed-up is: the class of the job (what bounds it on this build), and the range the
published speed-ups of that class fell in when each was predicted without its own case.

The classes: serving (inference); for training, NVLink or P2P where NCCL's collectives run over them;
over NCCL's SHM transport (host memory) compute-bound where the N-GPU step is predicted to spend under
COMM_SHARE of its time in exposed communication and bubbles, staged comm-bound otherwise. `advisor accuracy --workload
--write-intervals` writes each class's range into rules/workload-intervals.yaml from the calibration cases
(never the held-out ones), and tests/test_workload_confidence.py keeps that file equal to the cases."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from advisor.base.resources import bundled
from advisor.base.yamlio import load_bundled
from advisor.i18n import N_, _

if TYPE_CHECKING:
    from advisor.workload.result import Analysis, Config

CLASSES = ("compute-bound", "staged comm-bound", "P2P", "NVLink", "serving")
# each class as a reader sees it (the JSON keeps the class's own name)
_CLASS_WORDS = {
    "compute-bound": N_("compute-bound"),
    "staged comm-bound": N_("staged comm-bound"),
    "serving": N_("serving"),
}
# a training step that spends less than this share exposed in communication and bubbles is compute-bound:
# its speed-up rests on the compute model, not on the interconnect's
COMM_SHARE = 0.10
PATH = "workload-intervals.yaml"
# the central share of a class's leave-one-out ratios its range spans (10th to 90th percentile)
COVERAGE = 0.80
# a class whose leave-one-out median error is above this, or whose range is wider than LARGE_SPAN either
# side of the prediction, is said to have large errors
LARGE_MEDIAN = 0.15
LARGE_SPAN = 0.25


def speedup_class(task: str, transport: str, exposed_share: float) -> str:
    """serving for inference; for training the transport where NCCL has NVLink or CUDA P2P; over SHM
    (host memory) compute-bound or staged comm-bound by the predicted exposed share of the step."""
    if task == "infer":
        return "serving"
    if transport in ("NVLink", "P2P"):
        return transport
    if exposed_share < COMM_SHARE:
        return "compute-bound"
    return "staged comm-bound"


def class_words(klass: str) -> str:
    """A class's name in the run's language (P2P and NVLink as they are)."""
    return _(_CLASS_WORDS[klass]) if klass in _CLASS_WORDS else klass


def config_class(task: str, transport: str, cfg: Config) -> str:
    split = cfg.split()
    return speedup_class(task, transport, split["exposed_comm"] + split["bubble"])


def class_of(a: Analysis) -> str | None:
    """The class of an analysis' N-GPU speed-up; None with one GPU or where the N-GPU time is unknown."""
    if a.gpus < 2 or a.many.time.value is None:
        return None
    return config_class(a.workload.task, a.fabric.transport, a.many)


@dataclass(frozen=True)
class Interval:
    klass: str
    lo: float  # the speed-up is typically between prediction x lo and prediction x hi
    hi: float
    figures: int  # the leave-one-out speed-ups the range rests on
    median_abs_error_pct: float
    large: bool

    def words(self) -> str:
        return (
            f"{self.klass}: {round(100 * COVERAGE)}% of its {self.figures} published speed-ups, each predicted "
            f"without its own case, fell within x{self.lo:.2f}-{self.hi:.2f} of the prediction (median error "
            f"{self.median_abs_error_pct:.0f}%)"
        )


@lru_cache(maxsize=1)
def intervals() -> dict[str, Interval]:
    path = bundled("rules") / PATH
    if not path.exists():
        return {}
    data = load_bundled(path)
    out = {}
    for name, c in (data.get("classes") or {}).items():
        out[name] = Interval(
            name,
            float(c["lo"]),
            float(c["hi"]),
            int(c["figures"]),
            float(c["median_abs_error_pct"]),
            bool(c["large_errors"]),
        )
    return out


def interval_for(klass: str | None) -> Interval | None:
    return None if klass is None else intervals().get(klass)


def is_large(median_abs_error: float, lo: float, hi: float) -> bool:
    return median_abs_error > LARGE_MEDIAN or lo < 1 - LARGE_SPAN or hi > 1 + LARGE_SPAN
