"""The one-page report a buyer can send on: one self-contained HTML file with the verdict, a drawing of
the machine, the key figures, the findings worst first with their fixes, and for a quote the parts as
read and the claims that do not hold.

Self-contained by construction: the style is inline, the drawing is inline SVG, there is no script, and
the page's own Content-Security-Policy forbids loading anything (a link a finding names is plain text).
It is drawn from the typed outputs (`PlanOutput`, `ValidateOutput`), as every --json is, and everything
that came from an input (a build's name, a quote's lines, a claim) is escaped where it is written.
"""

from __future__ import annotations

import re
from pathlib import Path

from advisor import __version__
from advisor.findings.finding import Finding
from advisor.i18n import html_lang
from advisor.outputs.plan import NOT_CHECKED, PlanOutput
from advisor.outputs.validate import ClaimVerdict, PartCheckOut, ValidateOutput
from advisor.quote.items import count_source_words
from advisor.quote.segment import kind_name
from advisor.render.drawing import FONT_STACK, machine_svg, report_title
from advisor.render.quote import money
from advisor.render.words import (
    CSP,
    esc,
    gpu_label,
    link_label,
    number,
    t,
    unknown,
    unknown_without,
    way_label,
)

_CSS = """
:root { --fg: #0f172a; --dim: #475569; --line: #e2e8f0; --bg: #f1f5f9; --card: #ffffff;
  --err: #b91c1c; --err-bg: #fef2f2; --warn: #b45309; --warn-bg: #fffbeb; --ok: #047857; --ok-bg: #ecfdf5;
  --info: #1d4ed8; --info-bg: #eff6ff; }
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; text-size-adjust: 100%; }
body { margin: 0; background: var(--bg); color: var(--fg); font-family: FONT_STACK; font-size: 16px;
  line-height: 1.5; overflow-wrap: anywhere; }
main { max-width: 1040px; margin: 0 auto; padding: 16px; }
header { margin: 8px 0 16px; }
.kicker { margin: 0; color: var(--dim); font-size: .85rem; font-weight: 600; letter-spacing: .04em; }
h1 { font-size: 1.55rem; line-height: 1.25; margin: .2rem 0 .8rem; }
h2 { font-size: 1.15rem; line-height: 1.3; margin: 0 0 .75rem; }
h3 { font-size: 1rem; margin: 1rem 0 .4rem; }
p { margin: 0 0 .5rem; }
section { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 16px;
  margin: 0 0 16px; }
.verdict { border-left: 6px solid var(--ok); background: var(--ok-bg); padding: 12px 14px; border-radius: 8px;
  font-weight: 600; margin: 0; }
.verdict .badge { margin-right: 8px; }
.sev-error { border-color: var(--err); background: var(--err-bg); }
.sev-warning { border-color: var(--warn); background: var(--warn-bg); }
.sev-info { border-color: var(--info); background: var(--info-bg); }
.sev-ok { border-color: var(--ok); background: var(--ok-bg); }
.badge { display: inline-block; padding: 1px 9px; border-radius: 999px; font-size: .78rem; font-weight: 700;
  color: #ffffff; background: var(--ok); white-space: nowrap; }
.badge.sev-error { background: var(--err); } .badge.sev-warning { background: var(--warn); }
.badge.sev-info { background: var(--info); }
.drawing { overflow-x: auto; -webkit-overflow-scrolling: touch; margin: 0 -4px; padding: 0 4px; }
.drawing svg { display: block; width: 100%; height: auto; max-width: calc(var(--w) * 1.25); margin: 0 auto;
  min-width: calc(var(--w) * .75); }
.hint { color: var(--dim); font-size: .85rem; }
.phone-only { display: none; }
.notes { margin: .75rem 0 0; padding-left: 1.2rem; color: var(--dim); font-size: .9rem; }
.figures { display: grid; grid-template-columns: repeat(auto-fit, minmax(210px, 1fr)); gap: 12px; }
.figure { border: 1px solid var(--line); border-radius: 8px; padding: 12px; }
.figure .label { color: var(--dim); font-size: .9rem; margin: 0; }
.figure .value { font-size: 1.8rem; font-weight: 700; line-height: 1.2; margin: 4px 0; }
.figure .value .unit { font-size: 1rem; font-weight: 600; color: var(--dim); }
.figure .value.unknown { font-size: 1.25rem; color: var(--warn); }
.figure .note { font-size: .88rem; color: var(--dim); margin: 0; }
ol.findings, ul.claims { list-style: none; padding: 0; margin: 0; }
.finding, .claim { border-left-width: 4px; border-left-style: solid; padding: 10px 12px; margin: 0 0 10px; border-radius: 6px; }
.finding .head { margin: 0 0 4px; }
.id { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-weight: 700; margin-right: 6px; }
.subject { color: var(--dim); font-size: .9rem; }
.message, .fix, .why { white-space: pre-line; }
.fix { margin: 6px 0 0; }
.label-inline { font-weight: 700; }
.sources-head { margin: 6px 0 0; color: var(--dim); font-size: .85rem; font-weight: 600; }
.sources { margin: 0; padding-left: 1.2rem; font-size: .85rem; }
details { margin-top: 6px; } summary { cursor: pointer; color: var(--dim); font-size: .9rem; }
blockquote { margin: 0 0 6px; padding: 4px 10px; border-left: 3px solid var(--line); font-weight: 600; }
.table { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; font-size: .92rem; }
th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { color: var(--dim); font-weight: 600; font-size: .85rem; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.warn { color: var(--warn); font-weight: 600; }
footer { color: var(--dim); font-size: .85rem; padding: 0 4px 24px; }
@media (max-width: 640px) {
  .phone-only { display: block; }
  main { padding: 10px; }
  h1 { font-size: 1.3rem; }
  section { padding: 12px; }
  .figures { grid-template-columns: 1fr 1fr; gap: 8px; }
  .figure { padding: 10px; }
  .figure .value { font-size: 1.35rem; }
  table.stack thead { display: none; }
  table.stack, table.stack tbody, table.stack tr { display: block; width: 100%; }
  table.stack tr { border-bottom: 1px solid var(--line); padding: 6px 0; }
  table.stack td { display: grid; grid-template-columns: 8.5em 1fr; gap: 8px; border: 0; padding: 2px 0;
    text-align: left; white-space: normal; }
  table.stack td::before { content: attr(data-label); color: var(--dim); font-size: .85rem; font-weight: 400; }
  table.stack td:empty { display: none; }
}
@media (max-width: 360px) { .figures { grid-template-columns: 1fr; } }
@media print { body { background: #ffffff; } section { break-inside: avoid; } .drawing { overflow: visible; } }
""".replace("FONT_STACK", FONT_STACK)


