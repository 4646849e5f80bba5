"""A quote checked: its build predicted, its claims judged, what matters most in one sentence, what to ask
the vendor, a verdict and an exit code.

The verdict, worst first: PROBLEMS (the build cannot run as quoted: an error finding, a false claim, a
build that cannot be evaluated); INCOMPLETE (a part the catalog lacks, or a part kind missing); WARN (it
runs, but below what its parts allow: a GPU below its own link or on chipset lanes, no P2P between GPUs,
or NCCL on host memory); PASS. The exit code is 0 only for PASS, 1 for the others (2 is bad input)."""

from __future__ import annotations

import re

from advisor.base.errors import UserError
from advisor.findings.verdict import Limits, limits
from advisor.i18n import _, ngettext
from advisor.model.catalog.store import Catalog
from advisor.outputs.plan import plan_output
from advisor.outputs.validate import (
    ClaimVerdict,
    PartCheckOut,
    PartOut,
    QuoteLineOut,
    QuoteOut,
    SpecCheckOut,
    ValidateOutput,
)
from advisor.quote.claim_checks import claim_id, judge
from advisor.quote.document import Quote, QuoteLine
from advisor.quote.items import count_source_words
from advisor.quote.segment import kind_name


def evaluate_quote(quote: Quote, catalog: Catalog, rule_dirs: tuple[str, ...] = ()) -> ValidateOutput:
    from advisor.findings.evaluate import evaluate_rules
    from advisor.model.engine import evaluate

    pred, findings, problems, alternatives, ask = None, [], [], [], []
    if quote.build_error:
        problems.append(quote.build_error)
    build = quote.build
    if build is not None and quote.unplaced_nvme:
        build, pred, alternatives, question = _place_nvme(quote, catalog)
        if question:
            ask.append(question)
    if pred is not None:
        # the placement already predicted this build
        findings = evaluate_rules(pred, catalog=catalog, extra_dirs=rule_dirs)
    elif build is not None:
        try:
            pred = evaluate(build, catalog)
        except UserError as exc:
            pred = _without_nics(quote, catalog, ask)
            if pred is None:
                problems.append(exc.render())
            else:
                build = quote.build  # the build without the NICs that found no slot
        if pred is not None:
            findings = evaluate_rules(pred, catalog=catalog, extra_dirs=rule_dirs)
    if findings:
        findings = _on_risers(quote, findings)
    b = quote.build_data
    named = (
        [(catalog.get(g["model"]), g["count"]) for g in b.get("gpus", []) if catalog.get(g["model"])],
        catalog.get(b["cpu"]) if b.get("cpu") else None,
        int(b.get("cpu_count", 1)) if b.get("cpu") else None,
        sum(
            x.qty
            for x in quote.lines
            if x.status in ("part", "recognized") and any(p.kind == "bridge" for p in x.parts)
        ),
    )
    stated_cpu_w = _stated_cpu_w(quote)
    claims = [
        ClaimVerdict(
            id=claim_id(c.about),
            claim=c.text,
            line=c.line,
            about=c.about,
            verdict=(v := judge(c, pred, findings, b.get("psu_w"), named, stated_cpu_w))[0],
            why=v[1],
        )
        for c in quote.claims
    ]
    # with the build checked, a bridge in the list is a part its NVLink findings (NVL002) judge; one named
    # outside the list (an upgrade's table) is not in the build, and says the cards can be joined
    claims += _bridge_claims(quote, named[0], claims, listed=pred is None)
    if build is not None and pred is not None:
        _unclear_counts(quote, catalog, build, claims, named, stated_cpu_w)
    false_claims = [c for c in claims if c.verdict is False]
    part_checks = _part_checks(quote, named, stated_cpu_w) if pred is None else []
    part_checks += _job_checks(quote, named[0])
    errors = [f for f in findings if f.severity == "error"]
    _nearest(quote, catalog)
    # a line of parts the catalog lacks, or of some it lacks beside some it has ("an ASUS ROG Strix TRX40-E
    # Gaming motherboard paired with an AMD Ryzen Threadripper 3960X and a pair of RTX A4500 GPUs")
    unknown = [
        x
        for x in quote.lines
        if x.status == "not_in_catalog"
        or (x.status in ("part", "recognized") and any(not p.in_catalog for p in x.parts))
    ]
    nearest = {x.line: [p for p in x.parts if not p.in_catalog] for x in unknown}
    not_in_catalog = [_line(x) for x in unknown]
    unclear = [x for x in quote.lines if x.qty_unclear and x.status == "part"]
    lim = limits(pred, findings) if pred is not None else None
    if problems or errors or false_claims or any(c.severity == "error" for c in part_checks):
        verdict = "PROBLEMS"  # a problem found is said, whatever part is unknown (the summary says that too)
    elif build is None or not_in_catalog:
        verdict = "INCOMPLETE"
    elif lim is not None and lim.holds_back:
        verdict = "WARN"  # it works, but a GPU link, P2P or NCCL's transport is below what the parts allow
    else:
        verdict = "PASS"
    for x in not_in_catalog:
        kinds = _(", ").join(
            kind_name(k)
            for k in sorted({p.kind for p in nearest.get(x.line, [])} or {p.kind for p in x.parts})
        ) or kind_name("part")
        near = list(dict.fromkeys(n for p in nearest.get(x.line, []) for n in p.nearest))
        values = dict(kinds=kinds, line=x.line, text=x.text.strip()[:60], near=", ".join(near[:3]))
        ask.append(
            _(
                'the exact model of the {kinds} on line {line} ("{text}") and its datasheet (the catalog\'s '
                "nearest: {near})"
            ).format(**values)
            if near
            else _('the exact model of the {kinds} on line {line} ("{text}") and its datasheet').format(
                **values
            )
        )
    for k in quote.missing:
        ask.append(_("the exact {kind} model").format(kind=kind_name(k)))
    for x in unclear:
        ask.append(
            _('how many of line {line} ("{text}"): {source}').format(
                line=x.line, text=x.text.strip()[:50], source=count_source_words(x.qty_source)
            )
        )
    ask += [_("which count is right: {mismatch}").format(mismatch=m) for m in quote.title_mismatch]
    if "psu_w" not in quote.build_data and build is not None:
        ask.append(_("the PSU's model and wattage"))
    ask += _form_factor_asks(quote, catalog)
    notes = list(quote.notes) + [
        _("title and items disagree: {mismatch}").format(mismatch=m) for m in quote.title_mismatch
    ]
    if unclear:
        notes.append(
            _("the prediction rests on quantities read as {quantities}").format(
                quantities=", ".join(
                    _("{qty} on line {line}").format(qty=x.qty, line=x.line) for x in unclear
                )
            )
        )
    from advisor.quote.specs import slot_specs

    specs = slot_specs(quote, catalog)
    for s in specs:
        if not s.agrees:
            ask.append(
                _(
                    "line {line} says the board has {says}; the catalog lists {catalog}: which is right (a "
                    "manual page or the exact board revision)"
                ).format(line=s.line, says=s.says, catalog=s.catalog.split(",")[0])
            )
    plan = plan_output(pred, findings) if pred is not None else None
    return ValidateOutput(
        verdict=verdict,
        exit_code=0 if verdict == "PASS" else 1,
        summary=_summary(lim, errors, false_claims, not_in_catalog, quote, problems, part_checks),
        quote=QuoteOut(
            file=quote.filename,
            format=quote.format,
            lines=[_line(x) for x in quote.lines],
            build=quote.build_data,
            details=quote.details,
            missing=list(quote.missing),
            notes=notes,
        ),
        missing=list(quote.missing),
        not_in_catalog=not_in_catalog,
        build_problems=problems,
        plan=plan,
        claims=claims,
        false_claims=false_claims,
        ask_vendor=ask,
        alternatives=alternatives,
        spec_checks=[SpecCheckOut(**vars(s)) for s in specs],
        part_checks=part_checks,
    )


