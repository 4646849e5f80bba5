"""Errors that are the user's to fix: they print as one clear message and exit with code 2."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Problem:
    """One thing wrong with an input, pointing at where it is."""

    message: str
    file: str | None = None
    line: int | None = None
    field: str | None = None
    hint: str | None = None

    def render(self) -> str:
        where = ""
        if self.file:
            where = self.file + (f":{self.line}" if self.line else "") + ": "
        text = where + (f"{self.field}: " if self.field else "") + self.message
        if self.hint:
            text += f" ({self.hint})"
        return text


class UserError(Exception):
    """A mistake in what the user gave us (a file, a flag, a part name). Exit code 2."""

    exit_code = 2

    def __init__(
        self, message: str | None = None, problems: list[Problem] | None = None, hint: str | None = None
    ):
        self.problems: list[Problem] = list(problems or [])
        if message is not None:
            self.problems.insert(0, Problem(message, hint=hint))
        super().__init__(self.render())

    def render(self) -> str:
        return "\n".join(p.render() for p in self.problems)
