"""Wait until the app has really finished drawing, on conditions rather than on a timer.

Textual's `pilot.pause()` waits until the process looks idle: under 1 ms of CPU in a 20 ms window. A
process that the OS has descheduled, or that waits on its own event loop between a lazy tab's mount and
its first layout, looks idle too, and a screenshot taken then can miss what the next idle pass draws:
DataTable sizes its columns in its idle handler, after the rows are added (the snapshot tests of the
links and compare views failed in full runs on exactly that column padding). `settle` waits until the
app's state says it is done (the active view drawn, no DataTable with pending widths, no layout
pending, no worker running unless a dialog is waiting for its answer) and two screenshots in a row are the same, with a bound on the time.
"""

from __future__ import annotations

import asyncio
import time

from textual.screen import ModalScreen
from textual.widgets import DataTable, TabbedContent


def pending(app) -> list[str]:
    """What the app still has to draw, in words (empty when it is done)."""
    out = []
    main = app.screen_stack[0] if app.screen_stack else None
    tabs = main.query(TabbedContent) if main is not None else []
    if tabs and tabs.first().active in getattr(app, "_stale", set()):
        out.append(f"view {tabs.first().active} not drawn")
    for table in app.screen.query(DataTable):
        # textual 8.2.8 (pinned in the test extra): rows and cells measured on the table's next idle
        if table._require_update_dimensions or table._new_rows or table._updated_cells:
            out.append(f"table {table.id} not measured")
    if app.screen._layout_required:
        out.append("layout pending")
    # a dialog waiting for its answer keeps the worker that opened it running: that is settled
    if not isinstance(app.screen, ModalScreen) and any(not w.is_finished for w in app.workers):
        out.append("a worker is running")
    return out


def steady_cursors(app) -> None:
    """Stop every text cursor blinking, so that it is drawn in one steady state. A blinking cursor flips
    every half second: two screenshots 20 ms apart can agree in either phase, and which one a snapshot
    caught depended on how loaded the machine was (the quote box, focused on opening, failed so)."""
    for screen in app.screen_stack:
        for widget in screen.query("*"):
            if getattr(widget, "cursor_blink", False):
                widget.cursor_blink = False


async def settle(pilot, timeout: float = 30.0) -> None:
    app = pilot.app
    deadline = time.monotonic() + timeout
    previous = None
    while True:
        await pilot.pause()
        steady_cursors(app)
        if not app.is_running or app._exit_renderables or app.return_code is not None:
            return  # the app is closing (a quit key): nothing more will be drawn
        await pilot.wait_for_scheduled_animations()
        busy = pending(app)
        if busy:
            previous = None
        else:
            shot = app.export_screenshot()
            if shot == previous:
                return
            previous = shot
        if time.monotonic() > deadline:
            raise AssertionError(
                f"the app did not settle in {timeout:.0f} s: {busy or ['the screen kept changing']}"
            )
        await asyncio.sleep(0.02)


def after(*keys: str):
    """A snapshot's run_before: press the keys (settling after each), then settle."""

    async def run(pilot) -> None:
        await settle(pilot)
        for key in keys:
            await pilot.press(key)
            await settle(pilot)

    return run