def _unclear_counts(
    quote: Quote, catalog: Catalog, build, claims: list[ClaimVerdict], named, stated_cpu_w: int | None
) -> None:
    """A GPU count the quote writes two ways ("x2 ... Qty: 4"): each claim is judged again on the other
    count, and one whose verdict changes with the count cannot be told until the vendor says which."""
    from advisor.findings.evaluate import evaluate_rules
    from advisor.model.engine import evaluate

    for x in quote.lines:
        gpu = [p for p in x.parts if p.kind == "gpu" and p.part_id]
        if not (x.qty_unclear and x.status == "part" and len(gpu) == 1 and len(x.qty_readings) > 1):
            continue
        for other in x.qty_readings:
            if other == x.qty:
                continue
            data = build.model_dump()
            for g in data["gpus"]:
                if g["model"] == gpu[0].part_id:
                    g["count"] += other - x.qty
            data["gpus"] = [g for g in data["gpus"] if g["count"] > 0]
            data["nvlink"] = [
                b for b in data.get("nvlink", []) if max(b) < sum(g["count"] for g in data["gpus"])
            ]
            try:
                alt = type(build).model_validate(data)
                apred = evaluate(alt, catalog)
            except (UserError, ValueError):
                continue
            afind = evaluate_rules(apred, catalog=catalog)
            anamed = ([(g, n + (other - x.qty) * (g.id == gpu[0].part_id)) for g, n in named[0]], *named[1:])
            for c, src in zip(claims, quote.claims, strict=True):
                if c.verdict not in (True, False):
                    continue
                v, why = judge(src, apred, afind, quote.build_data.get("psu_w"), anamed, stated_cpu_w)
                if v is not c.verdict:
                    c.verdict, c.why = (
                        "unknown",
                        (
                            f"{'true' if c.verdict else 'false'} with {x.qty} GPUs, "
                            f"{'true' if v else 'false' if v is False else 'cannot tell'} with {other} "
                            f"(line {x.line} writes both): {c.why}"
                        ),
                    )


