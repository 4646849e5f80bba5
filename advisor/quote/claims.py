"""Claims: what a sentence of the quote asserts about this build, and whether the prediction bears it out.

A claim is parsed into its property (PCIe link, P2P, NVLink, pooled GPU memory, NUMA, PSU, full speed),
the value it asserts (Gen5, x16, x8/x8; or absence: "no P2P") and whom it is about (every GPU unless it
names one), and judged TRUE / FALSE / cannot tell against the prediction for the quote's own GPUs. A
claim that says the link it really runs at ("runs at PCIe 4.0 x16, the GPU's limit") is judged on that.
"""

from __future__ import annotations

import re
from typing import Any

from advisor.findings.finding import Finding
from advisor.i18n import _
from advisor.model.predict import Prediction
from advisor.quote.reader import Claim
from advisor.quote.vocab import vocab

ORDER = (
    "pooled_memory",
    "p2p",
    "nvlink",
    "numa",
    "numa_split",
    "psu",
    "full_speed",
    "pcie",
    "memory_channels",
    "scaling",
    "fit",
)
_CHANNELS = {
    "two": 2,
    "dual": 2,
    "双": 2,
    "four": 4,
    "quad": 4,
    "四": 4,
    "six": 6,
    "hexa": 6,
    "六": 6,
    "eight": 8,
    "octa": 8,
    "八": 8,
    "twelve": 12,
    "十二": 12,
}
# P2P on a GeForce card through a patched kernel module (the stock driver has none)
_PATCHED = re.compile(
    r"aikitoria|tinygrad|patched|hacked|p2p[\s-]*(?:enabled\s+)?driver|open-gpu-kernel|魔改驱动|破解"
)


def claims_in(text: str, line: int, sized: bool = True) -> list[Claim]:
    """`sized`: also read a GPU memory size alone ("双卡48G显存") as a pooled-memory claim; off where the
    text may be a part's own spec (a card's "48G显存")."""
    v = vocab()
    low = text.lower()
    out = []
    if v.question.search(low.strip()):
        return out  # "四张卡之间能P2P吗？": the buyer asks, nobody claims
    if "?" in low or "？" in low or v.not_asserted.search(low):
        from advisor.quote.segment import sentences

        # "are both cards connected via nvlink? if so, what's the MB", "considering another one for nvlink
        # setup": only the sentences that assert
        low = " ".join(
            s for s in sentences(low) if not v.question.search(s.strip()) and not v.not_asserted.search(s)
        )
    size = v.pooled_size.search(low)
    for about in ORDER:
        m = v.claims[about].search(low)
        size_only = False
        if not m and about == "pooled_memory" and size and sized:
            m, size_only = size, True
        if not m and about == "psu" and v.psu_verbs.search(low) and _names_a_psu(low):
            m = v.psu_verbs.search(low)
        if not m:
            continue
        if about == "nvlink" and v.not_included.search(low):
            continue  # "NVLink bridges are not included": what the offer leaves out, not a claim
        if about == "nvlink" and any(k.about == "pooled_memory" and not k.size_only for k in out):
            continue  # "pooled memory over NVLink": the NVLink is the pooling's means, one claim
        if about == "memory_channels" and not re.search(r"ddr|memory|内存|內存|\bram\b|dimm|主板|board", low):
            continue  # "四通道" of something else than memory
        before = low[max(0, m.start() - 25) : m.start()]
        negated = (
            bool(v.negation.search(before))
            or bool(re.search(r"不支持|无\s*$|没有", low[: m.start()][-6:]))
            or bool(v.negation_after.search(low[m.end() :]))
        )
        c = Claim(text=text.strip()[:300], line=line, about=about, negated=negated, size_only=size_only)
        if about == "pooled_memory":
            gb = size or re.search(r"(?<![\d.])(?P<gb>\d{2,4})\s*g(?:i?b)?(?![a-z])", low)
            if gb:
                c.memory_gb = int(gb.group("gb") or gb.groupdict().get("gb2") or 0) or None
        if about == "pcie":
            # "PCIe 5.0", "PCIe Gen4", "pcie4.0", not the slot name "PCIE1"
            g = re.search(r"pcie(?:[\s-]+(?:gen\s*)?(\d)|[\s-]*gen\s*(\d)|(\d)\.0)", low)
            c.gen = int(next(d for d in g.groups() if d)) if g else None
            c.width = (
                8 if re.search(r"\bx8\s*[/+]\s*x8\b|\b(?:be|at)\s+x\s?8\b|双\s*x\s?8(?![0-9])", low) else 16
            )
            r = v.runs_at.search(low)
            if r:
                c.runs_at = (int(r.group("gen")), int(r.group("width")))
        if about == "memory_channels":
            n = re.search(
                r"(\d{1,2}|two|four|six|eight|twelve|dual|quad|hexa|octa|十二|双|四|六|八)", m.group(0)
            )
            c.channels = (
                int(n.group(1)) if n and n.group(1).isdigit() else _CHANNELS.get(n.group(1) if n else "")
            )
        if about == "psu":
            c.margin = bool(v.psu_margin.search(low))
            c.sustained = bool(v.psu_sustained.search(low)) and not c.margin
        if v.scope_one.search(low):
            c.scope = "one"
        elif about == "nvlink" and v.scope_all_pairs.search(low):
            c.scope = "pairs"
        out.append(c)
    return out


