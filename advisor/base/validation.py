"""Turn pydantic's validation errors into plain sentences that point at file:line."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from advisor.base.errors import Problem
from advisor.base.yamlio import line_of
from advisor.i18n import N_, _, retell

M = TypeVar("M", bound=BaseModel)


def _field_path(loc: tuple) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


_BOUND_ERRORS = ("greater_than", "greater_than_equal", "less_than", "less_than_equal", "int_parsing_size")


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    """The models an annotation holds (list[GpuSpec], Topology | None, TreeSwitch | TreeDevice)."""
    import typing

    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    out: list[type[BaseModel]] = []
    for arg in typing.get_args(annotation):
        out += _models_in(arg)
    return out


def _field_at(model: type[BaseModel] | None, loc: tuple) -> Any:
    """The FieldInfo at a pydantic error location, or None where the walk loses its way."""
    models = [model] if model is not None else []
    info = None
    for part in loc:
        if isinstance(part, int):
            continue
        named = [m for m in models if m.__name__ == part]
        if named:  # a union member's tag ("TreeDevice")
            models = named
            continue
        owner = next((m for m in models if part in m.model_fields), None)
        if owner is None:
            return None
        info = owner.model_fields[part]
        models = _models_in(info.annotation)
    return info


def _range(err: dict[str, Any], model: type[BaseModel] | None) -> str | None:
    """'must be from 1 to 16' for a number outside its field's range, both ends named."""
    low = high = None
    info = _field_at(model, tuple(err.get("loc", ())))
    for m in getattr(info, "metadata", None) or []:
        for name in ("ge", "gt"):
            if getattr(m, name, None) is not None:
                low = (name, getattr(m, name))
        for name in ("le", "lt"):
            if getattr(m, name, None) is not None:
                high = (name, getattr(m, name))
    ctx = err.get("ctx") or {}
    if not (low or high):  # an inner value (a list's item): the bound the error itself names
        for name in ("ge", "gt"):
            if name in ctx:
                low = (name, ctx[name])
        for name in ("le", "lt"):
            if name in ctx:
                high = (name, ctx[name])
    if low and high and low[0] == "ge" and high[0] == "le":
        return f"must be from {_num(low[1])} to {_num(high[1])}"
    bits = []
    if low:
        bits.append(("at least " if low[0] == "ge" else "more than ") + _num(low[1]))
    if high:
        bits.append(("at most " if high[0] == "le" else "less than ") + _num(high[1]))
    return "must be " + " and ".join(bits) if bits else None


def _num(x: Any) -> str:
    return (
        f"{x:g}"
        if isinstance(x, float) and not x.is_integer()
        else str(int(x))
        if isinstance(x, float)
        else str(x)
    )


def _shown(value: Any) -> str:
    """A value as the message shows it: a huge number or text cut to its start, with its size."""
    text = repr(value)
    if len(text) <= 40:
        return text
    if isinstance(value, int):
        return f"a {len(str(abs(value)))}-digit number"
    return text[:30] + f"... ({len(text)} characters)"


def _plain(err: dict[str, Any], model: type[BaseModel] | None) -> str:
    kind = err.get("type", "")
    msg = err.get("msg", "")
    if kind in _BOUND_ERRORS:
        ranged = _range(err, model)
        if ranged:
            return f"{ranged} (got {_shown(err.get('input'))})"
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
        msg += f" (got {_shown(got)})"
    return msg


# the sentences _plain makes of pydantic's errors, said again in the run's language (pydantic's own words
# for a type it could not read, as pydantic 2 writes them; a message it words otherwise, or a validator's
# own, stays as it is)
WORDS = (
    N_("{message} (got {value})"),
    N_("must be from {low} to {high}"),
    N_("must be {low} and {high}"),
    N_("must be at least {n}"),
    N_("must be more than {n}"),
    N_("must be at most {n}"),
    N_("must be less than {n}"),
    N_("at least {n}"),
    N_("more than {n}"),
    N_("at most {n}"),
    N_("less than {n}"),
    N_("is required but missing"),
    N_("is not a known key (check the spelling; `advisor catalog schema` lists the keys)"),
    N_("must be a valid integer, unable to parse string as an integer"),
    N_("must be a valid integer, got a number with a fractional part"),
    N_("must be a valid integer"),
    N_("must be a valid number, unable to parse string as a number"),
    N_("must be a valid number"),
    N_("must be a valid boolean, unable to interpret input"),
    N_("must be a valid boolean"),
    N_("must be a valid string"),
    N_("must be a valid list"),
    N_("must be a valid dictionary"),
    N_("must be a valid dictionary or instance of {model}"),
    N_("a {digits}-digit number"),
)


def _said(err: dict[str, Any], model: type[BaseModel] | None) -> str:
    """_plain's sentence in the run's language; a literal's choices as pydantic quotes them."""
    text = _plain(err, model)
    kind = err.get("type", "")
    if kind.startswith("literal_error") and text.startswith("must be "):
        return _("must be {choices}").format(choices=text.removeprefix("must be "))
    return retell(text, WORDS)


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
            Problem(_said(err, model), file=file, line=line_of(data, loc), field=_field_path(loc) or None)
        )
    return problems


def validate(model: type[M], data: Any, file: str | None) -> tuple[M | None, list[Problem]]:
    try:
        return model.model_validate(data), []
    except ValidationError as exc:
        return None, problems_from(exc, data, file, model)