def _stated_cpu_w(quote: Quote) -> int | None:
    """The CPUs' power as the quote writes it on the CPU's line ("EPYC 9575F 64C 400W"), times the CPU count."""
    cpu = quote.build_data.get("cpu")
    for x in quote.lines:
        for p in x.parts:
            if p.kind == "cpu" and p.part_id == cpu and p.value:
                return p.value * int(quote.build_data.get("cpu_count", 1))
    return None


def _without_nics(quote: Quote, catalog: Catalog, ask: list[str]):
    """A quote whose NICs find no slot in the catalog's table of its board (a GPU server's table often lists
    only the GPU slots): the GPUs are still predicted, and the report says the NICs were left out."""
    from advisor.model.engine import evaluate

    if quote.build is None or not quote.build.nics:
        return None
    data = quote.build.model_dump()
    data["nics"] = []
    build = type(quote.build).model_validate(data)
    try:
        pred = evaluate(build, catalog)
    except UserError:
        return None
    quote.build = build
    board = catalog.get(build.board)
    lines = [x.line for x in quote.lines if any(p.kind == "nic" for p in x.parts)]
    board_name = board.name if board else build.board
    if lines:
        said = ", ".join(map(str, lines))
        quote.notes.append(
            _(
                "the NIC (line {lines}) is left out of the prediction: the catalog's slot table for {board} has no "
                "slot free for it after the GPUs"
            ).format(lines=said, board=board_name)
        )
        ask.append(
            _("which slot the NIC (line {lines}) goes in, and whether it shares lanes with a GPU").format(
                lines=said
            )
        )
    else:
        quote.notes.append(
            _(
                "the NIC is left out of the prediction: the catalog's slot table for {board} has no slot free for "
                "it after the GPUs"
            ).format(board=board_name)
        )
        ask.append(_("which slot the NIC goes in, and whether it shares lanes with a GPU"))
    return pred


def _place_nvme(quote: Quote, catalog: Catalog):
    """Drives whose socket the quote does not name: each free M.2 socket, and whether the choice moves a GPU.
    Returns the build with the drives where they steal least, its prediction (None if none could be made), the
    outcomes that differ, and the question for the vendor."""
    from advisor.model.engine import evaluate

    board = catalog.get(quote.build.board)
    named = {n.socket for n in quote.build.nvme}
    free = [m.name for m in board.m2 if m.name not in named] if board else []
    if not free:
        return quote.build, None, [], None
    outcomes = []
    for s in free:
        data = quote.build.model_dump()
        data["nvme"] = [*data.get("nvme", []), {"socket": s}]
        b = type(quote.build).model_validate(data)
        try:
            p = evaluate(b, catalog)
        except UserError:
            continue
        outcomes.append((s, b, tuple((g.node.link.gen, g.node.link.width) for g in p.gpus), p))
    if not outcomes:
        return quote.build, None, [], None
    best = max(outcomes, key=lambda o: sum(w for _, w in o[2]))
    worse = [o for o in outcomes if o[2] != best[2]]
    if not worse:
        return best[1], best[3], [], None

    def links(o):
        return ", ".join(f"GPU{i} Gen{g} x{w}" for i, (g, w) in enumerate(o[2]))

    alts = [f"the SSD in {best[0]}: {links(best)}"] + [f"the SSD in {o[0]}: {links(o)}" for o in worse[:3]]
    question = (
        f"which M.2 socket the SSD goes in: {best[0]} keeps the GPU links, "
        + ", ".join(o[0] for o in worse[:3])
        + " takes GPU lanes"
    )
    return best[1], best[3], alts, question


