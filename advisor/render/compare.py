"""`advisor compare` as people read it: a predicted-vs-measured table (text or Markdown) with likely causes."""

from __future__ import annotations

from advisor.base.text import for_markdown as md
from advisor.base.text import visible
from advisor.i18n import N_, _
from advisor.model.readiness import layer_name
from advisor.outputs.compare import CompareOutput
from advisor.render.layout import wrap_lines
from advisor.render.words import cells

# the readiness verdicts as a reader sees them in text (the JSON keeps the words themselves)
_VERDICT = {"PASS": N_("PASS"), "FAIL": N_("FAIL"), "UNKNOWN": N_("UNKNOWN")}


def _pad(text: str, width: int, right: bool = False) -> str:
    """`text` padded to `width` columns (a Chinese character takes two), on the right or the left."""
    fill = " " * max(0, width - cells(text))
    return fill + text if right else text + fill


def render_compare(out: CompareOutput, markdown: bool = False, width: int | None = None) -> str:
    """The table; in text, each row's likely causes below it, wrapped to `width` (none: one line each)."""
    metric_h, where_h, predicted_h, measured_h, ratio_h = (
        _("metric"),
        _("where"),
        _("predicted"),
        _("measured"),
        _("ratio"),
    )
    if markdown:
        lines = [
            f"| {metric_h} | {where_h} | {predicted_h} | {measured_h} | {ratio_h} | |",
            "|---|---|---|---|---|---|",
        ]
    else:
        # columns as wide as their longest value: a metric or a GPU pair is never cut
        mw = max([cells(metric_h)] + [len(r.metric) for r in out.rows]) + 1
        ww = max([cells(where_h)] + [cells(r.where) for r in out.rows]) + 1
        lines = [
            f"{_pad(metric_h, mw)} {_pad(where_h, ww)} {_pad(predicted_h, 10, True)} "
            f"{_pad(measured_h, 10, True)} {_pad(ratio_h, 6, True)}"
        ]
    for r in out.rows:
        ratio = "" if r.ratio is None else f"{r.ratio:.2f}"
        # a prediction the catalog cannot give is unknown: neither ok nor off
        flag = "OFF" if r.flagged else _("not judged") if r.predicted is None else "ok"
        predicted = _("unknown") if r.predicted is None else r.predicted
        if markdown:
            lines.append(
                f"| {md(r.metric)} | {md(r.where)} | {md(predicted)} | {md(r.measured)} | {ratio} | {flag} |"
            )
        else:
            lines.append(
                f"{_pad(r.metric, mw)} {_pad(r.where, ww)} {_pad(str(predicted), 10, True)} "
                f"{_pad(str(r.measured), 10, True)} {_pad(ratio, 6, True)}  {flag}"
            )
        for c in r.causes:
            if markdown:
                lines.append(
                    "  - "
                    + _("{id}: {message} Check: {fix}").format(
                        id=md(c.id), message=md(c.message), fix=md(c.fix)
                    )
                )
                continue
            lines += _wrap(f"{c.id}: {c.message}", "    ", "      ", width)
            check = _("Check: ")
            lines += _wrap(f"{check}{c.fix}", "      ", "      " + " " * cells(check), width)
    if not out.rows and not out.settled:
        lines.append(_("no metric in the measurement matches a predicted one"))
    note_h = _("note: ")
    for note in map(visible, out.notes):  # a note names the file as it was given: no control characters
        lines += (
            ["- " + _("note: {text}").format(text=md(note))]
            if markdown
            else _wrap(note, note_h, " " * cells(note_h), width)
        )
    lines += _readiness(out, markdown, width)
    return "\n".join(lines) + "\n"


def _readiness(out: CompareOutput, markdown: bool, width: int | None) -> list[str]:
    """The readiness layers the files decided, and what is still open: the plan's UNKNOWNs, settled."""
    if not out.settled:
        return []
    heading = _("P2P readiness with what the files show")
    lines = ["", f"## {heading}" if markdown else _("{heading}:").format(heading=heading)]
    read_h = _("read: ")
    for s in out.settled:
        lines += [f"- {md(s)}"] if markdown else _wrap(s, "  " + read_h, " " * (2 + cells(read_h)), width)
    decided = set(out.settled_layers)
    check_h = _("check: ")
    for r in out.readiness:
        head = f"GPU{r.a}-GPU{r.b} ({r.path}): {r.summary}"
        lines.append(f"**{md(head)}**" if markdown else head)
        for x in r.layers:
            why = (
                _("{why} (from the files)").format(why=x.why)
                if f"GPU{r.a}-GPU{r.b} {x.layer}" in decided
                else x.why
            )
            text = f"{_pad(_(_VERDICT.get(x.verdict, x.verdict)), 7)} {_pad(layer_name(x.layer), 8)} {why}"
            lines += [f"- {md(text)}"] if markdown else _wrap(text, "  ", "                   ", width)
            if x.verdict == "UNKNOWN" and x.check:
                lines += (
                    [f"  - {check_h}{md(x.check)}"]
                    if markdown
                    else _wrap(
                        f"{check_h}{x.check}",
                        "                   ",
                        "                   " + " " * cells(check_h),
                        width,
                    )
                )
    return lines


def _wrap(text: str, first: str, rest: str, width: int | None) -> list[str]:
    if width is None:
        return [first + text]
    return wrap_lines(text, width, first, rest)
