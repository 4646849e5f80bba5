"""`advisor recommend` for people: the front as a short ranked table, what each step up buys, the builds
off the front with what beats them, the prices with their dates and sources, and how the search went.
Both faces draw from the --json model (advisor/outputs/recommend.py)."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape

from advisor.i18n import N_, _
from advisor.outputs.recommend import BuildOut, RecommendOutput

# a build's form (--form) and a price's kind, as a reader sees them (the JSON keeps the words themselves)
_FORMS = {"tower": N_("tower"), "rack": N_("rack")}
_KINDS = {
    "list": N_("list"),
    "market": N_("market"),
    "launch": N_("launch list price"),
    "yours": N_("your price list"),
}


def job_words(out: RecommendOutput) -> str:
    w = out.workload
    what = (
        _("train {model}, {strategy}, {precision}")
        if w.task == "train"
        else _("serve {model}, {strategy}, {precision}")
    ).format(model=w.model, strategy=w.strategy, precision=w.precision)
    if w.lora_rank:
        what = (_("{what}, QLoRA rank {rank}") if w.base_bits == 4 else _("{what}, LoRA rank {rank}")).format(
            what=what, rank=w.lora_rank
        )
    if w.task == "train":
        what = (
            _("{what}, micro-batch {batch} x {seq} tokens") if w.seq else _("{what}, micro-batch {batch}")
        ).format(what=what, batch=w.batch, seq=w.seq)
    else:
        what = _("{what}, {batch} concurrent sequence(s)").format(what=what, batch=w.batch)
    return what


def _short_names(text: str) -> str:
    return text.replace("NVIDIA GeForce ", "").replace("NVIDIA ", "")


def money(x: float, cur: str) -> str:
    return f"{x:,.0f} {cur}"


def question_words(out: RecommendOutput) -> str:
    c = out.constraints
    bits = [
        _("budget {money}").format(money=money(out.budget, out.currency))
        if out.budget is not None
        else _("no budget")
    ]
    bits.append(_("{least}-{most} GPUs").format(least=c["min_gpus"], most=c["max_gpus"]))
    if c.get("form"):
        bits.append(_(_FORMS.get(c["form"], c["form"])))
    if c.get("circuit"):
        ci = c["circuit"]
        bits.append(
            _("circuit {volts} V x {amps} A ({watts} W continuous)").format(
                volts=f"{ci['volts']:g}", amps=f"{ci['amps']:g}", watts=f"{ci['continuous_w']:,.0f}"
            )
        )
    if c.get("used"):
        bits.append(_("used prices where known"))
    if c.get("own"):
        bits.append(
            _("you own {parts}").format(parts=", ".join(f"{o['count']}x {o['part']}" for o in c["own"]))
        )
    if c.get("exclude_vendors"):
        bits.append(_("not {vendors}").format(vendors=", ".join(c["exclude_vendors"])))
    bits.append(_("prices as of {date}").format(date=out.as_of))
    return _("; ").join(bits)


def speed_words(b: BuildOut) -> str:
    s = f"{b.speed:,.2f}"
    if b.speed_low is not None and b.speed_high is not None:
        s += f" ({b.speed_low:,.2f}-{b.speed_high:,.2f})"
    return s


def gpus_words(b: BuildOut, names: dict[str, str]) -> str:
    return _("{count}x {gpu} in {slots}").format(
        count=b.gpus, gpu=names.get(b.gpu, b.gpu), slots=", ".join(b.slots)
    )


def short_names(out: RecommendOutput) -> dict[str, str]:
    """Each part's name as the table shows it: a GPU without the vendor's words every card shares."""
    return {
        ln.part: ln.name.removeprefix("NVIDIA ").removeprefix("GeForce ") if ln.kind == "gpu" else ln.name
        for b in out.front + out.others
        for ln in b.lines
    }


def _flags(b: BuildOut) -> str:
    marks = []
    if b.stale_prices:
        marks.append(_("stale price"))
    if b.converted_prices:
        marks.append(_("converted"))
    return f" [{_(', ').join(marks)}]" if marks else ""


def render_text(out: RecommendOutput, console: Console) -> None:
    from advisor.render.layout import Col, hang, print_table

    names = short_names(out)
    cur = out.currency
    head = _("[bold]Recommend:[/] ")
    hang(console, head, escape(job_words(out)))
    hang(console, " " * console.render_str(head).cell_len, escape(question_words(out)))
    if not out.front:
        console.print("[bold]" + _("No build of the catalog runs this job within these constraints.") + "[/]")
    else:
        rows = []
        for b in out.front:
            rows.append(
                [
                    str(b.rank),
                    escape(gpus_words(b, names)),
                    escape(f"{names.get(b.board, b.board)} + {names.get(b.cpu, b.cpu)}"),
                    f"{b.psu_w} W" if b.psu_w else "?",
                    f"{b.power_w} W" if b.power_w else "?",
                    escape(money(b.price, cur) + _flags(b)),
                    speed_words(b),
                    f"{b.speed_per_1000:.3f}",
                    escape("; ".join(b.limits) or "-"),
                ]
            )
        unit = out.front[0].unit
        print_table(
            console,
            [
                Col("#", "key", "right"),
                Col(_("GPUs (slots)"), "wrap"),
                Col(_("board + CPU"), "wrap"),
                Col(_("PSU")),
                Col(_("power"), justify="right"),
                Col(_("price"), justify="right"),
                Col(_("{unit} (range)").format(unit=unit), justify="right"),
                Col(_("per 1,000 {currency}").format(currency=cur), justify="right"),
                Col(_("limits"), "prose"),
            ],
            rows,
            title=_("Price against speed: each build faster than every cheaper one"),
        )
        for b in out.front:
            hang(console, f"  #{b.rank}: ", escape(_short_names(b.why)))
        first, last = out.front[0], out.front[-1]
        hang(console, _("[bold]Cheapest that runs the job:[/] "), escape(_build_line(first, names, cur)))
        hang(console, _("[bold]Fastest within the budget:[/] "), escape(_build_line(last, names, cur)))
        warned = [b for b in out.front if b.findings]
        if warned:
            hang(
                console,
                _("[bold]Warnings[/] (`advisor plan` with the build explains each): "),
                escape(_("; ").join(f"#{b.rank} {warning_ids(b)}" for b in warned)),
            )
    if out.others:
        console.print(_("[bold]Off the front[/] (the best build of each other GPU model and count):"))
        for b in out.others:
            hang(console, "  - ", escape(_off_front_line(b, names, cur, _short_names(b.why))))
    _prices(out, console)
    if out.no_price_known:
        shown = ", ".join(p.name for p in out.no_price_known[:12])
        more = len(out.no_price_known) - 12
        console.print(_("[bold]No price known[/] (left out of the search; give them with --prices):"))
        if more > 0:
            shown = _("{names} and {more} more").format(names=shown, more=more)
        hang(console, "  ", escape(shown))
    hang(console, _("[bold]Search:[/] "), escape(search_words(out)))
    for note in out.notes:
        if not _said_under_prices(out, note):
            hang(console, "", escape(note))


def _build_line(b: BuildOut, names: dict[str, str], cur: str) -> str:
    return _("#{rank}, {gpus}, {price}, {speed} {unit}").format(
        rank=b.rank,
        gpus=gpus_words(b, names),
        price=money(b.price, cur),
        speed=f"{b.speed:,.2f}",
        unit=b.unit,
    )


def _off_front_line(b: BuildOut, names: dict[str, str], cur: str, why: str) -> str:
    return _("{gpus}, {price}, {speed} {unit}: {why}").format(
        gpus=gpus_words(b, names), price=money(b.price, cur), speed=f"{b.speed:,.2f}", unit=b.unit, why=why
    )


def search_words(out: RecommendOutput) -> str:
    """How the search went, in one sentence: enumerated, pruned (by bound), assessed, set aside, kept."""
    c = out.counts
    pruned = _(", ").join(f"{x.count} {x.why}" for x in c.pruned) or _("none")
    rejected = _(", ").join(f"{x.count} {x.why}" for x in c.rejected) or _("none")
    return _(
        "{enumerated} combinations enumerated; pruned before any prediction: {pruned}; {evaluated} assessed as "
        "`advisor plan` does; set aside after: {rejected}; {front} on the front."
    ).format(
        enumerated=f"{c.enumerated:,}", pruned=pruned, evaluated=c.evaluated, rejected=rejected, front=c.front
    )


def _said_under_prices(out: RecommendOutput, note: str) -> bool:
    """The note on converted prices, which the Prices section says already (with the rate)."""
    return bool(out.rate) and note == _("Prices in another currency converted at {rate}.").format(
        rate=out.rate
    )


def warning_ids(b: BuildOut) -> str:
    """A build's warnings as their ids, each with its count: 'LANE001 x2, P2P001'."""
    ids: dict[str, int] = {}
    for f in b.findings:
        ids[f.id] = ids.get(f.id, 0) + 1
    return ", ".join(f"{i} x{n}" if n > 1 else i for i, n in ids.items())


