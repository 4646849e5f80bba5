"""What the user asks about (a Workload) and what the model knows about a network (a ModelSpec)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from advisor.i18n import N_
from advisor.workload import assumed as defaults
from advisor.workload.frameworks import syncs_every_micro_step

TRAIN_STRATEGIES = ("ddp", "dataparallel", "zero2", "zero3", "fsdp", "tp", "pp")
INFER_STRATEGIES = ("tp", "pp", "replicas", "ep", "row")
# each strategy in words, in English; `strategy_name` gives it in the run's language
STRATEGY_NAMES = {
    "ddp": "DDP",
    "dataparallel": "DataParallel",
    "zero2": "ZeRO-2",
    "zero3": "ZeRO-3",
    "fsdp": "FSDP (FULL_SHARD)",
    "tp": N_("tensor parallel"),
    "pp": N_("pipeline parallel"),
    "replicas": N_("independent replicas"),
    "ep": N_("expert parallel (data-parallel attention)"),
    "row": N_("llama.cpp row split (-sm row)"),
}


def strategy_words(strategy: str) -> str:
    """A strategy's name in the run's language (an unknown one as given)."""
    from advisor.i18n import _

    name = STRATEGY_NAMES.get(strategy)
    return strategy if name is None else _(name)


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
    # mixture of experts: `experts` MLPs of size `ffn` per layer, `active_experts` of them per token
    experts: int | None = None
    active_experts: int | None = None
    # matrices in each MLP: 3 for the gated MLPs of Llama-style decoders (gate, up, down), 2 for GPT-2,
    # OPT and BERT (fc1, fc2)
    mlp_matrices: int = 3
    # the layers whose MLP is a mixture of experts (DeepSeek V3: 58 of 61, the first 3 dense); None: all
    moe_layers: int | None = None
    # multi-head latent attention (DeepSeek V2/V3): one latent vector per token and layer is the whole KV
    # cache entry, kv_lora_rank + qk_rope_head_dim values (512 + 64); None: K and V per KV head
    kv_latent: int | None = None
    # the parameter tensors (weights and biases, each its own tensor) of the preset's reference code, where
    # the registry gives them: the kernels a training step issues follow them (train.host_issue)
    param_tensors: int | None = None

    @property
    def moe(self) -> bool:
        return bool(self.experts and self.experts > 1)

    @property
    def expert_params(self) -> float:
        """Parameters in all the experts' MLPs (3 h x ffn matrices each); 0 for a dense model."""
        if not (self.moe and self.layers and self.hidden and self.ffn):
            return 0.0
        layers = self.moe_layers or self.layers
        return float(layers * self.experts * 3 * self.hidden * self.ffn)  # type: ignore[operator]

    @property
    def active(self) -> float:
        """Parameters one token passes through: all of a dense model's; a MoE's shared part and k of its
        E experts per layer."""
        if not self.expert_params:
            return self.params
        return self.params - self.expert_params * (1 - (self.active_experts or 1) / self.experts)  # type: ignore[operator]

    def with_params(self, params: float | None) -> ModelSpec:
        if not params:
            return self
        from advisor.i18n import _

        label = _("{params}B-parameter model (shape of {preset})").format(
            params=f"{params / 1e9:.3g}", preset=self.key
        )
        return replace(self, params=float(params), name=label, custom=True)

    @property
    def transformer(self) -> bool:
        return self.kind in ("decoder", "encoder")

    @property
    def head_dim(self) -> int:
        return self.head_size or (self.hidden or 0) // (self.heads or 1)

    @property
    def label(self) -> str:
        from advisor.i18n import _

        if self.custom:
            return self.name
        return _("{model} ({params}B parameters)").format(model=self.key, params=f"{self.params / 1e9:.3g}")


