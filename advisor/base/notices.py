"""Notes for the user that are not the answer: said on stderr by the CLI, never mixed into stdout (a
`--json` reader must get JSON only), and said once per command.

The core calls `note(text)` where it reads an input in a way the user should know about (a part name
read as another spelling); the face that runs a command decides where notes go with `to(sink)`.
Outside `to`, a note goes nowhere: the app, which reads the same inputs, has its own screen.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_SINK: ContextVar[Callable[[str], None] | None] = ContextVar("advisor_notice_sink", default=None)


def note(text: str) -> None:
    sink = _SINK.get()
    if sink is not None:
        sink(text)


@contextmanager
def to(sink: Callable[[str], None]) -> Iterator[None]:
    """Send the notes of the code run inside to `sink`, each text once."""
    seen: set[str] = set()

    def once(text: str) -> None:
        if text not in seen:
            seen.add(text)
            sink(text)

    token = _SINK.set(once)
    try:
        yield
    finally:
        _SINK.reset(token)