def _names_a_psu(low: str) -> bool:
    v = vocab()
    return bool(
        v.kind_words["psu"].search(low)
        or v.psu_series.search(low)
        or v.psu_models.search(low)
        or v.watts.search(low)
    )


def judge(
    c: Claim,
    pred: Prediction | None,
    findings: list[Finding],
    psu_w: int | None,
    parts: tuple[list, object] | None = None,
    stated_cpu_w: int | None = None,
) -> tuple[Any, str]:
    """`parts` (the GPUs with counts and the CPU the quote names) judges a PSU claim when the build itself
    could not be evaluated (a board not in the catalog): the power arithmetic needs only those.
    `stated_cpu_w` is the CPUs' power as the quote itself writes it ("EPYC 9575F 64C 400W", times the CPU
    count), used only where the catalog has no power for the CPU."""
    verdict, why = _judge_any(c, pred, findings, psu_w, parts, stated_cpu_w)
    # the reason may be a sentence of the model in the run's language: its word for the stock driver
    stock = "stock" in why or _("stock driver") in why
    if c.about == "p2p" and verdict is False and _PATCHED.search(c.text.lower()) and stock:
        return "unknown", (
            "GeForce cards have no P2P with the stock driver; the claim says a patched kernel module enables "
            "it, which the parts cannot confirm (measure it: p2pBandwidthLatencyTest)"
        )
    return verdict, why


def _channels(c: Claim, parts) -> tuple[Any, str]:
    """Memory channels judged against the CPU's own: a platform cannot run more channels than its CPU has."""
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


def _judge_any(
    c: Claim,
    pred: Prediction | None,
    findings: list[Finding],
    psu_w: int | None,
    parts: tuple[list, object] | None = None,
    stated_cpu_w: int | None = None,
) -> tuple[Any, str]:
    if c.about == "memory_channels":
        return _channels(c, parts)
    if c.about == "scaling":
        return "unknown", _(
            "how training or inference scales over several GPUs depends on the model, the parallelism and the "
            "links between the GPUs; no parts list makes it lossless: `advisor plan BUILD --train MODEL` "
            "predicts it for this build"
        )
    if pred is None:
        if c.about == "psu" and parts is not None and psu_w:
            return _psu_from_parts(c, psu_w, *parts[:2], stated_cpu_w=stated_cpu_w, cpu_count=parts[2] or 1)
        verdict, why = _from_parts(c, parts) if parts is not None else (None, "")
        if verdict is None:
            return "unknown", _("the build could not be evaluated")
        if c.negated and verdict in (True, False):
            return (not verdict), _("(the claim says not) {why}").format(why=why)
        return verdict, why
    gpus = [g.node for g in pred.gpus]
    pairs = pred.pairs
    n = len(gpus)
    if c.about == "nvlink" and n < 2 and parts is not None:
        # "NVLink support (for pairing two cards)" of a card without the connector: false with one card too
        verdict, why = _from_parts(c, parts)
        if verdict is False:
            return (True, _("(the claim says not) {why}").format(why=why)) if c.negated else (False, why)
    verdict, why = _judge(c, gpus, pairs, findings, psu_w, n, stated_cpu_w)
    if c.negated and verdict in (True, False):
        return (not verdict), _("(the claim says not) {why}").format(why=why)
    return verdict, why


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