# a source written as a plain web address becomes a link; anything else (a book, a forum name) stays text
_URL = re.compile(r"https?://[^\s\"'<>`]+")

_SEVERITY = {"error": "sev-error", "warning": "sev-warning", "info": "sev-info", "ok": "sev-ok"}


def _severity_label(severity: str) -> str:
    return {"error": t("Error"), "warning": t("Warning"), "info": t("Note")}.get(severity, severity)


def _page(title: str, kicker: str, body: list[str]) -> str:
    return "\n".join(
        [
            "<!DOCTYPE html>",
            # the language the report's words are written in (the page's `lang` picks a font for Chinese)
            f'<html lang="{html_lang()}">',
            "<head>",
            '<meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f'<meta http-equiv="Content-Security-Policy" content="{esc(CSP)}">',
            '<meta name="referrer" content="no-referrer">',
            f'<meta name="generator" content="advisor {esc(__version__)}">',
            f"<title>{esc(title)}</title>",
            f"<style>{_CSS}</style>",
            "</head>",
            "<body>",
            "<main>",
            f'<p class="kicker">{esc(kicker)}</p>',
            *body,
            "</main>",
            "</body>",
            "</html>",
            "",
        ]
    )


def _section(cls: str, heading: str, inner: list[str]) -> list[str]:
    return [f'<section class="{cls}">', f"<h2>{esc(heading)}</h2>", *inner, "</section>"]


