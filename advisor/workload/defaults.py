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

from advisor.i18n import _
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
        return _(
            "{strategy} inference of {model}, {precision}, {batch} concurrent sequence(s), prompt {prompt} + {gen} "
            "generated tokens"
        ).format(
            strategy=w.strategy_name,
            model=w.model.label,
            precision=w.precision,
            batch=w.batch,
            prompt=w.prompt,
            gen=w.gen,
        )
    from advisor.workload.frameworks import FRAMEWORKS, framework_words

    # the job's traits, each a phrase of its own, in a list
    items = [
        (
            _("{strategy} training of {model} under {framework}")
            if w.framework in FRAMEWORKS
            else _("{strategy} training of {model}")
        ).format(strategy=w.strategy_name, model=w.model.label, framework=framework_words(w.framework)),
        w.precision,
        (_("micro-batch {batch} x {seq} tokens") if w.model.transformer else _("micro-batch {batch}")).format(
            batch=w.batch, seq=w.seq
        ),
    ]
    if w.accum > 1:
        items.append(
            (
                _("accumulation {accum} (gradients all-reduced on every micro-step)")
                if w.sync_every
                else _("accumulation {accum}")
            ).format(accum=w.accum)
        )
    else:
        items.append(_("no accumulation"))
    if w.recompute:
        items.append(_("recompute"))
    if w.param_dtype:
        items.append(_("{dtype} weights").format(dtype=w.param_dtype))
    if w.attention:
        items.append(_("{attention} attention").format(attention=w.attention))
    if w.lora_rank is not None:
        items.append(
            (
                _("QLoRA rank {rank} on a {bits}-bit base")
                if w.base_bits == 4
                else _("LoRA rank {rank} on a {bits}-bit base")
            ).format(rank=w.lora_rank, bits=w.base_bits)
        )
    text = _(", ").join(items)
    if w.baseline_batch or w.baseline_accum or w.baseline_recompute is not None:
        rc = w.recompute if w.baseline_recompute is None else w.baseline_recompute
        baseline = (
            _("the 1-GPU run: micro-batch {batch}, accumulation {accum}, recompute")
            if rc
            else _("the 1-GPU run: micro-batch {batch}, accumulation {accum}, no recompute")
        ).format(batch=w.baseline_batch or w.batch, accum=w.baseline_accum or w.accum)
        text = _("{job}; {baseline}").format(job=text, baseline=baseline)
    return text
