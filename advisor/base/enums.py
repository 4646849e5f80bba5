"""A string enum that reads as its value everywhere (str(), f-strings, JSON): Python 3.10's `str, Enum`
mixin prints "Via.STAGED" in an f-string, and the faces print these values."""

from __future__ import annotations

from enum import Enum


class StrEnum(str, Enum):
    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, spec: str) -> str:
        return format(str(self.value), spec)