def _footer(not_checked: str) -> list[str]:
    return [
        "<footer>",
        f"<p>{esc(not_checked)}</p>",
        "<p>"
        + esc(
            t(
                "Made by advisor {version}. The figures are predictions from the PCIe topology of the named "
                "parts, not measurements.",
                version=__version__,
            )
        )
        + "</p>",
        "</footer>",
    ]


# ---------------------------------------------------------------------------------------------- pieces


def _drawing(plan: PlanOutput) -> list[str]:
    d = machine_svg(plan)
    out = []
    if d.width * 0.75 > 360:  # wider than a phone's screen at the smallest it is drawn
        wide = t("The drawing is wider than the screen: scroll it sideways.")
        out.append(f'<p class="hint phone-only">{esc(wide)}</p>')
    out.append(f'<div class="drawing" style="--w: {d.width}px">{d.svg}</div>')
    hint = t("Each link is drawn as wide as its lanes; a GPU below its card's own link is drawn in amber.")
    out.append(f'<p class="hint">{esc(hint)}</p>')
    notes = list(plan.allocation_notes) + [t("{device} gets no lanes.", device=u) for u in plan.unlinked]
    if notes:
        out.append("<h3>" + esc(t("What the lane allocation did")) + "</h3>")
        out.append('<ul class="notes">' + "".join(f"<li>{esc(n)}</li>" for n in notes) + "</ul>")
    return _section("machine", t("The machine"), out)


def _figure(label: str, value: str | None, unit: str, notes: list[str], key: str) -> str:
    if value is None:
        shown = f'<p class="value unknown">{esc(unknown())}</p>'
    else:
        shown = f'<p class="value">{esc(value)} <span class="unit">{esc(unit)}</span></p>'
    return (
        f'<div class="figure" data-figure="{key}"><p class="label">{esc(label)}</p>{shown}'
        + "".join(f'<p class="note">{esc(n)}</p>' for n in notes)
        + "</div>"
    )


