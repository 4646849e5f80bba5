"""Numbers a reader refuses before anything is built from them.

Python refuses to turn an integer of more than 4,300 digits into an int (a ValueError deep inside the
YAML or JSON parser), and a float like 1e400 silently becomes infinity. No build, quote, catalog part,
rule, measurement or tool output holds such a number, so every reader refuses it at its line with one
plain sentence; each model then checks its own field's sane range.
"""

from __future__ import annotations

import math
import re

MAX_DIGITS = 100  # the most digits of a whole number any advisor file may hold (sizes in bytes have 20)


def refused_number(text: str) -> str | None:
    """Why the number written `text` (as a YAML or JSON file writes it) is refused, or None when it is
    an ordinary number."""
    digits = len(re.sub(r"[^0-9]", "", text.split(".")[0].split("e")[0].split("E")[0]))
    low = text.strip().lower().lstrip("+-")
    if low in ("nan", "inf", "infinity") or low.startswith(("nan", "inf")):
        return f"{text.strip()} is not a number advisor can use (only finite numbers)"
    if re.fullmatch(r"[+-]?[0-9_]+", text.strip()):
        if digits > MAX_DIGITS:
            return f"a {digits}-digit number: no value advisor reads has more than {MAX_DIGITS} digits"
        return None
    try:
        value = float(text.replace("_", ""))
    except ValueError:
        return None
    if not math.isfinite(value):
        shown = text.strip() if len(text.strip()) <= 40 else text.strip()[:30] + "..."
        return f"{shown} is too large a number (beyond 1.8e308, it would be infinity)"
    if digits > MAX_DIGITS:
        return f"a number with {digits} digits before its point: no value advisor reads has that many"
    return None


def line_of_number(text: str, number: str) -> int | None:
    """The line of the first place `number` is written in `text` as a number (not inside a longer one)."""
    m = re.search(r"(?<![\w.+-])" + re.escape(number) + r"(?![\w.])", text)
    return text.count("\n", 0, m.start()) + 1 if m else None


class _Refused(Exception):
    def __init__(self, text: str, why: str):
        super().__init__(why)
        self.text, self.why = text, why


def _number(kind: type):
    def parse(text: str):
        why = refused_number(text)
        if why:
            raise _Refused(text, why)
        return kind(text)

    return parse


def _constant(text: str):
    raise _Refused(text, f"{text} is not a number advisor can use (only finite numbers)")


def json_loads(text: str, filename: str | None, start: int | None = None):
    """`json.loads(text)` (or, with `start`, `raw_decode` from there: (value, end)), but a NaN, an
    Infinity, a number that overflows to infinity (1e309) or a whole number of more than MAX_DIGITS
    digits is a UserError at its file:line instead of a ValueError traceback or an infinite figure.
    JSONDecodeError and RecursionError stay the caller's to word."""
    import json

    from advisor.base.errors import Problem, UserError

    decoder = json.JSONDecoder(parse_int=_number(int), parse_float=_number(float), parse_constant=_constant)
    try:
        return decoder.decode(text) if start is None else decoder.raw_decode(text, start)
    except _Refused as exc:
        line = line_of_number(text, exc.text)
        raise UserError(problems=[Problem(exc.why, file=filename, line=line)]) from None