def _judge(c: Claim, gpus, pairs, findings, psu_w, n, stated_cpu_w=None) -> tuple[Any, str]:
    chipset = {f.subject for f in findings if f.id == "LANE002"}
    if c.about == "pcie":
        if not gpus:
            return "unknown", _("no GPU in the build")
        subject = gpus[:1] if c.scope == "one" else gpus
        if c.runs_at:
            gen, width = c.runs_at
            ok = all(g.link.gen >= gen and g.link.width >= width for g in subject)
            return ok, _("the claim states Gen{gen} x{width}; predicted links: {links}").format(
                gen=gen, width=width, links=_links(subject)
            )
        width = c.width or 16
        bad = [g for g in subject if g.link.width < width or (c.gen and g.link.gen < c.gen)]
        if bad:
            if c.gen and any(g.link.max_gen < c.gen for g in bad):
                return False, _(
                    "predicted links: {links} (a card whose maximum is below Gen{gen} cannot link at Gen{gen})"
                ).format(links=_links(gpus), gen=c.gen)
            return False, _("predicted links: {links}").format(links=_links(gpus))
        shared = [g for g in subject if f"GPU{g.index}" in chipset]
        if shared:
            # an x16 link behind the chipset shares its uplink with every SSD and port: not the CPU x16
            # the claim means
            return False, _("on chipset lanes, behind the uplink it shares: {links}").format(
                links=_short_of(shared, chipset)
            )
        return True, _("predicted links: {links}").format(links=_links(gpus))
    if c.about == "full_speed":
        if not gpus:
            return "unknown", _("no GPU in the build")
        slow = _below(gpus, chipset)
        if slow:
            return False, _("not full speed: {links}").format(links=_short_of(slow, chipset))
        return True, _("every GPU links at its own maximum: {links}").format(links=_links(gpus))
    if c.about in ("p2p", "nvlink", "pooled_memory") and n < 2:
        return "unknown", f"the build has {n} GPU: there is no pair to judge"
    if c.about == "nvlink":
        broken = [f for f in findings if f.category == "nvlink" and f.severity == "error"]
        if broken:
            return False, "; ".join(f"{f.id}: {f.message}" for f in broken)
        nv = [p for p in pairs if p.path.startswith("NV")]
        if c.scope == "pairs" and nv and len(nv) < len(pairs):
            rest = [p for p in pairs if not p.path.startswith("NV")]
            return False, _(
                "the claim says every pair is joined, but NVLink joins only {joined}; {rest} talk over PCIe (a "
                "bridge joins two cards)"
            ).format(
                joined=", ".join(f"GPU{p.a}-GPU{p.b}" for p in nv),
                rest=", ".join(f"GPU{p.a}-GPU{p.b}" for p in rest[:4]),
            )
        if nv:
            return True, _("NVLink between {pairs}").format(pairs=", ".join(f"GPU{p.a}-GPU{p.b}" for p in nv))
        models = sorted({g.gpu.name for g in gpus if g.gpu})
        return False, _(
            "no GPU pair is joined by NVLink ({models}: no NVLink connector, or no bridge in the quote); pairs "
            "talk over {paths}"
        ).format(models=", ".join(models), paths=", ".join(sorted({p.path for p in pairs})))
    if c.about == "p2p":
        no = [p for p in pairs if not p.p2p]
        if no:
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
            return False, why
        return True, _("P2P on every pair ({pairs})").format(
            pairs=", ".join(f"GPU{p.a}-GPU{p.b} via {p.via}" for p in pairs)
        )
    if c.about == "pooled_memory":
        each = _each_holds(gpus, c.memory_gb)
        if all(p.path.startswith("NV") for p in pairs):
            return False, _(
                "NVLink lets each GPU read the other's memory quickly, but the GPUs stay separate devices with "
                "their own memory{each}: frameworks split a model across them (tensor or pipeline parallel); "
                "there is no one memory pool"
            ).format(each=each)
        nv = sum(p.path.startswith("NV") for p in pairs)
        bridge = next((f for f in findings if f.category == "nvlink" and f.severity == "error"), None)
        joined = (
            _("only {nv} of {pairs} pairs are joined by NVLink").format(nv=nv, pairs=len(pairs))
            if nv
            else _("no NVLink joins them")
        )
        if bridge:
            joined = _("{joined} ({id}: {message})").format(
                joined=joined, id=bridge.id, message=bridge.message.rstrip(".。")
            )
        ways = ", ".join(sorted({_("host memory (staged)") if p.via == "staged" else p.via for p in pairs}))
        return False, _(
            "the cards' memory does not add up into one space: each GPU holds its own{each}, and {joined}; "
            "tensor (or pipeline) parallelism can split a model across them, but each card still holds its own "
            "part, and copies between the cards go over {ways}"
        ).format(each=each, joined=joined, ways=ways)
    if c.about == "numa":
        sockets = {g.socket for g in gpus}
        return len(sockets) <= 1, _("the GPUs hang off {n} socket(s)").format(n=len(sockets))
    if c.about == "numa_split":
        per = {}
        for g in gpus:
            per[g.socket] = per.get(g.socket, 0) + 1
        even = len(per) > 1 and len(set(per.values())) == 1
        return even, _("GPUs per socket: {counts}").format(
            counts=", ".join(f"CPU{s}: {n}" for s, n in sorted(per.items()))
        )
    if c.about == "psu":
        bad = [f for f in findings if f.category == "power" and f.severity == "error"]
        if bad:
            return False, "; ".join(f"{f.id}: {f.message}" for f in bad)
        if not gpus:
            return "unknown", "no GPU in the build"
        unknown = sorted({g.gpu.name for g in gpus if g.gpu and not g.gpu.board_power_w})
        if unknown:
            return "unknown", _("the board power of {gpus} is not known").format(gpus=", ".join(unknown))
        if psu_w is None:
            return "unknown", _("no PSU wattage in the quote")
        if any(f.id == "PWR005" for f in findings):
            if stated_cpu_w:
                return _psu_margin(c, psu_w, sum(g.gpu.board_power_w for g in gpus), stated_cpu_w, "states")
            return "unknown", _("the CPU's power is not in the catalog, so the PSU's margin cannot be told")
        thin = [f for f in findings if f.category == "power" and f.severity == "warning" and f.id == "PWR004"]
        if thin and c.sustained:
            return True, _(
                "the claim is about the sustained load, which the PSU carries: {finding} (the spikes are another "
                "matter: ask whether the PSU is ATX 3.x)"
            ).format(finding=thin[0].message)
        if thin and c.margin:
            return False, _(
                "{finding} The claim promises headroom, and this is below the headroom the GPUs' power spikes "
                "call for"
            ).format(finding=thin[0].message)
        if thin:
            return "unknown", _(
                "{finding} Enough with an ATX 3.x PSU (specified for such spikes), marginal with an older one: "
                "ask which the PSU is"
            ).format(finding=thin[0].message)
        return True, _("the PSU carries the board power with the headroom GPU power spikes need")
    if c.about == "fit":
        crowded = [f for f in findings if f.id in ("FIT001", "FIT002")]
        if crowded:
            return False, "; ".join(f"{f.id}: {f.message}" for f in crowded)
        return "unknown", _(
            "slot spacing, airflow and clearance depend on the case and the cards' own thickness, which the "
            "catalog does not hold: ask for the case model and each card's slot width, or a photo of the build"
        )
    return "unknown", _("not a claim this tool checks")


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


