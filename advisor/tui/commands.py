"""Command palette entries for parts: pick a CPU or a board, add a GPU, move a card, add an SSD.

The app's actions (save, open, views, ...) come from AdvisorApp.get_system_commands; this
provider adds one entry per catalog part and per slot, so Ctrl+P jumps to any of them. A part is
found by its name or any of its aliases ("Board: WRX90E" finds the ASUS Pro WS WRX90E-SAGE SE), and
a board that does not take the build's CPU is still offered: picking it brings a CPU it takes, as
one edit (and a CPU the board does not take brings a board that takes it), so the palette never
leaves a build that cannot be evaluated.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from textual.command import Hit, Hits, Provider

from advisor.i18n import _
from advisor.session.planner import Planner


@dataclass(frozen=True)
class Entry:
    text: str  # what the palette shows
    names: tuple[str, ...]  # what a query is matched against: the text, then the text with each alias
    help: str
    run: Callable[[], Any]


class PartsCommands(Provider):
    async def startup(self) -> None:
        # the palette makes a provider each time it opens: the entries are the build's as it is now
        self._found = list(self._entries())

    def _names(self, prefix: str, key: str, label: str) -> tuple[str, ...]:
        part = self.app.planner.catalog.get(key)  # type: ignore[attr-defined]
        aliases = getattr(part, "aliases", None) or []
        return (f"{prefix}{label}", *(f"{prefix}{a}" for a in aliases if a != label))

    def _entries(self):
        app: Any = self.app
        planner: Planner = app.planner
        edit = app.edit
        catalog = planner.catalog
        for c in planner.cpu_choices():
            names = self._names("CPU: ", c.key, c.label)
            if c.fits:
                yield Entry(names[0], names, c.specs, partial(edit, planner.set_cpu, c.key))
                continue
            cpu = catalog.get(c.key)
            boards = [b for b in planner.board_choices(cpu) if b.fits]  # type: ignore[arg-type]
            if boards:
                yield Entry(
                    names[0],
                    names,
                    _("{specs} (not on this board: with {board})").format(
                        specs=c.specs, board=boards[0].label
                    ),
                    partial(edit, planner.set_platform, c.key, boards[0].key),
                )
        for c in planner.board_choices():
            names = self._names(_("Board: "), c.key, c.label)
            if c.fits:
                yield Entry(names[0], names, c.specs, partial(edit, planner.set_board, c.key))
                continue
            board = catalog.get(c.key)
            cpus = [p for p in planner.cpu_choices(board) if p.fits]  # type: ignore[arg-type]
            if cpus:
                yield Entry(
                    names[0],
                    names,
                    _("{specs} (takes another CPU: with {cpu})").format(specs=c.specs, cpu=cpus[0].label),
                    partial(edit, planner.set_platform, cpus[0].key, c.key),
                )
        if not planner.explicit:
            for c in planner.gpu_choices():
                names = self._names(_("Add GPU: "), c.key, c.label)
                yield Entry(names[0], names, c.specs, partial(edit, planner.add_gpu, c.key))
            for i, slot in sorted(planner.placement.items()):
                board = planner.board
                for conn in board.slots if board else []:
                    if conn.name != slot:
                        text = _("Move GPU{index} to {slot}").format(index=i, slot=conn.name)
                        yield Entry(
                            text,
                            (text,),
                            _("now in {slot}").format(slot=slot),
                            partial(edit, planner.move_gpu, i, conn.name),
                        )
            for c in planner.m2_choices():
                if c.fits:
                    text = _("Add SSD in {socket}").format(socket=c.label)
                    yield Entry(text, (text,), c.specs, partial(edit, planner.add_nvme, c.key))

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for entry in self._found:
            score = max(matcher.match(name) for name in entry.names)
            if score > 0:
                yield Hit(score, matcher.highlight(entry.text), entry.run, help=entry.help)
