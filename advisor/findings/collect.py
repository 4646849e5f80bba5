"""The facts of a build, its GPUs and pairs, a workload, or a compared figure, computed from the typed results.

Each function fills the models of advisor.findings.facts; constants come from rules/ with their
sources (rules/facts.yaml, rules/workload.yaml).
"""

from __future__ import annotations

from itertools import pairwise
from typing import TYPE_CHECKING

from advisor.findings.facts import BuildFacts, GpuFacts, PairFacts, WorkloadFacts
from advisor.i18n import _, ngettext
from advisor.model.catalog.store import Catalog, load_catalog
from advisor.model.constants import const
from advisor.model.machine import Machine, Node
from advisor.model.predict import Prediction

if TYPE_CHECKING:
    from advisor.workload.result import Analysis


def prediction_facts(
    pred: Prediction, catalog: Catalog | None = None
) -> tuple[BuildFacts, list[GpuFacts], list[PairFacts]]:
    """The facts rules of scope build, gpu and pair see. `catalog` is the one the build was resolved in."""
    m = pred.machine
    sw = m.software
    cpu0 = m.cpu
    alt = (
        alternative(catalog or load_catalog(), len(pred.gpus), _gpu_id(pred))
        if cpu0 and cpu0.segment == "desktop" and len(pred.gpus) >= 2
        else ""
    )
    gpus = [_gpu_facts(m, p.node, p.h2d.value, p.h2d_all.value, alt) for p in pred.gpus]
    by_index = {g.index: g for g in gpus}
    pairs = []
    for p in pred.pairs:
        ga, gb = by_index[p.a], by_index[p.b]
        pairs.append(
            PairFacts(
                a=p.a,
                b=p.b,
                model_a=ga.model,
                model_b=gb.model,
                path=p.path,
                p2p=p.p2p,
                via=p.via,
                nccl_transport=p.nccl_transport,
                nccl_p2p=p.nccl_p2p,
                p2p_reason=p.p2p_reason,
                nccl_reason=p.nccl_reason,
                uni=_r1(p.uni.value),
                bidi=_r1(p.bidi.value),
                latency=_r1(p.latency.value),
                geforce=ga.geforce or gb.geforce,
                nvlink_capable=ga.nvlink_capable and gb.nvlink_capable,
                bridged=p.path.startswith("NV"),
                nvswitch=pred.machine.nvswitch,
            )
        )
    cpu, build = m.cpu, m.build
    # a part whose power the catalog lacks leaves the sum unknown (never counted as 0 W); the known
    # parts still give a floor, which is enough to say a PSU is too small
    known_gpu = sum(g.power_w for g in gpus if g.power_w is not None)
    gpu_power = known_gpu if all(g.power_w is not None for g in gpus) else None
    one_cpu = cpu_power_w(cpu)
    cpu_power = None if one_cpu is None else one_cpu * max(1, m.sockets)  # every socket draws its CPU's
    system = system_power_w(gpu_power, cpu_power)
    known_power = system_power_w(known_gpu, cpu_power or 0)
    power_unknown = sorted({g.model for g in gpus if g.power_w is None})
    if cpu is not None and one_cpu is None:
        power_unknown.append(cpu.name)
    busbw = (pred.allreduce.value if pred.allreduce else 0.0) if len(gpus) > 1 else 0.0
    n = len(gpus)
    assumed = assumed_job(pred, catalog, n)
    facts = BuildFacts(
        cpu=cpu.name if cpu else "unknown CPU",
        cpu_vendor=m.cpu_vendor,
        cpu_segment=cpu.segment if cpu else "?",
        cpu_lanes=cpu.pcie.usable_lanes if cpu else None,
        **lane_budget_facts(m, catalog),
        board=m.system.name if m.system is not None else m.board.name if m.board else "explicit tree",
        nvswitch=m.nvswitch,
        board_segment=m.board.segment if m.board else "?",
        gpus=n,
        geforce_gpus=sum(1 for g in gpus if g.geforce),
        gpus_on_chipset=sum(1 for g in gpus if g.on_chipset),
        gpus_below_x16=sum(1 for g in gpus if g.width < g.max_width),
        sockets=m.sockets,
        gpu_sockets=len({g.socket for g in gpus}),
        total_vram_gb=sum(g.vram_gb for g in gpus),
        ram_gb=(build.ram_gb or 0) if build else 0,
        psu_w=(build.psu_w or 0) if build else 0,
        gpu_power_w=gpu_power,
        cpu_power_w=cpu_power,
        system_power_w=system,
        known_power_w=known_power,
        power_unknown=", ".join(power_unknown),
        psu_headroom=const("psu_headroom", file="facts.yaml"),
        psu_needed_w=None if system is None else psu_needed_w(system),
        psu_margin_w=None if system is None else ((build.psu_w or 0) if build else 0) - system,
        driver=sw.driver,
        iommu=sw.iommu,
        acs=sw.acs,
        large_bar=sw.large_bar,
        nccl_p2p_disable=sw.nccl_p2p_disable,
        nccl_p2p_level=sw.nccl_p2p_level or "default",
        framework=sw.framework or "unknown",
        staged_pairs=sum(1 for p in pairs if p.via == "staged"),
        p2p_not_used_by_nccl=sum(1 for p in pairs if p.p2p and not p.nccl_p2p and not p.bridged),
        unbridged_nvlink_pairs=sum(1 for p in pairs if p.nvlink_capable and not p.bridged),
        switched_pairs=sum(1 for p in pairs if p.path in ("PIX", "PXB")),
        busbw=_r1(busbw),
        unlinked=len(m.unlinked),
        unlinked_list=", ".join(m.unlinked) or "-",
        dimms=(build.dimms or 0) if build else 0,
        mem_channels=(cpu.memory.channels or 0) * m.sockets if cpu else 0,
        lower_confidence_values=lower_confidence_values(
            [cpu, m.board, m.system, *[g.gpu for g in m.gpus]], cpu_family=getattr(cpu, "family", None)
        ),
        unverified_parts=", ".join(
            sorted(
                {
                    x.name
                    for x in [cpu, m.board, m.system, *[g.gpu for g in m.gpus]]
                    if x is not None and not x.verified
                }
            )
        ),
        alternative=alternative(catalog or load_catalog(), n, _gpu_id(pred))
        if cpu and cpu.segment == "desktop" and n >= 2
        else "",
        p2p_cards=_p2p_cards(pred, catalog or load_catalog(), pairs),
        slot_overlaps=_overlaps(gpus),
        open_air_neighbours=_open_air_neighbours(gpus),
        fit_unchecked=len(_fit_unchecked(gpus)) if n >= 2 else 0,
        fit_unchecked_list="; ".join(_fit_unchecked(gpus)) if n >= 2 else "-",
        nvlink_bridges=len(m.nvlink),
        nvlink_invalid=", ".join(
            f"GPU{a}-GPU{b}"
            for a, b in m.nvlink
            if not (
                a in by_index and b in by_index and by_index[a].nvlink_capable and by_index[b].nvlink_capable
            )
        ),
        chipset_nvme=sum(
            1
            for x in m.nodes.values()
            if x.kind == "nvme" and x.parent and m.nodes[x.parent].kind == "chipset"
        ),
        hpwr_needed=sum(
            g.gpu.power_connector.count
            for g in m.gpus
            if g.gpu and g.gpu.power_connector and g.gpu.power_connector.type in ("12VHPWR", "12V-2x6")
        ),
        psu_12v_2x6=build.psu_12v_2x6 if build and build.psu_12v_2x6 is not None else -1,
        p2p_pairs=sum(1 for p in pairs if p.p2p and not p.bridged),
        **assumed,
        min_h2d=min((g.h2d for g in gpus), default=0),
        max_h2d=max((g.h2d for g in gpus), default=0),
    )
    return facts, gpus, pairs