def _from_parts(c: Claim, parts) -> tuple[Any, str]:
    """What a claim's truth needs only the named parts for, when the build itself cannot be evaluated
    (a board not in the catalog): pooled memory, P2P on cards whose driver never grants it, one socket.
    (None, "") where the parts do not settle it."""
    gpus, cpu = parts[0], parts[1]
    cpu_count = parts[2] if len(parts) > 2 else None
    count = sum(n for _, n in gpus)
    if c.about in ("pooled_memory", "p2p") and count < 2:
        return None, ""
    if c.about == "pooled_memory":
        return False, _(
            "GPU memory is never pooled: each GPU holds its own; a model larger than one GPU's memory must "
            "be split (tensor/pipeline parallel), whatever the board (it is not in the catalog)"
        )
    if c.about == "p2p":
        stock = [g for g, _ in gpus if g.p2p and g.p2p.stock_linux is False]
        if stock and len(stock) == len(gpus):
            names = ", ".join(sorted({g.name for g in stock}))
            return False, _(
                "{gpus}: no P2P over PCIe with the stock Linux driver, whatever the board (it is not in the "
                "catalog); copies between GPUs go through host memory"
            ).format(gpus=names)
    if c.about == "numa" and cpu_count == 1:
        return True, _(
            "one CPU socket: every GPU hangs off the same socket (the board is not in the catalog)"
        )
    if c.about == "nvlink" and gpus:
        # the truth of "the cards are joined by NVLink" (a negated claim is turned over by the caller)
        names = {g.name for g, _ in gpus}
        without = sorted({g.name for g, _ in gpus if g.nvlink is not None and g.nvlink.supported is False})
        if without and len(without) == len(names):
            return False, _("{gpus}: no NVLink connector, whatever the board or bridge").format(
                gpus=", ".join(without)
            )
        linkable = [g for g, _ in gpus if g.nvlink is not None and g.nvlink.supported]
        bridges = parts[3] if len(parts) > 3 else 0
        if len(linkable) == len(gpus) == 1 and count == 2:
            g = linkable[0]
            if bridges or not c.negated:
                return True, (
                    _("two {gpu} cards join over a 2-way NVLink bridge, which the quote lists")
                    if bridges
                    else _(
                        "two {gpu} cards join over a 2-way NVLink bridge, which the claim says this pair has"
                    )
                ).format(gpu=g.name)
            return False, _("{gpu} pairs join only over an NVLink bridge, and the quote lists none").format(
                gpu=g.name
            )
    wrong = []  # every reason a link claim is false, the card's own limit first
    if c.about == "pcie" and gpus and c.gen:
        top = max((g.pcie.gen for g, _ in gpus if g.pcie and g.pcie.gen), default=None)
        if top is not None and c.gen > top:
            wrong.append(
                _(
                    "every card here is at most PCIe Gen{top}: none can link at Gen{gen}, whatever the board"
                ).format(top=top, gen=c.gen)
            )
    if c.about in ("pcie", "full_speed") and gpus and cpu is not None:
        lanes = getattr(getattr(cpu, "pcie", None), "usable_lanes", None)
        width = c.width or 16 if c.about == "pcie" else 16
        if lanes and count * width > lanes * (cpu_count or 1):
            wrong.append(
                _(
                    "{n}x {cpu} gives {lanes} usable PCIe lanes: {gpus} GPUs cannot each get x{width}, whatever "
                    "the board"
                ).format(
                    n=cpu_count or 1, cpu=cpu.name, lanes=lanes * (cpu_count or 1), gpus=count, width=width
                )
            )
    if wrong:
        return False, _("; ").join(wrong)
    return None, ""


def _psu_margin(c: Claim, psu_w: int, gpu_w: int, cpu_w: int, how: str) -> tuple[Any, str]:
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
) -> tuple[Any, str]:
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
