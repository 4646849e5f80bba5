"""The result of `advisor validate` as people read it: text for the terminal, Markdown for the vendor."""

from __future__ import annotations

from advisor.base.text import for_markdown, plain
from advisor.i18n import N_, _
from advisor.outputs.plan import NOT_CHECKED, PlanOutput
from advisor.outputs.validate import QuoteLineOut, ValidateOutput
from advisor.quote.items import count_source_words
from advisor.quote.segment import kind_name

# how a pair copies (the JSON's `via`), as a sentence says it
_VIA = {"nvlink": N_("NVLink"), "pcie-p2p": N_("PCIe"), "staged": N_("host memory")}
_SEV = {"error": N_("ERROR"), "warning": N_("warning"), "info": N_("info")}
_STATUS = {
    "part": N_("part"),
    "recognized": N_("recognized"),
    "not_in_catalog": N_("NOT IN CATALOG"),
    "title": N_("title"),
    "mention": N_("mention"),
    "total": N_("total"),
    "claim": N_("claim"),
    "header": N_("header"),
    "continued": N_("continued"),
    "other": N_("not a part"),
}
# a severity as a word in a sentence of the Markdown report
_SEV_WORD = {"error": N_("error"), "warning": N_("warning"), "info": N_("info")}
# the verdict's word, first on the report (the JSON keeps the English word)
_VERDICT = {
    "PROBLEMS": N_("PROBLEMS"),
    "INCOMPLETE": N_("INCOMPLETE"),
    "WARN": N_("WARN"),
    "PASS": N_("PASS"),
}


def _cell(text: str, width: int, right: bool = False) -> str:
    """`text` padded to `width` terminal cells (a Chinese character takes two), on the left or the right."""
    from advisor.render.words import cells

    pad = " " * max(0, width - cells(text))
    return pad + text if right else text + pad


def _clip(text: str, width: int) -> str:
    """The start of `text` that fits in `width` columns (a Chinese character takes two)."""
    from advisor.render.words import cells

    while cells(text) > width:
        text = text[:-1]
    return text


def money(x: QuoteLineOut) -> str:
    if x.price is None:
        return ""
    sym = {"USD": "$", "EUR": "€", "CNY": "¥", "GBP": "£"}.get(x.currency or "", "")
    return f"{sym}{x.price:,.2f}" if sym else f"{x.price:,.2f}"


def _parts(x: QuoteLineOut) -> str:
    return " + ".join(md(p.part_id or p.name) for p in x.parts)


def why_verdict(r: ValidateOutput) -> str:
    return r.summary


def _lanes(plan: PlanOutput) -> list[str]:
    out = []
    for g in plan.gpus:
        lk = g.link
        out.append(
            _(
                "GPU{index} {model} in {slot}: Gen{gen} x{width} (card max Gen{max_gen} x{max_width}), H2D {h2d} "
                "GB/s alone, {h2d_all} GB/s all copying"
            ).format(
                index=g.index,
                model=g.model,
                slot=g.slot,
                gen=lk.gen,
                width=lk.width,
                max_gen=lk.max_gen,
                max_width=lk.max_width,
                h2d=g.h2d_gbps,
                h2d_all=g.h2d_all_gbps,
            )
        )
    for p in plan.pairs:
        out.append(
            (
                _("GPU{a}-GPU{b}: path {path}, P2P yes (via {via}), {uni} GB/s one way")
                if p.p2p
                else _("GPU{a}-GPU{b}: path {path}, P2P no (via {via}), {uni} GB/s one way")
            ).format(a=p.a, b=p.b, path=p.path, via=_(_VIA.get(p.via, p.via)), uni=p.uni_gbps)
        )
    ar = plan.allreduce
    if ar:
        out.append(
            _("all-reduce bus bandwidth over {gpus} GPUs: {busbw} GB/s").format(
                gpus=ar.gpus, busbw=ar.busbw_gbps
            )
        )
    return out


def render(result: ValidateOutput, fmt: str = "text", explain: bool = False) -> str:
    if fmt == "json":
        return result.json_text()
    if fmt == "markdown":
        return render_markdown(result)
    return render_text(result, explain=explain)


def explain_lines(r: ValidateOutput) -> list[str]:
    """How each line was read, one sentence a line ("line 7 read as GPU x4 ('the qty column')"; "line 2: a
    title: cross-checks the counts, not counted"): what `--explain` prints."""
    out = []
    for x in r.quote.lines:
        if x.status == "header" or (x.status == "other" and not x.parts and x.read_as in ("", _("no part"))):
            continue  # a line of no part; prose that names one says so ("prose naming ...: a mention")
        out.append(
            _("line {line}: {read_as} - {text}").format(
                line=x.line, read_as=x.read_as or x.status, text=repr(x.text.strip()[:80])
            )
        )
    return out


