"""How each training framework reduces gradients as people run it (`--framework`): whether the reduction
overlaps the backward pass, in what pieces it goes, and whether gradient accumulation skips it.

The values are constants in rules/workload.yaml (overlap_fraction, gradient_bucket_bytes,
framework_accum_sync), each read from the framework's own source or shipped configs; this module only
maps a job to their keys."""

from __future__ import annotations

from typing import Protocol

from advisor.i18n import N_, _
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
# (English; `framework_words` gives one in the run's language)
FRAMEWORKS = {
    "ddp": "PyTorch DDP",
    "hf-trainer": N_("the Hugging Face Trainer (PyTorch DDP)"),
    "megatron": N_("Megatron-LM (gradients reduced after the backward pass)"),
    "deepspeed": N_("DeepSpeed (overlap_comm off below ZeRO-3, its default)"),
    "fsdp": "PyTorch FSDP",
    "tensorflow": N_("TensorFlow MirroredStrategy (one packed all-reduce after the backward pass)"),
    "tf-cnn-benchmarks": N_(
        "tf_cnn_benchmarks, replicated (one packed all-reduce after the backward pass; in fp16 under --use_fp16)"
    ),
    "horovod": N_("Horovod (tensor fusion; every backward pass reduced)"),
    "torchtune": N_("torchtune's distributed recipes (FSDP2; every micro-step reduced)"),
    "llama-factory": N_("LLaMA-Factory (HF Trainer; its DeepSpeed configs set overlap_comm false)"),
    "axolotl": N_("axolotl (HF Trainer; its DeepSpeed configs set overlap_comm true)"),
}


def framework_words(framework: str | None) -> str:
    """A framework in a few words, in the run's language ("" for none, an unknown one as given)."""
    if not framework:
        return ""
    text = FRAMEWORKS.get(framework)
    return framework if text is None else _(text)


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
