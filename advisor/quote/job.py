"""The job a quote states ("用途: 跑 Llama 70B FP16 推理", "built for 70B inference"): the model's weights
against the memory of the quote's GPUs, which needs no board.

Only a certain problem is reported: weights that do not fit in all the cards' memory together even at the
precision the text states (or at 4 bits, the smallest usual, where it states none). The weights are a
lower bound (no KV cache, activations or optimizer state is counted), so a job that fits them is not
said to fit; one that fits only quantized gets a note. A text that states several model sizes ("from 7B
to 70B", "Mixtral 8x22B") or only supposes one ("even a 405B model would ...") is not judged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from advisor.i18n import _
from advisor.quote.vocab import vocab

# "70B", "7.5B", "35b-a3b": a model's size in billions of parameters (not "8x22B", "a3b", "70GB")
_SIZE = re.compile(r"(?<![\w.])(\d{1,4}(?:\.\d{1,2})?)\s?[bB](?![a-zA-Z0-9])")
# a line that states a job for a model: the model's family, or what is done with it
_JOB = re.compile(
    r"llama|qwen|deepseek|mixtral|mistral|chatglm|\bglm|baichuan|gemma|\bphi\b|falcon|\byi\b|模型|大模型|参数"
    r"|\bmodels?\b|\bllms?\b|推理|训练|微调|部署|跑|inference|infer|train|fine-?tun|serv(?:e|ing)|deploy|\brun",
    re.I,
)
# bytes per parameter by the precision written (the smallest written wins: the kindest reading)
_PRECISION = (
    (re.compile(r"\bint4\b|\b4[\s-]?bit|\bq4|\bawq\b|\bgptq\b|\bnf4\b|\bexl2\b", re.I), 0.5, "4-bit"),
    (re.compile(r"\bint8\b|\bfp8\b|\b8[\s-]?bit|\bq8", re.I), 1.0, "8-bit"),
    (re.compile(r"\bfp16\b|\bbf16\b|float16|半精度|\b16[\s-]?bit", re.I), 2.0, "FP16"),
    (re.compile(r"\bfp32\b|float32|全精度|\b32[\s-]?bit", re.I), 4.0, "FP32"),
)


@dataclass
class Job:
    line: int
    text: str
    billions: float
    bytes_per_param: float | None  # None: no precision written
    precision: str


def stated_job(lines) -> tuple[Job | None, str]:
    """The one job the text states, or (None, why not judged) — (None, "") where it states none."""
    v = vocab()
    found: list[Job] = []
    for x in lines:
        text = x.text[:500]
        low = text.lower()
        if not _JOB.search(text) or v.question.search(low.strip()) or v.hypothetical.search(low):
            continue
        for m in _SIZE.finditer(text):
            b = float(m.group(1))
            if not 0.5 <= b <= 2000:
                continue
            prec = next(((bpp, name) for rx, bpp, name in _PRECISION if rx.search(text)), (None, ""))
            found.append(Job(x.line, text.strip(), b, prec[0], prec[1]))
    if not found:
        return None, ""
    sizes = sorted({j.billions for j in found})
    if len(sizes) > 1:
        return None, _(
            "the text names several model sizes ({sizes}, lines {lines}): the job's memory is not judged"
        ).format(
            sizes=", ".join(f"{s:g}B" for s in sizes[:4]), lines=", ".join(str(j.line) for j in found[:4])
        )
    # the same size written on several lines: the line that writes a precision says most
    return next((j for j in found if j.bytes_per_param is not None), found[0]), ""


def job_memory(lines, gpus) -> tuple[tuple[str, str] | None, list[str]]:
    """(severity, message) where the stated job's weights cannot fit the GPUs' memory, and notes."""
    job, why = stated_job(lines)
    if job is None:
        return None, [why] if why else []
    if not gpus or not all(getattr(g, "vram_gb", None) for g, _ in gpus):
        return None, []
    total = sum(g.vram_gb * k for g, k in gpus)
    cards = " + ".join(f"{k}x {g.name} ({g.vram_gb:g} GB)" for g, k in gpus)
    bpp = job.bytes_per_param if job.bytes_per_param is not None else 0.5
    weights = job.billions * bpp
    at = (
        job.precision
        if job.bytes_per_param is not None
        else _("4-bit (no precision written: the smallest usual)")
    )
    if weights > total:
        return (
            "error",
            _(
                "line {line} states a {size}B model: at {at} its weights alone are {weights} GB, more than the "
                "{total} GB of {cards} together, whatever the board"
            ).format(
                line=job.line,
                size=f"{job.billions:g}",
                at=at,
                weights=f"{weights:g}",
                total=f"{total:g}",
                cards=cards,
            ),
        ), []
    fp16 = job.billions * 2
    if job.bytes_per_param is None and fp16 > total:
        return None, [
            _(
                "line {line} states a {size}B model: its weights are {fp16} GB at FP16, more than the {total} GB of "
                "the GPUs; it fits only quantized ({quantized} GB at 4 bits, before the KV cache)"
            ).format(
                line=job.line,
                size=f"{job.billions:g}",
                fp16=f"{fp16:g}",
                total=f"{total:g}",
                quantized=f"{job.billions * 0.5:g}",
            )
        ]
    return None, []
