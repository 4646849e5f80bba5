"""Model presets (rules/workload.yaml `presets:`) and parameter counts given as text ("7b", "1.3e9")."""

from __future__ import annotations

import re
from functools import lru_cache

from advisor.base.errors import UserError
from advisor.base.resources import bundled
from advisor.base.yamlio import load_bundled
from advisor.i18n import _
from advisor.workload.models import ModelSpec

_COUNT = re.compile(r"^\s*(\d+(?:\.\d+)?(?:e\d+)?)\s*([kmbt]?)\s*$", re.IGNORECASE)
_SCALE = {"": 1.0, "k": 1e3, "m": 1e6, "b": 1e9, "t": 1e12}


@lru_cache(maxsize=1)
def presets() -> dict[str, ModelSpec]:
    data = load_bundled(bundled("rules") / "workload.yaml")
    out: dict[str, ModelSpec] = {}
    for key, p in (data.get("presets") or {}).items():
        out[key] = ModelSpec(
            key=key,
            name=key,
            kind=p["kind"],
            params=float(p["params"]),
            layers=p.get("layers"),
            hidden=p.get("hidden"),
            heads=p.get("heads"),
            kv_heads=p.get("kv_heads"),
            ffn=p.get("ffn"),
            vocab=p.get("vocab"),
            head_size=p.get("head_dim"),
            experts=p.get("experts"),
            mlp_matrices=p.get("mlp_matrices", 3),
            moe_layers=p.get("moe_layers"),
            kv_latent=p.get("kv_latent"),
            active_experts=p.get("active_experts"),
            forward_flops_per_sample=p.get("forward_flops_per_sample"),
            default_seq=p.get("default_seq"),
            param_tensors=p.get("param_tensors"),
            aliases=tuple(p.get("aliases") or ()),
            sources=tuple(p["sources"]),
        )
    return out


def _alias_table() -> dict[str, str]:
    table = {}
    for key, spec in presets().items():
        for name in (key, *spec.aliases):
            table[name.lower()] = key
    return table


def parse_count(text: str) -> float | None:
    """'7b' -> 7e9, '1.3e9' -> 1.3e9, '350m' -> 3.5e8; None when the text is not a count."""
    m = _COUNT.match(text)
    if not m:
        return None
    value = float(m.group(1)) * _SCALE[m.group(2).lower()]
    return value if value > 0 else None


def _check_params(value: float, given: str) -> float:
    """A parameter count in PARAMS, else a UserError: nan, inf or 1e400 never reach the arithmetic."""
    from advisor.workload.assumed import PARAMS, PARAMS_TEXT

    if not (value == value and PARAMS[0] <= value <= PARAMS[1]):
        raise UserError(
            _("{given} is not a parameter count advisor models: give one from {range}").format(
                given=given, range=PARAMS_TEXT
            ),
            hint=_("e.g. 1.3b, 7b or 2.7e9"),
        )
    return value


def resolve(name: str, params: float | None = None) -> ModelSpec:
    """A preset by name or alias; a bare parameter count borrows the shape of the nearest decoder preset."""
    if params is not None:
        _check_params(params, f"--params {params:g}")
    table = _alias_table()
    key = table.get(name.strip().lower())
    if key is not None:
        spec = presets()[key]
        return spec.with_params(params) if params else spec
    count = parse_count(name)
    if count is not None:
        _check_params(count, repr(name.strip()))
    if count is not None or (params and not name.strip()):
        return nearest(params or count)  # type: ignore[arg-type]
    from rapidfuzz import process  # only for the hint: a known name never pays its import

    near = process.extract(name.lower(), list(table), limit=3)
    names = ", ".join(n for n, _score, _index in near)
    hint = _("did you mean: {names}?").format(names=names) if near else None
    raise UserError(
        _(
            "no model preset {name}; give a preset (1b, 1.3b, 7b, 8b, 13b, 32b, 70b, bert-large, "
            "resnet-50) or a parameter count such as 3b or 2.7e9"
        ).format(name=repr(name)),
        hint=hint,
    )


