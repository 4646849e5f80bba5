"""One line that answers "is this a good multi-GPU build, and what matters most?", from the prediction and
its findings (the first line of `plan`, its `verdict` in --json, and the app's summary).

The grade follows what limits multi-GPU work, in order: something that stops the build (an error
finding); GPUs below their own link or on chipset lanes; GPU-to-GPU copies staged through host memory
(no P2P); otherwise every GPU at its full link with P2P or NVLink on every pair, and then whether NCCL,
which a training job's all-reduce runs on, uses that P2P by default or goes through host memory.

`limits` reads these once, for this headline and for `validate`'s verdict (which also will not pass a
build whose NCCL all-reduce goes through host memory by default).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from advisor.base.text import unknown_because
from advisor.findings.finding import Finding
from advisor.model.machine import Node
from advisor.model.predict import PairPrediction, Prediction


@dataclass
class Limits:
    """What holds a build back from full multi-GPU speed, as `plan`'s headline and `validate`'s verdict
    both read it (one reading, so the two faces never grade the same build differently)."""

    errors: list[Finding]
    low: list[Node]  # GPUs below their own card's link (width or generation)
    chipset: set[str]  # "GPU1": GPUs on chipset lanes (LANE002)
    staged: list[PairPrediction]  # no CUDA P2P: every copy between the two goes through host memory
    shm: list[PairPrediction]  # CUDA P2P, but NCCL's default is host memory (SHM) all the same
    pairs: int

    @property
    def holds_back(self) -> bool:
        """A GPU below its link or on chipset lanes, a pair without P2P, or NCCL over host memory."""
        return bool(self.low or self.chipset or self.staged or self.shm)

    def named(self) -> list[str]:
        """Each limit in plain words, worst first: what a quote of this build must not pass without."""
        out = []
        for g in self.low:
            where = " on chipset lanes" if f"GPU{g.index}" in self.chipset else ""
            out.append(
                f"GPU{g.index} ({g.gpu.name if g.gpu else '?'}) runs at Gen{g.link.gen} x{g.link.width}"
                f"{where} (card: Gen{g.link.max_gen} x{g.link.max_width})"
            )
        low = {f"GPU{g.index}" for g in self.low}
        out += [f"{s} is on chipset lanes" for s in sorted(self.chipset - low)]
        if self.staged:
            out.append(
                "no P2P between the GPUs: copies go through host memory"
                if len(self.staged) == self.pairs
                else f"no P2P on {len(self.staged)} of {self.pairs} GPU pairs: their copies go through "
                "host memory"
            )
        if self.shm:
            out.append(
                "NCCL uses host memory (SHM), not P2P, by default on "
                + (
                    "every GPU pair"
                    if len(self.shm) == self.pairs
                    else f"{len(self.shm)} of {self.pairs} GPU pairs"
                )
            )
        return out


def limits(pred: Prediction, findings: list[Finding]) -> Limits:
    gpus = [g.node for g in pred.gpus]
    return Limits(
        errors=[f for f in findings if f.severity == "error"],
        low=[g for g in gpus if g.link.width < g.link.max_width or g.link.gen < g.link.max_gen],
        chipset={f"GPU{n.index}" for n in gpus if pred.machine.on_chipset(n.id)},
        staged=[p for p in pred.pairs if not p.p2p],
        shm=[p for p in pred.pairs if p.p2p and p.nccl_transport == "SHM"],
        pairs=len(pred.pairs),
    )


class Grade(str, Enum):
    """How good a multi-GPU build is, worst first: what limits multi-GPU work decides it."""

    NOT_READY = "Not ready as it stands"
    ONE_GPU_BELOW = "A one-GPU build, below its link"
    ONE_GPU = "A one-GPU build"
    WEAK = "A weak multi-GPU build"
    WORKABLE = "A workable multi-GPU build for jobs that talk little between GPUs"
    GOOD = "A good multi-GPU build"


@dataclass(frozen=True)
class Verdict:
    """The headline, typed: its grade, what matters most in words, and what could not be judged."""

    grade: Grade
    bits: tuple[str, ...]  # what matters most, worst first
    counts: tuple[tuple[str, int], ...] = ()  # ("error", 1), ("warning", 6): said after the bits
    unknown: tuple[str, ...] = ()  # catalog values a figure of the headline could not be computed without

    @property
    def severity(self) -> str:
        """error, warning or ok: how a face colours the grade."""
        if self.grade is Grade.NOT_READY:
            return "error"
        return "warning" if self.grade in (Grade.WEAK, Grade.WORKABLE, Grade.ONE_GPU_BELOW) else "ok"

    @property
    def title(self) -> str:
        return self.grade.value + (" as far as it could be judged" if self.unknown else "")

    @property
    def line(self) -> str:
        said = [f"{n} {s}{'s' if n > 1 else ''}" for s, n in self.counts if n]
        tail = f" ({' and '.join(said)} below)" if said else ""
        return f"{self.title}: " + "; ".join(self.bits) + tail + "."


def verdict_line(pred: Prediction, findings: list[Finding]) -> str:
    return verdict(pred, findings).line


def verdict(pred: Prediction, findings: list[Finding]) -> Verdict:
    gpus = [g.node for g in pred.gpus]
    lim = limits(pred, findings)
    errors, low, chipset, staged = lim.errors, lim.low, lim.chipset, lim.staged
    nv = [p for p in pred.pairs if p.path.startswith("NV")]
    bits = []
    for g in low[:3]:
        where = " on chipset lanes" if f"GPU{g.index}" in chipset else ""
        bits.append(
            f"GPU{g.index} runs at Gen{g.link.gen} x{g.link.width}{where} (card: x{g.link.max_width})"
        )
    if len(low) > 3:
        bits.append(f"{len(low) - 3} more GPUs below their link")
    if staged:
        bits.append(
            "no P2P: GPU-to-GPU copies go through host memory"
            if len(staged) == len(pred.pairs)
            else f"no P2P on {len(staged)} of {len(pred.pairs)} GPU pairs"
        )
    if errors:
        grade = Grade.NOT_READY
        # errors the link bits do not already say (a chipset slot is said by its GPU's link)
        said = {f"GPU{g.index}" for g in low} | chipset
        for f in [f for f in errors if not (f.category == "lanes" and f.subject in said)][:2]:
            bits.insert(0, f"{f.id}: {_head(f.message)}")
    elif len(gpus) < 2:
        grade = Grade.ONE_GPU if not low else Grade.ONE_GPU_BELOW
    elif low:
        grade = Grade.WEAK
    elif staged:
        grade = Grade.WORKABLE
    else:
        grade = Grade.GOOD
        # what a training job uses, not only what CUDA allows: NCCL skips P2P through a host bridge at its
        # default level (P2P002), and then every all-reduce goes through host memory
        shm = lim.shm
        link = (
            "NVLink on every pair"
            if len(nv) == len(pred.pairs)
            else ("CUDA P2P on every pair" if shm else "P2P on every pair")
            + (f" ({len(nv)} NVLink)" if nv else "")
        )
        bits.append("every GPU at its full link, " + link)
        if shm:
            where = "every pair" if len(shm) == len(pred.pairs) else f"{len(shm)} of {len(pred.pairs)} pairs"
            bits[-1] += f", but NCCL uses host memory (SHM) on {where} by default: {shm[0].nccl_reason}"
    missing = sorted(
        {f for p in pred.pairs for x in (p.uni, p.bidi) for f in x.missing}
        | set(pred.allreduce.missing if pred.allreduce else [])
    )
    if missing:
        # what could not be judged is said in the headline: an unknown never reads as a good figure
        what = (
            "the all-reduce is"
            if pred.allreduce and pred.allreduce.value is None
            else "some GPU-to-GPU copies are"
        )
        bits.append(f"{what} {unknown_because(missing)}")
    if len(gpus) == 1 and not bits:
        bits.append(f"GPU0 at Gen{gpus[0].link.gen} x{gpus[0].link.width}")
    counts = tuple((s, sum(1 for f in findings if f.severity == s)) for s in ("error", "warning"))
    return Verdict(grade, tuple(bits), counts, tuple(missing))


def _head(message: str, limit: int = 90) -> str:
    """A message's first clause, cut at a word."""
    head = message.split(": ")[0].rstrip(".")
    if len(head) <= limit:
        return head
    return head[:limit].rsplit(" ", 1)[0] + "..."
