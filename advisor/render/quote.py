"""The result of `advisor validate` as people read it: text for the terminal, Markdown for the vendor."""

from __future__ import annotations

from advisor.base.text import for_markdown, plain
from advisor.outputs.plan import NOT_CHECKED, PlanOutput
from advisor.outputs.validate import QuoteLineOut, ValidateOutput

_SEV = {"error": "ERROR", "warning": "warning", "info": "info"}
_STATUS = {
    "part": "part",
    "recognized": "recognized",
    "not_in_catalog": "NOT IN CATALOG",
    "title": "title",
    "mention": "mention",
    "total": "total",
    "claim": "claim",
    "header": "header",
    "continued": "continued",
    "other": "not a part",
}


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
            f"GPU{g.index} {g.model} in {g.slot}: Gen{lk.gen} x{lk.width} "
            f"(card max Gen{lk.max_gen} x{lk.max_width}), H2D {g.h2d_gbps} GB/s alone, "
            f"{g.h2d_all_gbps} GB/s all copying"
        )
    for p in plan.pairs:
        out.append(
            f"GPU{p.a}-GPU{p.b}: path {p.path}, P2P {'yes' if p.p2p else 'no'} (via {p.via}), "
            f"{p.uni_gbps} GB/s one way"
        )
    ar = plan.allreduce
    if ar:
        out.append(f"all-reduce bus bandwidth over {ar.gpus} GPUs: {ar.busbw_gbps} GB/s")
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
        if x.status == "header" or (
            x.status == "other" and not x.parts and "mention" not in (x.read_as or "")
        ):
            continue  # a line of no part; prose that names one says so ("prose naming ...: a mention")
        out.append(f"line {x.line}: {x.read_as or x.status} - {x.text.strip()[:80]!r}")
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
        _para(con, f"{r.verdict}: {r.summary}", width, indent=2)
        + _para(con, f"({q.file}, {q.format})", width, first="  ")
        + [""]
    )
    lines.append("Every line of the quote")
    head = (
        f"  {'line':>4}  {'status':14} {'qty':>4}  "
        + (f"{'read from':22} " if wide else "")
        + f"{'price':>12}  "
    )
    lines.append(head + "part / text")
    for x in q.lines:
        if x.status == "header":
            continue
        what = _parts(x) or x.text.strip()[:200]
        qty = f"{x.qty}?" if x.qty_unclear else str(x.qty)
        src = x.qty_source if x.status in ("part", "recognized", "not_in_catalog", "title") else ""
        cells = f"  {x.line:>4}  {_STATUS[x.status]:14} {qty:>4}  "
        if wide:
            cells += f"{src[:22]:22} "
        elif src and not src.startswith("none written"):
            what += f" (qty from {src})"
        cells += f"{money(x):>12}  "
        lines += _para(con, what, width, first=cells)
    if r.missing:
        lines += [""] + _para(
            con,
            "Missing: " + ", ".join(r.missing) + " (no line of the quote names one from the catalog)",
            width,
        )
    for n in q.notes:
        lines += _para(con, n, width, first="note: ")
    for p in r.build_problems:
        lines += [""] + _para(con, p, width, first="The build cannot be evaluated: ", indent=2)
    if r.part_checks:
        lines += ["", "Checked from the parts alone (the build itself could not be evaluated)"]
        for c in r.part_checks:
            sev = "ERROR" if c.severity == "error" else "warning"
            lines += _para(con, f"{c.id}: {c.message}", width, first=f"  {sev:7} ", indent=10)
    if explain:
        lines += ["", "How each line was read"]
        for e in explain_lines(r):
            lines += _para(con, e, width, first="  ", indent=4)
    plan = r.plan
    if plan:
        if _lanes(plan):
            lines += ["", "Lanes and bandwidth"]
            for s in _lanes(plan):
                lines += _para(con, s, width, first="  ", indent=4)
        for a in r.alternatives:
            lines += _para(con, a, width, first="  depends on the quote: ", indent=4)
        if plan.findings:
            lines += ["", "Findings (worst first)"]
            for f in plan.findings:
                lines += _para(
                    con,
                    f"{f.id}: {f.message}",
                    width,
                    first=f"  {_SEV.get(f.severity, f.severity):7} ",
                    indent=10,
                )
    if r.claims:
        lines += ["", "Vendor claims"]
        for c in r.claims:
            v = {True: "TRUE", False: "FALSE", "unknown": "unknown"}[c.verdict]
            lines += _para(con, f"line {c.line}: {c.claim}", width, first=f"  {v:7} ", indent=10)
            lines += _para(con, c.why, width, first=" " * 10)
    if r.spec_checks:
        lines += ["", "Part specs in the quote, against the catalog"]
        for s in r.spec_checks:
            lines += _para(
                con,
                f"line {s.line}: {s.part_id} '{s.says}'",
                width,
                first=f"  {'agrees' if s.agrees else 'DIFFERS':7} ",
                indent=10,
            )
            lines += _para(
                con,
                "catalog: " + s.catalog + (f" ({s.source})" if s.source else ""),
                width,
                first=" " * 10,
                indent=19,
            )
    if r.ask_vendor:
        lines += ["", "Ask the vendor for"]
        for a in r.ask_vendor:
            lines += _para(con, a, width, first="  - ")
    lines += [""] + _para(con, NOT_CHECKED, width)
    return "\n".join(lines) + "\n"


