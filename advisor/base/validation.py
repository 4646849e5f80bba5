"""Turn pydantic's validation errors into plain sentences that point at file:line."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from advisor.base.errors import Problem
from advisor.base.yamlio import line_of

M = TypeVar("M", bound=BaseModel)


def _field_path(loc: tuple) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


def _plain(err: dict[str, Any], model: type[BaseModel] | None) -> str:
    kind = err.get("type", "")
    msg = err.get("msg", "")
    if kind == "missing":
        return "is required but missing"
    if kind == "extra_forbidden":
        return "is not a known key (check the spelling; `advisor catalog schema` lists the keys)"
    if kind.startswith("literal_error"):
        return msg.replace("Input should be", "must be")
    if msg.startswith("Value error, "):
        msg = msg[len("Value error, ") :]
    msg = msg.replace("Input should be", "must be").replace("input_value", "value")
    got = err.get("input")
    if kind not in ("value_error",) and not isinstance(got, (dict, list)) and got is not None:
        msg += f" (got {got!r})"
    return msg


def problems_from(
    exc: ValidationError, data: Any, file: str | None, model: type[BaseModel] | None = None
) -> list[Problem]:
    seen: set[tuple] = set()
    problems: list[Problem] = []
    for err in exc.errors():
        loc = tuple(err["loc"])
        key = (loc, err.get("type"), err.get("msg"))
        if key in seen:
            continue
        seen.add(key)
        problems.append(
            Problem(_plain(err, model), file=file, line=line_of(data, loc), field=_field_path(loc) or None)
        )
    return problems


def validate(model: type[M], data: Any, file: str | None) -> tuple[M | None, list[Problem]]:
    try:
        return model.model_validate(data), []
    except ValidationError as exc:
        return None, problems_from(exc, data, file, model)
