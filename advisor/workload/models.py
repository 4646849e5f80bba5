"""What the user asks about (a Workload) and what the model knows about a network (a ModelSpec)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from advisor.workload import defaults

TRAIN_STRATEGIES = ("ddp", "dataparallel", "zero2", "zero3", "fsdp", "tp", "pp")
INFER_STRATEGIES = ("tp", "pp", "replicas")
STRATEGY_NAMES = {
    "ddp": "DDP",
    "dataparallel": "DataParallel",
    "zero2": "ZeRO-2",
    "zero3": "ZeRO-3",
    "fsdp": "FSDP (FULL_SHARD)",
    "tp": "tensor parallel",
    "pp": "pipeline parallel",
    "replicas": "independent replicas",
}


@dataclass(frozen=True)
class ModelSpec:
    key: str
    name: str
    kind: Literal["decoder", "encoder", "cnn"]
    params: float
    layers: int | None = None
    hidden: int | None = None
    heads: int | None = None
    kv_heads: int | None = None
    ffn: int | None = None
    vocab: int | None = None
    forward_flops_per_sample: float | None = None
    default_seq: int | None = None
    aliases: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    custom: bool = False  # a parameter count given by the user, shape borrowed from `key`
    head_size: int | None = None  # config.json's head_dim where it is not hidden / heads (Qwen3, Gemma 2)

    def with_params(self, params: float | None) -> ModelSpec:
        if not params:
            return self
        label = f"{params / 1e9:.3g}B-parameter model (shape of {self.key})"
        return replace(self, params=float(params), name=label, custom=True)

    @property
    def transformer(self) -> bool:
        return self.kind in ("decoder", "encoder")

    @property
    def head_dim(self) -> int:
        return self.head_size or (self.hidden or 0) // (self.heads or 1)

    @property
    def label(self) -> str:
        return self.name if self.custom else f"{self.key} ({self.params / 1e9:.3g}B parameters)"


@dataclass(frozen=True)
class Workload:
    """The user's job. `batch` is the micro-batch per GPU for data parallel training, per model
    replica for TP/PP training, and the number of concurrent sequences for inference. The defaults are
    advisor.workload.defaults' (build one with defaults.workload())."""

    task: Literal["train", "infer"]
    model: ModelSpec
    strategy: str
    precision: Literal["bf16", "fp16", "fp32"] = defaults.PRECISION  # type: ignore[assignment]
    batch: int = defaults.BATCH["train"]
    seq: int = defaults.SEQ
    accum: int = defaults.ACCUM
    gpus: int | None = None
    prompt: int = defaults.PROMPT
    gen: int = defaults.GEN
    recompute: bool = False
    # how the framework overlaps the gradient reduction with the backward pass (rules/workload.yaml
    # overlap_fraction); None: PyTorch DDP's bucketed overlap
    framework: Literal["ddp", "megatron", "deepspeed", "fsdp", "hf-trainer"] | None = None
    # "every": gradients are all-reduced on every accumulation micro-step (no no_sync), as some scripts do
    accum_sync: Literal["last", "every"] = "last"
    # the 1-GPU run compared against, where the published comparison changed it
    baseline_batch: int | None = None
    baseline_accum: int | None = None
    # the optimizer's state: AdamW (fp32 moments), 8-bit AdamW (bitsandbytes) or SGD with momentum
    optimizer: Literal["adamw", "adamw-8bit", "sgd"] = "adamw"

    def but(self, **changes) -> Workload:
        return replace(self, **changes)

    @property
    def bytes_per_value(self) -> int:
        return 4 if self.precision == "fp32" else 2

    @property
    def strategy_name(self) -> str:
        return STRATEGY_NAMES.get(self.strategy, self.strategy)
