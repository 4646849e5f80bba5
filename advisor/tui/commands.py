"""Command palette entries for parts: pick a CPU or a board, add a GPU, move a card, add an SSD.

The app's actions (save, open, views, ...) come from AdvisorApp.get_system_commands; this
provider adds one entry per catalog part and per slot, so Ctrl+P jumps to any of them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

from textual.command import Hit, Hits, Provider


class PartsCommands(Provider):
    def _entries(self) -> Iterator[tuple[str, str, Callable[[], Any]]]:
        app: Any = self.app
        planner = app.planner
        edit = app.edit
        for c in planner.cpu_choices():
            yield (
                f"CPU: {c.label}",
                c.specs + (f" (does not fit: {c.why_not})" if c.why_not else ""),
                partial(app.choose_cpu, c.key),  # one the board does not take offers the boards that do
            )
        for c in planner.board_choices():
            if c.fits:
                yield f"Board: {c.label}", c.specs, partial(edit, planner.set_board, c.key)
        if not planner.explicit:
            for c in planner.gpu_choices():
                yield f"Add GPU: {c.label}", c.specs, partial(edit, planner.add_gpu, c.key)
            for i, slot in sorted(planner.placement.items()):
                board = planner.board
                for conn in board.slots if board else []:
                    if conn.name != slot:
                        yield (
                            f"Move GPU{i} to {conn.name}",
                            f"now in {slot}",
                            partial(edit, planner.move_gpu, i, conn.name),
                        )
            for c in planner.m2_choices():
                if c.fits:
                    yield f"Add SSD in {c.label}", c.specs, partial(edit, planner.add_nvme, c.key)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for text, help_, callback in self._entries():
            score = matcher.match(text)
            if score > 0:
                yield Hit(score, matcher.highlight(text), callback, help=help_)