def _figures(plan: PlanOutput) -> list[str]:
    gbps = t("GB/s")
    cards = []
    alone = [g.h2d_gbps for g in plan.gpus if g.h2d_gbps is not None]
    if plan.host_all is not None:
        notes = [t("From the GPUs at once: {gbps} GB/s.", gbps=number(plan.host_all.d2h_gbps) or unknown())]
        if alone:
            lo, hi = min(alone), max(alone)
            notes.append(
                t("Each GPU alone: {gbps} GB/s.", gbps=number(lo))
                if lo == hi
                else t("Each GPU alone: {lo} to {hi} GB/s.", lo=number(lo), hi=number(hi))
            )
        cards.append(
            _figure(t("Host to all GPUs at once"), number(plan.host_all.h2d_gbps), gbps, notes, "host")
        )
    elif plan.gpus:
        g = plan.gpus[0]
        notes = [t("Back to the host: {gbps} GB/s.", gbps=number(g.d2h_gbps) or unknown())]
        cards.append(_figure(t("Host to GPU"), number(g.h2d_gbps), gbps, notes, "host"))
    if plan.pairs:
        known = [p for p in plan.pairs if p.uni_gbps is not None]
        slow = min(known, key=lambda p: p.uni_gbps or 0.0) if known else plan.pairs[0]
        unknown_pairs = [p for p in plan.pairs if p.uni_gbps is None]
        worst = unknown_pairs[0] if unknown_pairs else slow
        how = {
            "nvlink": t("GPU{a} and GPU{b} copy over NVLink.", a=worst.a, b=worst.b),
            "pcie-p2p": t("GPU{a} and GPU{b} copy over PCIe P2P.", a=worst.a, b=worst.b),
            "staged": t("GPU{a} and GPU{b} copy through host memory.", a=worst.a, b=worst.b),
        }.get(worst.via, worst.via)
        notes = [how]
        if worst.unknown:
            notes.append(unknown_without(worst.unknown))
        elif len(known) > 1 and max(p.uni_gbps or 0.0 for p in known) != worst.uni_gbps:
            best = max(known, key=lambda p: p.uni_gbps or 0.0)
            notes.append(t("The fastest pair: {gbps} GB/s.", gbps=number(best.uni_gbps)))
        label = (
            t("GPU to GPU, the slowest pair, one way") if len(plan.pairs) > 1 else t("GPU to GPU, one way")
        )
        cards.append(_figure(label, number(worst.uni_gbps), gbps, notes, "p2p"))
    ar = plan.allreduce
    if ar is not None:
        notes = [
            t("{gpus} GPUs, as nccl-tests reports it for large messages.", gpus=ar.gpus)
            if ar.nodes <= 1
            else t(
                "{gpus} GPUs on {nodes} nodes, as nccl-tests reports it for large messages.",
                gpus=ar.gpus,
                nodes=ar.nodes,
            )
        ]
        if ar.unknown:
            notes.append(unknown_without(ar.unknown))
        if ar.confidence == "low":
            notes.append(
                t("Low confidence: {why}", why=ar.confidence_note or t("no calibration case for these GPUs"))
            )
        cards.append(_figure(t("All-reduce bus bandwidth"), number(ar.busbw_gbps), gbps, notes, "allreduce"))
    wl = plan.workload
    if wl is not None:
        spec = wl.workload
        notes = [
            t("Training {model}.", model=spec.model)
            if spec.task == "train"
            else t("Serving {model}.", model=spec.model)
        ]
        if wl.speedup_range is not None:
            notes.append(
                t(
                    "Typically {lo}x to {hi}x.",
                    lo=number(wl.speedup_range.lo, 2),
                    hi=number(wl.speedup_range.hi, 2),
                )
            )
        if wl.bottleneck:
            notes.append(wl.bottleneck)
        cards.append(
            _figure(
                t("Speed-up of {gpus} GPUs over one", gpus=wl.gpus),
                number(wl.speedup, 2),
                t("x"),
                notes,
                "speedup",
            )
        )
    if not cards:
        return []
    return _section("figures-section", t("Key figures"), ['<div class="figures">', *cards, "</div>"])


def _sources(rule_id: str) -> str:
    """The rule's sources as links that open away from the report (no referrer, no opener), or as plain
    text where a source is not a web address; empty for a rule the registry does not know (a user's)."""
    from advisor.findings.rules import rule_by_id

    rule = rule_by_id(rule_id)
    sources = list(getattr(rule, "sources", None) or [])
    if not sources:
        return ""
    shown = []
    for src in sources:
        if _URL.fullmatch(src):
            shown.append(
                f'<li><a href="{esc(src)}" rel="noreferrer noopener" target="_blank">{esc(src)}</a></li>'
            )
        else:
            shown.append(f"<li>{esc(src)}</li>")
    return (
        '<p class="sources-head">' + esc(t("Sources")) + '</p><ul class="sources">' + "".join(shown) + "</ul>"
    )