def _price_lines(out: RecommendOutput) -> list[str]:
    seen: dict[str, str] = {}
    for b in out.front + out.others:
        for ln in b.lines:
            if ln.unit_price is None or ln.part in seen or ln.owned >= ln.count:
                continue
            p = ln.unit_price
            bits = [f"{p.original:,.2f} {p.original_currency}"]
            if p.converted:
                bits.append(f"= {p.amount:,.0f} {p.currency}")
            bits.append(_(_KINDS[p.kind]) if p.kind in _KINDS else p.kind)
            if p.condition == "used":
                bits.append(_("used"))
            bits.append(p.date or _("undated"))
            if p.stale:
                bits.append(_("STALE"))
            seen[ln.part] = _("{name}: {details} ({source})").format(
                name=ln.name, details=_(", ").join(bits), source=p.source
            )
    return list(seen.values())


def _prices(out: RecommendOutput, console: Console) -> None:
    from advisor.render.layout import hang

    lines = _price_lines(out)
    if not lines:
        return
    console.print(_("[bold]Prices[/] (per unit; the total leaves out memory, storage, case and PSU):"))
    for line in lines:
        hang(console, "  ", escape(line))
    if out.rate:
        hang(console, "  ", escape(_("converted at {rate}").format(rate=out.rate)))