def _para(con, text: str, width: int, first: str = "", indent: int | None = None) -> list[str]:
    """`first` + `text` wrapped to `width` terminal cells (a Chinese character takes two), the lines
    after the first hung under the text (or at `indent`)."""
    from rich.markup import escape

    from advisor.render.layout import hang_lines, plain_hang_lines

    fast = plain_hang_lines(first, text, width, indent)
    if fast is not None:
        return fast or [first.rstrip()]
    return [t.plain for t in hang_lines(con, escape(first), escape(text), indent)] or [first.rstrip()]


def render_text(r: ValidateOutput, width: int | None = None, explain: bool = False) -> str:
    """The report as text laid out for `width` columns (the terminal's, 80 into a pipe): long sentences
    wrap under their own start; the quote's lines keep their columns, with the text hung beneath."""
    import io

    from rich.console import Console

    from advisor.render.layout import terminal_width

    width = width or terminal_width()
    con = Console(width=width, file=io.StringIO(), color_system=None, highlight=False, emoji=False)
    wide = width >= 120  # room for the "read from" column beside the text
    q = r.quote
    lines = (
        _para(con, f"{_(_VERDICT.get(r.verdict, r.verdict))}: {r.summary}", width, indent=2)
        + _para(con, f"({q.file}, {q.format})", width, first="  ")
        + [""]
    )
    lines.append(_("Every line of the quote"))
    line_h, status_h, qty_h, src_h, price_h = _("line"), _("status"), _("qty"), _("read from"), _("price")
    head = (
        f"  {_cell(line_h, 4, True)}  {_cell(status_h, 14)} {_cell(qty_h, 4, True)}  "
        + (f"{_cell(src_h, 22)} " if wide else "")
        + f"{_cell(price_h, 12, True)}  "
    )
    lines.append(head + _("part / text"))
    for x in q.lines:
        if x.status == "header":
            continue
        what = _parts(x) or x.text.strip()[:200]
        qty = f"{x.qty}?" if x.qty_unclear else str(x.qty)
        src = x.qty_source if x.status in ("part", "recognized", "not_in_catalog", "title") else ""
        shown = count_source_words(src)
        cells = f"  {x.line:>4}  {_cell(_(_STATUS[x.status]), 14)} {qty:>4}  "
        if wide:
            cells += _cell(_clip(shown, 22), 22) + " "
        elif src and not src.startswith("none written"):
            what = _("{part} (qty from {source})").format(part=what, source=shown)
        cells += f"{money(x):>12}  "
        lines += _para(con, what, width, first=cells)
    if r.missing:
        lines += [""] + _para(
            con,
            _("Missing: {kinds} (no line of the quote names one from the catalog)").format(
                kinds=_(", ").join(map(kind_name, r.missing))
            ),
            width,
        )
    for n in q.notes:
        lines += _para(con, n, width, first=_("note: "))
    for p in r.build_problems:
        lines += [""] + _para(con, p, width, first=_("The build cannot be evaluated: "), indent=2)
    if r.part_checks:
        lines += ["", _("Checked from the parts alone (the build itself could not be evaluated)")]
        for c in r.part_checks:
            sev = _("ERROR") if c.severity == "error" else _("warning")
            lines += _para(con, f"{c.id}: {c.message}", width, first=f"  {_cell(sev, 7)} ", indent=10)
    if explain:
        lines += ["", _("How each line was read")]
        for e in explain_lines(r):
            lines += _para(con, e, width, first="  ", indent=4)
    plan = r.plan
    if plan:
        if _lanes(plan):
            lines += ["", _("Lanes and bandwidth")]
            for s in _lanes(plan):
                lines += _para(con, s, width, first="  ", indent=4)
        for a in r.alternatives:
            lines += _para(con, a, width, first=_("  depends on the quote: "), indent=4)
        if plan.findings:
            lines += ["", _("Findings (worst first)")]
            for f in plan.findings:
                lines += _para(
                    con,
                    f"{f.id}: {f.message}",
                    width,
                    first=f"  {_cell(_(_SEV.get(f.severity, f.severity)), 7)} ",
                    indent=10,
                )
    if r.claims:
        lines += ["", _("Vendor claims")]
        for c in r.claims:
            v = {True: _("TRUE"), False: _("FALSE"), "unknown": _("unknown")}[c.verdict]
            lines += _para(
                con,
                _("line {line}: {claim}").format(line=c.line, claim=c.claim),
                width,
                first=f"  {_cell(v, 7)} ",
                indent=10,
            )
            lines += _para(con, c.why, width, first=" " * 10)
    if r.spec_checks:
        lines += ["", _("Part specs in the quote, against the catalog")]
        for s in r.spec_checks:
            lines += _para(
                con,
                _("line {line}: {part} '{says}'").format(line=s.line, part=s.part_id, says=s.says),
                width,
                first="  " + _cell(_("agrees") if s.agrees else _("DIFFERS"), 7) + " ",
                indent=10,
            )
            lines += _para(
                con,
                (_("catalog: {catalog} ({source})") if s.source else _("catalog: {catalog}")).format(
                    catalog=s.catalog, source=s.source
                ),
                width,
                first=" " * 10,
                indent=19,
            )
    if r.ask_vendor:
        lines += ["", _("Ask the vendor for")]
        for a in r.ask_vendor:
            lines += _para(con, a, width, first="  - ")
    lines += [""] + _para(con, _(NOT_CHECKED), width)
    return "\n".join(lines) + "\n"