def _findings(findings: list[Finding], checks: list[PartCheckOut] | None = None) -> list[str]:
    items = []
    for f in findings:
        sev = _SEVERITY.get(f.severity, "sev-info")
        items.append(
            f'<li class="finding {sev}" data-id="{esc(f.id)}" data-severity="{esc(f.severity)}">'
            f'<p class="head"><span class="badge {sev}">{esc(_severity_label(f.severity))}</span> '
            f'<span class="id">{esc(f.id)}</span><span class="subject">{esc(f.subject)}</span></p>'
            f'<p class="message">{esc(f.message)}</p>'
            + (
                '<p class="fix"><span class="label-inline">' + esc(t("Fix:")) + f"</span> {esc(f.fix)}</p>"
                if f.fix
                else ""
            )
            + (
                "<details><summary>" + esc(t("Why it matters")) + "</summary>"
                f'<p class="why">{esc(f.why)}</p>{_sources(f.id)}</details>'
                if f.why
                else ""
            )
            + "</li>"
        )
    for c in checks or []:
        sev = _SEVERITY.get(c.severity, "sev-info")
        items.append(
            f'<li class="finding {sev}" data-id="{esc(c.id)}" data-severity="{esc(c.severity)}">'
            f'<p class="head"><span class="badge {sev}">{esc(_severity_label(c.severity))}</span> '
            f'<span class="id">{esc(c.id)}</span></p><p class="message">{esc(c.message)}</p></li>'
        )
    inner = ['<ol class="findings">', *items, "</ol>"] if items else ["<p>" + esc(t("No findings.")) + "</p>"]
    return _section("findings-section", t("Findings, the worst first"), inner)


def _table(cls: str, heads: list[tuple[str, bool]], rows: list[list[tuple[str, str]]]) -> list[str]:
    """A table that stacks into label: value lines on a phone. `heads`: (label, numeric); a row's cells
    are (text, extra class)."""
    head = "".join(f"<th{' class=num' if num else ''}>{esc(h)}</th>" for h, num in heads)
    body = []
    for row in rows:
        tds = []
        for (h, num), (text, extra) in zip(heads, row, strict=True):
            classes = " ".join(c for c in ("num" if num else "", extra) if c)
            tds.append(
                f'<td data-label="{esc(h)}"{f" class={chr(34)}{classes}{chr(34)}" if classes else ""}>{esc(text)}</td>'
            )
        body.append("<tr>" + "".join(tds) + "</tr>")
    return [
        '<div class="table">',
        f'<table class="stack {cls}"><thead><tr>{head}</tr></thead><tbody>',
        *body,
        "</tbody></table></div>",
    ]


def _gpu_table(plan: PlanOutput) -> list[str]:
    if not plan.gpus:
        return []
    heads = [
        (t("GPU"), False),
        (t("Model"), False),
        (t("Slot"), False),
        (t("Link"), False),
        (t("The card's own link"), False),
        (t("Host to GPU alone, GB/s"), True),
        (t("With every GPU copying, GB/s"), True),
        (t("What limits it"), False),
    ]
    rows = []
    for g in plan.gpus:
        lk = g.link
        below = lk.gen < lk.max_gen or lk.width < lk.max_width
        rows.append(
            [
                (gpu_label(g.index), ""),
                (g.model or unknown(), ""),
                (g.slot or "-", ""),
                (link_label(lk.gen, lk.width), "warn" if below else ""),
                (link_label(lk.max_gen, lk.max_width), ""),
                (number(g.h2d_gbps) or unknown(), ""),
                (number(g.h2d_all_gbps) or unknown(), ""),
                (g.bottleneck, ""),
            ]
        )
    return _section("gpus-section", t("Each GPU"), _table("gpus", heads, rows))


def _pair_table(plan: PlanOutput) -> list[str]:
    if not plan.pairs:
        return []
    heads = [
        (t("Pair"), False),
        (t("Path (nvidia-smi topo -m)"), False),
        (t("How it copies"), False),
        (t("NCCL uses"), False),
        (t("One way, GB/s"), True),
        (t("Both ways, GB/s"), True),
        (t("Latency, µs"), True),
    ]
    rows = [
        [
            (t("GPU{a} and GPU{b}", a=p.a, b=p.b), ""),
            (p.path, ""),
            (way_label(p.via), "warn" if p.via == "staged" else ""),
            (p.nccl_transport, ""),
            (number(p.uni_gbps) or unknown(), ""),
            (number(p.bidi_gbps) or unknown(), ""),
            (number(p.latency_us) or unknown(), ""),
        ]
        for p in plan.pairs
    ]
    return _section("pairs-section", t("Each pair of GPUs"), _table("pairs", heads, rows))