def _summary(
    lim: Limits | None, errors, false_claims, not_in_catalog, quote: Quote, problems, part_checks=()
) -> str:
    bits = []
    if problems:
        bits.append(
            _("the build cannot be evaluated: {problem}").format(
                problem=_clip(problems[0].splitlines()[0], 160)
            )
        )
    bits += [_clip(c.message, 200) for c in part_checks if c.severity == "error"]
    if lim is not None:
        bits += lim.named()  # the same limits `plan`'s headline names, in the same words
        power = [f for f in errors if f.category == "power"]
        if power:
            bits.append(_("the PSU is too small"))
        other = [f for f in errors if f.category != "power"]
        if other and not lim.low:
            bits.append(other[0].message.split(":")[0].split("：")[0][:100])
    texts = list(dict.fromkeys(c.claim for c in false_claims))
    if texts:
        bits.append(
            ngettext("the claim {claims} is false", "the claims {claims} are false", len(texts)).format(
                claims=", ".join(f"'{_clip(t, 70)}'" for t in texts[:3])
            )
        )
    if not_in_catalog:
        bits.append(
            _("not in the catalog: {parts}").format(
                parts=", ".join(
                    re.sub(r"\*\*|__|`", "", re.sub(r"^[\s*#>|•·_-]+", "", x.text)).strip()[:60]
                    if x.status == "not_in_catalog" and len(x.parts) == 1
                    else " and ".join(p.name[:60] for p in x.parts if not p.in_catalog)
                    for x in not_in_catalog[:3]
                )
            )
        )
    if quote.missing:
        bits.append(
            _("the quote names no {kinds}").format(kinds=_(" or ").join(map(kind_name, quote.missing)))
        )
    unclear = [x for x in quote.lines if x.qty_unclear and x.status == "part"]
    if unclear:
        bits.append(
            _("all this rests on an unclear quantity: {lines}").format(
                lines=", ".join(
                    _("line {line} is read as {qty}, but it writes {source}").format(
                        line=x.line,
                        qty=x.qty,
                        source=count_source_words(x.qty_source.removeprefix("unclear: ")),
                    )
                    for x in unclear[:2]
                )
            )
        )
    if not bits:
        return _("No problem found: every GPU gets its full link and every claim checked holds.")
    text = _("; ").join(bits)
    return _("{summary}.").format(summary=text[0].upper() + text[1:])


def _clip(text: str, n: int) -> str:
    """At most n characters, cut at a word with "..." rather than inside one (a "…" in a report would
    read as a table cell rich had to cut, which never happens)."""
    if len(text) <= n:
        return text
    return text[:n].rsplit(" ", 1)[0].rstrip(" ,;(") + " ..."


def _line(x: QuoteLine) -> QuoteLineOut:
    return QuoteLineOut(
        line=x.line,
        text=x.text,
        status=x.status,
        parts=[
            PartOut(
                kind=p.kind,
                name=p.name,
                part_id=p.part_id,
                in_catalog=p.in_catalog,
                confidence=p.confidence,
                value=p.value,
                socket=p.socket,
                how=p.how,
            )
            for p in x.parts
        ],
        qty=x.qty,
        qty_source=x.qty_source,
        qty_unclear=x.qty_unclear,
        price=x.price,
        currency=x.currency,
        read_as=x.read_as or _read_as(x),
    )


def _count_of(x: QuoteLine, p) -> int:
    """How many of part p line x counts, as the build is assembled: its own count, else the line's, which
    on a line of several parts is the GPUs' ("i9-14900K + Z790 Hero + 双4090": one CPU, one board)."""
    if p.count is not None:
        return p.count
    if len([o for o in x.parts if o.kind == p.kind]) > 1 or (len(x.parts) > 1 and p.kind != "gpu"):
        return 1
    return x.qty