def md(text: object) -> str:
    """Text from the quote (or built from it) as inert Markdown (advisor.base.text.for_markdown)."""
    return for_markdown(text)


def render_markdown(r: ValidateOutput) -> str:
    q = r.quote
    file = plain(str(q.file)).replace("`", "'")
    verdict = _(_VERDICT.get(r.verdict, r.verdict))
    out = ["# " + _("Quote review: {verdict}").format(verdict=verdict), "", f"**{md(r.summary)}**", ""]
    out += [_("Quote: `{file}`.").format(file=file), ""]
    if r.false_claims:
        out += ["## " + _("Claims in the quote that do not hold"), ""]
        for c in r.false_claims:
            out.append(
                "- "
                + _('Line {line}: "{claim}" - {why}').format(line=c.line, claim=md(c.claim), why=md(c.why))
            )
        out.append("")
    plan = r.plan
    errs = [f for f in (plan.findings if plan else []) if f.severity in ("error", "warning")]
    if errs:
        out += ["## " + _("Problems with this configuration"), ""]
        for f in errs:
            sev = _(_SEV_WORD.get(f.severity, f.severity))
            out.append(f"- **{f.id}** ({sev}): {md(f.message)} " + _("*Fix:* {fix}").format(fix=md(f.fix)))
        out.append("")
    if r.part_checks:
        out += ["## " + _("Checked from the parts alone"), ""]
        out += [
            f"- **{c.id}** ({_(_SEV_WORD.get(c.severity, c.severity))}): {md(c.message)}"
            for c in r.part_checks
        ] + [""]
    if r.ask_vendor:
        out += ["## " + _("Please tell us"), ""] + [f"- {md(a)}" for a in r.ask_vendor] + [""]
    if r.missing or r.not_in_catalog or r.build_problems:
        out += ["## " + _("Could not be checked"), ""]
        out += [
            "- "
            + _("The quote names no {kind} we could identify; please state the exact model.").format(
                kind=kind_name(m)
            )
            for m in r.missing
        ]
        out += [
            "- "
            + _(
                'Line {line}: "{text}" is not a part we know; please give the exact model and a datasheet.'
            ).format(line=x.line, text=md(x.text))
            for x in r.not_in_catalog
        ]
        out += [f"- {md(p)}" for p in r.build_problems]
        out.append("")
    head = [_("Line"), _("Quote text"), _("Part"), _("Qty (read from)"), _("Price")]
    out += [
        "## " + _("Parts as we read them"),
        "",
        "| " + " | ".join(head) + " |",
        "|---|---|---|---|---|",
    ]
    for x in q.lines:
        if x.status in ("part", "recognized", "not_in_catalog"):
            text = md(x.text)
            qty = f"{x.qty}{'?' if x.qty_unclear else ''} ({count_source_words(x.qty_source)})"
            out.append(f"| {x.line} | {text} | {_parts(x)} | {qty} | {money(x)} |")
    out.append("")
    if plan and _lanes(plan):
        out += ["## " + _("Predicted PCIe links and bandwidth"), ""] + [f"- {md(s)}" for s in _lanes(plan)]
        out += ["- " + _("Depends on the quote: {choice}").format(choice=md(a)) for a in r.alternatives] + [
            ""
        ]
    if r.spec_checks:
        out += ["## " + _("Part specs in the quote, against our catalog"), ""]
        for s in r.spec_checks:
            out.append(
                "- "
                + (
                    _("Line {line}: {part} '{says}' - agrees: {catalog}")
                    if s.agrees
                    else _("Line {line}: {part} '{says}' - **differs**: {catalog}")
                ).format(line=s.line, part=s.part_id, says=md(s.says), catalog=md(s.catalog))
            )
        out.append("")
    if r.claims:
        out += ["## " + _("All claims checked"), ""]
        for c in r.claims:
            v = {True: _("holds"), False: _("does not hold"), "unknown": _("cannot be checked")}[c.verdict]
            out.append(
                "- "
                + _('Line {line}: "{claim}" - {verdict}: {why}').format(
                    line=c.line, claim=md(c.claim), verdict=v, why=md(c.why)
                )
            )
        out.append("")
    out.append(
        "_"
        + _(
            "Generated by advisor validate: predictions from the PCIe topology of the named parts. {not_checked}"
        ).format(not_checked=_(NOT_CHECKED))
        + "_"
    )
    return "\n".join(out) + "\n"
