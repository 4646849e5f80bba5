"""The result of `advisor validate` as people read it: text for the terminal, Markdown for the vendor."""

from __future__ import annotations

from advisor.outputs.plan import NOT_CHECKED, PlanOutput
from advisor.outputs.validate import QuoteLineOut, ValidateOutput

_SEV = {"error": "ERROR", "warning": "warning", "info": "info"}


def _money(x) -> str:
    return "" if x is None else f"${x:,.2f}"


def _part(x: QuoteLineOut) -> str:
    return x.part_id or x.part_name or ""


def why_verdict(r: ValidateOutput) -> str:
    if r.verdict == "PASS":
        return "no error-severity finding and no false claim"
    bits = []
    if r.missing:
        bits.append("missing from the quote: " + ", ".join(r.missing))
    if r.not_in_catalog:
        bits.append(f"{len(r.not_in_catalog)} part line(s) not in the catalog")
    if r.build_problems:
        bits.append("the build cannot be evaluated")
    errs = [f for f in (r.plan.findings if r.plan else []) if f.severity == "error"]
    if errs:
        bits.append(f"{len(errs)} error finding(s)")
    if r.false_claims:
        bits.append(f"{len(r.false_claims)} false claim(s)")
    return "; ".join(bits)


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


def render(result: ValidateOutput, fmt: str = "text") -> str:
    if fmt == "json":
        return result.json_text()
    if fmt == "markdown":
        return render_markdown(result)
    return render_text(result)


def render_text(r: ValidateOutput) -> str:
    q = r.quote
    lines = [f"{r.verdict}: {q.file} ({q.format}) - {why_verdict(r)}", ""]
    matched = [x for x in q.lines if x.status in ("matched", "recognized")]
    lines.append("Parts")
    lines.append(f"  {'line':>4}  {'part':36} {'conf':>5} {'qty':>3} {'price':>11}  text")
    for x in matched:
        conf = "" if x.confidence is None else f"{x.confidence:.0f}"
        lines.append(
            f"  {x.line:>4}  {_part(x)[:36]:36} {conf:>5} {x.qty:>3} {_money(x.price):>11}  {x.text[:60]}"
        )
    if r.not_in_catalog:
        lines += ["", "Not in the catalog (cannot be checked)"]
        lines += [f"  {x.line:>4}  {x.kind}: {x.text[:90]}" for x in r.not_in_catalog]
    if r.missing:
        lines += [
            "",
            "Missing: " + ", ".join(r.missing) + " (no line of the quote names one from the catalog)",
        ]
    un = [x for x in q.lines if x.status == "unmatched"]
    if un:
        lines += ["", "Other lines (not parts)"]
        lines += [f"  {x.line:>4}  {x.text[:90]}" for x in un]
    for n in q.notes:
        lines.append(f"note: {n}")
    for p in r.build_problems:
        lines += ["", f"The build cannot be evaluated: {p}"]
    plan = r.plan
    if plan:
        if _lanes(plan):
            lines += ["", "Lanes and bandwidth"] + [f"  {s}" for s in _lanes(plan)]
        if plan.findings:
            lines += ["", "Findings (worst first)"]
            lines += [f"  {_SEV.get(f.severity, f.severity):7} {f.id}: {f.message}" for f in plan.findings]
    if r.claims:
        lines += ["", "Vendor claims"]
        for c in r.claims:
            v = {True: "TRUE", False: "FALSE", "unknown": "unknown"}[c.verdict]
            lines.append(f"  {v:7} line {c.line}: {c.claim[:90]}")
            lines.append(f"          {c.why}")
    lines += ["", NOT_CHECKED]
    return "\n".join(lines) + "\n"


def render_markdown(r: ValidateOutput) -> str:
    q = r.quote
    out = [
        f"# Quote review: {r.verdict}",
        "",
        f"Quote: `{q.file}`. Verdict: **{r.verdict}** - {why_verdict(r)}.",
        "",
    ]
    if r.false_claims:
        out += ["## Claims in the quote that do not hold", ""]
        for c in r.false_claims:
            out.append(f'- Line {c.line}: "{c.claim}" - {c.why}')
        out.append("")
    plan = r.plan
    errs = [f for f in (plan.findings if plan else []) if f.severity in ("error", "warning")]
    if errs:
        out += ["## Problems with this configuration", ""]
        for f in errs:
            out.append(f"- **{f.id}** ({f.severity}): {f.message} *Fix:* {f.fix}")
        out.append("")
    if r.missing or r.not_in_catalog or r.build_problems:
        out += ["## Could not be checked", ""]
        out += [
            f"- The quote names no {m} we could identify; please state the exact model." for m in r.missing
        ]
        out += [
            f'- Line {x.line}: "{x.text}" is not a part we know; please give the exact model and a datasheet.'
            for x in r.not_in_catalog
        ]
        out += [f"- {p}" for p in r.build_problems]
        out.append("")
    out += [
        "## Parts as we read them",
        "",
        "| Line | Quote text | Part | Confidence | Qty | Price |",
        "|---|---|---|---|---|---|",
    ]
    for x in q.lines:
        if x.status in ("matched", "recognized"):
            conf = "" if x.confidence is None else f"{x.confidence:.0f}"
            text = x.text.replace("|", "\\|")
            out.append(f"| {x.line} | {text} | {_part(x)} | {conf} | {x.qty} | {_money(x.price)} |")
    out.append("")
    if plan and _lanes(plan):
        out += ["## Predicted PCIe links and bandwidth", ""] + [f"- {s}" for s in _lanes(plan)] + [""]
    if r.claims:
        out += ["## All claims checked", ""]
        for c in r.claims:
            v = {True: "holds", False: "does not hold", "unknown": "cannot be checked"}[c.verdict]
            out.append(f'- Line {c.line}: "{c.claim}" - {v}: {c.why}')
        out.append("")
    out.append(
        f"_Generated by advisor validate: predictions from the PCIe topology of the named parts. {NOT_CHECKED}_"
    )
    return "\n".join(out) + "\n"
