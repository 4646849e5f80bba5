"""The readers, one module per tool, behind one entry point: `parse(tool, text, filename)`.

`tool` is one of TOOLS or "auto" (ask `detect`). Every reader returns a Measurement or raises a
UserError naming the file and line; none returns a number it is not sure of.
"""

from __future__ import annotations

from collections.abc import Callable

from advisor.base.errors import Problem, UserError
from advisor.base.inputs import check_lines, one_newline
from advisor.base.text import plain
from advisor.i18n import N_, _, retell
from advisor.measure.models import Measurement
from advisor.measure.parsers import (
    bandwidthtest,
    cmdline,
    lspci,
    nccllog,
    nccltests,
    nccltopo,
    nvbandwidth,
    p2p,
    querygpu,
    smiq,
    topo,
    topop2p,
)
from advisor.measure.parsers._common import check_not_empty
from advisor.measure.parsers.detect import TOOL_LABELS, detect

READERS: dict[str, Callable[[str, str], Measurement]] = {
    "nvbandwidth": nvbandwidth.parse,
    "p2p": p2p.parse,
    "nccl-tests": nccltests.parse,
    "topo": topo.parse,
    "smi-q": smiq.parse,
    "lspci": lspci.parse,
    "topo-p2p": topop2p.parse,
    "query-gpu": querygpu.parse,
    "bandwidthtest": bandwidthtest.parse,
    "nccl-topo": nccltopo.parse,
    "cmdline": cmdline.parse,
    "nccl-log": nccllog.parse,
}
TOOLS: tuple[str, ...] = tuple(READERS)


# the sentences the readers write in a result's note, by tool: a note is data, English in the measurement
# file (code and files compare it); these are said again in the run's language where a note is shown
NOTES = {"lspci": lspci.NOTES, "cmdline": cmdline.NOTES, "topo-p2p": topop2p.NOTES}


def note_words(note: str, tool: str) -> str:
    """A result's note in the run's language where its reader's sentences have a translation; the note as
    the file has it otherwise."""
    return retell(note, NOTES.get(tool, ()))


def parse(tool: str, text: str, filename: str) -> Measurement:
    """Read `text` (the content of `filename`) as the output of `tool`, or of the detected tool."""
    # one kind of line break; a copy from a terminal keeps its colours and underlines, which go, and any
    # other control character is written out (\x1b), so no name read from the file can reach a terminal
    # as an escape; a line-oriented output's lines are bounded (a JSON or XML document is read whole)
    text = plain(one_newline(text.removeprefix("\ufeff")))
    if not text.lstrip().startswith(("{", "<", "[")):
        check_lines(text, filename, N_("a measurement tool's output"))
    if tool == "auto":
        check_not_empty(text, filename, "a measurement tool's")
        found = detect(text)
        if found is None:
            raise UserError(
                problems=[
                    Problem(
                        _("could not tell which tool wrote this file"),
                        file=filename,
                        hint=_("name the tool: advisor import TOOL FILE, with TOOL one of {tools}").format(
                            tools=", ".join(f"{k} ({_(v)})" for k, v in TOOL_LABELS.items())
                        ),
                    )
                ]
            )
        tool = found
    reader = READERS.get(tool)
    if reader is None:
        raise UserError(
            _("unknown tool {tool}").format(tool=repr(tool)),
            hint=_("use one of: {tools}").format(tools=", ".join((*TOOLS, "auto"))),
        )
    return reader(text, filename)


__all__ = ["NOTES", "READERS", "TOOLS", "detect", "note_words", "parse"]
