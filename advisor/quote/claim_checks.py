"""The claim checks: one registered check per kind of claim a quote makes, each with its id (CLM001...),
documented in rules/quote-claims.yaml (`advisor rules explain CLM003`), and one small judge per kind.

A judge decides a claim TRUE / FALSE / cannot tell ("unknown") against the prediction for the quote's own
GPUs, or, where the build could not be evaluated (a board the catalog lacks), against the parts the quote
names where those alone settle it. Most judges decide what the claim asserts and leave a negated claim
("no P2P") to be turned over in one place (`_turned`); the memory-channel judge and the PSU judge on the
parts alone say the negation themselves, in the words of their reasons.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from advisor.findings.finding import Finding
from advisor.i18n import _
from advisor.model.predict import Prediction
from advisor.quote.document import Claim

# A judge's answer: True, False or "unknown", and the reason in words.
Judged = tuple[Any, str]
# What a claim's truth needs only the named parts for: (None, "") where the parts do not settle it.
NOT_SETTLED: Judged = (None, "")

# P2P on a GeForce card through a patched kernel module (the stock driver has none)
_PATCHED = re.compile(
    r"aikitoria|tinygrad|patched|hacked|p2p[\s-]*(?:enabled\s+)?driver|open-gpu-kernel|魔改驱动|破解"
)


@dataclass(frozen=True)
class Evidence:
    """What a claim is judged on. `parts` (the GPUs with counts, the CPU, the CPU count and the bridges the
    quote lists) judges where the build itself could not be evaluated (a board not in the catalog);
    `stated_cpu_w` is the CPUs' power as the quote writes it ("EPYC 9575F 64C 400W", times the CPU count),
    used only where the catalog has no power for the CPU."""

    pred: Prediction | None
    findings: list[Finding]
    psu_w: int | None
    parts: tuple | None = None
    stated_cpu_w: int | None = None

    @cached_property
    def gpus(self) -> list:
        return [g.node for g in self.pred.gpus] if self.pred is not None else []

    @cached_property
    def pairs(self) -> list:
        return self.pred.pairs if self.pred is not None else []

    @cached_property
    def chipset(self) -> set[str]:
        """The GPUs on chipset lanes (LANE002's subjects)."""
        return {f.subject for f in self.findings if f.id == "LANE002"}


@dataclass(frozen=True)
class ClaimCheck:
    id: str
    about: str  # the kind of claim (Claim.about)
    judge: Callable[[Claim, Evidence], Judged]


def judge(
    c: Claim,
    pred: Prediction | None,
    findings: list[Finding],
    psu_w: int | None,
    parts: tuple[list, object] | None = None,
    stated_cpu_w: int | None = None,
) -> Judged:
    """The claim judged by the check registered for its kind (see `Evidence` for the arguments)."""
    check = CLAIM_CHECKS.get(c.about)
    if check is None:
        return "unknown", _("not a claim this tool checks")
    return check.judge(c, Evidence(pred, findings, psu_w, parts, stated_cpu_w))


def claim_id(about: str) -> str:
    """The id of the check that judges claims of this kind."""
    return CLAIM_CHECKS[about].id


def _turned(c: Claim, verdict: Any, why: str) -> Judged:
    """A negated claim ("no P2P") is true where what it denies is false, and the reason says so."""
    if c.negated and verdict in (True, False):
        return (not verdict), _("(the claim says not) {why}").format(why=why)
    return verdict, why


def _unbuilt(c: Claim, ev: Evidence, on_parts: Callable[[Claim, Evidence], Judged] | None) -> Judged:
    """The build could not be evaluated: the claim judged on the named parts, where they settle it."""
    verdict, why = on_parts(c, ev) if on_parts is not None and ev.parts is not None else NOT_SETTLED
    if verdict is None:
        return "unknown", _("the build could not be evaluated")
    return _turned(c, verdict, why)


def _count(parts) -> int:
    return sum(n for _, n in parts[0])


def _cpu_count(parts) -> int | None:
    return parts[2] if len(parts) > 2 else None


def _no_pair(ev: Evidence) -> Judged | None:
    n = len(ev.gpus)
    if n >= 2:
        return None
    return "unknown", _("the build has {n} GPU: there is no pair to judge").format(n=n)


# ---- the judges, one per kind of claim ----


def _pooled_memory(c: Claim, ev: Evidence) -> Judged:
    """Pooled GPU memory: never one space, whatever joins the cards."""
    if ev.pred is None:
        return _unbuilt(c, ev, _pooled_memory_parts)
    if (none := _no_pair(ev)) is not None:
        return none
    pairs = ev.pairs
    each = _each_holds(ev.gpus, c.memory_gb)
    if all(p.path.startswith("NV") for p in pairs):
        return _turned(
            c,
            False,
            _(
                "NVLink lets each GPU read the other's memory quickly, but the GPUs stay separate devices with "
                "their own memory{each}: frameworks split a model across them (tensor or pipeline parallel); "
                "there is no one memory pool"
            ).format(each=each),
        )
    nv = sum(p.path.startswith("NV") for p in pairs)
    bridge = next((f for f in ev.findings if f.category == "nvlink" and f.severity == "error"), None)
    joined = (
        _("only {nv} of {pairs} pairs are joined by NVLink").format(nv=nv, pairs=len(pairs))
        if nv
        else _("no NVLink joins them")
    )
    if bridge:
        # a Chinese finding's message ends in "。", an English one in "."
        joined = _("{joined} ({id}: {message})").format(
            joined=joined, id=bridge.id, message=bridge.message.rstrip(".。")
        )
    ways = ", ".join(sorted({_("host memory (staged)") if p.via == "staged" else p.via for p in pairs}))
    return _turned(
        c,
        False,
        _(
            "the cards' memory does not add up into one space: each GPU holds its own{each}, and {joined}; "
            "tensor (or pipeline) parallelism can split a model across them, but each card still holds its own "
            "part, and copies between the cards go over {ways}"
        ).format(each=each, joined=joined, ways=ways),
    )


def _pooled_memory_parts(c: Claim, ev: Evidence) -> Judged:
    if _count(ev.parts) < 2:
        return NOT_SETTLED
    return False, _(
        "GPU memory is never pooled: each GPU holds its own; a model larger than one GPU's memory must "
        "be split (tensor/pipeline parallel), whatever the board (it is not in the catalog)"
    )


def _each_holds(gpus, stated_gb: int | None) -> str:
    """ " (24 GB each; the 48 GB is their sum)": what each card holds, and what the claim's size is."""
    sizes = sorted({g.gpu.vram_gb for g in gpus if g.gpu and g.gpu.vram_gb})
    if not sizes:
        return ""
    each = _("{sizes} each").format(sizes=_(" or ").join(f"{s:g} GB" for s in sizes))
    total = sum(g.gpu.vram_gb for g in gpus if g.gpu and g.gpu.vram_gb)
    if stated_gb and stated_gb > sizes[-1]:
        return (
            _(" ({each}; the {stated} GB is their sum)")
            if abs(stated_gb - total) < 1
            else _(" ({each}; the {stated} GB is more than any one card holds ({total} GB in all))")
        ).format(each=each, stated=stated_gb, total=f"{total:g}")
    return _(" ({each})").format(each=each)


def _p2p(c: Claim, ev: Evidence) -> Judged:
    """P2P between the GPUs. A GeForce card has none with the stock driver; a claim that a patched kernel
    module enables it cannot be confirmed from the parts, so it is not called false."""
    verdict, why = _p2p_verdict(c, ev)
    # the reason may hold a sentence of the model in the run's language: its word for the stock driver
    stock = "stock" in why or _("stock driver") in why
    if verdict is False and _PATCHED.search(c.text.lower()) and stock:
        return "unknown", _(
            "GeForce cards have no P2P with the stock driver; the claim says a patched kernel module enables "
            "it, which the parts cannot confirm (measure it: p2pBandwidthLatencyTest)"
        )
    return verdict, why


def _p2p_verdict(c: Claim, ev: Evidence) -> Judged:
    if ev.pred is None:
        return _unbuilt(c, ev, _p2p_parts)
    if (none := _no_pair(ev)) is not None:
        return none
    pairs = ev.pairs
    no = [p for p in pairs if not p.p2p]
    if not no:
        return _turned(
            c,
            True,
            _("P2P on every pair ({pairs})").format(
                pairs=", ".join(f"GPU{p.a}-GPU{p.b} via {p.via}" for p in pairs)
            ),
        )
    why = _("; ").join(
        _("GPU{a}-GPU{b}: no P2P ({reason})").format(a=p.a, b=p.b, reason=p.p2p_reason or p.via)
        for p in no[:6]
    )
    if len(no) > 6:
        why = _("{why}; {n} more pairs").format(why=why, n=len(no) - 6)
    staged = [p.uni.value for p in no if p.via == "staged"]
    if staged and None not in staged:
        why = _(
            "{why}; every copy between them is staged through host memory (about {gbps} GB/s one way)"
        ).format(why=why, gbps=f"{min(staged):.1f}")
    elif staged:
        why = _("{why}; every copy between them is staged through host memory").format(why=why)
    return _turned(c, False, why)


def _p2p_parts(c: Claim, ev: Evidence) -> Judged:
    gpus = ev.parts[0]
    if _count(ev.parts) < 2:
        return NOT_SETTLED
    stock = [g for g, _n in gpus if g.p2p and g.p2p.stock_linux is False]
    if stock and len(stock) == len(gpus):
        names = ", ".join(sorted({g.name for g in stock}))
        return False, _(
            "{gpus}: no P2P over PCIe with the stock Linux driver, whatever the board (it is not in the "
            "catalog); copies between GPUs go through host memory"
        ).format(gpus=names)
    return NOT_SETTLED


def _nvlink(c: Claim, ev: Evidence) -> Judged:
    """NVLink between the GPUs: a finding that a bridge joins cards without the connector, the predicted
    NVLink pairs, and a claim that every pair is joined where a bridge joins only two cards."""
    if ev.pred is None:
        return _unbuilt(c, ev, _nvlink_parts)
    if len(ev.gpus) < 2 and ev.parts is not None:
        # "NVLink support (for pairing two cards)" of a card without the connector: false with one card too
        verdict, why = _nvlink_parts(c, ev)
        if verdict is False:
            return _turned(c, False, why)
    if (none := _no_pair(ev)) is not None:
        return none
    pairs = ev.pairs
    broken = [f for f in ev.findings if f.category == "nvlink" and f.severity == "error"]
    if broken:
        return _turned(c, False, _findings(broken))
    nv = [p for p in pairs if p.path.startswith("NV")]
    if c.scope == "pairs" and nv and len(nv) < len(pairs):
        rest = [p for p in pairs if not p.path.startswith("NV")]
        return _turned(
            c,
            False,
            _(
                "the claim says every pair is joined, but NVLink joins only {joined}; {rest} talk over PCIe (a "
                "bridge joins two cards)"
            ).format(
                joined=", ".join(f"GPU{p.a}-GPU{p.b}" for p in nv),
                rest=", ".join(f"GPU{p.a}-GPU{p.b}" for p in rest[:4]),
            ),
        )
    if nv:
        return _turned(
            c, True, _("NVLink between {pairs}").format(pairs=", ".join(f"GPU{p.a}-GPU{p.b}" for p in nv))
        )
    models = sorted({g.gpu.name for g in ev.gpus if g.gpu})
    return _turned(
        c,
        False,
        _(
            "no GPU pair is joined by NVLink ({models}: no NVLink connector, or no bridge in the quote); pairs "
            "talk over {paths}"
        ).format(models=", ".join(models), paths=", ".join(sorted({p.path for p in pairs}))),
    )


def _nvlink_parts(c: Claim, ev: Evidence) -> Judged:
    """The truth of "the cards are joined by NVLink" from the cards and bridges named (a negated claim is
    turned over by the caller)."""
    gpus = ev.parts[0]
    if not gpus:
        return NOT_SETTLED
    names = {g.name for g, _n in gpus}
    without = sorted({g.name for g, _n in gpus if g.nvlink is not None and g.nvlink.supported is False})
    if without and len(without) == len(names):
        return False, _("{gpus}: no NVLink connector, whatever the board or bridge").format(
            gpus=", ".join(without)
        )
    linkable = [g for g, _n in gpus if g.nvlink is not None and g.nvlink.supported]
    bridges = ev.parts[3] if len(ev.parts) > 3 else 0
    if len(linkable) == len(gpus) == 1 and _count(ev.parts) == 2:
        g = linkable[0]
        if bridges or not c.negated:
            return True, (
                _("two {gpu} cards join over a 2-way NVLink bridge, which the quote lists")
                if bridges
                else _("two {gpu} cards join over a 2-way NVLink bridge, which the claim says this pair has")
            ).format(gpu=g.name)
        return False, _("{gpu} pairs join only over an NVLink bridge, and the quote lists none").format(
            gpu=g.name
        )
    return NOT_SETTLED


def _numa(c: Claim, ev: Evidence) -> Judged:
    """Every GPU on one socket."""
    if ev.pred is None:
        return _unbuilt(c, ev, _numa_parts)
    sockets = {g.socket for g in ev.gpus}
    return _turned(c, len(sockets) <= 1, _("the GPUs hang off {n} socket(s)").format(n=len(sockets)))


def _numa_parts(c: Claim, ev: Evidence) -> Judged:
    if _cpu_count(ev.parts) == 1:
        return True, _(
            "one CPU socket: every GPU hangs off the same socket (the board is not in the catalog)"
        )
    return NOT_SETTLED


def _numa_split(c: Claim, ev: Evidence) -> Judged:
    """The GPUs split evenly over more than one socket."""
    if ev.pred is None:
        return _unbuilt(c, ev, None)
    per: dict = {}
    for g in ev.gpus:
        per[g.socket] = per.get(g.socket, 0) + 1
    even = len(per) > 1 and len(set(per.values())) == 1
    return _turned(
        c,
        even,
        _("GPUs per socket: {counts}").format(
            counts=", ".join(f"CPU{s}: {n}" for s, n in sorted(per.items()))
        ),
    )


def _psu(c: Claim, ev: Evidence) -> Judged:
    """The PSU's wattage against the build's power, by the rules PWR001/PWR004 judge it with."""
    if ev.pred is None:
        if ev.parts is not None and ev.psu_w:
            parts = ev.parts
            return _psu_from_parts(
                c, ev.psu_w, *parts[:2], stated_cpu_w=ev.stated_cpu_w, cpu_count=parts[2] or 1
            )
        return _unbuilt(c, ev, None)
    return _turned(c, *_psu_on_build(c, ev))


def _psu_on_build(c: Claim, ev: Evidence) -> Judged:
    findings, gpus, psu_w = ev.findings, ev.gpus, ev.psu_w
    bad = [f for f in findings if f.category == "power" and f.severity == "error"]
    if bad:
        return False, _findings(bad)
    if not gpus:
        return "unknown", _("no GPU in the build")
    unknown = sorted({g.gpu.name for g in gpus if g.gpu and not g.gpu.board_power_w})
    if unknown:
        return "unknown", _("the board power of {gpus} is not known").format(gpus=", ".join(unknown))
    if psu_w is None:
        return "unknown", _("no PSU wattage in the quote")
    if any(f.id == "PWR005" for f in findings):
        if ev.stated_cpu_w:
            gpu_w = sum(g.gpu.board_power_w for g in gpus)
            return _psu_margin(c, psu_w, gpu_w, ev.stated_cpu_w, "states")
        return "unknown", _("the CPU's power is not in the catalog, so the PSU's margin cannot be told")
    thin = [f for f in findings if f.category == "power" and f.severity == "warning" and f.id == "PWR004"]
    if not thin:
        return True, _("the PSU carries the board power with the headroom GPU power spikes need")
    if c.sustained:
        return True, _(
            "the claim is about the sustained load, which the PSU carries: {finding} (the spikes are another "
            "matter: ask whether the PSU is ATX 3.x)"
        ).format(finding=thin[0].message)
    if c.margin:
        return False, _(
            "{finding} The claim promises headroom, and this is below the headroom the GPUs' power spikes "
            "call for"
        ).format(finding=thin[0].message)
    return "unknown", _(
        "{finding} Enough with an ATX 3.x PSU (specified for such spikes), marginal with an older one: "
        "ask which the PSU is"
    ).format(finding=thin[0].message)


def _psu_margin(c: Claim, psu_w: int, gpu_w: int, cpu_w: int, how: str) -> Judged:
    """A PSU judged on the CPU power the quote itself states (the catalog lacks it), by the same rule as
    PWR001/PWR004: below the sustained load false; between it and the spike headroom true for a claim
    about the sustained load, false for one that promises headroom, else cannot tell."""
    from advisor.findings.collect import psu_needed_w, system_power_w

    system = system_power_w(gpu_w, cpu_w)
    need = psu_needed_w(system)
    base = (
        _(
            "{psu} W for about {system} W of board power, counting the CPUs at the {cpu} W the quote states (the "
            "catalog has no power for this CPU)"
        )
        if how == "states"
        else f"{{psu}} W for about {{system}} W of board power, counting the CPUs at the {{cpu}} W the quote "
        f"{how} (the catalog has no power for this CPU)"
    ).format(psu=psu_w, system=system, cpu=cpu_w)
    if psu_w >= need:
        return True, _("{base}: at least the {need} W it needs with headroom for GPU spikes").format(
            base=base, need=need
        )
    if psu_w < system:
        return False, _("{base}: below the sustained load").format(base=base)
    if c.sustained:
        return True, _("{base}: above the sustained load, which is what the claim is about").format(base=base)
    if c.margin:
        return False, _("{base}: below the {need} W the headroom for GPU spikes calls for").format(
            base=base, need=need
        )
    return "unknown", _(
        "{base}: above the sustained load, below the {need} W spike headroom (ATX 3.x or not)"
    ).format(base=base, need=need)


def _psu_from_parts(
    c: Claim, psu_w: int, gpus: list, cpu, stated_cpu_w: int | None = None, cpu_count: int = 1
) -> Judged:
    from advisor.findings.collect import cpu_power_w, psu_needed_w, system_power_w

    if not gpus or cpu is None:
        return "unknown", _("the quote names no GPU or no CPU from the catalog")
    unknown = sorted({g.name for g, _n in gpus if not g.board_power_w})
    if unknown:
        return "unknown", _("the board power of {gpus} is not known").format(gpus=", ".join(unknown))
    gpu_w = sum(g.board_power_w * n for g, n in gpus)
    own = cpu_power_w(cpu)
    cpu_w = own * cpu_count if own else stated_cpu_w
    if cpu_w is None:  # never counted as 0 W: the claim cannot be told
        return "unknown", _(
            "the power of {cpu} is not known (the catalog has no max_power_w or tdp_w)"
        ).format(cpu=cpu.name)
    need = psu_needed_w(system_power_w(gpu_w, cpu_w))
    ok = psu_w >= need
    verdict = ok if not c.negated else not ok
    return verdict, (
        _(
            "{psu} W for about {system} W of board power: at least the {need} W it needs (board not in the "
            "catalog; power from the GPUs and CPU named)"
        )
        if ok
        else _(
            "{psu} W for about {system} W of board power: below the {need} W it needs (board not in the catalog; "
            "power from the GPUs and CPU named)"
        )
    ).format(psu=psu_w, system=system_power_w(gpu_w, cpu_w), need=need)


def _full_speed(c: Claim, ev: Evidence) -> Judged:
    """Every GPU at its own card's maximum link, on CPU lanes."""
    if ev.pred is None:
        return _unbuilt(c, ev, _link_parts)
    gpus = ev.gpus
    if not gpus:
        return "unknown", _("no GPU in the build")
    slow = _below(gpus, ev.chipset)
    if slow:
        return _turned(c, False, _("not full speed: {links}").format(links=_short_of(slow, ev.chipset)))
    return _turned(c, True, _("every GPU links at its own maximum: {links}").format(links=_links(gpus)))


def _pcie(c: Claim, ev: Evidence) -> Judged:
    """The PCIe link the claim names (generation, width; or the link it says it runs at) against each
    GPU's predicted link; an x16 link behind the chipset is not the CPU x16 such a claim means."""
    if ev.pred is None:
        return _unbuilt(c, ev, _link_parts)
    gpus = ev.gpus
    if not gpus:
        return "unknown", _("no GPU in the build")
    subject = gpus[:1] if c.scope == "one" else gpus
    if c.runs_at:
        gen, width = c.runs_at
        ok = all(g.link.gen >= gen and g.link.width >= width for g in subject)
        return _turned(
            c,
            ok,
            _("the claim states Gen{gen} x{width}; predicted links: {links}").format(
                gen=gen, width=width, links=_links(subject)
            ),
        )
    width = c.width or 16
    bad = [g for g in subject if g.link.width < width or (c.gen and g.link.gen < c.gen)]
    if bad:
        if c.gen and any(g.link.max_gen < c.gen for g in bad):
            return _turned(
                c,
                False,
                _(
                    "predicted links: {links} (a card whose maximum is below Gen{gen} cannot link at Gen{gen})"
                ).format(links=_links(gpus), gen=c.gen),
            )
        return _turned(c, False, _("predicted links: {links}").format(links=_links(gpus)))
    shared = [g for g in subject if f"GPU{g.index}" in ev.chipset]
    if shared:
        # an x16 link behind the chipset shares its uplink with every SSD and port: not the CPU x16
        # the claim means
        return _turned(
            c,
            False,
            _("on chipset lanes, behind the uplink it shares: {links}").format(
                links=_short_of(shared, ev.chipset)
            ),
        )
    return _turned(c, True, _("predicted links: {links}").format(links=_links(gpus)))


def _link_parts(c: Claim, ev: Evidence) -> Judged:
    """A link claim false from the parts alone: a generation above every card's own, or a CPU with too
    few lanes for every GPU at the width claimed (the card's own limit said first)."""
    gpus, cpu = ev.parts[0], ev.parts[1]
    cpu_count = _cpu_count(ev.parts)
    wrong = []
    if c.about == "pcie" and gpus and c.gen:
        top = max((g.pcie.gen for g, _n in gpus if g.pcie and g.pcie.gen), default=None)
        if top is not None and c.gen > top:
            wrong.append(
                _(
                    "every card here is at most PCIe Gen{top}: none can link at Gen{gen}, whatever the board"
                ).format(top=top, gen=c.gen)
            )
    if gpus and cpu is not None:
        lanes = getattr(getattr(cpu, "pcie", None), "usable_lanes", None)
        width = c.width or 16 if c.about == "pcie" else 16
        count = _count(ev.parts)
        if lanes and count * width > lanes * (cpu_count or 1):
            wrong.append(
                _(
                    "{n}x {cpu} gives {lanes} usable PCIe lanes: {gpus} GPUs cannot each get x{width}, whatever "
                    "the board"
                ).format(
                    n=cpu_count or 1, cpu=cpu.name, lanes=lanes * (cpu_count or 1), gpus=count, width=width
                )
            )
    return (False, _("; ").join(wrong)) if wrong else NOT_SETTLED


def _findings(findings: list[Finding]) -> str:
    """The findings that settle a claim, each with its id, in the words of the run's language."""
    return _("; ").join(f"{f.id}: {f.message}" for f in findings)


def _links(gpus) -> str:
    return _("; ").join(
        _("GPU{index} in {slot}: Gen{gen} x{width}").format(
            index=g.index, slot=g.connector, gen=g.link.gen, width=g.link.width
        )
        for g in gpus
    )


def _below(gpus, chipset: set[str]) -> list:
    """GPUs below their own card's link or on chipset lanes (behind the uplink every SSD and port shares):
    neither is full speed, whatever the slot is called."""
    return [
        g
        for g in gpus
        if g.link.width < g.link.max_width or g.link.gen < g.link.max_gen or f"GPU{g.index}" in chipset
    ]


def _short_of(gpus, chipset: set[str]) -> str:
    return _("; ").join(
        (
            _(
                "GPU{index} in {slot} runs Gen{gen} x{width} on chipset lanes (card: Gen{max_gen} x{max_width})"
            )
            if f"GPU{g.index}" in chipset
            else _("GPU{index} in {slot} runs Gen{gen} x{width} (card: Gen{max_gen} x{max_width})")
        ).format(
            index=g.index,
            slot=g.connector,
            gen=g.link.gen,
            width=g.link.width,
            max_gen=g.link.max_gen,
            max_width=g.link.max_width,
        )
        for g in gpus
    )


def _memory_channels(c: Claim, ev: Evidence) -> Judged:
    """Memory channels judged against the CPU's own: a platform cannot run more channels than its CPU has."""
    parts = ev.parts
    cpu = parts[1] if parts is not None and len(parts) > 1 else None
    mem = getattr(cpu, "memory", None)
    if cpu is None or mem is None or not mem.channels:
        return "unknown", _("the CPU's memory channels are not known (no CPU from the catalog in the quote)")
    if c.channels is None:
        return "unknown", _("the number of channels the claim means is not clear")
    ok = c.channels <= mem.channels
    verdict = ok if not c.negated else not ok
    return (
        verdict,
        (
            _("{cpu} has {n} memory channels per socket ({type}); the claim says {claimed}")
            if mem.type
            else _("{cpu} has {n} memory channels per socket; the claim says {claimed}")
        ).format(cpu=cpu.name, n=mem.channels, type=mem.type, claimed=c.channels),
    )


def _scaling(c: Claim, ev: Evidence) -> Judged:
    """ "Scales linearly": never settled by a parts list."""
    return "unknown", _(
        "how training or inference scales over several GPUs depends on the model, the parallelism and the "
        "links between the GPUs; no parts list makes it lossless: `advisor plan BUILD --train MODEL` "
        "predicts it for this build"
    )


def _fit(c: Claim, ev: Evidence) -> Judged:
    """Slot spacing and airflow: false where FIT001/FIT002 fire, else the case decides."""
    if ev.pred is None:
        return _unbuilt(c, ev, None)
    crowded = [f for f in ev.findings if f.id in ("FIT001", "FIT002")]
    if crowded:
        return _turned(c, False, _findings(crowded))
    return "unknown", _(
        "slot spacing, airflow and clearance depend on the case and the cards' own thickness, which the "
        "catalog does not hold: ask for the case model and each card's slot width, or a photo of the build"
    )


# The registry, in the order claims_in reads a sentence for them; each id is documented in
# rules/quote-claims.yaml (tests/test_rules.py holds the two to the same ids and kinds).
CLAIM_CHECKS: dict[str, ClaimCheck] = {
    c.about: c
    for c in (
        ClaimCheck("CLM001", "pooled_memory", _pooled_memory),
        ClaimCheck("CLM002", "p2p", _p2p),
        ClaimCheck("CLM003", "nvlink", _nvlink),
        ClaimCheck("CLM004", "numa", _numa),
        ClaimCheck("CLM005", "numa_split", _numa_split),
        ClaimCheck("CLM006", "psu", _psu),
        ClaimCheck("CLM007", "full_speed", _full_speed),
        ClaimCheck("CLM008", "pcie", _pcie),
        ClaimCheck("CLM009", "memory_channels", _memory_channels),
        ClaimCheck("CLM010", "scaling", _scaling),
        ClaimCheck("CLM011", "fit", _fit),
    )
}