def assumed_job(pred: Prediction, catalog: Catalog | None, n: int) -> dict:
    """WL001's figures: the default training job (advisor.workload.defaults, the one `advisor workload`
    and the Job view start from) run through the workload model on this build, so plan and workload give
    one gradient size and one all-reduce time for the same job."""
    out = {
        "assumed_job": "-",
        "grad_gb": 0.0,
        "grad_derivation": "-",
        "grad_seconds_1b3": 0.0,
        "assumed_backward_s": 0.0,
        "assumed_outcome": "-",
    }
    if n < 2 or not pred.allreduce or not pred.allreduce.value:
        return out
    from advisor.base.errors import UserError
    from advisor.workload import defaults
    from advisor.workload.result import ratio
    from advisor.workload.run import configure
    from advisor.workload.train import gradient_size, gradient_traffic

    w = defaults.workload("train")
    try:  # the step on 1 and on n GPUs, as `advisor workload` computes them (without its advice)
        one, many = configure(w, pred, 1)[0], configure(w, pred, n)[0]
    except UserError:
        # a card's peak or memory bandwidth is not in the catalog: the job's times are unknown, and WL001
        # (which needs them) is reported as not judged rather than filled in with zeros
        return out | {"grad_seconds_1b3": None, "assumed_backward_s": None}
    comm = many.exposed_comm.inputs
    speedup = ratio(many, one)
    if speedup is not None:
        outcome = _("{n} GPUs are predicted at {speedup}x one GPU for that job").format(
            n=n, speedup=f"{speedup:.2f}"
        )
    elif not many.fits:
        outcome = _(
            "that job does not fit on these cards ({needed} GB per GPU needed, {usable} GB usable)"
        ).format(needed=f"{many.memory.total.value:.1f}", usable=f"{many.memory.usable.value:.1f}")
    else:
        outcome = _("that job does not fit on one of these cards; on {n} it does").format(n=n)
    return {
        "assumed_job": defaults.describe(w),
        "grad_gb": round((gradient_size(w).value or 0.0) / 1e9, 1),
        "grad_derivation": gradient_traffic(w, n),
        "grad_seconds_1b3": round(comm.get("T_comm", 0.0), 2),
        "assumed_backward_s": round(comm.get("T_backward", 0.0), 2),
        "assumed_outcome": outcome,
    }


