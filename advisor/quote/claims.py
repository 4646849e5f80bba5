"""Claims: what a sentence of the quote asserts about this build.

A claim is parsed into its property (PCIe link, P2P, NVLink, pooled GPU memory, NUMA, PSU, full speed),
the value it asserts (Gen5, x16, x8/x8; or absence: "no P2P") and whom it is about (every GPU unless it
names one). Each kind is judged by its registered check in claim_checks.py (CLM001...), TRUE / FALSE /
cannot tell against the prediction for the quote's own GPUs. A claim that says the link it really runs
at ("runs at PCIe 4.0 x16, the GPU's limit") is judged on that.
"""

from __future__ import annotations

import re

from advisor.quote.document import Claim
from advisor.quote.vocab import vocab

ORDER = (
    "pooled_memory",
    "p2p",
    "nvlink",
    "numa",
    "numa_split",
    "psu",
    "full_speed",
    "pcie",
    "memory_channels",
    "scaling",
    "fit",
)
_CHANNELS = {
    "two": 2,
    "dual": 2,
    "双": 2,
    "four": 4,
    "quad": 4,
    "四": 4,
    "six": 6,
    "hexa": 6,
    "六": 6,
    "eight": 8,
    "octa": 8,
    "八": 8,
    "twelve": 12,
    "十二": 12,
}


def claims_in(text: str, line: int, sized: bool = True) -> list[Claim]:
    """`sized`: also read a GPU memory size alone ("双卡48G显存") as a pooled-memory claim; off where the
    text may be a part's own spec (a card's "48G显存")."""
    v = vocab()
    low = text.lower()
    out = []
    if v.question.search(low.strip()):
        return out  # "四张卡之间能P2P吗？": the buyer asks, nobody claims
    if "?" in low or "？" in low or v.not_asserted.search(low):
        from advisor.quote.segment import sentences

        # "are both cards connected via nvlink? if so, what's the MB", "considering another one for nvlink
        # setup": only the sentences that assert
        low = " ".join(
            s for s in sentences(low) if not v.question.search(s.strip()) and not v.not_asserted.search(s)
        )
    size = v.pooled_size.search(low)
    for about in ORDER:
        m = v.claims[about].search(low)
        size_only = False
        if not m and about == "pooled_memory" and size and sized:
            m, size_only = size, True
        if not m and about == "psu" and v.psu_verbs.search(low) and _names_a_psu(low):
            m = v.psu_verbs.search(low)
        if not m:
            continue
        if about == "nvlink" and v.not_included.search(low):
            continue  # "NVLink bridges are not included": what the offer leaves out, not a claim
        if about == "nvlink" and any(k.about == "pooled_memory" and not k.size_only for k in out):
            continue  # "pooled memory over NVLink": the NVLink is the pooling's means, one claim
        if about == "memory_channels" and not re.search(r"ddr|memory|内存|內存|\bram\b|dimm|主板|board", low):
            continue  # "四通道" of something else than memory
        before = low[max(0, m.start() - 25) : m.start()]
        negated = (
            bool(v.negation.search(before))
            or bool(re.search(r"不支持|无\s*$|没有", low[: m.start()][-6:]))
            or bool(v.negation_after.search(low[m.end() :]))
        )
        c = Claim(text=text.strip()[:300], line=line, about=about, negated=negated, size_only=size_only)
        if about == "pooled_memory":
            gb = size or re.search(r"(?<![\d.])(?P<gb>\d{2,4})\s*g(?:i?b)?(?![a-z])", low)
            if gb:
                c.memory_gb = int(gb.group("gb") or gb.groupdict().get("gb2") or 0) or None
        if about == "pcie":
            # "PCIe 5.0", "PCIe Gen4", "pcie4.0", not the slot name "PCIE1"
            g = re.search(r"pcie(?:[\s-]+(?:gen\s*)?(\d)|[\s-]*gen\s*(\d)|(\d)\.0)", low)
            c.gen = int(next(d for d in g.groups() if d)) if g else None
            c.width = (
                8 if re.search(r"\bx8\s*[/+]\s*x8\b|\b(?:be|at)\s+x\s?8\b|双\s*x\s?8(?![0-9])", low) else 16
            )
            r = v.runs_at.search(low)
            if r:
                c.runs_at = (int(r.group("gen")), int(r.group("width")))
        if about == "memory_channels":
            n = re.search(
                r"(\d{1,2}|two|four|six|eight|twelve|dual|quad|hexa|octa|十二|双|四|六|八)", m.group(0)
            )
            c.channels = (
                int(n.group(1)) if n and n.group(1).isdigit() else _CHANNELS.get(n.group(1) if n else "")
            )
        if about == "psu":
            c.margin = bool(v.psu_margin.search(low))
            c.sustained = bool(v.psu_sustained.search(low)) and not c.margin
        if v.scope_one.search(low):
            c.scope = "one"
        elif about == "nvlink" and v.scope_all_pairs.search(low):
            c.scope = "pairs"
        out.append(c)
    return out


def _names_a_psu(low: str) -> bool:
    v = vocab()
    return bool(
        v.kind_words["psu"].search(low)
        or v.psu_series.search(low)
        or v.psu_models.search(low)
        or v.watts.search(low)
    )
