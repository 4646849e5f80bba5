"""The model's constants, loaded from rules/*.yaml, each with its sources.

`rules/model.yaml` (kind: model) holds the bandwidth model's constants; `rules/workload.yaml`
(kind: workload) the workload model's. Both are read by the same loader.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from advisor.base.errors import Problem, UserError
from advisor.base.resources import bundled
from advisor.base.yamlio import load_bundled


@dataclass(frozen=True)
class Constant:
    name: str
    value: Any
    unit: str
    note: str
    sources: tuple[str, ...]

    def pick(self, key: str | None = None) -> Any:
        if isinstance(self.value, dict):
            if key is not None and key in self.value:
                return self.value[key]
            return self.value.get("default", self.value if key is None else None)
        return self.value


@lru_cache(maxsize=4)
def constants(file: str = "model.yaml") -> dict[str, Constant]:
    """The `constants:` section of a bundled rules file, by name."""
    path = bundled("rules") / file
    data = load_bundled(path)
    out: dict[str, Constant] = {}
    for name, c in (data.get("constants") or {}).items():
        if not isinstance(c, dict) or "value" not in c or not c.get("sources"):
            raise UserError(
                problems=[
                    Problem(
                        "a model constant needs `value` and `sources`",
                        file=str(path),
                        line=getattr(c, "line", None),
                        field=f"constants.{name}",
                    )
                ]
            )
        value = c["value"]
        if isinstance(value, dict):
            value = {int(k) if isinstance(k, str) and k.isdigit() else k: v for k, v in value.items()}
        out[name] = Constant(name, value, c.get("unit", ""), c.get("note", ""), tuple(c["sources"]))
    return out


_OVERRIDES: dict[str, Any] = {}


@contextmanager
def overridden(**values: Any) -> Iterator[None]:
    """Constants set to other values inside the block: leave-one-out refits predict a case with the value
    the other cases give (advisor.workload.accuracy). Never used by a command's own predictions."""
    saved = dict(_OVERRIDES)
    _OVERRIDES.update(values)
    try:
        yield
    finally:
        _OVERRIDES.clear()
        _OVERRIDES.update(saved)


def overrides_of(file: str) -> tuple:
    """The overridden constants of one file, as a key: what a result computed from that file's constants
    depends on."""
    if not _OVERRIDES:
        return ()
    names = constants(file)
    return tuple(sorted((k, repr(v)) for k, v in _OVERRIDES.items() if k in names))


def const(name: str, key: str | None = None, file: str = "model.yaml") -> Any:
    if name in _OVERRIDES:
        return _OVERRIDES[name]
    return constants(file)[name].pick(key)
