"""The change box under the build list: what the last edit did, fitted to the lines the box has.

Every change of the edit is shown whole while they fit; when they do not (a move that shifts several
cards, at 100x30), the last line says how many more there are and names each of them ("3 more:
GPU2, all-reduce, new LANE002"), so no card that moved and no link that changed is cut silently.
The box's tooltip holds every change whole.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from rich.markup import escape
from rich.text import Text
from textual.widgets import Static

from advisor.i18n import N_, _, language

BULLET = "• "


def _head(sentence: str) -> str:
    """The words a change's sentence (advisor.session.evaluation) starts with before its first value."""
    return _(sentence).split("{", 1)[0]


def short_name(change: str) -> str:
    """What a change line is about, in a word or two: the card, the figure, the findings."""
    if m := re.match(r"(GPU\d+|SSD|all-reduce)\b", change):
        return m.group(1)
    for head, short in (
        (N_("new findings: {ids}"), N_("new {ids}")),
        (N_("resolved: {ids}"), N_("resolved {ids}")),
    ):
        if change.startswith(_head(head)):
            return _(short).format(ids=change[len(_head(head)) :])
    if change.startswith(_head(N_("the build cannot be evaluated: {error}")).rstrip(": ：")):
        return _("cannot evaluate")
    head = re.split("[:：]", change, maxsplit=1)[0]
    return head if len(head) <= 24 else " ".join(head.split()[:3])


def fit_changes(changes: list[str], lines: int, height: Callable[[str], int]) -> tuple[list[str], str]:
    """The changes to show whole and the summary line naming the others ('' when all fit), in at
    most `lines` lines; `height(text)` is how many lines a text takes in the box."""
    rows = [BULLET + c for c in changes]
    heights = [height(r) for r in rows]
    if sum(heights) <= lines:
        return rows, ""
    shown = len(rows)
    while True:
        rest = changes[shown:]
        summary = _("{count} more: {names}").format(
            count=len(rest), names=_(", ").join(short_name(c) for c in rest)
        )
        if sum(heights[:shown]) + height(summary) <= lines or shown == 0:
            return rows[:shown], summary
        shown -= 1


def show_changes(box: Static, changes: list[str]) -> None:
    """Fill the change box (a Static whose CSS caps its height) with the last edit's changes."""
    if not changes:
        box.update("[dim]" + _("Edit a line (Enter) and what changed shows here.") + "[/]")
        box.tooltip = None
        return
    st = box.styles
    cap = st.max_height
    lines = int(cap.value) if cap is not None and cap.is_cells else 9
    lines -= st.padding.top + st.padding.bottom
    lines -= sum(1 for edge in (st.border_top, st.border_bottom) if edge[0] not in ("", "none", "hidden"))
    width = box.content_region.width or 34  # before the first layout: the panel's width in the CSS
    console = box.app.console

    def height(text: str) -> int:  # as the box will wrap it (advisor.tui.prose: a report's wrap in Chinese)
        if language() == "en":
            return len(Text(text).wrap(console, width))
        from advisor.render.layout import wrap_text

        return len(wrap_text(console, Text(text), width))

    rows, summary = fit_changes(changes, max(2, lines), height)
    box.update("\n".join([escape(r) for r in rows] + ([f"[b]{escape(summary)}[/]"] if summary else [])))
    box.tooltip = "\n".join(BULLET + c for c in changes)