def _read_as(x: QuoteLine) -> str:
    """How a line was read, when the parts list did not say it already."""
    if x.status in ("part", "recognized", "not_in_catalog") and x.parts:
        items = []
        for p in x.parts:
            kind = p.kind.upper() if p.kind in ("cpu", "gpu", "psu", "ram", "nic") else kind_name(p.kind)
            item = f"{kind} x{_count_of(x, p)}"
            if not p.in_catalog:
                item = _("{part} '{name}', not in the catalog").format(part=item, name=p.name[:40])
            items.append(item)
        src = (
            _("no count written: 1")
            if x.qty_source.startswith("none written")
            else _("count from {source}").format(source=count_source_words(x.qty_source))
        )
        return _("read as {what} ({source})").format(what=" + ".join(items), source=src)
    if x.mentions:
        names = ", ".join(dict.fromkeys(p.name for m in x.mentions for p in m.parts))
        return _("prose naming {names}: a mention, not counted").format(names=names[:120])
    said = {
        "title": _("a title: cross-checks the counts, not counted"),
        "total": _("a total"),
        "claim": _("a claim, judged below"),
        "header": _("a table header"),
        "continued": _("the rest of the row above"),
    }
    return said.get(x.status, _("no part"))


def _nearest(quote: Quote, catalog: Catalog) -> None:
    """Each counted part the catalog lacks names the catalog's nearest entries (never matched to them)."""
    from advisor.quote.match import Matcher

    matcher = Matcher.of(catalog)
    for x in quote.lines:
        if x.status not in ("not_in_catalog", "recognized", "part"):
            continue
        for p in x.parts:
            if not p.in_catalog and p.kind in ("cpu", "board", "gpu") and not p.nearest:
                p.nearest = matcher.nearest(p.name, p.kind)
                if p.nearest:
                    p.how = _("not in the catalog: {name}; nearest: {nearest}").format(
                        name=p.name, nearest=", ".join(p.nearest)
                    )


_RISER = re.compile(r"\briser|延长线|转接线|pcie\s+extension\s+cable", re.I)


def _bridge_claims(quote: Quote, gpus: list, claims: list[ClaimVerdict], listed: bool) -> list[ClaimVerdict]:
    """An NVLink bridge in the parts list ("显卡: 4× RTX 4080 (配NVLink桥接器)") says the cards are joined by
    NVLink: false for cards without the connector, whatever the board; said where the build cannot be checked
    (a part unknown or missing). A bridge for cards that take one is a part like any other, not a claim."""
    without = sorted({g.name for g, _ in gpus if g.nvlink is not None and g.nvlink.supported is False})
    if not gpus or len(without) != len({g.name for g, _ in gpus}):
        return []
    judged = {c.line for c in claims if c.about == "nvlink"}
    return [
        ClaimVerdict(
            id=claim_id("nvlink"),
            claim=x.text.strip()[:300],
            line=x.line,
            about="nvlink",
            verdict=False,
            why=_(
                "an NVLink bridge is named, but {gpus} has no NVLink connector: there is nothing for it to join, "
                "whatever the board"
            ).format(gpus=", ".join(without)),
        )
        for x in quote.lines
        if (x.status == "mention" or (listed and x.status in ("part", "recognized")))
        and any(p.kind == "bridge" for p in x.parts)
        and x.line not in judged
    ]


def _on_risers(quote: Quote, findings: list) -> list:
    """Cards on riser cables (an open frame, a mining rig) are not spaced by the board's slots: the slot
    spacing findings do not apply, and the report says why they are left out."""
    lines = [x.line for x in quote.lines if _RISER.search(x.text)]
    if not lines:
        return findings
    fit = [f for f in findings if f.id in ("FIT001", "FIT002")]
    if fit:
        quote.notes.append(
            _("the cards are on risers (line {line}): slot spacing ({ids}) is not judged").format(
                line=lines[0], ids=", ".join(f.id for f in fit)
            )
        )
    return [f for f in findings if f.id not in ("FIT001", "FIT002")]


def _job_checks(quote: Quote, gpus) -> list[PartCheckOut]:
    """The job the quote states against its GPUs' memory (see advisor/quote/job.py): with or without a board."""
    from advisor.quote.job import job_memory

    found, notes = job_memory(quote.lines, gpus)
    quote.notes += notes
    return [PartCheckOut(id="QTE003", severity=found[0], message=found[1])] if found else []


