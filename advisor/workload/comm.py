"""Collective and point-to-point times on the build's predicted interconnect (alpha-beta model).

t = alpha + k x S / (share x busbw), k = 2(n-1)/n for all-reduce and (n-1)/n for reduce-scatter and
all-gather (nccl-tests PERFORMANCE.md); alpha = NCCL's ring latency for the transport it will use. As NCCL
does (src/graph/tuning.cc), each size takes the fastest of its protocols: LL (lowest latency, half the
bandwidth: every 8-byte store carries a flag), LL128 on NVLink, and Simple (the full bandwidth after a
longer latency per ring step), so a message of a few hundred KB pays Simple's latency, not LL's.
"""

from __future__ import annotations

from advisor.base.errors import UnknownFigure
from advisor.i18n import _
from advisor.model.constants import const
from advisor.model.predict import Figure
from advisor.workload.hardware import Fabric, gpu_sockets, shm_far_socket_share_name, shm_host_efficiency_name

W = "workload.yaml"
KINDS = {"all-reduce": (2, 2), "reduce-scatter": (1, 1), "all-gather": (1, 1)}  # (k numerator, steps)


def alpha_us(kind: str, fab: Fabric) -> float:
    """The LL protocol's latency: what a small message costs."""
    n = fab.gpus
    steps = KINDS[kind][1] * (n - 1)
    return const("nccl_base_latency_us", file=W) + steps * const("nccl_hop_latency_us", fab.transport, file=W)


def protocols(kind: str, fab: Fabric) -> list[tuple[str, float, float]]:
    """(protocol, latency in us, share of busbw) of each protocol NCCL can pick for this transport: LL and
    Simple everywhere, LL128 only over NVLink (NCCL leaves it off on PCIe paths by default)."""
    steps = KINDS[kind][1] * (fab.gpus - 1)
    out = [("LL", alpha_us(kind, fab), const("nccl_ll_bandwidth_share", file=W))]
    if fab.transport == "NVLink":
        ll128 = const("nccl_ll128_latency_us", file=W)
        out.append(
            ("LL128", ll128["base"] + steps * ll128["hop"], const("nccl_ll128_bandwidth_share", file=W))
        )
    simple = const("nccl_simple_base_latency_us", file=W)
    out.append(("Simple", simple + steps * const("nccl_simple_hop_latency_us", fab.transport, file=W), 1.0))
    return out


def collective(kind: str, size_bytes: float, fab: Fabric, count: float = 1) -> Figure:
    """`count` collectives of `size_bytes` each (the full array size, as nccl-tests counts it)."""
    n = fab.gpus
    if n < 2:
        return Figure(0.0, "s", _("one GPU: no collective"), {}, [])
    if fab.busbw is None:
        raise UnknownFigure(_("the {kind} over {n} GPUs").format(kind=kind, n=n), list(fab.missing))
    k = KINDS[kind][0] * (n - 1) / n
    # the protocol NCCL's tuner would pick for this size: the fastest by its own latency and bandwidth
    proto, a, share = min(
        protocols(kind, fab), key=lambda p: p[1] * 1e-6 + k * size_bytes / (p[2] * fab.busbw * 1e9)
    )
    t = count * (a * 1e-6 + k * size_bytes / (share * fab.busbw * 1e9))
    return Figure(
        t,
        "s",
        f"count x (alpha + k x S / (share x busbw)), {kind}, k = {KINDS[kind][0]}(n-1)/n, the fastest protocol",
        {
            "count": round(count, 3),
            "S_bytes": round(size_bytes),
            "n": n,
            "k": round(k, 4),
            "protocol": proto,
            "alpha_us": round(a, 2),
            "bandwidth_share": share,
            "busbw_gbps": round(fab.busbw, 2),
            "transport": fab.transport,
        }
        | (
            {
                "host_memory_cap_gbps": round(fab.host_cap_gbps, 2),
                "links_busbw_gbps": round(fab.link_busbw, 2),
            }
            if fab.host_bound
            else {}
        ),
        [
            "nccl_base_latency_us",
            "nccl_hop_latency_us",
            *(
                {
                    "LL": ["nccl_ll_bandwidth_share"],
                    "LL128": ["nccl_ll128_latency_us", "nccl_ll128_bandwidth_share"],
                    "Simple": ["nccl_simple_base_latency_us", "nccl_simple_hop_latency_us"],
                }[proto]
            ),
            *(
                [c for c in fab.allreduce.constants if c != "h2d_efficiency"]
                if fab.allreduce
                else ["allreduce_p2p_efficiency" if fab.transport != "SHM" else "allreduce_shm_efficiency"]
            ),
            *([shm_host_efficiency_name(fab.prediction.machine)] if fab.host_bound else []),
            # a ring over several sockets: the share of the further sockets' memory it adds
            *(
                [shm_far_socket_share_name(fab.prediction.machine)]
                if fab.host_bound and gpu_sockets(fab.prediction.machine) > 1
                else []
            ),
        ],
        fab.allreduce.confidence if fab.allreduce else "low",
    )


def p2p(size_bytes: float, fab: Fabric, count: float = 1) -> Figure:
    """Point-to-point sends between neighbouring pipeline stages: latency + S / one-way pair bandwidth."""
    if fab.gpus < 2:
        return Figure(0.0, "s", _("one GPU: no transfer"), {}, [])
    if fab.p2p_gbps is None or fab.p2p_latency_us is None:
        raise UnknownFigure(_("a copy between two GPUs"), list(fab.missing))
    lat = fab.p2p_latency_us
    t = count * (lat * 1e-6 + size_bytes / (fab.p2p_gbps * 1e9))
    return Figure(
        t,
        "s",
        _("count x (pair latency + S / pair one-way bandwidth)"),
        {
            "count": round(count, 3),
            "S_bytes": round(size_bytes),
            "latency_us": round(lat, 2),
            "pair_gbps": round(fab.p2p_gbps, 2),
            "via": fab.pair_via,
        },
        ["staged_efficiency" if fab.pair_via == "staged" else "p2p_pcie_efficiency"],
    )


def custom_all_reduce(size_bytes: float, fab: Fabric, count: float = 1) -> Figure:
    """vLLM's / SGLang's one-shot custom all-reduce on 2 GPUs with CUDA P2P: each GPU reads the other's
    buffer over P2P and reduces it, so a call costs its latency plus S over the pair's one-way P2P rate
    (messages above the engines' cap go to NCCL: the caller decides)."""
    lat = const("custom_all_reduce_latency_us", file=W)
    if fab.p2p_gbps is None:
        raise UnknownFigure(_("the engine's all-reduce over P2P"), list(fab.missing))
    t = count * (lat * 1e-6 + size_bytes / (fab.p2p_gbps * 1e9))
    return Figure(
        t,
        "s",
        _(
            "count x (custom_all_reduce_latency_us + S / pair one-way P2P bandwidth), the engine's one-shot kernel"
        ),
        {
            "count": round(count, 3),
            "S_bytes": round(size_bytes),
            "latency_us": lat,
            "pair_gbps": round(fab.p2p_gbps, 2),
            "via": fab.pair_via,
        },
        ["custom_all_reduce_latency_us", "p2p_pcie_efficiency"],
        "low",
    )
