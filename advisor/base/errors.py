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
            from advisor.i18n import _

            text = _("{message} ({hint})").format(message=text, hint=self.hint)
        # a file name or a value quoted from an input may hold a terminal escape: every face prints this
        from advisor.base.text import visible

        return visible(text)


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


class UnknownFigure(UserError):
    """A figure that rests on a catalog value which is null (an NVLink bridge's rate, a card's peak): the
    formula cannot run, and the answer is "unknown", naming what is missing, never a 0 standing in for it.
    Callers that can show the rest of an answer (the 1-GPU figures beside an unknown N-GPU one) catch it;
    where nothing else can be said it reaches the user as a clear error like any UserError."""

    def __init__(self, what: str, missing: list[str]):
        from advisor.base.text import unknown_because

        self.what = what
        self.missing = list(missing)
        from advisor.i18n import _

        super().__init__(
            _("{what} is {why}").format(what=what, why=unknown_because(self.missing)),
            hint=_(
                "add the figure, with its source, to a copy of the part in a catalog folder of your own "
                "(--catalog DIR)"
            ),
        )