def lane_budget_facts(m: Machine, catalog: Catalog | None = None) -> dict:
    """The CPU lane budget of the socket that draws most: the lanes the devices take against the CPU's
    usable lanes, who takes them, what the board's catalog entry says loses lanes, and the sources."""
    budgets = m.lane_budget
    none = {
        "cpu_lanes_drawn": 0,
        "cpu_lanes_over": 0,
        "cpu_lane_takers": "-",
        "cpu_lane_rule": "",
        "cpu_lane_fix": "",
        "cpu_lane_sources": "",
        "cpu_lanes_unchecked": False,
    }
    if not budgets or m.cpu is None or m.board is None:
        return none
    cpu, board = m.cpu, m.board
    worst = max(budgets, key=lambda b: (b.over, b.drawn))
    takers = ", ".join(
        _("{device} in {slot} x{width}").format(device=what, slot=conn, width=w)
        for what, conn, w in worst.takers
    )
    if takers and len(budgets) > 1:
        takers = _("on CPU{socket} {takers}").format(socket=worst.socket, takers=takers)
    off = worst.off_by_rule
    if off:
        need = sorted({g.requires_cpu_lanes for g in board.lane_groups if g.requires_cpu_lanes})
        rule = ngettext(
            "{board} wires {slots} only for a CPU with {lanes} lanes, and it is already off here; beyond that "
            "its catalog entry gives no rule for which connector loses lanes, so the real split is the board "
            "manual's.",
            "{board} wires {slots} only for a CPU with {lanes} lanes, and they are already off here; beyond "
            "that its catalog entry gives no rule for which connector loses lanes, so the real split is the "
            "board manual's.",
            len(off),
        ).format(board=board.name, slots=_names(off), lanes="/".join(map(str, need)))
    else:
        rule = _(
            "{board}'s catalog entry gives no rule for which connector loses lanes with this CPU "
            "(no requires_cpu_lanes or sharing rule covers it), so the real split is the board manual's; "
            "the links shown assume every connector gets its lanes."
        ).format(board=board.name)
    from advisor.model.catalog.sources import best_source

    fix = ""
    if worst.over and catalog is not None:
        fits = [
            c
            for c in catalog.cpus
            if c.socket.lower() == board.socket.lower()
            and (board.cpu_families is None or c.family in board.cpu_families)
            and (c.pcie.usable_lanes or 0) >= worst.drawn
            and c.max_sockets >= m.sockets
        ]
        from advisor.model.suggest import plans

        for c in sorted(fits, key=lambda c: (c.pcie.usable_lanes, not c.verified, c.price_usd or 1e9, c.id)):
            if m.build is not None and plans(m.build.model_copy(update={"cpu": c.id}), catalog):
                fix = _("; or a CPU this board takes with the lanes: {cpu} ({lanes} lanes)").format(
                    cpu=c.name, lanes=c.pcie.usable_lanes
                )
                break
    return {
        "cpu_lanes_drawn": worst.drawn,
        "cpu_lanes_over": worst.over,
        "cpu_lane_takers": takers or "-",
        "cpu_lane_rule": rule,
        "cpu_lane_fix": fix,
        "cpu_lane_sources": f"{cpu.name} {best_source(cpu.sources)}; {board.name} {best_source(board.sources)}",
        "cpu_lanes_unchecked": any(b.usable is None and b.drawn > 0 for b in budgets),
    }


