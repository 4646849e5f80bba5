"""Prose in a pane, wrapped as advisor's reports wrap Chinese.

Textual breaks a line only at a space: a Chinese sentence, which has none between its words, goes whole
to the next line and is cut at the pane's edge there ("建议：CPU" alone on a line, the rest below it).
In a language other than English a pane's prose is drawn as a Rich renderable that wraps for the width
it is drawn at with advisor.render.layout.wrap_text, which may also break between two Chinese characters
(never before a closing mark). English text is handed to Textual as it is: its lines stay as they were.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.text import Text
from textual.widgets import Static

from advisor.i18n import language


class Prose:
    """A Rich renderable: `text` wrapped to the width it is given, Chinese broken between characters."""

    def __init__(self, text: Text) -> None:
        self.text = text

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        from advisor.render.layout import wrap_text

        for line in wrap_text(console, self.text, max(1, options.max_width)):
            line.no_wrap = True
            line.end = "\n"
            yield line

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        longest = max((Text(line).cell_len for line in self.text.plain.split("\n")), default=0)
        return Measurement(min(longest, 1), min(longest, options.max_width))


def prose(text: str | Text) -> str | Text | Prose:
    """What a pane's Static shows for `text` (markup, or a Text): as it is in English, wrapped as a
    report in another language."""
    if language() == "en":
        return text
    return Prose(Text.from_markup(text) if isinstance(text, str) else text)


class ProseStatic(Static):
    """A Static whose text is prose (prose()): what it is given is shown wrapped as a report's."""

    def __init__(self, content: Any = "", **kwargs: Any) -> None:
        super().__init__(
            prose(content) if isinstance(content, (str, Text)) and content else content, **kwargs
        )

    def update(self, content: Any = "", *, layout: bool = True) -> None:
        super().update(
            prose(content) if isinstance(content, (str, Text)) and content else content, layout=layout
        )
