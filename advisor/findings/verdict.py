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
from advisor.i18n import N_, _, ngettext
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
            text = (
                _(
                    "GPU{index} ({model}) runs at Gen{gen} x{width} on chipset lanes (card: Gen{max_gen} x{max_width})"
                )
                if f"GPU{g.index}" in self.chipset
                else _("GPU{index} ({model}) runs at Gen{gen} x{width} (card: Gen{max_gen} x{max_width})")
            )
            out.append(
                text.format(
                    index=g.index,
                    model=g.gpu.name if g.gpu else "?",
                    gen=g.link.gen,
                    width=g.link.width,
                    max_gen=g.link.max_gen,
                    max_width=g.link.max_width,
                )
            )
        low = {f"GPU{g.index}" for g in self.low}
        out += [_("{gpu} is on chipset lanes").format(gpu=s) for s in sorted(self.chipset - low)]
        if self.staged:
            out.append(
                _("no P2P between the GPUs: copies go through host memory")
                if len(self.staged) == self.pairs
                else _("no P2P on {n} of {pairs} GPU pairs: their copies go through host memory").format(
                    n=len(self.staged), pairs=self.pairs
                )
            )
        if self.shm:
            out.append(
                _("NCCL uses host memory (SHM), not P2P, by default on every GPU pair")
                if len(self.shm) == self.pairs
                else _("NCCL uses host memory (SHM), not P2P, by default on {n} of {pairs} GPU pairs").format(
                    n=len(self.shm), pairs=self.pairs
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

    # the value is the English grade (the JSON's); faces show it translated (Verdict.title)
    NOT_READY = N_("Not ready as it stands")
    ONE_GPU_BELOW = N_("A one-GPU build, below its link")
    ONE_GPU = N_("A one-GPU build")
    WEAK = N_("A weak multi-GPU build")
    WORKABLE = N_("A workable multi-GPU build for jobs that talk little between GPUs")
    GOOD = N_("A good multi-GPU build")


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
        grade = _(self.grade.value)
        return _("{grade} as far as it could be judged").format(grade=grade) if self.unknown else grade

    @property
    def line(self) -> str:
        said = [
            (
                ngettext("{n} error", "{n} errors", n)
                if s == "error"
                else ngettext("{n} warning", "{n} warnings", n)
            ).format(n=n)
            for s, n in self.counts
            if n
        ]
        bits = _("; ").join(self.bits)
        if said:
            counts = _(" and ").join(said)
            return _("{title}: {bits} ({counts} below).").format(title=self.title, bits=bits, counts=counts)
        return _("{title}: {bits}.").format(title=self.title, bits=bits)


def verdict_line(pred: Prediction, findings: list[Finding]) -> str:
    return verdict(pred, findings).line


def verdict(pred: Prediction, findings: list[Finding]) -> Verdict:
    gpus = [g.node for g in pred.gpus]
    lim = limits(pred, findings)
    errors, low, chipset, staged = lim.errors, lim.low, lim.chipset, lim.staged
    nv = [p for p in pred.pairs if p.path.startswith("NV")]
    bits = []
    for g in low[:3]:
        text = (
            _("GPU{index} runs at Gen{gen} x{width} on chipset lanes (card: x{max_width})")
            if f"GPU{g.index}" in chipset
            else _("GPU{index} runs at Gen{gen} x{width} (card: x{max_width})")
        )
        bits.append(
            text.format(index=g.index, gen=g.link.gen, width=g.link.width, max_width=g.link.max_width)
        )
    if len(low) > 3:
        bits.append(_("{n} more GPUs below their link").format(n=len(low) - 3))
    if staged:
        bits.append(
            _("no P2P: GPU-to-GPU copies go through host memory")
            if len(staged) == len(pred.pairs)
            else _("no P2P on {n} of {pairs} GPU pairs").format(n=len(staged), pairs=len(pred.pairs))
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
        if len(nv) == len(pred.pairs):
            link = _("every GPU at its full link, NVLink on every pair")
        elif nv:
            link = (
                _("every GPU at its full link, CUDA P2P on every pair ({n} NVLink)")
                if shm
                else _("every GPU at its full link, P2P on every pair ({n} NVLink)")
            ).format(n=len(nv))
        else:
            link = (
                _("every GPU at its full link, CUDA P2P on every pair")
                if shm
                else _("every GPU at its full link, P2P on every pair")
            )
        if shm:
            link = (
                _("{link}, but NCCL uses host memory (SHM) on every pair by default: {reason}")
                if len(shm) == len(pred.pairs)
                else _("{link}, but NCCL uses host memory (SHM) on {n} of {pairs} pairs by default: {reason}")
            ).format(link=link, n=len(shm), pairs=len(pred.pairs), reason=shm[0].nccl_reason)
        bits.append(link)
    missing = sorted(
        {f for p in pred.pairs for x in (p.uni, p.bidi) for f in x.missing}
        | set(pred.allreduce.missing if pred.allreduce else [])
    )
    if missing:
        # what could not be judged is said in the headline: an unknown never reads as a good figure
        what = (
            _("the all-reduce is {unknown}")
            if pred.allreduce and pred.allreduce.value is None
            else _("some GPU-to-GPU copies are {unknown}")
        )
        bits.append(what.format(unknown=unknown_because(missing)))
    if len(gpus) == 1 and not bits:
        bits.append(_("GPU0 at Gen{gen} x{width}").format(gen=gpus[0].link.gen, width=gpus[0].link.width))
    counts = tuple((s, sum(1 for f in findings if f.severity == s)) for s in ("error", "warning"))
    return Verdict(grade, tuple(bits), counts, tuple(missing))


def _head(message: str, limit: int = 90) -> str:
    """A message's first clause, cut at a word."""
    head = message.split(": ")[0].split("：")[0].rstrip(".。")
    if len(head) <= limit:
        return head
    return head[:limit].rsplit(" ", 1)[0] + "..."
