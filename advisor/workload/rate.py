"""Serving a request rate: the steady state of a continuous-batching server.

Requests of `prompt` + `gen` tokens arrive at `rate` per second. A continuous-batching engine (vLLM,
SGLang, llama.cpp's server: Orca's iteration-level scheduling, Yu et al., OSDI 2022,
https://www.usenix.org/conference/osdi22/presentation/yu) runs decode steps back to back over the
sequences in flight and fits each arrival's prefill between them. As a fluid model:

- each of the s prefill servers (1 for TP and PP; one per GPU for replicas and expert parallel's data
  ranks) spends rate / s x t_prefill of its time prefilling, so decode steps stretch by 1 / (1 - that);
- a request then takes T(c) = t_prefill + gen x step(c) / (1 - rate x t_prefill / s) with c sequences in
  flight, and Little's law (L = lambda W; Little, Operations Research 9(3), 1961) says c = rate x T(c);
- the steady concurrency is the least c that satisfies it, at most the cap (what the KV cache admits,
  or --batch as the engine's --max-num-seqs); where none does the queue grows without bound.

Arrivals are taken as a steady stream: the waiting time random arrivals add (an M/G/1 queue's) is not
modelled, so latencies near capacity are optimistic. Prefill and decode are taken as serial GPU time;
chunked prefill, which runs prompt tokens inside a decode step that reads the weights anyway, does
better, so capacity is on the low side there.
"""

from __future__ import annotations

from dataclasses import dataclass

from advisor.i18n import _
from advisor.model.predict import Figure
from advisor.workload.hardware import Device, Fabric
from advisor.workload.infer import infer_config
from advisor.workload.models import Workload


@dataclass(frozen=True)
class Serving:
    """One configuration serving the rate: whether it keeps up, and at what latency and concurrency."""

    gpus: int
    strategy: str
    rate: float
    cap: int  # the most sequences in flight
    sustained: bool
    concurrency: Figure | None  # mean requests in flight (Little's law), when sustained
    latency: Figure | None  # one request, arrival to last token, when sustained
    ttft: Figure  # one request's prefill
    inter_token: Figure | None  # time between a sequence's tokens at the steady concurrency
    capacity: Figure  # the most requests per second at the cap
    batch: int  # the sequences a decode step advances at the steady state (the cap when overloaded)


def _servers(w: Workload, n: int) -> int:
    return n if n > 1 and w.strategy in ("replicas", "ep") else 1


def serve(w: Workload, n: int, dev: Device, fab: Fabric, engine: str | None, cap: int) -> Serving:
    """`w` at w.request_rate on n GPUs with at most `cap` sequences in flight."""
    rate = float(w.request_rate or 0.0)
    strategy = w.strategy if n > 1 else "single"
    s = _servers(w, n)
    t_pf = infer_config(w.but(batch=1), n, dev, fab, engine).extra["ttft"].value
    steps: dict[int, float] = {}

    def step(c: int) -> float:
        if c not in steps:
            steps[c] = infer_config(w.but(batch=c), n, dev, fab, engine).extra["decode_step"].value
        return steps[c]

    load = rate * t_pf / s  # the share of each prefill server's time spent prefilling
    ttft = Figure(
        t_pf,
        "s",
        _("one request's prefill (TTFT with 1 sequence)"),
        {"prompt": w.prompt, "prefill_servers": s},
        ["mfu_prefill"],
        "low",
    )

    def latency(c: int, lam: float) -> float:
        return t_pf + w.gen * step(c) / (1.0 - lam * t_pf / s)

    # capacity: the rate at which the cap is just enough, lam = cap / T(cap, lam); T grows with lam, so
    # bisect on lam below s / t_pf (where prefill alone fills the servers)
    lo, hi = 0.0, s / t_pf
    for _step in range(60):
        mid = (lo + hi) / 2
        if mid * latency(cap, mid) <= cap:
            lo = mid
        else:
            hi = mid
    capacity = Figure(
        lo,
        "requests/s",
        _("the rate lam with lam x (t_prefill + gen x step(cap) / (1 - lam x t_prefill / s)) = cap"),
        {
            "cap": cap,
            "t_prefill_s": round(t_pf, 6),
            "step_at_cap_s": round(step(cap), 6),
            "gen": w.gen,
            "prefill_servers": s,
        },
        ["decode_memory_efficiency", "mfu_prefill"],
        "low",
    )
    if load >= 1.0 or rate * latency(cap, rate) > cap:
        return Serving(n, strategy, rate, cap, False, None, None, ttft, None, capacity, cap)
    # the least c in 1..cap with rate x T(c) <= c (c - rate x T(c) grows with c below capacity)
    lo_c, hi_c = 1, cap
    while lo_c < hi_c:
        mid = (lo_c + hi_c) // 2
        if rate * latency(mid, rate) <= mid:
            hi_c = mid
        else:
            lo_c = mid + 1
    c = lo_c
    t = latency(c, rate)
    itl = step(c) / (1.0 - load)
    inputs = {
        "rate": rate,
        "batch": c,
        "t_prefill_s": round(t_pf, 6),
        "step_s": round(step(c), 6),
        "prefill_share": round(load, 4),
        "gen": w.gen,
    }
    return Serving(
        n,
        strategy,
        rate,
        cap,
        True,
        Figure(rate * t, "requests", _("rate x T (Little's law)"), inputs, [], "low"),
        Figure(t, "s", _("t_prefill + gen x step(batch) / (1 - rate x t_prefill / s)"), inputs, [], "low"),
        ttft,
        Figure(itl, "s", _("step(batch) / (1 - rate x t_prefill / s)"), inputs, [], "low"),
        capacity,
        c,
    )