def render_markdown(out: RecommendOutput) -> str:
    names = short_names(out)
    cur = out.currency
    md = [_("# What to buy: {job}").format(job=job_words(out)), "", question_words(out), ""]
    if not out.front:
        md += [_("No build of the catalog runs this job within these constraints."), ""]
    else:
        unit = out.front[0].unit
        md += [
            _(
                "| # | GPUs (slots) | board + CPU | PSU | power | price ({currency}) | {unit} (range) | per 1,000 "
                "{currency} | limits |"
            ).format(currency=cur, unit=unit),
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for b in out.front:
            md.append(
                f"| {b.rank} | {_md(gpus_words(b, names))} | {_md(names.get(b.board, b.board))} + "
                f"{_md(names.get(b.cpu, b.cpu))} | {b.psu_w or '?'} W | {b.power_w or '?'} W | "
                f"{b.price:,.0f}{_flags(b)} | {speed_words(b)} | {b.speed_per_1000:.3f} | "
                f"{_md('; '.join(b.limits) or '-')} |"
            )
        md.append("")
        for b in out.front:
            md.append(f"- **#{b.rank}**: {_md(b.why)}")
        first, last = out.front[0], out.front[-1]
        md += [
            "",
            _(
                "**Cheapest that runs the job:** #{first}, {first_price}. **Fastest within the budget:** #{last}, "
                "{last_price}."
            ).format(
                first=first.rank,
                first_price=money(first.price, cur),
                last=last.rank,
                last_price=money(last.price, cur),
            ),
            "",
        ]
    if out.others:
        md += ["## " + _("Off the front"), ""]
        md += [
            "- "
            + _("{gpus}, {price}, {speed} {unit}: {why}").format(
                gpus=_md(gpus_words(b, names)),
                price=money(b.price, cur),
                speed=f"{b.speed:,.2f}",
                unit=b.unit,
                why=_md(b.why),
            )
            for b in out.others
        ]
        md.append("")
    lines = _price_lines(out)
    if lines:
        md += [
            "## " + _("Prices"),
            "",
            _("Per unit; the total leaves out memory, storage, case and PSU."),
            "",
        ]
        md += [f"- {_md(x)}" for x in lines]
        if out.rate:
            md.append("- " + _("converted at {rate}").format(rate=_md(out.rate)))
        md.append("")
    if out.no_price_known:
        md += [
            "## " + _("No price known"),
            "",
            _("Left out of the search; give them with `--prices`: {names}.").format(
                names=", ".join(_md(p.name) for p in out.no_price_known)
            ),
            "",
        ]
    md += ["## " + _("Search"), "", search_words(out), ""]
    md += [_md(n) for n in out.notes if not _said_under_prices(out, n)]
    return "\n".join(md).rstrip() + "\n"


def _md(text: str) -> str:
    """Text from the catalog or a price list inside a Markdown table or list: its pipes and markup
    characters written as themselves."""
    out = text.replace("\\", "\\\\")
    for ch in "|*_`[]<>":
        out = out.replace(ch, "\\" + ch)
    return out
