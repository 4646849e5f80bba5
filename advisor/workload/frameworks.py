"""How each training framework reduces gradients as people run it (`--framework`): whether the reduction
overlaps the backward pass, in what pieces it goes, and whether gradient accumulation skips it.

The values are constants in rules/workload.yaml (overlap_fraction, gradient_bucket_bytes,
framework_accum_sync), each read from the framework's own source or shipped configs; this module only
maps a job to their keys."""

from __future__ import annotations

from typing import Protocol

from advisor.model.constants import const


class Job(Protocol):
    """What these functions read of a job (a models.Workload): its framework, its strategy and the
    user's --accum-sync. Named here rather than imported, as the Workload itself asks this module."""

    @property
    def framework(self) -> str | None: ...

    @property
    def strategy(self) -> str: ...

    @property
    def accum_sync(self) -> str | None: ...


W = "workload.yaml"

# name: what it is, in a few words (the job's description and --framework's help)
FRAMEWORKS = {
    "ddp": "PyTorch DDP",
    "hf-trainer": "the Hugging Face Trainer (PyTorch DDP)",
    "megatron": "Megatron-LM (gradients reduced after the backward pass)",
    "deepspeed": "DeepSpeed (overlap_comm off below ZeRO-3, its default)",
    "fsdp": "PyTorch FSDP",
    "tensorflow": "TensorFlow MirroredStrategy / tf_cnn_benchmarks (one packed all-reduce after the backward pass)",
    "horovod": "Horovod (tensor fusion; every backward pass reduced)",
    "torchtune": "torchtune's distributed recipes (FSDP2; every micro-step reduced)",
    "llama-factory": "LLaMA-Factory (HF Trainer; its DeepSpeed configs set overlap_comm false)",
    "axolotl": "axolotl (HF Trainer; its DeepSpeed configs set overlap_comm true)",
}
ZERO = ("zero2", "zero3")


def overlap_key(w: Job) -> str:
    """The overlap_fraction entry of the job's framework and strategy (rules/workload.yaml)."""
    f = w.framework
    if f == "deepspeed":
        return "deepspeed-zero3" if w.strategy == "zero3" else "deepspeed"
    if f in ("llama-factory", "axolotl") and w.strategy in ZERO:
        return f"{f}-deepspeed"
    return f or "default"


def bucket_bytes(w: Job, gradient_bytes: float) -> float:
    """Bytes per reduction bucket of a DDP-style (bucketed) gradient reduction: the framework's bucket or
    fusion buffer, or the whole gradient where the framework packs it into one all-reduce."""
    b = const("gradient_bucket_bytes", w.framework or "default", file=W)
    if b == "all":
        return max(gradient_bytes, 1.0)
    return float(b)


def syncs_every_micro_step(w: Job) -> bool:
    """Whether the gradients are reduced on every accumulation micro-step: the user's --accum-sync, else the
    framework's default (Horovod's backward_passes_per_step=1, Keras' fit without accumulation, torchtune's
    FSDP recipes), else no_sync on all but the last."""
    if w.accum_sync is not None:
        return w.accum_sync == "every"
    return const("framework_accum_sync", w.framework or "default", file=W) == "every"
