"""`advisor recommend` for people: the front as a short ranked table, what each step up buys, the builds
off the front with what beats them, the prices with their dates and sources, and how the search went.
Both faces draw from the --json model (advisor/outputs/recommend.py)."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape

from advisor.outputs.recommend import BuildOut, RecommendOutput


def job_words(out: RecommendOutput) -> str:
    w = out.workload
    what = f"{'train' if w.task == 'train' else 'serve'} {w.model}, {w.strategy}, {w.precision}"
    if w.lora_rank:
        what += f", {'QLoRA' if w.base_bits == 4 else 'LoRA'} rank {w.lora_rank}"
    if w.task == "train":
        what += f", micro-batch {w.batch}" + (f" x {w.seq} tokens" if w.seq else "")
    else:
        what += f", {w.batch} concurrent sequence(s)"
    return what


def _short_names(text: str) -> str:
    return text.replace("NVIDIA GeForce ", "").replace("NVIDIA ", "")


def money(x: float, cur: str) -> str:
    return f"{x:,.0f} {cur}"


def question_words(out: RecommendOutput) -> str:
    c = out.constraints
    bits = [f"budget {money(out.budget, out.currency)}" if out.budget is not None else "no budget"]
    bits.append(f"{c['min_gpus']}-{c['max_gpus']} GPUs")
    if c.get("form"):
        bits.append(c["form"])
    if c.get("circuit"):
        ci = c["circuit"]
        bits.append(f"circuit {ci['volts']:g} V x {ci['amps']:g} A ({ci['continuous_w']:,.0f} W continuous)")
    if c.get("used"):
        bits.append("used prices where known")
    if c.get("own"):
        bits.append("you own " + ", ".join(f"{o['count']}x {o['part']}" for o in c["own"]))
    if c.get("exclude_vendors"):
        bits.append("not " + ", ".join(c["exclude_vendors"]))
    bits.append(f"prices as of {out.as_of}")
    return "; ".join(bits)


def speed_words(b: BuildOut) -> str:
    s = f"{b.speed:,.2f}"
    if b.speed_low is not None and b.speed_high is not None:
        s += f" ({b.speed_low:,.2f}-{b.speed_high:,.2f})"
    return s


def gpus_words(b: BuildOut, names: dict[str, str]) -> str:
    return f"{b.gpus}x {names.get(b.gpu, b.gpu)} in " + ", ".join(b.slots)


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
        marks.append("stale price")
    if b.converted_prices:
        marks.append("converted")
    return f" [{', '.join(marks)}]" if marks else ""


def render_text(out: RecommendOutput, console: Console) -> None:
    from advisor.render.layout import Col, hang, print_table

    names = short_names(out)
    cur = out.currency
    hang(console, "[bold]Recommend:[/] ", escape(job_words(out)))
    hang(console, "           ", escape(question_words(out)))
    if not out.front:
        console.print("[bold]No build of the catalog runs this job within these constraints.[/]")
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
                Col("GPUs (slots)", "wrap"),
                Col("board + CPU", "wrap"),
                Col("PSU"),
                Col("power", justify="right"),
                Col("price", justify="right"),
                Col(f"{unit} (range)", justify="right"),
                Col(f"per 1,000 {cur}", justify="right"),
                Col("limits", "prose"),
            ],
            rows,
            title="Price against speed: each build faster than every cheaper one",
        )
        for b in out.front:
            hang(console, f"  #{b.rank}: ", escape(_short_names(b.why)))
        first, last = out.front[0], out.front[-1]
        hang(
            console,
            "[bold]Cheapest that runs the job:[/] ",
            escape(
                f"#{first.rank}, {gpus_words(first, names)}, {money(first.price, cur)}, {first.speed:,.2f} {first.unit}"
            ),
        )
        hang(
            console,
            "[bold]Fastest within the budget:[/] ",
            escape(
                f"#{last.rank}, {gpus_words(last, names)}, {money(last.price, cur)}, {last.speed:,.2f} {last.unit}"
            ),
        )
        warned = [b for b in out.front if b.findings]
        if warned:
            hang(
                console,
                "[bold]Warnings[/] (`advisor plan` with the build explains each): ",
                escape("; ".join(f"#{b.rank} {warning_ids(b)}" for b in warned)),
            )
    if out.others:
        console.print("[bold]Off the front[/] (the best build of each other GPU model and count):")
        for b in out.others:
            hang(
                console,
                "  - ",
                escape(
                    f"{gpus_words(b, names)}, {money(b.price, cur)}, {b.speed:,.2f} {b.unit}: {_short_names(b.why)}"
                ),
            )
    _prices(out, console)
    if out.no_price_known:
        shown = ", ".join(p.name for p in out.no_price_known[:12])
        more = len(out.no_price_known) - 12
        console.print("[bold]No price known[/] (left out of the search; give them with --prices):")
        hang(console, "  ", escape(shown + (f" and {more} more" if more > 0 else "")))
    c = out.counts
    pruned = ", ".join(f"{x.count} {x.why}" for x in c.pruned) or "none"
    rejected = ", ".join(f"{x.count} {x.why}" for x in c.rejected) or "none"
    hang(
        console,
        "[bold]Search:[/] ",
        escape(
            f"{c.enumerated:,} combinations enumerated; pruned before any prediction: {pruned}; "
            f"{c.evaluated} assessed as `advisor plan` does; set aside after: {rejected}; {c.front} on the front."
        ),
    )
    for note in out.notes:
        if not (out.rate and note.startswith("Prices in another currency")):  # said under Prices
            hang(console, "", escape(note))


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
            bits.append({"launch": "launch list price", "yours": "your price list"}.get(p.kind, p.kind))
            if p.condition == "used":
                bits.append("used")
            bits.append(p.date or "undated")
            if p.stale:
                bits.append("STALE")
            seen[ln.part] = f"{ln.name}: {', '.join(bits)} ({p.source})"
    return list(seen.values())


def _prices(out: RecommendOutput, console: Console) -> None:
    from advisor.render.layout import hang

    lines = _price_lines(out)
    if not lines:
        return
    console.print("[bold]Prices[/] (per unit; the total leaves out memory, storage, case and PSU):")
    for line in lines:
        hang(console, "  ", escape(line))
    if out.rate:
        hang(console, "  ", escape(f"converted at {out.rate}"))


def render_markdown(out: RecommendOutput) -> str:
    names = short_names(out)
    cur = out.currency
    md = [f"# What to buy: {job_words(out)}", "", question_words(out), ""]
    if not out.front:
        md += ["No build of the catalog runs this job within these constraints.", ""]
    else:
        unit = out.front[0].unit
        md += [
            f"| # | GPUs (slots) | board + CPU | PSU | power | price ({cur}) | {unit} (range) | per 1,000 {cur} | limits |",
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
            f"**Cheapest that runs the job:** #{first.rank}, {money(first.price, cur)}. "
            f"**Fastest within the budget:** #{last.rank}, {money(last.price, cur)}.",
            "",
        ]
    if out.others:
        md += ["## Off the front", ""]
        md += [
            f"- {_md(gpus_words(b, names))}, {money(b.price, cur)}, {b.speed:,.2f} {b.unit}: {_md(b.why)}"
            for b in out.others
        ]
        md.append("")
    lines = _price_lines(out)
    if lines:
        md += ["## Prices", "", "Per unit; the total leaves out memory, storage, case and PSU.", ""]
        md += [f"- {_md(x)}" for x in lines]
        if out.rate:
            md.append(f"- converted at {_md(out.rate)}")
        md.append("")
    if out.no_price_known:
        md += [
            "## No price known",
            "",
            "Left out of the search; give them with `--prices`: "
            + ", ".join(_md(p.name) for p in out.no_price_known)
            + ".",
            "",
        ]
    c = out.counts
    md += [
        "## Search",
        "",
        f"{c.enumerated:,} combinations enumerated; pruned before any prediction: "
        + (", ".join(f"{x.count} {x.why}" for x in c.pruned) or "none")
        + f"; {c.evaluated} assessed as `advisor plan` does; set aside after: "
        + (", ".join(f"{x.count} {x.why}" for x in c.rejected) or "none")
        + f"; {c.front} on the front.",
        "",
    ]
    md += [_md(n) for n in out.notes if not (out.rate and n.startswith("Prices in another currency"))]
    return "\n".join(md).rstrip() + "\n"


def _md(text: str) -> str:
    """Text from the catalog or a price list inside a Markdown table or list: its pipes and markup
    characters written as themselves."""
    out = text.replace("\\", "\\\\")
    for ch in "|*_`[]<>":
        out = out.replace(ch, "\\" + ch)
    return out