def nearest(params: float) -> ModelSpec:
    decoders = [s for s in presets().values() if s.kind == "decoder"]
    base = min(decoders, key=lambda s: abs(s.params - params) / s.params)
    return base.with_params(params)


DIMS = ("layers", "hidden", "heads", "kv_heads", "ffn", "vocab", "experts", "active_experts")


def with_dims(spec: ModelSpec, dims: dict[str, int | None]) -> ModelSpec:
    """The preset's shape with the dimensions given (--layers --hidden --heads --kv-heads --ffn --vocab).
    With layers, hidden, ffn and vocab all known the parameter count is counted from them, for the
    decoders people run in 2026 (grouped-query attention, a gated MLP of three h x ffn matrices, an
    untied output embedding): L x (2h^2 + 2 h x kv_heads x h/heads + 3 h x ffn) + 2 x vocab x h."""
    from dataclasses import replace

    given = {k: v for k, v in dims.items() if v is not None}
    if not given:
        return spec
    for k, v in given.items():
        if v <= 0:
            raise UserError(
                _("{flag} must be a positive whole number (got {value})").format(
                    flag="--" + k.replace("_", "-"), value=v
                )
            )
    if spec.kv_latent or spec.moe_layers:
        raise UserError(
            _("{model}'s shape (latent attention, dense first layers) cannot be re-dimensioned").format(
                model=spec.key
            ),
            hint=_(
                "use it as it is, or describe a model of your own from a standard preset (e.g. --infer 8b "
                "--layers ... --experts ...)"
            ),
        )
    shape = replace(spec, **given)
    heads = shape.heads or 0
    if shape.kv_heads and heads and heads % shape.kv_heads:
        raise UserError(
            _("--kv-heads {kv_heads} must divide the {heads} attention heads").format(
                kv_heads=shape.kv_heads, heads=heads
            )
        )
    if shape.hidden and heads and shape.hidden % heads:
        raise UserError(
            _("--hidden {hidden} must be a multiple of the {heads} attention heads").format(
                hidden=shape.hidden, heads=heads
            )
        )
    if shape.active_experts and not shape.experts:
        raise UserError(_("--active-experts needs --experts (the experts per layer)"))
    if shape.experts and not shape.active_experts:
        raise UserError(
            _("--experts needs --active-experts: how many experts each token is routed to"),
            hint=_(
                "e.g. --experts 8 --active-experts 2 (Mixtral), --experts 128 --active-experts 8 (Qwen3 MoE)"
            ),
        )
    if shape.experts and (shape.active_experts or 1) > shape.experts:
        raise UserError(
            _("--active-experts {active} is more than the {experts} experts per layer").format(
                active=shape.active_experts, experts=shape.experts
            )
        )
    L, h, ffn, vocab = shape.layers, shape.hidden, shape.ffn, shape.vocab
    if not (L and h and ffn and vocab):
        return replace(
            shape, name=_("{model} with {dims}").format(model=spec.label, dims=_said(given)), custom=True
        )
    kv = (shape.kv_heads or heads or 1) * (h // (heads or 1))
    mlp = shape.mlp_matrices
    params = L * (2 * h * h + 2 * h * kv + mlp * h * ffn * (shape.experts or 1)) + 2 * vocab * h
    _check_params(params, _("the dimensions given ({dims})").format(dims=_said(given)))
    return replace(
        shape,
        params=float(params),
        name=(
            _(
                "{params}B-parameter model ({dims}; counted as L x (2h^2 + 2h kv + {mlp}h ffn x experts) + 2 vocab h)"
            )
            if shape.experts
            else _(
                "{params}B-parameter model ({dims}; counted as L x (2h^2 + 2h kv + {mlp}h ffn) + 2 vocab h)"
            )
        ).format(params=f"{params / 1e9:.3g}", dims=_said(given), mlp=mlp),
        custom=True,
    )


def _said(given: dict) -> str:
    return ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in given.items())