def _assumptions(plan: PlanOutput) -> list[str]:
    if not plan.assumptions:
        return []
    return [
        '<section class="assumptions"><details>',
        "<summary>" + esc(t("Assumptions")) + "</summary>",
        "<ul>" + "".join(f"<li>{esc(a)}</li>" for a in plan.assumptions) + "</ul>",
        "</details></section>",
    ]


# ---------------------------------------------------------------------------------------------- plan


def plan_html(plan: PlanOutput) -> str:
    """`advisor plan --format html`: the build's verdict, drawing, key figures, findings, GPUs and pairs."""
    title = report_title(plan)
    sev = _SEVERITY.get(plan.verdict_severity, "sev-ok")
    body = [
        "<header>",
        f"<h1>{esc(title)}</h1>",
        f'<p class="verdict {sev}" data-severity="{esc(plan.verdict_severity)}">{esc(plan.verdict)}</p>',
        "</header>",
        *_drawing(plan),
        *_figures(plan),
        *_findings(list(plan.findings)),
        *_gpu_table(plan),
        *_pair_table(plan),
        *_assumptions(plan),
        *_footer(plan.not_checked),
    ]
    return _page(t("{title}: multi-GPU build report", title=title), t("Multi-GPU build report"), body)


# ---------------------------------------------------------------------------------------------- quote

_QUOTE_VERDICT = {
    "PASS": "sev-ok",
    "WARN": "sev-warning",
    "PROBLEMS": "sev-error",
    "INCOMPLETE": "sev-warning",
}


def _quote_verdict_label(verdict: str) -> str:
    return {
        "PASS": t("Passes"),
        "WARN": t("Runs below what its parts allow"),
        "PROBLEMS": t("Has problems"),
        "INCOMPLETE": t("Incomplete"),
    }.get(verdict, verdict)


def _line_head() -> str:
    return t("Line")


def _part_head() -> str:
    return t("Part")


def _claim_groups(claims: list[ClaimVerdict]) -> list[tuple[int, str, list[ClaimVerdict]]]:
    """One entry per claim of the quote (a sentence can be judged on several grounds), in line order."""
    groups: dict[tuple[int, str], list[ClaimVerdict]] = {}
    for c in claims:
        groups.setdefault((c.line, c.claim), []).append(c)
    return [(line, claim, cs) for (line, claim), cs in sorted(groups.items(), key=lambda kv: kv[0][0])]


def _false_claims(r: ValidateOutput) -> list[str]:
    if not r.false_claims:
        return []
    items = []
    for line, claim, cs in _claim_groups(list(r.false_claims)):
        items.append(
            '<li class="claim sev-error">'
            '<p class="head"><span class="subject">'
            + esc(t("Line {line} of the quote", line=line))
            + "</span></p>"
            f"<blockquote>{esc(claim)}</blockquote>"
            + "".join(f'<p class="why">{esc(c.why)}</p>' for c in cs)
            + "</li>"
        )
    return _section(
        "false-claims", t("Claims in the quote that do not hold"), ['<ul class="claims">', *items, "</ul>"]
    )


def _ask(r: ValidateOutput) -> list[str]:
    if not r.ask_vendor and not r.alternatives:
        return []
    items = [f"<li>{esc(a)}</li>" for a in r.ask_vendor]
    items += ["<li>" + esc(t("Depends on the quote: {choice}", choice=a)) + "</li>" for a in r.alternatives]
    return _section("ask", t("Ask the vendor"), ["<ul>", *items, "</ul>"])


