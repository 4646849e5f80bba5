"""`advisor compare` as people read it: a predicted-vs-measured table (text or Markdown) with likely causes."""

from __future__ import annotations

import textwrap

from advisor.base.text import for_markdown as md
from advisor.base.text import visible
from advisor.outputs.compare import CompareOutput


def render_compare(out: CompareOutput, markdown: bool = False, width: int | None = None) -> str:
    """The table; in text, each row's likely causes below it, wrapped to `width` (none: one line each)."""
    if markdown:
        lines = ["| metric | where | predicted | measured | ratio | |", "|---|---|---|---|---|---|"]
    else:
        # columns as wide as their longest value: a metric or a GPU pair is never cut
        mw = max([len("metric")] + [len(r.metric) for r in out.rows]) + 1
        ww = max([len("where")] + [len(r.where) for r in out.rows]) + 1
        lines = [f"{'metric':{mw}} {'where':{ww}} {'predicted':>10} {'measured':>10} {'ratio':>6}"]
    for r in out.rows:
        ratio = "" if r.ratio is None else f"{r.ratio:.2f}"
        # a prediction the catalog cannot give is unknown: neither ok nor off
        flag = "OFF" if r.flagged else "not judged" if r.predicted is None else "ok"
        predicted = "unknown" if r.predicted is None else r.predicted
        if markdown:
            lines.append(
                f"| {md(r.metric)} | {md(r.where)} | {md(predicted)} | {md(r.measured)} | {ratio} | {flag} |"
            )
        else:
            lines.append(
                f"{r.metric:{mw}} {r.where:{ww}} {str(predicted):>10} {str(r.measured):>10} {ratio:>6}  {flag}"
            )
        for c in r.causes:
            if markdown:
                lines.append(f"  - {md(c.id)}: {md(c.message)} Check: {md(c.fix)}")
                continue
            lines += _wrap(f"{c.id}: {c.message}", "    ", "      ", width)
            lines += _wrap(f"Check: {c.fix}", "      ", "             ", width)
    if not out.rows and not out.settled:
        lines.append("no metric in the measurement matches a predicted one")
    for note in map(visible, out.notes):  # a note names the file as it was given: no control characters
        lines += [f"- note: {md(note)}"] if markdown else _wrap(note, "note: ", "      ", width)
    lines += _readiness(out, markdown, width)
    return "\n".join(lines) + "\n"


def _readiness(out: CompareOutput, markdown: bool, width: int | None) -> list[str]:
    """The readiness layers the files decided, and what is still open: the plan's UNKNOWNs, settled."""
    if not out.settled:
        return []
    lines = [
        "",
        "## P2P readiness with what the files show"
        if markdown
        else "P2P readiness with what the files show:",
    ]
    for s in out.settled:
        lines += [f"- {md(s)}"] if markdown else _wrap(s, "  read: ", "        ", width)
    decided = set(out.settled_layers)
    for r in out.readiness:
        head = f"GPU{r.a}-GPU{r.b} ({r.path}): {r.summary}"
        lines.append(f"**{md(head)}**" if markdown else head)
        for x in r.layers:
            mark = " (from the files)" if f"GPU{r.a}-GPU{r.b} {x.layer}" in decided else ""
            text = f"{x.verdict:7} {x.layer:8} {x.why}{mark}"
            lines += [f"- {md(text)}"] if markdown else _wrap(text, "  ", "                   ", width)
            if x.verdict == "UNKNOWN" and x.check:
                lines += (
                    [f"  - check: {md(x.check)}"]
                    if markdown
                    else _wrap(
                        f"check: {x.check}", "                   ", "                          ", width
                    )
                )
    return lines


def _wrap(text: str, first: str, rest: str, width: int | None) -> list[str]:
    if width is None:
        return [first + text]
    return textwrap.wrap(
        text,
        width=max(len(rest) + 20, width),
        initial_indent=first,
        subsequent_indent=rest,
        break_long_words=False,
        break_on_hyphens=False,
    )
