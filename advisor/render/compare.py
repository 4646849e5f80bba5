"""`advisor compare` as people read it: a predicted-vs-measured table (text or Markdown) with likely causes."""

from __future__ import annotations

import textwrap

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
        flag = "OFF" if r.flagged else "ok"
        if markdown:
            lines.append(f"| {r.metric} | {r.where} | {r.predicted} | {r.measured} | {ratio} | {flag} |")
        else:
            lines.append(
                f"{r.metric:{mw}} {r.where:{ww}} {str(r.predicted):>10} {str(r.measured):>10} {ratio:>6}  {flag}"
            )
        for c in r.causes:
            if markdown:
                lines.append(f"  - {c.id}: {c.message} Check: {c.fix}")
                continue
            lines += _wrap(f"{c.id}: {c.message}", "    ", "      ", width)
            lines += _wrap(f"Check: {c.fix}", "      ", "             ", width)
    if not out.rows:
        lines.append("no metric in the measurement matches a predicted one")
    return "\n".join(lines) + "\n"


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
