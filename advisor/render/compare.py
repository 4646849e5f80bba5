"""`advisor compare` as people read it: a predicted-vs-measured table (text or Markdown) with likely causes."""

from __future__ import annotations

from advisor.outputs.compare import CompareOutput


def render_compare(out: CompareOutput, markdown: bool = False) -> str:
    lines = (
        ["| metric | where | predicted | measured | ratio | |", "|---|---|---|---|---|---|"]
        if markdown
        else [f"{'metric':14} {'where':12} {'predicted':>10} {'measured':>10} {'ratio':>6}"]
    )
    for r in out.rows:
        ratio = "" if r.ratio is None else f"{r.ratio:.2f}"
        flag = "OFF" if r.flagged else "ok"
        if markdown:
            lines.append(f"| {r.metric} | {r.where} | {r.predicted} | {r.measured} | {ratio} | {flag} |")
        else:
            lines.append(
                f"{r.metric:14} {r.where:12} {str(r.predicted):>10} {str(r.measured):>10} {ratio:>6}  {flag}"
            )
        for c in r.causes:
            lines.append(f"{'  - ' if markdown else '    '}{c.id}: {c.message} Check: {c.fix}")
    if not out.rows:
        lines.append("no metric in the measurement matches a predicted one")
    return "\n".join(lines) + "\n"