def lora_params(m: ModelSpec, rank: int) -> float:
    """LoRA adapters of rank r on every linear layer of a block (q, k, v, o and the MLP's matrices, as
    PEFT's target_modules="all-linear"): an adapter on a d_in x d_out matrix has r x (d_in + d_out)
    parameters, so r x L x (9h + 2 kv + 3 ffn) for a gated MLP with kv = kv_heads x head_dim (Hu et al.
    2021), and 2 (h + ffn) for the MLP of GPT-2, OPT or BERT."""
    from advisor.base.errors import UserError
    from advisor.i18n import _

    if not (m.layers and m.hidden and m.ffn):
        raise UserError(
            _("LoRA needs the model's layers, hidden and MLP sizes, which {model} does not have").format(
                model=m.label
            ),
            hint=_("use a decoder preset or give --layers --hidden --ffn"),
        )
    if m.kv_latent:
        raise UserError(
            _("LoRA's adapter count is not modelled for {model}'s latent attention (MLA)").format(
                model=m.key
            ),
            hint=_("a LoRA run on it is not predicted; full fine-tuning and inference are"),
        )
    kv = (m.kv_heads or m.heads or 1) * m.head_dim
    q = (m.heads or 1) * m.head_dim
    # q (h + q), k and v (h + kv each), o (q + h); each MLP's matrices (gate/up/down, or fc1/fc2) h + ffn
    attn = 2 * (m.hidden + q) + 2 * (m.hidden + kv)
    return float(rank * m.layers * (attn + (m.experts or 1) * m.mlp_matrices * (m.hidden + m.ffn)))


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
    # how the framework reduces the gradients (advisor.workload.frameworks: overlap with the backward pass,
    # bucket or fusion size, accumulation); None: PyTorch DDP's bucketed overlap
    framework: str | None = None
    # "every": gradients are reduced on every accumulation micro-step (no no_sync), as some scripts do;
    # "last": only on the last (no_sync); None: the framework's default
    accum_sync: Literal["last", "every"] | None = None
    # the attention: "eager" writes the a x s x s scores to memory (Hugging Face models before SDPA, BERT's
    # reference code), "fused" keeps them on chip (FlashAttention, SDPA); None: the model kind's usual
    attention: Literal["eager", "fused"] | None = None
    # the 1-GPU run's activation recomputation, where the published comparison set it apart (torchtune's
    # single-device recipes recompute, its distributed ones do not); None: as the N-GPU run
    baseline_recompute: bool | None = None
    # the weights' own dtype where the model is loaded in 16 bits (torch_dtype=bfloat16, torchtune's dtype):
    # the gradients DDP reduces and the optimizer's moments are then 16-bit; None: fp32 weights under
    # autocast for DDP, as mixed precision keeps them
    param_dtype: Literal["bf16", "fp16", "fp32"] | None = None
    # one socket's memory bandwidth in GB/s where the build's CPU is not in the catalog (the staged
    # all-reduce's host traffic is checked against it); None: the catalog CPU's, or not checked
    host_memory_gbps: float | None = None
    # the 1-GPU run compared against, where the published comparison changed it
    baseline_batch: int | None = None
    baseline_accum: int | None = None
    # the optimizer's state: AdamW (fp32 moments), 8-bit AdamW (bitsandbytes) or SGD with momentum
    optimizer: Literal["adamw", "adamw-8bit", "sgd"] = "adamw"
    # LoRA: rank of the adapters on every linear layer (None: full fine-tuning); the frozen base in
    # base_bits (16, 8, or 4 as QLoRA's NF4)
    lora_rank: int | None = None
    base_bits: Literal[16, 8, 4] = 16
    # inference: the weights' format (None: `precision`) and the KV cache's (None: `precision`)
    quant: str | None = None
    kv_cache: str | None = None
    # inference: serve as many sequences as each configuration's KV cache admits (batch is then set per
    # configuration by the analysis)
    max_concurrency: bool = False
    # inference: requests per second arriving at a continuous-batching server (advisor.workload.rate), and
    # the most sequences in flight the user set (--batch with --request-rate; None: what the KV cache admits)
    request_rate: float | None = None
    request_cap: int | None = None
    # inference: a serving engine's cap on the sequences one step advances (vLLM's --max-num-seqs, 256 by
    # default); with it, `batch` is the requests waiting and the engine runs what the cap and the KV cache
    # admit. None: every sequence of `batch` runs at once
    max_num_seqs: int | None = None

    @property
    def trainable(self) -> float:
        """Parameters the optimizer updates: all of them, or LoRA's adapters (lora_params)."""
        if self.lora_rank is None:
            return self.model.params
        return lora_params(self.model, self.lora_rank)

    def weight_bytes(self) -> tuple[float, float]:
        """Bytes of all the weights and of the experts' share of them, in the weights' format: a GGUF
        type's average bits per weight over the whole file (its own per-tensor mix); fp8, int8, int4 and
        nvfp4 on the linear layers with the input and output embeddings left in 16 bits."""
        from advisor.model.constants import const

        m = self.model
        if self.quant is None:
            return m.params * self.bytes_per_value, m.expert_params * self.bytes_per_value
        bits = const("weight_bits_per_param", self.quant, file="workload.yaml")
        if self.quant.startswith(("q", "iq")):
            return m.params * bits / 8, m.expert_params * bits / 8
        embed = min(2.0 * m.vocab * m.hidden, m.params) if m.vocab and m.hidden else 0.0
        return (m.params - embed) * bits / 8 + embed * 2, m.expert_params * bits / 8

    @property
    def kv_bytes_per_value(self) -> float:
        from advisor.model.constants import const

        if self.kv_cache is None:
            return self.bytes_per_value
        return const("kv_cache_bytes_per_value", self.kv_cache, file="workload.yaml")

    def but(self, **changes) -> Workload:
        return replace(self, **changes)

    @property
    def sync_every(self) -> bool:
        """Gradients reduced on every accumulation micro-step (advisor.workload.frameworks)."""
        return syncs_every_micro_step(self)

    @property
    def bytes_per_value(self) -> int:
        return 4 if self.precision == "fp32" else 2

    @property
    def strategy_name(self) -> str:
        return strategy_words(self.strategy)