def _unchecked(r: ValidateOutput) -> list[str]:
    items = [
        t("The quote names no {kind} we could identify; please state the exact model.", kind=kind_name(m))
        for m in r.missing
    ]
    items += [
        t(
            'Line {line}: "{text}" is not a part we know; please give the exact model and a datasheet.',
            line=x.line,
            text=x.text.strip(),
        )
        for x in r.not_in_catalog
    ]
    items += list(r.build_problems)
    if not items:
        return []
    return _section(
        "unchecked", t("Could not be checked"), ["<ul>", *[f"<li>{esc(i)}</li>" for i in items], "</ul>"]
    )


def _parts(r: ValidateOutput) -> list[str]:
    heads = [
        (_line_head(), True),
        (t("Quote text"), False),
        (_part_head(), False),
        (t("Quantity"), True),
        (t("Read from"), False),
        (t("Price"), True),
    ]
    rows = []
    for x in r.quote.lines:
        if x.status not in ("part", "recognized", "not_in_catalog"):
            continue
        part = " + ".join(p.name for p in x.parts) if x.parts else ""
        if x.status == "not_in_catalog":
            part = t("Not in the catalog")
        qty = t("{qty}?", qty=x.qty) if x.qty_unclear else str(x.qty)
        rows.append(
            [
                (str(x.line), ""),
                (x.text.strip(), ""),
                (part, "warn" if x.status == "not_in_catalog" else ""),
                (qty, ""),
                (count_source_words(x.qty_source), ""),
                (money(x), ""),
            ]
        )
    if not rows:
        return []
    return _section("parts", t("Parts as we read them"), _table("quote-parts", heads, rows))


def _all_claims(r: ValidateOutput) -> list[str]:
    if not r.claims:
        return []
    verdicts = {True: t("Holds"), False: t("Does not hold"), "unknown": t("Cannot be checked")}
    heads = [(_line_head(), True), (t("Claim"), False), (t("Verdict"), False), (t("Why"), False)]
    rows = [
        [
            (str(c.line), ""),
            (c.claim, ""),
            (verdicts[c.verdict], "warn" if c.verdict is False else ""),
            (c.why, ""),
        ]
        for c in r.claims
    ]
    return _section("claims", t("Every claim checked"), _table("quote-claims", heads, rows))


def _specs(r: ValidateOutput) -> list[str]:
    if not r.spec_checks:
        return []
    heads = [
        (_line_head(), True),
        (_part_head(), False),
        (t("The quote says"), False),
        (t("Our catalog"), False),
    ]
    rows = [
        [
            (str(s.line), ""),
            (s.part_id, ""),
            (s.says, ""),
            (
                t("Agrees: {catalog}", catalog=s.catalog)
                if s.agrees
                else t("Differs: {catalog}", catalog=s.catalog),
                "" if s.agrees else "warn",
            ),
        ]
        for s in r.spec_checks
    ]
    return _section(
        "specs", t("Part specs in the quote, against our catalog"), _table("quote-specs", heads, rows)
    )


def validate_html(r: ValidateOutput) -> str:
    """`advisor validate --format html`: the quote's verdict, the claims that do not hold, the machine it
    describes, the findings, and the parts as read."""
    name = "-" if r.quote.file == "<stdin>" else Path(r.quote.file).name
    sev = _QUOTE_VERDICT.get(r.verdict, "sev-warning")
    plan = r.plan
    body = [
        "<header>",
        f"<h1>{esc(name)}</h1>",
        f'<p class="verdict {sev}" data-verdict="{esc(r.verdict)}">'
        f'<span class="badge {sev}">{esc(_quote_verdict_label(r.verdict))}</span>{esc(r.summary)}</p>',
        "</header>",
        *_false_claims(r),
    ]
    if plan is not None:
        body += _drawing(plan) + _figures(plan)
    body += _findings(list(plan.findings) if plan else [], list(r.part_checks))
    body += _ask(r) + _unchecked(r) + _parts(r)
    if plan is not None:
        body += _gpu_table(plan) + _pair_table(plan)
    body += _all_claims(r) + _specs(r)
    body += _footer(plan.not_checked if plan else NOT_CHECKED)
    return _page(t("Quote review: {file}", file=name), t("Quote review"), body)
