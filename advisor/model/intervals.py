"""Typical ranges for predicted figures, from the model's own leave-one-out errors.

`rules/intervals.yaml` is written by `advisor accuracy --write-intervals` from the calibration cases:
for each family of figures (GPU-GPU copies by transport, host copies, latency, all-reduce), the range
of measured / (prediction with its constants refitted without that case). A predicted figure p is
typically between p x lo and p x hi. A test keeps the file equal to what the cases give today.
"""

from __future__ import annotations

from functools import lru_cache

from advisor.base.resources import bundled
from advisor.base.yamlio import load_bundled

PATH = "intervals.yaml"


@lru_cache(maxsize=1)
def families() -> dict[str, dict]:
    path = bundled("rules") / PATH
    if not path.exists():
        return {}
    data = load_bundled(path)
    return dict(data.get("families") or {})


def family(metric: str, transport: str) -> str:
    """The family a figure belongs to: "uni_gbps"/"bidi_gbps"/"latency_us" of a pair by its transport
    (nvlink, pcie-p2p, staged), a host copy, or an all-reduce by its NCCL transport."""
    if metric == "latency_us":
        return f"latency {transport}"
    if metric == "busbw_gbps":
        if transport == "NET":
            return "all-reduce network"
        return f"all-reduce {'NVLink' if transport in ('NVLink', 'NVLS') else transport if transport == 'SHM' else 'P2P'}"
    if metric in ("h2d_gbps", "d2h_gbps", "h2d_all_gbps", "d2h_all_gbps", "h2d_sum_gbps", "d2h_sum_gbps"):
        return "host copy"
    return f"GPU-GPU copy {transport}"


def attach(pred) -> None:
    """Set each figure's `interval` from its family's range (None where the family has no
    out-of-sample residuals: NVLink copies and NVLink all-reduce today)."""
    fams = families()
    if not fams:
        return

    def put(fig, fam: str) -> None:
        r = fams.get(fam)
        if r is not None and fig.value is not None:
            fig.interval = (round(fig.value * r["lo"], 2), round(fig.value * r["hi"], 2))

    for g in pred.gpus:
        for f in (g.h2d, g.d2h, g.h2d_all, g.d2h_all):
            put(f, "host copy")
    for f in pred.host_sum.values():
        put(f, "host copy")
    for p in pred.pairs:
        put(p.uni, family("uni_gbps", p.via))
        put(p.bidi, family("bidi_gbps", p.via))
        put(p.latency, family("latency_us", p.via))
    if pred.allreduce is not None:
        put(pred.allreduce, family("busbw_gbps", (pred.allreduce.transport or "")))
