"""Memory per GPU: weights, gradients, optimizer state, activations, KV cache, against usable VRAM."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from advisor.i18n import N_, _
from advisor.model.constants import const
from advisor.model.predict import Figure
from advisor.workload.models import Workload

W = "workload.yaml"
GB = 1e9


@dataclass
class Memory:
    terms: dict[str, Figure]
    total: Figure
    usable: Figure
    fits: bool
    notes: list[str] = field(default_factory=list)
    max_sequences: Figure | None = None  # inference: the concurrency the KV cache admits


def _gb(
    value: float | None, formula: str, inputs: dict, consts: list[str], conf: str = "calibrated"
) -> Figure:
    return Figure(None if value is None else value / GB, "GB", formula, inputs, consts, conf)


_OPT_NAME = {"adamw": "AdamW", "adamw-8bit": N_("8-bit AdamW"), "sgd": N_("SGD with momentum")}
# how each strategy lays the model's state out over the GPUs
_LAYOUT = {
    "ddp": N_("replicated on every GPU"),
    "dataparallel": N_("replicated on every GPU"),
    "zero2": N_("gradients and optimizer state sharded over the GPUs"),
    "zero3": N_("everything sharded"),
    "fsdp": N_("everything sharded"),
    "tp": N_("split over the tensor-parallel GPUs"),
    "pp": N_("split over the pipeline stages"),
}


def _states(w: Workload, n: int) -> dict[str, Figure]:
    """Weights, gradients and Adam state per GPU for training strategy `w.strategy` on n GPUs."""
    p = w.model.params
    s = const("model_state_bytes_per_param", file=W)
    opt = const("optimizer_state_bytes_per_param", file=W)
    if w.param_dtype in ("bf16", "fp16") and w.precision != "fp32":
        # the weights loaded in 16 bits: 16-bit gradients, and the optimizer's moments in the weights'
        # dtype (torch.optim keeps its state like the parameter), no fp32 master copy
        half = 1.0 if w.optimizer == "adamw-8bit" else 0.5
        wb, gb, ob = s["weights_16"], s["grads_16"], opt[f"{w.optimizer}_amp"] * half
    elif w.precision == "fp32" or w.strategy in ("ddp", "dataparallel"):  # fp32 weights and grads (autocast)
        wb, gb, ob = s["amp_weights"], s["amp_grads"], opt[f"{w.optimizer}_amp"]
    else:  # 16-bit weights and grads, fp32 master + moments in the optimizer
        wb, gb, ob = s["weights_16"], s["grads_16"], opt[f"{w.optimizer}_16"]
    shard = {
        "ddp": (1, 1, 1),
        "dataparallel": (1, 1, 1),
        "zero2": (1, n, n),
        "zero3": (n, n, n),
        "fsdp": (n, n, n),
        "tp": (n, n, n),
        "pp": (n, n, n),
    }[w.strategy]
    why = _(_LAYOUT[w.strategy])
    optimizer = _(_OPT_NAME[w.optimizer])
    consts = ["model_state_bytes_per_param", "optimizer_state_bytes_per_param"]
    inputs = {"params": p, "gpus": n, "strategy": w.strategy, "layout": why}
    if w.lora_rank is not None:
        # frozen base in base_bits (QLoRA's NF4 adds its quantization constants), adapters trained as
        # full fine-tuning trains its weights: weights + gradients + optimizer state of the adapters only
        t = w.trainable
        base = const("lora_base_bytes_per_param", w.base_bits, file=W)
        inputs |= {"trainable": round(t), "lora_rank": w.lora_rank, "base_bits": w.base_bits}
        consts = [*consts, "lora_base_bytes_per_param"]
        return {
            "weights": _gb(
                (p * base + t * wb) / shard[0],
                _("(params x {base} B frozen base + adapters x {bytes} B) / {shards}").format(
                    base=base, bytes=wb, shards=shard[0]
                ),
                inputs,
                consts,
            ),
            "gradients": _gb(
                t * gb / shard[1],
                _("adapters x {bytes} B / {shards}").format(bytes=gb, shards=shard[1]),
                inputs,
                consts,
            ),
            "optimizer": _gb(
                t * ob / shard[2],
                _("adapters x {bytes} B ({optimizer}) / {shards}").format(
                    bytes=ob, optimizer=optimizer, shards=shard[2]
                ),
                inputs,
                consts,
            ),
            **(
                {
                    "gathered_layers": _gb(
                        2 * p / w.model.layers * base,
                        _("2 frozen layers unsharded at a time: 2 x params/L x base bytes"),
                        {"layers": w.model.layers},
                        [],
                    )
                }
                if w.strategy in ("zero3", "fsdp") and n > 1 and w.model.layers
                else {}
            ),
        }
    out = {
        "weights": _gb(p * wb / shard[0], f"params x {wb} B / {shard[0]}", inputs, consts),
        "gradients": _gb(p * gb / shard[1], f"params x {gb} B / {shard[1]}", inputs, consts),
        "optimizer": _gb(
            p * ob / shard[2],
            _("params x {bytes} B ({optimizer}) / {shards}").format(
                bytes=ob, optimizer=optimizer, shards=shard[2]
            ),
            inputs,
            consts,
        ),
    }
    if w.strategy in ("zero3", "fsdp") and n > 1 and w.model.layers:
        out["gathered_layers"] = _gb(
            2 * p / w.model.layers * w.bytes_per_value,
            _("2 layers unsharded at a time (current + prefetched): 2 x params/L x bytes"),
            {"layers": w.model.layers},
            [],
        )
    return out


def activations(w: Workload, n: int) -> Figure:
    m = w.model
    if not m.transformer:
        return Figure(
            None,
            "GB",
            _("activation memory of a CNN is not modelled (no sourced per-image figure)"),
            {"model": m.key},
            [],
            "low",
        )
    f = const("activation_bytes_per_layer", file=W)
    b, s, h, L = w.batch, w.seq, m.hidden, m.layers
    scale = 2 if w.precision == "fp32" else 1
    if w.recompute:
        per_layer, expr = f["recompute"], "recompute"
    elif w.strategy == "tp" and n > 1:
        per_layer, expr = f["tp_shared"] + f["tp_split"] / n, f"tp_shared + tp_split/{n}"
    else:
        per_layer, expr = f["base"], "base"
    layers = L  # PP: the first stage holds p micro-batches of L/p layers = L layers' worth (1F1B)
    acts = s * b * h * per_layer * layers * scale
    logits = s * b * (m.vocab or 0) * const("logits_bytes_per_token", file=W)
    if w.strategy == "tp" and n > 1:
        logits /= n  # vocabulary-parallel output layer
    return _gb(
        acts + logits,
        f"s x b x h x ({expr}) x layers x {scale} + s x b x vocab x logits_bytes",
        {
            "s": s,
            "b": b,
            "h": h,
            "layers": layers,
            "per_layer_factor": round(per_layer, 2),
            "vocab": m.vocab,
            "recompute": w.recompute,
        },
        ["activation_bytes_per_layer", "logits_bytes_per_token"],
    )


def kv_cache(w: Workload, n: int, sequences: int) -> Figure:
    m = w.model
    layers = math.ceil((m.layers or 0) / n) if w.strategy == "pp" else m.layers
    tokens = w.prompt + w.gen
    if m.kv_latent:  # MLA: one latent of kv_lora_rank + rope dims per token and layer, whole on every TP GPU
        value = layers * m.kv_latent * w.kv_bytes_per_value * tokens * sequences
        return _gb(
            value,
            _(
                "layers x latent (kv_lora_rank + rope dims) x bytes x (prompt + gen) x sequences; not split by TP"
            ),
            {
                "layers": layers,
                "latent": m.kv_latent,
                "bytes": w.kv_bytes_per_value,
                "tokens": tokens,
                "sequences": sequences,
            },
            ["kv_cache_bytes_per_value"] if w.kv_cache else [],
        )
    per_gpu_heads = (
        math.ceil((m.kv_heads or m.heads or 1) / n) if w.strategy == "tp" else (m.kv_heads or m.heads)
    )
    value = 2 * layers * per_gpu_heads * m.head_dim * w.kv_bytes_per_value * tokens * sequences
    return _gb(
        value,
        "2 (K,V) x layers x kv_heads x head_dim x bytes x (prompt + gen) x sequences",
        {
            "layers": layers,
            "kv_heads_per_gpu": per_gpu_heads,
            "head_dim": m.head_dim,
            "bytes": w.kv_bytes_per_value,
            "tokens": tokens,
            "sequences": sequences,
        },
        ["kv_cache_bytes_per_value"] if w.kv_cache else [],
    )


def usable(vram_gb: float) -> Figure:
    frac = const("vram_usable_fraction", file=W)
    unit = const("vram_bytes_per_gb", file=W)
    return Figure(
        vram_gb * unit / GB * frac,
        "GB",
        "vram_gb x vram_bytes_per_gb x vram_usable_fraction",
        {"vram_gb": vram_gb, "bytes_per_gb": unit, "fraction": frac},
        ["vram_bytes_per_gb", "vram_usable_fraction"],
    )


def _total(terms: dict[str, Figure], vram_gb: float, notes: list[str]) -> Memory:
    total = sum(f.value or 0.0 for f in terms.values())
    tot = Figure(total, "GB", " + ".join(terms), {k: round(f.value or 0.0, 3) for k, f in terms.items()}, [])
    use = usable(vram_gb)
    return Memory(terms, tot, use, total <= use.value, notes)


def training_memory(w: Workload, n: int, vram_gb: float) -> Memory:
    terms = _states(w, n)
    act = activations(w, n)
    terms["activations"] = act
    notes = [] if act.value is not None else [_("activations not counted (CNN)")]
    return _total(terms, vram_gb, notes)


def inference_memory(w: Workload, n: int, vram_gb: float, sequences: int) -> Memory:
    p = w.model.params
    split = n if w.strategy in ("tp", "pp", "row") else 1
    total, experts = w.weight_bytes()
    fmt = w.quant or w.precision
    consts = ["weight_bits_per_param"] if w.quant else []
    if w.strategy == "ep" and n > 1 and w.model.moe:
        # expert parallel: the shared weights on every GPU, ceil(E/n) of each layer's experts
        owned = math.ceil((w.model.experts or 1) / n)
        share = owned / (w.model.experts or 1)
        weights = _gb(
            total - experts + experts * share,
            _("shared params + {owned} of {experts} experts per layer, in {format}").format(
                owned=owned, experts=w.model.experts, format=fmt
            ),
            {"params": p, "expert_params": w.model.expert_params, "experts_per_gpu": owned, "format": fmt},
            consts,
        )
    else:
        weights = _gb(
            total / split,
            _("params in {format} ({bytes} B each) / {split}").format(
                format=fmt, bytes=f"{total / p:.3g}", split=split
            ),
            {"params": p, "split": split, "format": fmt},
            consts,
        )
    terms = {"weights": weights, "kv_cache": kv_cache(w, split, sequences)}
    mem = _total(terms, vram_gb, [_("activation workspace is inside the unusable fraction")])
    # the concurrency the KV cache admits: the space left after the weights, over one sequence's cache
    one = (terms["kv_cache"].value or 0.0) / sequences  # the cache grows linearly with the sequences
    free = mem.usable.value - terms["weights"].value
    per_gpu = max(0, math.floor(free / one)) if one > 0 else None
    replicas = n if w.strategy in ("replicas", "ep") else 1
    mem.max_sequences = Figure(
        None if per_gpu is None else per_gpu * replicas,
        "sequences",
        (
            _(
                "floor((usable - weights) / KV cache of one sequence of prompt + gen tokens) x {replicas} replicas"
            )
            if replicas > 1
            else _("floor((usable - weights) / KV cache of one sequence of prompt + gen tokens)")
        ).format(replicas=replicas),
        {
            "usable_gb": round(mem.usable.value, 3),
            "weights_gb": round(terms["weights"].value, 3),
            "kv_per_sequence_gb": round(one, 4),
            "replicas": replicas,
        },
        consts,
        "low",
    )
    return mem
