"""The search behind `advisor recommend`: enumerate, bound, assess, keep the Pareto front."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from advisor.assess import Assessment, Request, assess
from advisor.base.errors import UserError
from advisor.findings.collect import cpu_power_w, psu_needed_w, system_power_w
from advisor.i18n import N_, _, ngettext
from advisor.model.build import Build
from advisor.model.catalog.models import Board, Cpu, Gpu
from advisor.model.catalog.store import Catalog
from advisor.model.constants import const
from advisor.model.prices import Price, PriceBook
from advisor.model.suggest import plan_problem
from advisor.workload.advise import coolers_overlap, memory_need
from advisor.workload.memory import usable
from advisor.workload.models import Workload

MAX_GPUS = 8  # the most cards one box of the catalog's boards takes at x8 or better
DATA_PARALLEL = ("ddp", "dataparallel", "zero2", "zero3", "fsdp")
PSU_STEP_W = 50  # PSUs are sold in steps of 50 W and more: the size is rounded up to one


@dataclass(frozen=True)
class Constraints:
    budget: float | None = None  # in the price book's currency
    min_gpus: int = 1
    max_gpus: int = MAX_GPUS
    form: str | None = None  # tower, rack, or None for either
    circuit: tuple[float, float] | None = None  # the room's circuit: volts, amps
    used: bool = False  # a used price where a market exists, else new
    own: tuple[tuple[str, int], ...] = ()  # parts the user has: (catalog id, count); they cost nothing
    exclude_vendors: tuple[str, ...] = ()

    def circuit_w(self) -> float | None:
        """What the circuit carries continuously (continuous_load_share of volts x amps)."""
        if self.circuit is None:
            return None
        volts, amps = self.circuit
        return volts * amps * const("continuous_load_share", file="prices.yaml")


@dataclass(frozen=True)
class Line:
    """A part of a build with its price: `count` of it, `owned` of them the user has."""

    kind: str
    part: str
    name: str
    count: int
    owned: int
    unit: Price | None

    @property
    def total(self) -> float:
        return 0.0 if self.unit is None else self.unit.amount * (self.count - self.owned)


@dataclass
class Candidate:
    cpu: Cpu
    board: Board
    gpu: Gpu
    count: int
    lines: list[Line]
    price: float
    power_w: int | None
    psu_w: int | None
    build: Build
    assessment: Assessment | None = None
    speed: float | None = None
    unit: str = ""
    interval: tuple[float, float] | None = None
    speed_class: str | None = None
    limits: list[str] = field(default_factory=list)
    why: str = ""  # why it beats the next cheaper build on the front
    dominated_by: int | None = None  # off the front: the front build (its rank, from 1) that beats it
    fits: bool = True
    checked: bool = False  # assessed with plan's findings, none an error
    speedup: float | None = None  # its GPUs together over one of them, the job as asked

    @property
    def label(self) -> str:
        return f"{self.count}x {self.gpu.name} on {self.board.name} + {self.cpu.name}"

    @property
    def slots(self) -> list[str]:
        if self.assessment is None:
            return []
        placement = self.assessment.prediction.machine.placement
        return [placement.get(i, "?") for i in sorted(placement)]

    @property
    def stale(self) -> bool:
        return any(ln.unit is not None and ln.unit.stale and ln.count > ln.owned for ln in self.lines)

    @property
    def converted(self) -> bool:
        return any(ln.unit is not None and ln.unit.converted and ln.count > ln.owned for ln in self.lines)


@dataclass
class Counts:
    """How the search went: combinations enumerated, pruned by each bound before any prediction,
    assessed, set aside after the assessment (by why), and on the front."""

    enumerated: int = 0
    pruned: dict[str, int] = field(default_factory=dict)  # by why, in English (the same in every language)
    evaluated: int = 0
    rejected: dict[str, int] = field(default_factory=dict)
    front: int = 0
    said: dict[str, str] = field(default_factory=dict)  # each why in the run's language

    def prune(self, why: str) -> None:
        self.pruned[why] = self.pruned.get(why, 0) + 1
        self.said[why] = _(why)

    def reject(self, why: str, **values: str) -> None:
        """`why` a sentence of the catalog with its values (each translated where it is one too)."""
        key = why.format(**values)
        self.rejected[key] = self.rejected.get(key, 0) + 1
        self.said[key] = _(why).format(**{k: _(v) for k, v in values.items()})

    def words(self, why: str) -> str:
        return self.said.get(why, why)


# why a build was set aside: a sentence of the catalog (English) and its values
Reason = tuple[str, dict[str, str]]


@dataclass
class Answer:
    workload: Workload
    constraints: Constraints
    currency: str
    front: list[Candidate]
    others: list[Candidate]  # the best off-front build of each GPU model and count, with what beats it
    unpriced: list[tuple[str, str, str]]  # (kind, id, name) of parts left out for want of a price
    counts: Counts
    today: str
    notes: list[str] = field(default_factory=list)

    @property
    def cheapest(self) -> Candidate | None:
        return self.front[0] if self.front else None

    @property
    def fastest(self) -> Candidate | None:
        return self.front[-1] if self.front else None


# what limits a build's collectives, by NCCL's transport, in words
_TRANSPORT_WORDS = {
    "SHM": N_("no P2P: staged through host memory"),
    "P2P": N_("P2P over PCIe"),
    "NVLink": "NVLink",
}

# ------------------------------------------------------------------------------------ the search


def recommend(
    workload: Workload, catalog: Catalog, book: PriceBook, constraints: Constraints, bounds: bool = True
) -> Answer:
    """The Pareto front of price against the job's speed over the catalog's builds. `bounds=False` assesses
    every priced combination in full (the bounds' soundness is tested against it)."""
    c = constraints
    _check(workload, c, catalog)
    counts = Counts()
    owned = dict(c.own)
    unpriced: dict[str, tuple[str, str, str]] = {}
    excluded = {v.casefold() for v in c.exclude_vendors}

    def allowed(part) -> bool:
        return part.vendor.casefold() not in excluded

    gpus = [g for g in catalog.gpus if _gpu_candidate(g, c) and allowed(g)]
    # the cards you own are the build's, whatever the filters say (a partner card, a vendor excluded)
    own_gpu = next((g for g in catalog.gpus if g.id in owned), None)
    if own_gpu is not None:
        gpus = [own_gpu]
    own_cpu = next((p for p in catalog.cpus if p.id in owned), None)
    own_board = next((p for p in catalog.boards if p.id in owned), None)
    boards = [b for b in catalog.boards if b.slots and allowed(b) and _form_ok(b, c.form)]
    if own_board is not None:
        boards = [own_board]

    def price(part) -> Price | None:
        p = book.price(part.id, "used" if c.used else "new")
        if p is None and part.id not in owned:
            unpriced[part.id] = (part.kind, part.id, part.name)
        return p

    circuit = c.circuit_w()
    candidates: list[Candidate] = []
    for board in sorted(boards, key=lambda b: b.id):
        cpus = [
            p
            for p in catalog.cpus
            if p.socket.lower() == board.socket.lower()
            and (board.cpu_families is None or p.family in board.cpu_families)
            and allowed(p)
        ]
        if own_cpu is not None:
            cpus = [p for p in cpus if p.id == own_cpu.id]
        top = min(c.max_gpus, len(board.slots))
        for cpu in sorted(cpus, key=lambda p: p.id):
            for gpu in sorted(gpus, key=lambda g: g.id):
                for k in range(c.min_gpus, top + 1):
                    counts.enumerated += 1
                    if own_gpu is not None and k < owned[own_gpu.id]:
                        counts.prune(N_("fewer GPUs than you own"))
                        continue
                    if cpu.pcie.usable_lanes is None:
                        counts.prune(N_("CPU lanes unknown"))  # plan could not check the lane budget
                        continue
                    units = [(cpu, 1, "cpu"), (board, 1, "board"), (gpu, k, "gpu")]
                    lines = []
                    for part, n, kind in units:
                        have = min(owned.get(part.id, 0), n)
                        unit = price(part) if have < n else book.price(part.id)
                        lines.append(Line(kind, part.id, part.name, n, have, unit))
                    if any(ln.unit is None and ln.owned < ln.count for ln in lines):
                        counts.prune(N_("no price known"))
                        continue
                    total = sum(ln.total for ln in lines)
                    if bounds and c.budget is not None and total > c.budget:
                        counts.prune(N_("over budget"))
                        continue
                    if bounds and _split_impossible(workload, k):
                        counts.prune(N_("tensor parallel size does not divide the attention heads"))
                        continue
                    if bounds and not _memory_may_fit(workload, k, gpu):
                        counts.prune(N_("job does not fit in the cards' memory"))
                        continue
                    gpu_w = None if gpu.board_power_w is None else gpu.board_power_w * k
                    power = system_power_w(gpu_w, cpu_power_w(cpu))
                    if circuit is not None:
                        if power is None:
                            counts.prune(N_("power unknown (a circuit is given)"))
                            continue
                        if bounds and power > circuit:
                            counts.prune(N_("over the circuit's power"))
                            continue
                    psu = None if power is None else PSU_STEP_W * math.ceil(psu_needed_w(power) / PSU_STEP_W)
                    build = Build.model_validate(
                        {
                            "cpu": cpu.id,
                            "board": board.id,
                            "gpus": [{"model": gpu.id, "count": k}],
                            **({"psu_w": psu} if psu else {}),
                        }
                    )
                    candidates.append(Candidate(cpu, board, gpu, k, lines, total, power, psu, build))
    if bounds:
        candidates = _drop_dominated_cpus(candidates, counts)
    candidates.sort(key=lambda x: (x.price, -x.count, x.gpu.id, x.board.id, x.cpu.id))
    evaluated: list[Candidate] = []
    one_gpu: dict[str, float] = {}  # GPU id -> one GPU's throughput for this job (the speed bound)
    best = 0.0  # the fastest build so far that plan accepts; candidates come cheapest first
    speed_bound = bounds and _speed_bounded(workload)
    for cand in candidates:
        if speed_bound and cand.gpu.id in one_gpu and cand.count * one_gpu[cand.gpu.id] <= best:
            counts.prune(N_("cannot beat a cheaper build (k GPUs at most k x one GPU)"))
            continue
        counts.evaluated += 1
        reason = _evaluate(cand, workload, catalog, circuit)
        if reason:
            counts.reject(reason[0], **reason[1])
            continue
        a = cand.assessment.analysis  # type: ignore[union-attr]
        if a.one.fits and a.one.throughput.value:
            one_gpu[cand.gpu.id] = max(one_gpu.get(cand.gpu.id, 0.0), a.one.throughput.value)
        # only a build faster than every cheaper one can join the front: plan's findings are asked of it
        if (cand.speed or 0.0) > best:
            reason = _plan_check(cand, workload, catalog)
            if reason:
                counts.reject(reason[0], **reason[1])
                continue
            best = cand.speed or 0.0
        evaluated.append(cand)
    front, others = _front(evaluated, lambda c: _plan_check(c, workload, catalog), counts)
    counts.front = len(front)
    _explain(front, others)
    notes = []
    if any(x.converted for x in front):
        from advisor.model.prices import rate

        notes.append(_("Prices in another currency converted at {rate}.").format(rate=rate().words()))
    return Answer(
        workload,
        c,
        book.currency,
        front,
        others,
        sorted(unpriced.values()),
        counts,
        book.today.isoformat(),
        notes,
    )


def _check(w: Workload, c: Constraints, catalog: Catalog) -> None:
    if w.gpus is not None:
        raise UserError(
            _("--gpus picks GPUs of a given build; a recommendation sizes the build itself"),
            hint=_("give the range of GPU counts with --min-gpus and --max-gpus"),
        )
    if not (1 <= c.min_gpus <= c.max_gpus <= MAX_GPUS):
        raise UserError(
            _("the GPU count range must be 1 <= --min-gpus <= --max-gpus <= {most}").format(most=MAX_GPUS)
        )
    if w.baseline_batch or w.baseline_accum or w.baseline_recompute is not None:
        raise UserError(_("--baseline-* flags compare a published 1-GPU run; a recommendation has none"))
    gpus_owned = [(catalog.get(p), n) for p, n in c.own if getattr(catalog.get(p), "kind", "") == "gpu"]
    if len(gpus_owned) > 1:
        raise UserError(_("a build holds one GPU model: name one GPU model you own"))
    for part, n in gpus_owned:
        if n > c.max_gpus:
            raise UserError(
                _("you own {n} of {part}, more than --max-gpus {most}").format(
                    n=n, part=part.name, most=c.max_gpus
                )
            )


def _gpu_candidate(g: Gpu, c: Constraints) -> bool:
    """A card the search may put in a board's slot: an add-in card (not an SXM module) that the model can
    run a job on (its compute and memory figures are known); a passive or unknown cooler only where a rack
    server's fans cool it (checked per board); the catalog's reference GPUs (a partner card is the same
    chip in another cooler, and priced apart)."""
    return (
        g.form_factor == "pcie"
        and g.card_of is None
        and g.bf16_tflops_dense is not None
        and g.memory_bandwidth_gbps is not None
        and (c.form == "rack" or g.cooler not in (None, "passive"))
    )


def _form_ok(board: Board, form: str | None) -> bool:
    """tower: a board that goes in a case (no GPU server chassis); rack: any board (rack chassis take ATX
    and EEB boards too, and GPU servers are rack boxes)."""
    return not (form == "tower" and board.segment == "gpu-server")


def _split_impossible(w: Workload, k: int) -> bool:
    """Tensor parallel over k GPUs splits the attention heads k ways: where k does not divide them the
    workload model refuses the job, so the build is never assessed."""
    return w.strategy == "tp" and k > 1 and bool(w.model.heads) and w.model.heads % k != 0  # type: ignore[operator]


def _memory_may_fit(w: Workload, k: int, gpu: Gpu) -> bool:
    """False only where the memory model alone says the job cannot fit on k of the card: the same
    training_memory / inference_memory the assessment runs, at the least concurrency it could pick."""
    probe = w
    if w.task == "infer" and (w.max_concurrency or w.request_rate or w.max_num_seqs):
        probe = w.but(batch=1)  # these jobs size their concurrency to what fits: one sequence must
    need = memory_need(probe, k, gpu.vram_gb)
    if need is None:
        return True  # the split is not possible: the assessment says why
    return need <= (usable(gpu.vram_gb).value or 0.0)


def _cpu_key(cand: Candidate) -> tuple:
    return (cand.board.id, cand.gpu.id, cand.count)


def _beats(a: Cpu, b: Cpu, board: Board) -> bool:
    """CPU a is at least as good as CPU b on this board on every figure the model uses: the same family,
    vendor, socket count and inter-socket link, at least the lanes, generation and memory bandwidth, at most
    the power."""
    if a.family != b.family or a.cpu_vendor != b.cpu_vendor:
        return False
    if min(board.sockets, a.max_sockets) != min(board.sockets, b.max_sockets):
        return False
    if (a.inter_socket.type if a.inter_socket else None) != (b.inter_socket.type if b.inter_socket else None):
        return False
    if (a.pcie.usable_lanes or 0) < (b.pcie.usable_lanes or 0) or a.pcie.max_gen < b.pcie.max_gen:
        return False
    ma, mb = a.memory, b.memory
    if None in (ma.channels, ma.max_speed_mts, mb.channels, mb.max_speed_mts):
        return False
    if ma.channels < mb.channels or ma.max_speed_mts < mb.max_speed_mts:  # type: ignore[operator]
        return False
    pa, pb = cpu_power_w(a), cpu_power_w(b)
    return pa is not None and pb is not None and pa <= pb


def _drop_dominated_cpus(cands: list[Candidate], counts: Counts) -> list[Candidate]:
    """Of the builds that differ only in the CPU, drop each whose CPU another beats (_beats) at no higher
    price: it can be neither faster nor cheaper."""
    groups: dict[tuple, list[Candidate]] = {}
    for cand in cands:
        groups.setdefault(_cpu_key(cand), []).append(cand)
    out = []
    for group in groups.values():
        group.sort(key=lambda x: (x.price, x.cpu.id))
        for i, cand in enumerate(group):
            if any(
                o.price <= cand.price
                and _beats(o.cpu, cand.cpu, cand.board)
                and (o.price, o.cpu.id) < (cand.price, cand.cpu.id)
                for o in group[:i]
            ):
                counts.prune(N_("a CPU as good for less"))
                continue
            out.append(cand)
    return out


def _speed_bounded(w: Workload) -> bool:
    """Training of a data-parallel strategy: each GPU runs the one-GPU step on its own micro-batch and adds
    communication, so k GPUs reach at most k x one GPU's samples per second."""
    return w.task == "train" and w.strategy in DATA_PARALLEL


def _evaluate(cand: Candidate, w: Workload, catalog: Catalog, circuit: float | None) -> Reason | None:
    """Assess the build as `advisor plan` with the job does; '' when it joins the comparison, else why
    not."""
    pred, problem = plan_problem(cand.build, catalog)
    if problem is not None:
        return N_("does not plan: {why}"), {"why": _short_problem(problem)}
    if coolers_overlap(pred):
        return N_("a card's cooler covers the next card's slot"), {}
    try:
        a = assess(
            Request(
                cand.build, catalog, job="plan", workload=w, prediction=pred, advise=False, findings=False
            )
        )
    except UserError as exc:
        return N_("the job cannot run: {why}"), {"why": exc.render().split("\n")[0].split(" (")[0][:80]}
    cand.assessment = a
    an = a.analysis
    assert an is not None
    if not an.many.fits:
        cand.fits = False
        return N_("job does not fit in the cards' memory"), {}
    if w.request_rate and an.serving:
        serve = an.serving[-1]
        speed = None if serve is None else serve.capacity.value
        unit = "requests/s"
    else:
        speed, unit = an.many.throughput.value, an.many.throughput.unit
    if speed is None:
        return N_("speed unknown (a catalog figure is missing)"), {}
    cand.speed, cand.unit = speed, unit
    cand.speedup = an.speedup.value if an.speedup is not None and cand.count > 1 else None
    cand.speed_class = an.speedup_class
    iv = an.speedup_interval
    if iv is not None and cand.count > 1:
        cand.interval = (speed * iv.lo, speed * iv.hi)  # type: ignore[attr-defined]
    cand.limits = _limits(cand, circuit)
    return None


def _plan_check(cand: Candidate, w: Workload, catalog: Catalog) -> Reason | None:
    """The build assessed again with plan's findings, as `advisor plan` with the job gives them; None when
    none is an error, else which."""
    if cand.checked:
        return None
    a = assess(
        Request(
            cand.build,
            catalog,
            job="plan",
            workload=w,
            prediction=cand.assessment.prediction,  # type: ignore[union-attr]
            advise=False,
        )
    )
    errors = sorted({f.id for f in a.findings if f.severity == "error"})
    if errors:
        return N_("plan finds an error: {ids}"), {"ids": ", ".join(errors)}
    cand.assessment, cand.checked = a, True
    return None


def _short_problem(text: str) -> str:
    if "lanes reach" in text:
        return N_("a card gets no lanes")
    if "are placed" in text:
        return N_("not every card gets a slot")
    if "slots" in text:
        return N_("not enough slots")
    return text.split("(")[0].strip()[:60]


def _limits(cand: Candidate, circuit: float | None) -> list[str]:
    """What limits the build, in a few words each: lanes, P2P, memory, power."""
    a = cand.assessment
    assert a is not None and a.analysis is not None
    an = a.analysis
    out = []
    narrow = [g for g in a.prediction.gpus if g.node.link and g.node.link.width < g.node.link.max_width]
    slow = [g for g in a.prediction.gpus if g.node.link and g.node.link.gen < g.node.link.max_gen]
    if narrow or slow:
        widths = "/".join(f"x{g.node.link.width}" for g in a.prediction.gpus if g.node.link)
        gens = {g.node.link.gen for g in a.prediction.gpus if g.node.link}
        out.append(
            (_("lanes {widths} Gen{gen}") if slow else _("lanes {widths}")).format(
                widths=widths, gen=min(gens)
            )
        )
    if cand.count > 1:
        transport = an.fabric.transport
        out.append(_(_TRANSPORT_WORDS[transport]) if transport in _TRANSPORT_WORDS else transport)
    mem = an.many.memory
    if mem.total.value and mem.usable.value and mem.total.value > 0.9 * mem.usable.value:
        out.append(
            _("memory {need} of {usable} GB").format(
                need=f"{mem.total.value:.1f}", usable=f"{mem.usable.value:.1f}"
            )
        )
    if circuit is not None and cand.power_w is not None and cand.power_w > 0.85 * circuit:
        out.append(_("power {power} of {circuit} W").format(power=cand.power_w, circuit=f"{circuit:.0f}"))
    split = an.many.split()
    if cand.count > 1 and split["exposed_comm"] >= 0.2:
        out.append(_("communication {pct}% of each step").format(pct=f"{100 * split['exposed_comm']:.0f}"))
    return out


def _front(evaluated: list[Candidate], check, counts: Counts) -> tuple[list[Candidate], list[Candidate]]:
    """The builds no other beats on both price and speed (cheaper first, each faster than all cheaper
    ones), among those plan accepts; and the best off-front build of each other GPU model and count that
    plan accepts, with the front build beating it."""
    ordered = sorted(evaluated, key=lambda x: (x.price, -(x.speed or 0.0), x.gpu.id, x.board.id, x.cpu.id))
    front: list[Candidate] = []
    for cand in ordered:
        if cand.checked and (not front or (cand.speed or 0.0) > (front[-1].speed or 0.0)):
            front.append(cand)
    on = {id(x) for x in front}
    shown = {(x.gpu.id, x.count) for x in front}
    others: list[Candidate] = []
    for cand in sorted(ordered, key=lambda x: (-(x.speed or 0.0), x.price)):
        key = (cand.gpu.id, cand.count)
        if id(cand) in on or key in shown or not front:
            continue
        reason = check(cand)
        if reason:
            counts.reject(reason[0], **reason[1])
            continue
        shown.add(key)
        beater = next(
            i for i, f in enumerate(front) if f.price <= cand.price and (f.speed or 0) >= (cand.speed or 0)
        )
        cand.dominated_by = beater + 1
        others.append(cand)
    others.sort(key=lambda x: (x.price, x.gpu.id))
    return front, others


def _explain(front: list[Candidate], others: list[Candidate]) -> None:
    """One line per front build on what it buys over the next cheaper one, and per other build on what
    beats it."""
    for rank, (prev, cand) in enumerate(zip(front, front[1:], strict=False), start=1):
        cand.why = step_words(prev, cand, rank)
    if front:
        front[0].why = _("the cheapest build that runs the job")
    for cand in others:
        f = front[(cand.dominated_by or 1) - 1]
        why = _("#{rank} ({count}x {gpu}) is {ratio} as fast for {money} less").format(
            rank=cand.dominated_by,
            count=f.count,
            gpu=f.gpu.name,
            ratio=_ratio(f.speed, cand.speed),
            money=_money_diff(cand.price - f.price),
        )
        why = _own_speedup(cand, _difference(f, cand, why))
        if cand.limits:
            why = _("{why}; held back by: {limits}").format(why=why, limits=_(", ").join(cand.limits))
        cand.why = why


def _ratio(a: float | None, b: float | None) -> str:
    return f"{(a or 0) / b:.2f}x" if b else "?"


def _money_diff(x: float) -> str:
    return f"{x:,.0f}"


def step_words(prev: Candidate, cand: Candidate, rank: int) -> str:
    """What `cand` buys over `prev` (front build #rank, the next cheaper one): the speed ratio for the
    extra money, and the difference that brings it."""
    extra = cand.price - prev.price
    why = _("{ratio} the speed of #{rank} for {money} more").format(
        ratio=_ratio(cand.speed, prev.speed), rank=rank, money=f"{extra:,.0f}"
    )
    return _own_speedup(cand, _difference(cand, prev, why))


def _own_speedup(c: Candidate, why: str) -> str:
    """`why` and what its cards give together over one of them, the job as asked: the worth of the second
    card."""
    if c.speedup is None:
        return why
    return _("{why} ({count} {gpu} give {x}x one of them)").format(
        why=why,
        count=c.count,
        gpu=c.gpu.name.removeprefix("NVIDIA ").removeprefix("GeForce "),
        x=f"{c.speedup:.2f}",
    )


def _difference(a: Candidate, b: Candidate, why: str) -> str:
    """`why` and what a has that b lacks, in words: more or other GPUs, wider links, P2P, NVLink."""
    bits = []
    if a.gpu.id != b.gpu.id:
        bits.append(
            _("{gpu} ({vram} GB) instead of {other}").format(
                gpu=a.gpu.name, vram=f"{a.gpu.vram_gb:g}", other=b.gpu.name
            )
        )
    if a.count != b.count:
        bits.append(
            ngettext("{n} GPU instead of {m}", "{n} GPUs instead of {m}", a.count).format(
                n=a.count, m=b.count
            )
        )
    ta, tb = _transport(a), _transport(b)
    if ta != tb and a.count > 1 and b.count > 1:
        bits.append(_("{transport} instead of {other}").format(transport=ta, other=tb))
    wa, wb = _widths(a), _widths(b)
    if a.count == b.count and wa != wb:
        bits.append(_("links {widths} instead of {other}").format(widths=wa, other=wb))
    return _("{why}: {difference}").format(why=why, difference=_("; ").join(bits)) if bits else why


def _transport(c: Candidate) -> str:
    a = c.assessment
    return a.analysis.fabric.transport if a and a.analysis else "?"


def _widths(c: Candidate) -> str:
    a = c.assessment
    if a is None:
        return "?"
    return "/".join(f"x{g.node.link.width}" for g in a.prediction.gpus if g.node.link)
