"""The job every face assumes where the user does not say: one set of defaults, in one place.

`advisor workload` and `plan --train/--infer` (argparse defaults and help), the app's Job view (the
form's first values), the calibration runner (a case's missing fields) and plan's WL001 (the job it
assumes when no workload was asked) all read these. With defaults of their own, the CLI's micro-batch 8
once said "does not fit" where the Job view's micro-batch 1 said 0.45x, for the same question.

The training default answers a buyer's first question, "will a second GPU speed up my training?",
with a job that runs on one 24 GB consumer card, so the first answer is a speed-up, not "does not
fit": mixed-precision Adam keeps 16 B of model state per parameter (rules/workload.yaml
model_state_bytes_per_param), 21 GB for the 1.3B default model, which leaves one 24 GB card
(23.2 GB usable, vram_usable_fraction) room for the activations of one 1024-token sequence
(1.9 GB) but not of two; tests/test_workload_first_contact.py checks that this still holds. A
larger micro-batch, accumulation or sharding is then a "What to change" line with its prediction.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from advisor.workload.assumed import (
    ACCUM,
    BATCH,
    GEN,
    MODEL,
    PARAMS,
    PARAMS_TEXT,
    PRECISION,
    PROMPT,
    SEQ,
    STRATEGY,
)

if TYPE_CHECKING:
    from advisor.workload.models import ModelSpec, Workload

# the values themselves live in assumed.py, below the model that reads them; the faces read them here.
# The model is imported only when a default job is built: the command line reads these values for every
# command's argument help.
__all__ = [
    "ACCUM",
    "BATCH",
    "GEN",
    "MODEL",
    "PARAMS",
    "PARAMS_TEXT",
    "PRECISION",
    "PROMPT",
    "SEQ",
    "STRATEGY",
    "describe",
    "seq_for",
    "workload",
]


def seq_for(spec: ModelSpec | None) -> int:
    """A preset's own training sequence length (BERT 512), else SEQ."""
    return (spec.default_seq if spec is not None else None) or SEQ


def workload(task: str = "train", model: ModelSpec | str | None = None, **given) -> Workload:
    """The default job for `task` on `model` (a preset name or spec; default MODEL), with the fields in
    `given` that are not None instead of their defaults."""
    from advisor.workload.models import Workload
    from advisor.workload.presets import resolve

    spec = resolve(model or MODEL) if model is None or isinstance(model, str) else model
    fields = {
        "strategy": STRATEGY[task],
        "precision": PRECISION,
        "batch": BATCH[task],
        "seq": seq_for(spec),
        "accum": ACCUM,
        "prompt": PROMPT,
        "gen": GEN,
        "recompute": False,
        "gpus": None,
    }
    fields |= {k: v for k, v in given.items() if v is not None}
    return Workload(task=task, model=spec, **fields)  # type: ignore[arg-type]


def describe(w: Workload) -> str:
    """The job in a few words: 'DDP training of opt-1.3b (1.32B parameters), bf16, micro-batch 1 x 1024
    tokens, no accumulation'."""
    if w.task == "infer":
        return (
            f"{w.strategy_name} inference of {w.model.label}, {w.precision}, {w.batch} concurrent "
            f"sequence(s), prompt {w.prompt} + {w.gen} generated tokens"
        )
    tokens = f" x {w.seq} tokens" if w.model.transformer else ""
    accum = f"accumulation {w.accum}" if w.accum > 1 else "no accumulation"
    if w.accum > 1 and w.sync_every:
        accum += " (gradients all-reduced on every micro-step)"
    from advisor.workload.frameworks import FRAMEWORKS

    framework = f" under {FRAMEWORKS[w.framework]}" if w.framework in FRAMEWORKS else ""
    baseline = ""
    if w.baseline_batch or w.baseline_accum or w.baseline_recompute is not None:
        rc = w.recompute if w.baseline_recompute is None else w.baseline_recompute
        baseline = (
            f"; the 1-GPU run: micro-batch {w.baseline_batch or w.batch}, accumulation "
            f"{w.baseline_accum or w.accum}" + (", recompute" if rc else ", no recompute")
        )
    if w.lora_rank is not None:
        baseline = (
            f", {'QLoRA' if w.base_bits == 4 else 'LoRA'} rank {w.lora_rank} on a {w.base_bits}-bit base"
            + baseline
        )
    return (
        f"{w.strategy_name} training of {w.model.label}{framework}, {w.precision}, micro-batch {w.batch}"
        f"{tokens}, {accum}"
        + (", recompute" if w.recompute else "")
        + (f", {w.param_dtype} weights" if w.param_dtype else "")
        + (f", {w.attention} attention" if w.attention else "")
        + baseline
    )