def md(text: object) -> str:
    """Text from the quote (or built from it) as inert Markdown (advisor.base.text.for_markdown)."""
    return for_markdown(text)


def render_markdown(r: ValidateOutput) -> str:
    q = r.quote
    file = plain(str(q.file)).replace("`", "'")
    out = [f"# Quote review: {r.verdict}", "", f"**{md(r.summary)}**", "", f"Quote: `{file}`.", ""]
    if r.false_claims:
        out += ["## Claims in the quote that do not hold", ""]
        for c in r.false_claims:
            out.append(f'- Line {c.line}: "{md(c.claim)}" - {md(c.why)}')
        out.append("")
    plan = r.plan
    errs = [f for f in (plan.findings if plan else []) if f.severity in ("error", "warning")]
    if errs:
        out += ["## Problems with this configuration", ""]
        for f in errs:
            out.append(f"- **{f.id}** ({f.severity}): {md(f.message)} *Fix:* {md(f.fix)}")
        out.append("")
    if r.part_checks:
        out += ["## Checked from the parts alone", ""]
        out += [f"- **{c.id}** ({c.severity}): {md(c.message)}" for c in r.part_checks] + [""]
    if r.ask_vendor:
        out += ["## Please tell us", ""] + [f"- {md(a)}" for a in r.ask_vendor] + [""]
    if r.missing or r.not_in_catalog or r.build_problems:
        out += ["## Could not be checked", ""]
        out += [
            f"- The quote names no {m} we could identify; please state the exact model." for m in r.missing
        ]
        out += [
            f'- Line {x.line}: "{md(x.text)}" is not a part we know; please give the exact model and a datasheet.'
            for x in r.not_in_catalog
        ]
        out += [f"- {md(p)}" for p in r.build_problems]
        out.append("")
    out += [
        "## Parts as we read them",
        "",
        "| Line | Quote text | Part | Qty (read from) | Price |",
        "|---|---|---|---|---|",
    ]
    for x in q.lines:
        if x.status in ("part", "recognized", "not_in_catalog"):
            text = md(x.text)
            qty = f"{x.qty}{'?' if x.qty_unclear else ''} ({x.qty_source})"
            out.append(f"| {x.line} | {text} | {_parts(x)} | {qty} | {money(x)} |")
    out.append("")
    if plan and _lanes(plan):
        out += ["## Predicted PCIe links and bandwidth", ""] + [f"- {md(s)}" for s in _lanes(plan)]
        out += [f"- Depends on the quote: {md(a)}" for a in r.alternatives] + [""]
    if r.spec_checks:
        out += ["## Part specs in the quote, against our catalog", ""]
        for s in r.spec_checks:
            out.append(
                f"- Line {s.line}: {s.part_id} '{md(s.says)}' - {'agrees' if s.agrees else '**differs**'}: {md(s.catalog)}"
            )
        out.append("")
    if r.claims:
        out += ["## All claims checked", ""]
        for c in r.claims:
            v = {True: "holds", False: "does not hold", "unknown": "cannot be checked"}[c.verdict]
            out.append(f'- Line {c.line}: "{md(c.claim)}" - {v}: {md(c.why)}')
        out.append("")
    out.append(
        f"_Generated by advisor validate: predictions from the PCIe topology of the named parts. {NOT_CHECKED}_"
    )
    return "\n".join(out) + "\n"