def _names(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def cpu_power_w(cpu) -> int | None:
    """A CPU's power for PSU sizing: its maximum (turbo/PPT) power, else its TDP; None when the catalog
    has neither (and 0 with no CPU at all: an explicit tree names none)."""
    if cpu is None:
        return 0
    return cpu.max_power_w or cpu.tdp_w


def system_power_w(gpu_power_w: int | None, cpu_power_w: int | None) -> int | None:
    """Board power of the system: the GPUs, the CPU(s) and an allowance for the rest (rules/facts.yaml);
    None when the GPUs' or the CPU's is unknown."""
    if gpu_power_w is None or cpu_power_w is None:
        return None
    return int(gpu_power_w + cpu_power_w + const("rest_of_system_w", file="facts.yaml"))


def _r1(x: float | None) -> float | None:
    return None if x is None else round(x, 1)


def psu_needed_w(system_w: int) -> int:
    """The PSU rating a system of that board power needs, with headroom for GPU transients."""
    return round(system_w * const("psu_headroom", file="facts.yaml"))


def _lane_fix(m: Machine, n: Node, on_chipset: bool, platform: str = "") -> str:
    """What would give this card more lanes on this board, from why its link is narrow (a fix
    that names an SSD the build does not have, or a board wiring the build already has, misleads)."""
    import re

    board = m.board
    reasons = list(n.link.limited_by)
    used = {x.connector for x in m.nodes.values() if x.connector and x.id != n.id}
    groups = {g.id: g for g in board.lane_groups} if board else {}
    free_cpu = [
        s
        for s in (board.slots if board else [])
        if s.name not in used
        and s.name != n.connector
        and getattr(groups.get(s.group), "source", None) == "cpu"
        and s.width > n.link.width
    ]
    steal = next((re.search(r"M\.2[_\w]*", r) for r in reasons if "M.2" in r), None)
    if steal:
        return _(
            "Move the SSD out of {socket} (it takes lanes of {slot}) to an M.2 socket that shares none"
        ).format(socket=steal.group(0), slot=n.connector)
    if free_cpu:
        s = max(free_cpu, key=lambda s: (s.width, -(s.position or 0)))
        fix = _("Move the card to {slot} (CPU lanes, x{width})").format(slot=s.name, width=s.width)
    elif on_chipset:
        fix = _(
            "Every CPU-wired slot of this board is taken: fewer cards, or a board with more CPU-wired slots"
        )
    elif n.link.shared:
        fix = _("The CPU's graphics lanes are split between the cards: no slot of this board gives each x16")
    else:
        fix = _("No other slot of this board gives the card more lanes")
    if platform:
        return _("{fix}; for x16 per GPU, a workstation platform, e.g. {platform}").format(
            fix=fix, platform=platform
        )
    return fix


def _gpu_facts(m: Machine, n: Node, h2d: float, h2d_all: float, platform: str = "") -> GpuFacts:
    g = n.gpu
    chain = [m.nodes[a].kind for a in m.ancestors(n.id)[1:]]
    conn = m.board.connector(n.connector) if m.board and n.connector else None
    return GpuFacts(
        index=n.index or 0,
        model=g.name if g else "?",
        id=n.part_id,
        slot=n.connector or "?",
        gen=n.link.gen,
        width=n.link.width,
        max_gen=n.link.max_gen,
        max_width=n.link.max_width,
        limited_by="; ".join(n.link.limited_by) or "-",
        lane_fix=_lane_fix(m, n, m.on_chipset(n.id), platform),
        on_chipset=m.on_chipset(n.id),
        behind_switch="switch" in chain,
        socket=n.socket,
        h2d=round(h2d, 1),
        h2d_all=round(h2d_all, 1),
        segment=g.segment if g else "?",
        geforce=bool(g and g.segment == "geforce"),
        p2p_stock=bool(g and g.p2p.stock_linux),
        nvlink_capable=bool(g and g.nvlink.supported),
        slot_width=(g.slot_width or 0) if g else 0,
        power_w=g.board_power_w if g else None,
        vram_gb=g.vram_gb if g else 0,
        physical=(conn.physical or 0) if conn else 0,
        cooler=(g.cooler or "?") if g else "?",
        form_factor=g.form_factor if g else "pcie",
        on_baseboard=m.nvswitch,
        position=n.position or 0,
    )


def _p2p_cards(pred: Prediction, catalog: Catalog, pairs: list[PairFacts]) -> str:
    """P2P001's cards: ones with P2P on the stock driver that plan on this build (advisor.model.suggest)."""
    from advisor.model.suggest import stock_p2p_cards

    build = pred.machine.build
    if build is None or not any(p.via == "staged" and p.geforce for p in pairs):
        return ""
    vram = min((g.node.gpu.vram_gb for g in pred.gpus if g.node.gpu), default=0.0)
    cards = stock_p2p_cards(catalog, build, vram)
    return (
        ", ".join(g.name for g in cards) if cards else _("none from the catalog plans cleanly on this build")
    )


def _gpu_id(pred: Prediction) -> str | None:
    """The build's (first) GPU, which a suggested platform is checked with."""
    return next((g.node.gpu.id for g in pred.gpus if g.node.gpu), None)


def alternative(catalog: Catalog, n_gpus: int, gpu: str | None) -> str:
    """A concrete workstation platform from this catalog on which n of the build's GPUs each get a CPU
    x16 link and plan cleanly (advisor.model.suggest); a kind of platform when none does."""
    from advisor.model.suggest import x16_platform

    found = x16_platform(catalog, n_gpus, gpu) if gpu else None
    if found is None:
        return _("a Threadripper, Xeon W or EPYC platform")
    cpu, board = found
    cpu_groups = {g.id for g in board.lane_groups if g.source == "cpu"}
    x16 = [c for c in board.slots if c.group in cpu_groups and c.width >= 16]
    return _("{cpu} on {board} ({n} CPU x16 slots)").format(cpu=cpu.name, board=board.name, n=len(x16))


def _open_air_neighbours(gpus: list[GpuFacts]) -> int:
    """Open-air cards with less than one free slot position between them (cards whose position and
    thickness are known: an unknown one is counted by _fit_unchecked, never taken as one slot)."""
    spans = sorted(
        (g.position, g.position + g.slot_width)
        for g in gpus
        if g.position and g.slot_width and g.cooler == "open-air"
    )
    return sum(1 for (_, a1), (b0, _) in pairwise(spans) if b0 - a1 < 1)


def _overlaps(gpus: list[GpuFacts]) -> int:
    spans = sorted((g.position, g.position + g.slot_width) for g in gpus if g.position and g.slot_width)
    return sum(1 for (_, a1), (b0, _) in pairwise(spans) if b0 < a1)


def _fit_unchecked(gpus: list[GpuFacts]) -> list[str]:
    """The cards whose fit could not be checked, each with what the catalog lacks."""
    out = []
    for g in gpus:
        if g.on_baseboard:
            continue  # an SXM module in its baseboard's socket: no slot, nothing to fit
        missing = [
            *(
                [_("{slot} has no slot position in the board's entry").format(slot=g.slot)]
                if not g.position
                else []
            ),
            *([_("{gpu} has no slot width in the catalog").format(gpu=g.model)] if not g.slot_width else []),
        ]
        if missing:
            out.append(_("GPU{index}: {missing}").format(index=g.index, missing=_(" and ").join(missing)))
    return out


def workload_facts(a: Analysis) -> WorkloadFacts:
    """The facts rules of scope workload see (`workload.` in a condition)."""
    from advisor.workload.advise import fit_fix

    w, many, one = a.workload, a.many, a.one
    split = many.split()
    gpus = [g.node for g in a.fabric.prediction.gpus]
    links = "/".join(f"x{n.link.width}" for n in gpus)
    gen = "/".join(sorted({f"Gen{n.link.gen}" for n in gpus}))
    per_micro = w.strategy in ("zero2", "zero3", "fsdp", "dataparallel")
    ddp_bytes = w.model.params * (
        4 if w.precision == "fp32" else const("grad_bytes", "ddp", file="workload.yaml")
    )
    samples = w.batch * w.accum * (a.gpus if w.strategy not in ("tp", "pp") else 1)
    step = many.extra.get("decode_step")
    decode_comm = (step.inputs.get("comm_s", 0.0) / step.value) if step is not None and step.value else 0.0
    by = {c.strategy: c for c in a.strategies}
    known = many.time.value is not None  # the interconnect's rate may rest on a null catalog value

    def sp(s: str) -> float | None:
        c = by.get(s)
        if not (c and c.fits and one.fits):
            return -1.0
        return None if c.throughput.value is None else round(c.throughput.value / one.throughput.value, 2)

    best = max(
        (c for c in a.strategies if c.fits and c.throughput.value is not None),
        key=lambda c: c.throughput.value,
        default=None,
    )
    return WorkloadFacts(
        task=w.task,
        strategy=w.strategy,
        strategy_name=w.strategy_name,
        model=w.model.label,
        model_key=w.model.key,
        params_b=round(w.model.params / 1e9, 2),
        precision=w.precision,
        batch=w.batch,
        seq=w.seq,
        accum=w.accum,
        gpus=a.gpus,
        gpu_model=", ".join(sorted({n.gpu.name for n in gpus if n.gpu})) or "?",
        links=f"{gen} {links}",
        transport=a.fabric.transport,
        busbw=_r1(a.fabric.busbw) if a.gpus > 1 else 0.0,
        speedup=round(a.speedup.value, 2) if a.speedup else -1.0,
        has_speedup=a.speedup is not None,
        efficiency=round(a.efficiency.value, 2) if a.efficiency else -1.0,
        comm_pct=round(100 * split["exposed_comm"]) if known else None,
        bubble_pct=round(100 * split["bubble"]) if known else None,
        compute_pct=round(100 * split["compute"]) if known else None,
        fits=many.fits,
        fits_one=one.fits,
        mem_gb=round(many.memory.total.value, 1),
        mem_one_gb=round(one.memory.total.value, 1),
        usable_gb=round(many.memory.usable.value, 1),
        per_micro_step=per_micro,
        reductions_per_step=w.accum if per_micro else 1,
        comm_gb_per_step=round(many.comm_bytes_per_sample * samples / 1e9, 2),
        ddp_comm_gb_per_step=round(ddp_bytes / 1e9, 2),
        decode_comm_pct=round(100 * decode_comm) if known else None,
        replicas_speedup=sp("replicas"),
        tp_speedup=sp("tp"),
        pp_speedup=sp("pp"),
        best_strategy=best.strategy if best else "-",
        best_tokens_per_s=round(best.throughput.value, 1) if best else 0.0,
        bottleneck=a.bottleneck,
        fit_fix=fit_fix(a),
    )


def lower_confidence_values(parts, cpu_family: str | None = None) -> str:
    """'part: field (basis)' for each value of these parts that rests on a secondary or inferred basis (a
    part's `basis` map): figures that use them are less certain than ones from primary pages. A basis that
    covers only some items of a board's `cpu_families` counts only when the build's CPU is of one of them."""
    from advisor.workload.hardware import LOW_PRECISION

    quantised_peaks = {field for field, _archs in LOW_PRECISION.values()}
    said: list[str] = []
    for part in parts:
        if part is None:
            continue
        for field, b in getattr(part, "basis", {}).items():
            if field == "cpu_families" and b.applies_to is not None and cpu_family not in b.applies_to:
                continue
            if field in quantised_peaks:  # read only by a quantised inference job, which says so itself
                continue
            if b.basis != "primary":
                item = f"{part.name}: {field} ({b.basis})"
                if item not in said:
                    said.append(item)
    return "; ".join(said)