def _part_checks(quote: Quote, named, stated_cpu_w: int | None) -> list[PartCheckOut]:
    """What the named parts settle when the build cannot be evaluated (a board, or another part, the
    catalog lacks): the PSU against the GPUs' board power (and the CPU's, where known), and the CPU's PCIe
    lanes against the GPU count. None of these needs the board."""
    from advisor.findings.collect import cpu_power_w, psu_needed_w, system_power_w

    out: list[PartCheckOut] = []
    gpus, cpu, cpu_count = named[0], named[1], named[2] or 1
    n = sum(k for _, k in gpus)
    psu_w = quote.build_data.get("psu_w")
    if gpus and psu_w and all(g.board_power_w for g, _ in gpus):
        gpu_w = sum(g.board_power_w * k for g, k in gpus)
        own = cpu_power_w(cpu) if cpu is not None else None
        cpu_w = own * cpu_count if own else stated_cpu_w
        floor = system_power_w(gpu_w, cpu_w or 0)
        cards = ", ".join(
            _("{n}x {gpu} at {watts} W").format(n=k, gpu=g.name, watts=g.board_power_w) for g, k in gpus
        )
        if psu_w < floor:
            out.append(
                PartCheckOut(
                    id="QTE001",
                    severity="error",
                    message=(
                        _(
                            "the {psu} W PSU is below the {floor} W the parts draw sustained ({cards}, the CPU at "
                            "{cpu} W, 100 W for the rest), whatever the board"
                        )
                        if cpu_w
                        else _(
                            "the {psu} W PSU is below the {floor} W the parts draw sustained ({cards}, the CPU not "
                            "counted, 100 W for the rest), whatever the board"
                        )
                    ).format(psu=psu_w, floor=floor, cards=cards, cpu=cpu_w),
                )
            )
        elif cpu_w and psu_w < psu_needed_w(floor):
            out.append(
                PartCheckOut(
                    id="QTE001",
                    severity="warning",
                    message=_(
                        "the {psu} W PSU carries the {floor} W the parts draw sustained but not the {need} W with "
                        "headroom for GPU power spikes ({cards})"
                    ).format(psu=psu_w, floor=floor, need=psu_needed_w(floor), cards=cards),
                )
            )
    lanes = getattr(getattr(cpu, "pcie", None), "usable_lanes", None) if cpu is not None else None
    if lanes and n >= 2 and n * 16 > lanes * cpu_count:
        total = lanes * cpu_count
        out.append(
            PartCheckOut(
                id="QTE002",
                severity="warning",
                message=_(
                    "{n_cpu}x {cpu} gives {total} usable PCIe lanes: {n} GPUs cannot each get x16 on any board "
                    "(x{width} each at best, before SSDs and NICs)"
                ).format(n_cpu=cpu_count, cpu=cpu.name, total=total, n=n, width=max(1, total // n)),
            )
        )
    return out


# words that say which form of a datacenter GPU a line means: the SXM module (on an HGX baseboard) or the
# PCIe card (H100 PCIe, H200 NVL); "H800 80G" alone says neither, and the two differ in NVLink, power and
# the machine they need
_FORM_WORDS = re.compile(r"sxm|pci-?e|\bnvl\b|\bhgx\b|\bdgx\b|\boam\b|模组|插卡|整机", re.I)
_MODEL_NUMBER = re.compile(r"\b[a-z]\d{2,4}\b")
_SIZE_WRITTEN = re.compile(r"\d{2,3}\s*g(?:b)?\b", re.I)


def _form_factor_asks(quote: Quote, catalog: Catalog) -> list[str]:
    """A GPU read from a line that names its model but not its form, where the catalog has the same model
    in the other form (with the size the line writes, if it writes one): the reading is the catalog's
    nearest name, and the vendor is asked which it is."""
    gpus = [p for p in catalog.parts.values() if p.kind == "gpu"]
    asks = []
    for x in quote.lines:
        if x.status != "part" or _FORM_WORDS.search(x.text):
            continue
        for found in x.parts:
            gpu = catalog.get(found.part_id) if found.kind == "gpu" and found.in_catalog else None
            if gpu is None:
                continue
            models = set(_MODEL_NUMBER.findall(gpu.name.lower())) & set(_MODEL_NUMBER.findall(x.text.lower()))
            sized = bool(_SIZE_WRITTEN.search(x.text))
            others = [
                o
                for o in gpus
                if o.id != gpu.id
                and o.form_factor != gpu.form_factor
                and models & set(_MODEL_NUMBER.findall(o.name.lower()))
                and (not sized or o.vram_gb == gpu.vram_gb)
            ]
            if others:
                asks.append(
                    _(
                        'whether the GPU on line {line} ("{text}") is the {read} (read so) or the {other}: the '
                        "line does not say, and they differ in NVLink, power and the machine they need"
                    ).format(line=x.line, text=x.text.strip()[:50], read=gpu.name, other=others[0].name)
                )
    return asks
