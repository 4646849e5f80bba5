"""Predictions from the machine graph; every figure carries the derivation that made it."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from advisor.base.enums import StrEnum
from advisor.i18n import _
from advisor.model import nodeids as ids
from advisor.model.constants import const, constants
from advisor.model.graph import MachineGraph, build_graph, class_rank, host_path, path_class, pcie_path
from advisor.model.machine import Machine, Node


class Via(StrEnum):
    """How a GPU-to-GPU copy goes: over an NVLink bridge, CUDA P2P over PCIe, or staged through host
    memory."""

    NVLINK = "nvlink"
    PCIE_P2P = "pcie-p2p"
    STAGED = "staged"


class Transport(StrEnum):
    """How NCCL moves a collective's data (the transport of its slowest hop)."""

    NVLINK = "NVLink"
    NVLS = "NVLS"  # NVLink SHARP: the NVSwitch reduces
    P2P = "P2P"
    SHM = "SHM"  # through host memory
    NET = "NET"  # over the network between nodes
    NONE = "none"  # one GPU: no collective


@dataclass
class Figure:
    value: float | None
    unit: str
    formula: str
    inputs: dict[str, Any] = field(default_factory=dict)
    constants: list[str] = field(default_factory=list)
    confidence: str = "calibrated"  # calibrated | low | spec (read from a specification, not fitted)
    keys: dict[str, str] = field(default_factory=dict)  # the entry each keyed constant was read at
    interval: tuple[float, float] | None = None  # typical range, from leave-one-out residuals
    # the facts a figure of value None could not be computed without ("NVIDIA H200 NVL:
    # nvlink.gbps_per_direction"): an unknown is shown as unknown, with what is missing named
    missing: list[str] = field(default_factory=list)
    # the derivation's facts other modules read, typed: lifted from `inputs` (which keeps them for the
    # derivation a user reads) so that no reader depends on a dict key
    transport: Transport | None = None
    limited_by: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        t = self.inputs.get("transport")
        if t is not None and self.transport is None:
            self.transport = Transport(t)
        why = self.inputs.get("limited_by")
        if why and not self.limited_by:
            self.limited_by = (why,) if isinstance(why, str) else tuple(why)

    @property
    def unknown(self) -> bool:
        return self.value is None


def _fig(
    value: float | None,
    unit: str,
    formula: str,
    inputs: dict,
    consts: list[str],
    confidence="calibrated",
    keys: dict[str, str] | None = None,
):
    return Figure(value, unit, formula, inputs, consts, confidence, dict(keys or {}))


def _key(name: str, key: str) -> str:
    """The entry of a keyed constant that const(name, key) reads: `key`, or "default" when it has none."""
    value = constants()[name].value
    return key if isinstance(value, dict) and key in value else "default"


@dataclass
class GpuPrediction:
    node: Node
    h2d: Figure
    d2h: Figure
    h2d_all: Figure
    d2h_all: Figure
    bottleneck: str
    # the raw rate of the narrowest link between the GPU and its CPU, per direction: the ceiling its host
    # copies reach a fraction of (h2d_efficiency), which the copies' figures are read against
    host_link: Figure | None = None

    @property
    def limit(self) -> str:
        """What limits this GPU's host copies, in words: the link shared with the others copying at
        once where that holds it back, else its own narrowest link."""
        return "; ".join(self.h2d_all.limited_by) or self.bottleneck


@dataclass
class PairPrediction:
    a: int
    b: int
    path: str
    p2p: bool  # CUDA peer access available
    p2p_reason: str
    nccl_p2p: bool  # NCCL would use P2P/NVLink by default
    nccl_transport: Transport  # NVLink | P2P | SHM
    nccl_reason: str
    via: Via
    uni: Figure
    bidi: Figure
    latency: Figure
    nvml_path: str = ""  # the class nvidia-smi topo -m prints (SYS for NODE on a single-socket workstation)
    nccl_path: str = ""  # NCCL's class (_pair): no NODE (through the CPU is PHB), SYS across NUMA nodes

    def __post_init__(self) -> None:
        self.nvml_path = self.nvml_path or self.path
        self.nccl_transport = Transport(self.nccl_transport)
        self.via = Via(self.via)


@dataclass
class NicPrediction:
    """A NIC as NCCL sees it from the GPU that serves it: the path class between them, whether NCCL
    reads and writes GPU memory directly (GPUDirect RDMA) or stages through the CPU, and the rate."""

    nic: Node
    gpu: int  # the GPU index nearest the NIC (NCCL's local GPU for it)
    path: str  # nvidia-smi's class between them
    gdr: bool
    gdr_reason: str
    rate: Figure  # what NCCL moves through this NIC per direction with every NIC busy


@dataclass
class Prediction:
    machine: Machine
    graph: MachineGraph
    gpus: list[GpuPrediction]
    pairs: list[PairPrediction]
    allreduce: Figure | None
    ring: list[int]
    assumptions: list[str]
    # every GPU copying to (h2d) or from (d2h) host memory at once: the sum over GPUs
    host_sum: dict[str, Figure] = field(default_factory=dict)
    nics: list[NicPrediction] = field(default_factory=list)
    # on a multi-node build, the one-node all-reduce (the whole job's is `allreduce`)
    allreduce_node: Figure | None = None


def _arch(node: Node) -> str:
    return node.gpu.architecture if node.gpu else "default"


def _family(a: Node, b: Node, nvswitch: bool = False) -> tuple[str, ...]:
    """The narrower keys a constant may have for this pair, most specific first: the chip's compute
    capability with the fabric ('sm90-nvswitch': H100 SXM modules through an HGX baseboard's NVSwitch)
    or the form factor ('sm80-sxm': an SXM module, which stages through its baseboard), the compute
    capability alone ('sm80': the GA100 of the A100s) and the architecture-and-segment ('ampere-geforce'),
    each only when both GPUs share it. Cards of one architecture measure apart (the GeForce 3090's
    staged copies run at half the A100's), and an A40 (GA102, datacenter) is neither."""
    ga, gb = a.gpu, b.gpu
    if ga is None or gb is None:
        return ()
    out = []
    if ga.compute_capability and ga.compute_capability == gb.compute_capability:
        sm = "sm" + ga.compute_capability.replace(".", "")
        if nvswitch:
            out.append(f"{sm}-nvswitch")
        if ga.form_factor == gb.form_factor == "sxm":
            out.append(f"{sm}-sxm")
        out.append(sm)
    if (ga.architecture, ga.segment) == (gb.architecture, gb.segment):
        out.append(f"{ga.architecture}-{ga.segment}")
    return tuple(out)


def _fkey(name: str, arch: str, family: tuple[str, ...]) -> str:
    """The key const(name, ...) should read: the first of the pair's narrower keys the constant has an
    entry for, else the architecture (which falls back to `default`)."""
    value = constants()[name].value
    if isinstance(value, dict):
        for key in family:
            if key in value:
                return key
    return arch


def _bottleneck(g: MachineGraph, path: list[str]) -> tuple[float, str]:
    best = None
    for u, v in pairwise(path):
        e = g.edges[u, v]
        if e["kind"] == "inter_socket" or "gbps" not in e:
            continue
        if best is None or e["gbps"] < best[0]:
            lower = u if g.nodes[u]["kind"] not in ("socket", "host_bridge") else v
            own = g.nodes[lower]["kind"] == "gpu"
            if e["kind"] == "chipset_uplink":
                text = _("its own chipset uplink") if own else _("chipset uplink of {device}")
            else:
                text = _("its own Gen{gen} x{width} link") if own else _("Gen{gen} x{width} link of {device}")
            text = text.format(gen=e.get("gen"), width=e.get("width"), device=g.nodes[lower]["label"])
            best = (e["gbps"], text)
    return best or (0.0, _("no link"))


def _host_link(
    g: MachineGraph, machine: Machine, path: list[str], raw: float, where: str, gen: int
) -> Figure:
    """The raw rate of the narrowest link from the GPU to its CPU, per direction (PCIe after line encoding,
    before protocol overhead). Unknown, with the board's missing value named, where the path crosses a
    chipset whose uplink the catalog lacks: the uplink every device behind the chipset shares may be the
    narrowest link, and its rate is not a guess."""
    formula = _("pcie_lane_gbps[gen] x width of the narrowest link between the GPU and its CPU")
    inputs = {"bottleneck": where, "gen": gen}
    missing = []
    if any(
        g.nodes[u]["kind"] == "chipset" and g.edges[u, v]["kind"] == "internal" for u, v in pairwise(path)
    ):
        missing.append(
            f"{machine.board.name if machine.board else 'the board'}: chipset_uplink (and the CPU's)"
        )
    if where == "no link":
        missing.append("the GPU's link")
    fig = _fig(None if missing else raw, "GB/s", formula, inputs, ["pcie_lane_gbps"], confidence="spec")
    fig.missing = missing
    return fig


def _upper_bound(f: Figure) -> Figure:
    """A copy rate read from the GPU's own link where the link to the CPU beyond it is unknown: at most
    that, at low confidence, with the unknown uplink said in its formula."""
    return dataclasses.replace(
        f,
        formula=_(
            "{formula}; at most: the chipset's uplink to the CPU, shared by every device behind it, is not in "
            "the catalog"
        ).format(formula=f.formula),
        confidence="low",
    )


def max_min_share(
    flows: dict[str, tuple[float, list[tuple[str, str]]]], cap: dict[tuple[str, str], float]
) -> dict[str, float]:
    """Progressive filling: each flow (demand, directed edges) gets its max-min fair rate."""
    rate = {f: 0.0 for f in flows}
    active = {f for f, (d, _) in flows.items() if d > 0}
    remaining = dict(cap)
    while active:
        users: dict[tuple[str, str], list[str]] = {}
        for f in active:
            for e in flows[f][1]:
                if e in remaining:
                    users.setdefault(e, []).append(f)
        inc = min(
            [flows[f][0] - rate[f] for f in active] + [remaining[e] / len(fs) for e, fs in users.items()]
        )
        for f in active:
            rate[f] += inc
        for e, fs in users.items():
            remaining[e] -= inc * len(fs)
        done = {f for f in active if rate[f] >= flows[f][0] - 1e-9}
        done |= {f for e, fs in users.items() if remaining[e] <= 1e-9 for f in fs}
        active -= done
    return rate


def _directed(path: list[str]) -> list[tuple[str, str]]:
    return list(pairwise(path))


def _capacities(
    g: MachineGraph, name: str, by_gen: bool = True, bridge_cap: float | None = None
) -> dict[tuple[str, str], float]:
    """Each PCIe link's rate for host copies: raw x the host-copy efficiency of its generation (or the
    default entry, for the all-reduce whose efficiency was fitted over it); with `bridge_cap`, each root
    complex's own path to memory (host_bridge_dma_gbps) is a shared resource too."""
    cap = {}
    for u, v, e in g.edges(data=True):
        if e.get("gbps") and e["kind"] != "nvlink":
            key = _key(name, e.get("gen") or 0) if by_gen else "default"
            cap[(u, v)] = cap[(v, u)] = e["gbps"] * const(name, key)
        elif bridge_cap is not None and e["kind"] == "internal":
            kinds = {g.nodes[u]["kind"], g.nodes[v]["kind"]}
            if kinds == {"host_bridge", "socket"}:
                cap[(u, v)] = cap[(v, u)] = bridge_cap
    return cap


def _bridge_cap(machine: Machine) -> tuple[float | None, str]:
    """The most host-memory DMA one root complex carries on this platform (None where not measured)."""
    key = _platform_key("host_bridge_dma_gbps", machine)
    return const("host_bridge_dma_gbps", key), key


def _remote(f: Figure, direction: str, link: str | None) -> Figure:
    """A host copy whose pinned buffer is on the other socket: scaled by what that inter-socket link
    measured (low confidence: a few published machines)."""
    name = f"remote_{direction}_factor"
    key = _key(name, link or "default")
    factor = const(name, key)
    return _fig(
        f.value * factor if f.value is not None else None,
        f.unit,
        _("{formula} x {name}[{key}] (the buffer on the other socket's memory)").format(
            formula=f.formula, name=name, key=key
        ),
        f.inputs | {name: factor, "inter_socket": link},
        [*f.constants, name],
        "low",
        f.keys | {name: key},
    )


def _path_gen(g: MachineGraph, path: list[str]) -> int:
    """The lowest PCIe generation of the links on a path (0 when none says)."""
    return min(
        (g.edges[u, v].get("gen") or 0 for u, v in pairwise(path) if "gbps" in g.edges[u, v]), default=0
    )


def predict(machine: Machine) -> Prediction:
    g = build_graph(machine)
    gpus = machine.gpus
    assumptions: list[str] = [
        _("Host memory for each GPU is on its own socket (NUMA-local pinned buffers).")
        if machine.software.host_memory == "local" or machine.sockets < 2
        else _("Host copies use pinned buffers on the other socket's memory (software.host_memory: remote)."),
        _("Links train at the negotiated generation under load (an idle link may read Gen1)."),
        _("The inter-socket link is not modelled as a bottleneck; SYS pairs use a measured penalty."),
    ]
    gp: list[GpuPrediction] = []
    up_flows, down_flows = {}, {}
    for n in gpus:
        path = host_path(g, n.id)
        raw, where = _bottleneck(g, path)
        gen = _path_gen(g, path)
        h2d_key, d2h_key = _key("h2d_efficiency", gen), _key("d2h_efficiency", gen)
        h2d_eff, d2h_eff = const("h2d_efficiency", h2d_key), const("d2h_efficiency", d2h_key)
        inputs = {"link": n.link.label, "bottleneck": where, "raw_gbps": round(raw, 3), "gen": gen}
        h2d = _fig(
            raw * h2d_eff,
            "GB/s",
            _("raw rate of the narrowest link to host x h2d_efficiency[gen]"),
            inputs | {"h2d_efficiency": h2d_eff},
            ["pcie_lane_gbps", "h2d_efficiency"],
            keys={"h2d_efficiency": h2d_key},
        )
        d2h = _fig(
            raw * d2h_eff,
            "GB/s",
            _("raw rate of the narrowest link to host x d2h_efficiency[gen]"),
            inputs | {"d2h_efficiency": d2h_eff},
            ["pcie_lane_gbps", "d2h_efficiency"],
            keys={"d2h_efficiency": d2h_key},
        )
        if machine.software.host_memory == "remote" and machine.sockets > 1:
            h2d, d2h = (_remote(f, name, machine.inter_socket) for f, name in ((h2d, "h2d"), (d2h, "d2h")))
        link = _host_link(g, machine, path, raw, where, gen)
        if link.value is None and where != "no link":
            # behind a chipset whose uplink the catalog lacks: the GPU's own link is only an upper bound on its
            # copies, since every device behind the chipset shares the uplink whose rate is unknown
            h2d, d2h = (_upper_bound(f) for f in (h2d, d2h))
        down_flows[n.id] = (h2d.value, _directed(list(reversed(path))))
        up_flows[n.id] = (d2h.value, _directed(path))
        gp.append(GpuPrediction(n, h2d, d2h, h2d, d2h, where, link))
    cap, cap_key = _bridge_cap(machine)
    if len(gpus) > 1:
        caps = {
            "h2d_all": _capacities(g, "h2d_efficiency", bridge_cap=cap),
            "d2h_all": _capacities(g, "d2h_efficiency", bridge_cap=cap),
        }
        down = max_min_share(down_flows, caps["h2d_all"])
        up = max_min_share(up_flows, caps["d2h_all"])
        for p in gp:
            for attr, rates, flows in (("h2d_all", down, down_flows), ("d2h_all", up, up_flows)):
                alone = getattr(p, attr[:3]).value
                val = rates[p.node.id]
                formula = (
                    _(
                        "max-min fair share of every link with all GPUs copying at once (capacity = raw rate x "
                        "efficiency); each root complex at most host_bridge_dma_gbps[{key}]"
                    )
                    if cap
                    else _(
                        "max-min fair share of every link with all GPUs copying at once (capacity = raw rate x "
                        "efficiency)"
                    )
                ).format(key=cap_key)
                inputs = {"alone_gbps": round(alone, 3), "gpus_copying": len(gpus)}
                if val < alone - 1e-6:
                    inputs["limited_by"] = _saturated(g, flows[p.node.id][1], rates, flows, caps[attr])
                used = ["pcie_lane_gbps", "h2d_efficiency" if attr == "h2d_all" else "d2h_efficiency"]
                setattr(
                    p,
                    attr,
                    _fig(
                        val,
                        "GB/s",
                        formula,
                        inputs,
                        used + (["host_bridge_dma_gbps"] if cap else []),
                        keys={"host_bridge_dma_gbps": cap_key} if cap else None,
                    ),
                )
    host_sum = _host_sum(gp, cap_key if cap else None) if len(gpus) > 1 else {}
    pairs = [_pair(g, machine, a, b) for i, a in enumerate(gpus) for b in gpus[i + 1 :]]
    ring = _ring(g, gpus)
    allreduce = _allreduce(g, machine, ring, pairs) if len(gpus) > 1 else None
    nics = _nics(g, machine)
    node_allreduce = None
    if machine.node_count > 1 and gpus:
        node_allreduce = allreduce
        allreduce = _internode(machine, allreduce, nics, len(gpus))
        assumptions.append(
            _(
                "{nodes} identical nodes joined by their NICs through a non-blocking fabric (the switches "
                "between nodes are not modelled)."
            ).format(nodes=machine.node_count)
        )
    pred = Prediction(
        machine, g, gp, pairs, allreduce, [n.index for n in ring], assumptions, host_sum, nics, node_allreduce
    )
    from advisor.model.intervals import attach

    attach(pred)
    return pred


def _host_sum(gp: list[GpuPrediction], cap_key: str | None) -> dict[str, Figure]:
    """Every GPU copying to (or from) host memory at once: the sum of each GPU's share, which shared
    switch uplinks and root complexes hold below the sum of what each does alone."""
    out = {}
    for attr, name in (("h2d_all", "h2d_efficiency"), ("d2h_all", "d2h_efficiency")):
        figs = [getattr(p, attr) for p in gp]
        alone = sum(getattr(p, attr[:3]).value or 0.0 for p in gp)
        total = sum(f.value for f in figs if f.value is not None)
        limits = sorted({f.inputs["limited_by"] for f in figs if "limited_by" in f.inputs})
        used = ["pcie_lane_gbps", name] + (["host_bridge_dma_gbps"] if cap_key else [])
        out[attr[:3]] = _fig(
            total,
            "GB/s",
            _("sum over GPUs of each one's max-min fair share with all copying at once"),
            {"gpus": len(gp), "sum_alone_gbps": round(alone, 3)} | ({"limited_by": limits} if limits else {}),
            used,
            keys={"host_bridge_dma_gbps": cap_key} if cap_key else None,
        )
    return out


def _saturated(g, edges, rates, flows, cap) -> str:
    for e in edges:
        if e not in cap:
            continue
        load = sum(rates[f] for f, (_, es) in flows.items() if e in es)
        if load >= cap[e] - 1e-6:
            u, v = e
            ed = g.edges[u, v]
            if ed["kind"] == "internal":
                bridge = u if g.nodes[u]["kind"] == "host_bridge" else v
                sharing = sum(1 for f, (_, es) in flows.items() if e in es)
                return _("the path to memory of {bridge}, shared by {n} GPUs").format(
                    bridge=g.nodes[bridge]["label"], n=sharing
                )
            lower = u if g.nodes[u]["kind"] not in ("socket", "host_bridge") else v
            sharing = sum(1 for f, (_, es) in flows.items() if e in es)
            text = (
                _("chipset uplink of {device}, shared by {n} GPUs")
                if ed["kind"] == "chipset_uplink"
                else _("Gen{gen} x{width} uplink of {device}, shared by {n} GPUs")
            )
            return text.format(
                gen=ed.get("gen"), width=ed.get("width"), device=g.nodes[lower]["label"], n=sharing
            )
    return _("a shared link")


def cuda_p2p(machine: Machine, a: Node, b: Node, path: str) -> tuple[bool, str]:
    sw = machine.software
    if not sw.cuda_p2p:
        return False, _("peer access not enabled (P2P=Disabled test mode)")
    if sw.os == "windows":
        return False, _("Windows (WDDM): the driver grants no peer access between these GPUs")
    if sw.virtualization == "vm":
        return (
            False,
            _(
                "in a virtual machine the guest's emulated host bridge is not on the driver's chipset list "
                "(nvidia-smi topo -p2p r reads CNS)"
            ),
        )
    for n in (a, b):
        gpu = n.gpu
        if gpu is None:
            return False, _("unknown GPU")
        if gpu.p2p.stock_linux:
            continue
        if sw.driver == "patched-p2p" and gpu.p2p.patched_driver:
            if not sw.large_bar:
                return False, _("the patched driver needs large BAR, which is off")
            if sw.iommu == "on":
                return False, _("the patched driver needs the IOMMU off or in passthrough")
            other = b if n is a else a
            if other.gpu is not None and other.gpu.architecture != gpu.architecture:
                return False, _("the patched driver gives P2P only between GPUs of the same generation")
            if gpu.architecture == "blackwell" and n.index in (sw.display_gpus or []):
                return (
                    False,
                    _(
                        "GPU{index} drives a display: the patched driver's P2P fails between 5090s then"
                    ).format(index=n.index),
                )
            continue
        if gpu.p2p.stock_linux is None:
            return False, _("{gpu}: P2P support with the stock driver is not known").format(gpu=gpu.name)
        why = (
            _(
                "{gpu} has no P2P over PCIe with the stock Linux driver (a patched open kernel module enables it)"
            )
            if gpu.p2p.patched_driver
            else _("{gpu} has no P2P over PCIe with the stock Linux driver")
        )
        return False, why.format(gpu=gpu.name)
    return True, _("both GPUs support CUDA peer access")


def nccl_level(machine: Machine) -> tuple[str, str]:
    sw = machine.software
    if sw.nccl_p2p_disable:
        return "LOC", "NCCL_P2P_DISABLE=1"
    if sw.nccl_p2p_level:
        return sw.nccl_p2p_level, f"NCCL_P2P_LEVEL={sw.nccl_p2p_level}"
    if machine.cpu_vendor == "amd" and len(machine.gpus) <= 2:
        return const("nccl_p2p_level_default", "amd_max_2_gpus"), _("NCCL default on AMD with at most 2 GPUs")
    return const("nccl_p2p_level_default"), _("NCCL default")


_LEVEL_RANK = {"LOC": -1, "NVL": 0, "PIX": 1, "PXB": 2, "PHB": 3, "NODE": 4, "SYS": 5}


def _pair(g: MachineGraph, machine: Machine, a: Node, b: Node) -> PairPrediction:
    path = path_class(g, a.id, b.id)
    p2p, p2p_reason = cuda_p2p(machine, a, b, path)
    nvlink = path.startswith("NV") and machine.software.cuda_p2p
    arch = _arch(a) if _arch(a) == _arch(b) else "default"
    family = _family(a, b, machine.nvswitch)
    if nvlink:
        p2p, p2p_reason = True, _("NVSwitch (all-to-all NVLink)") if machine.nvswitch else _("NVLink bridge")
        e = g.edges[a.id, b.id]
        ek = _key("nvlink_efficiency", _fkey("nvlink_efficiency", arch, family))
        eff = const("nvlink_efficiency", ek)
        rate = e.get("gbps")
        missing = [] if rate else _nvlink_missing(a, b, "gbps_per_direction")
        uni = _fig(
            rate * eff if rate else None,
            "GB/s",
            (
                _("NVLink per-direction rate x nvlink_efficiency[{key}] (through the NVSwitch)")
                if machine.nvswitch
                else _("NVLink per-direction rate x nvlink_efficiency[{key}]")
            ).format(key=ek),
            {"nvlink_gbps": rate, "nvlink_efficiency": eff},
            ["nvlink_efficiency"],
            "calibrated" if ek != "default" else "low",
            {"nvlink_efficiency": ek},
        )
        uni.missing = missing
        # a bridge rate that rests on a review or on reasoning, not a vendor's page, is less certain
        based = [
            f"{n.gpu.name}: {f} ({n.gpu.basis[f].basis})"
            for n in (a, b)
            if n.gpu is not None
            for f in ("nvlink.gbps_per_direction", "nvlink.links")
            if f in n.gpu.basis and n.gpu.basis[f].basis != "primary"
        ]
        if based:
            uni.confidence = "low"
            uni.inputs["rests_on"] = sorted(set(based))
        bf = const("nvlink_bidi_factor")
        bidi = _fig(
            uni.value * 2 * bf if uni.value else None,
            "GB/s",
            "2 x uni x nvlink_bidi_factor",
            {"uni_gbps": uni.value, "nvlink_bidi_factor": bf},
            [*uni.constants, "nvlink_bidi_factor"],
            uni.confidence,
            uni.keys,
        )
        bidi.missing = list(missing)
        lk = _fkey("latency_nvlink_us", arch, family)
        lat = const("latency_nvlink_us", lk)
        latency = _fig(
            lat,
            "us",
            (
                _("latency_nvlink_us[{key}] (a bridge's: no published latency through NVSwitch)")
                if machine.nvswitch
                else "latency_nvlink_us[{key}]"
            ).format(key=_key("latency_nvlink_us", lk)),
            {"arch": arch},
            ["latency_nvlink_us"],
            "low" if machine.nvswitch else "calibrated",
            keys={"latency_nvlink_us": _key("latency_nvlink_us", lk)},
        )
        via = "nvlink"
    else:
        route = pcie_path(g, a.id, b.id)
        raw, where = _bottleneck(g, route)
        switched = any(g.nodes[n]["kind"] == "switch" for n in route)
        attach = "switch" if switched else "direct"
        if p2p:
            gen = _path_gen(g, route)
            eff_key = "default" if switched else _key("p2p_pcie_efficiency", gen)
            eff = const("p2p_pcie_efficiency", eff_key)
            factor, why = 1.0, []
            consts = ["pcie_lane_gbps", "p2p_pcie_efficiency"]
            keys = {"p2p_pcie_efficiency": eff_key}
            if path == "SYS":
                factor *= const("p2p_sys_factor", attach)
                why.append(f"p2p_sys_factor[{attach}]")
                consts.append("p2p_sys_factor")
                keys["p2p_sys_factor"] = _key("p2p_sys_factor", attach)
            if path in ("PHB", "NODE", "SYS"):
                vendor = machine.cpu_vendor or "default"
                rc = const("p2p_root_complex_factor", vendor)
                if rc != 1.0:
                    factor *= rc
                    why.append(f"p2p_root_complex_factor[{vendor}]")
                    consts.append("p2p_root_complex_factor")
                    keys["p2p_root_complex_factor"] = _key("p2p_root_complex_factor", vendor)
            if machine.software.acs == "on" and path in ("PIX", "PXB"):
                factor *= const("acs_factor")
                why.append(_("acs_factor (ACS redirects P2P through the root complex)"))
                consts.append("acs_factor")
            value = raw * eff * factor
            formula = _("raw rate of the narrowest link on the path x p2p_pcie_efficiency") + "".join(
                f" x {w}" for w in why
            )
            inputs = {"bottleneck": where, "raw_gbps": round(raw, 3), "p2p_pcie_efficiency": eff, "gen": gen}
            cpu_family = machine.cpu.family if machine.cpu is not None else None
            cap = const("p2p_inter_socket_cap_gbps", cpu_family) if path == "SYS" and not switched else None
            if cap is not None and value > cap:
                # a flow between sockets crosses one inter-socket link: on some platforms that link, not
                # the GPUs' Gen5 x16, is the narrowest hop (Gen4 cards stay below it)
                value = cap
                formula = _(
                    "p2p_inter_socket_cap_gbps[{family}] (the inter-socket link, below: {formula})"
                ).format(family=cpu_family, formula=formula)
                inputs["inter_socket_cap_gbps"] = cap
                consts.append("p2p_inter_socket_cap_gbps")
                keys["p2p_inter_socket_cap_gbps"] = _key("p2p_inter_socket_cap_gbps", cpu_family)
            uni = _fig(value, "GB/s", formula, inputs, consts, keys=keys)
            bf = const("p2p_pcie_bidi_factor")
            bidi = _fig(
                uni.value * 2 * bf,
                "GB/s",
                "2 x uni x p2p_pcie_bidi_factor",
                {"uni_gbps": round(uni.value, 3), "p2p_pcie_bidi_factor": bf},
                [*consts, "p2p_pcie_bidi_factor"],
                keys=keys,
            )
            latency = _p2p_latency(g, machine, route, path, arch, family)
            via = "pcie-p2p"
        else:
            legs = []
            for n in (a, b):
                r, w = _bottleneck(g, host_path(g, n.id))
                legs.append((r, w))
            raw, where = min(legs)
            sk = _key("staged_efficiency", _fkey("staged_efficiency", arch, family))
            eff = const("staged_efficiency", sk)
            # measured families only: an architecture's other segments (the A6000 beside the 3090
            # and the A100) and unknown cards read `default`, which is a guess between them
            conf = "low" if sk == "default" else "calibrated"
            uni = _fig(
                raw * eff,
                "GB/s",
                _(
                    "slower leg's raw link rate to host x staged_efficiency[{key}] (device -> pinned host buffer "
                    "-> device)"
                ).format(key=sk),
                {
                    "slower_leg": where,
                    "raw_gbps": round(raw, 3),
                    "arch": arch,
                    "staged_efficiency": eff,
                },
                ["pcie_lane_gbps", "staged_efficiency"],
                conf,
                {"staged_efficiency": sk},
            )
            bk = _key("staged_bidi_factor", _fkey("staged_bidi_factor", arch, family))
            bf = const("staged_bidi_factor", bk)
            bidi = _fig(
                uni.value * bf,
                "GB/s",
                _("uni x staged_bidi_factor[{key}] (both directions share host memory)").format(key=bk),
                {"uni_gbps": round(uni.value, 3), "staged_bidi_factor": bf},
                ["pcie_lane_gbps", "staged_efficiency", "staged_bidi_factor"],
                conf,
                uni.keys | {"staged_bidi_factor": bk},
            )
            extra = const("latency_staged_sys_extra_us", arch) if path == "SYS" else 0.0
            base_name = "latency_staged_wddm_us" if machine.software.os == "windows" else "latency_staged_us"
            lk = _key(base_name, _fkey(base_name, arch, family))
            vm = (
                const("latency_staged_vm_extra_us", arch)
                if machine.software.virtualization != "none"
                else 0.0
            )
            latency = _fig(
                const(base_name, lk) + extra + vm,
                "us",
                f"{base_name}[{lk}]"
                + (_(" + latency_staged_sys_extra_us[arch] (across sockets)") if extra else "")
                + (_(" + latency_staged_vm_extra_us[arch] (in a virtual machine)") if vm else ""),
                {
                    "arch": arch,
                    **({"sys_extra_us": extra} if extra else {}),
                    **({"vm_extra_us": vm} if vm else {}),
                },
                [base_name]
                + (["latency_staged_sys_extra_us"] if extra else [])
                + (["latency_staged_vm_extra_us"] if vm else []),
                keys={base_name: lk}
                | (
                    {"latency_staged_sys_extra_us": _key("latency_staged_sys_extra_us", arch)}
                    if extra
                    else {}
                )
                | ({"latency_staged_vm_extra_us": _key("latency_staged_vm_extra_us", arch)} if vm else {}),
            )
            via = "staged"
    level, level_why = nccl_level(machine)
    # AMD's NPS4 makes each quadrant of a socket its own NUMA node: GPUs on two root complexes of one
    # socket then sit under two NUMA nodes, which NVML and NCCL both read as SYS (the data path is the same)
    split = path == "NODE" and _nps(machine) == 4
    seen = "SYS" if split else path
    # NCCL has no NODE class: a PCIe path through the CPU is PHB within one NUMA node (NCCL's
    # src/graph/paths.cc), SYS between NUMA nodes
    nccl_class = "SYS" if split else ("PHB" if path == "NODE" else path)
    shown_path = (
        _("{path} (NPS4: the root complexes are in two NUMA nodes)")
        if split
        else (
            _("{path} (nvidia-smi's NODE: NCCL counts a path through the CPU as PHB)")
            if path == "NODE"
            else "{path}"
        )
    ).format(path=nccl_class)
    if nvlink and level != "LOC":
        nccl_p2p, transport, nreason = True, "NVLink", _("NVLink is always used")
    elif p2p and level != "LOC" and class_rank(nccl_class) <= _LEVEL_RANK[level]:
        nccl_p2p, transport, nreason = (
            True,
            "P2P",
            _("path {path} is within P2P level {level} ({why})").format(
                path=shown_path, level=level, why=level_why
            ),
        )
    elif p2p:
        nccl_p2p, transport, nreason = (
            False,
            "SHM",
            _("path {path} is beyond P2P level {level} ({why}); set NCCL_P2P_LEVEL=SYS to allow it").format(
                path=shown_path, level=level, why=level_why
            ),
        )
    else:
        nccl_p2p, transport, nreason = False, "SHM", _("no CUDA P2P: {reason}").format(reason=p2p_reason)
    nvml = seen
    if path == "NODE" and machine.sockets == 1 and not split:
        nvml = const("nvml_label_across_root_complexes", _label_key(machine))
    return PairPrediction(
        a.index,
        b.index,
        path,
        p2p,
        p2p_reason,
        nccl_p2p,
        transport,
        nreason,
        via,
        uni,
        bidi,
        latency,
        nvml,
        nccl_class,
    )


def _label_key(machine: Machine) -> str:
    """The entry of nvml_label_across_root_complexes a machine reads: its CPU family where the constant has
    one, else '<vendor>-<segment>' (intel-workstation), else default."""
    table = constants()["nvml_label_across_root_complexes"].value
    for key in (machine.cpu_family, f"{machine.cpu_vendor}-{machine.segment}"):
        if key and key in table:
            return key
    return "default"


def _platform_key(name: str, machine: Machine) -> str:
    """The entry of a platform-keyed constant: the CPU family, else the CPU vendor, else default."""
    table = constants()[name].value
    for key in (machine.cpu_family, machine.cpu_vendor):
        if key and key in table:
            return key
    return "default"


def switch_vendor(chip: str | None) -> str | None:
    """The vendor of a PCIe switch chip as people write it: Broadcom (PEX, PLX, which Broadcom bought) or
    Microchip (Switchtec, PM/PFX parts); None when the chip is not named or not known."""
    text = (chip or "").lower()
    if any(w in text for w in ("broadcom", "pex", "plx", "avago")):
        return "broadcom"
    if any(w in text for w in ("microchip", "switchtec", "microsemi", "pm5", "pfx")):
        return "microchip"
    return None


def _switch_key(node: Node) -> str:
    """The entry of latency_switch_hop_us for a switch: '<vendor>-gen<N>', else default."""
    table = constants()["latency_switch_hop_us"].value
    vendor = switch_vendor(node.chip)
    gen = node.link.gen if node.link else None
    key = f"{vendor}-gen{gen}" if vendor and gen else None
    return key if key in table else "default"


def _p2p_latency(
    g: MachineGraph, machine: Machine, route: list[str], path: str, arch: str, family: tuple[str, ...]
) -> Figure:
    """A P2P write's latency from the path's elements: the GPU's own per-copy cost (endpoint), the host
    platform's (which every copy pays, under one switch as well), each PCIe switch on the route by its
    vendor and generation, and the inter-socket link for a pair on two sockets. Each term is a sourced
    constant; a term read at `default` (an unmeasured GPU, platform or switch chip) makes the figure low
    confidence."""
    ek = _key("latency_p2p_endpoint_us", _fkey("latency_p2p_endpoint_us", arch, family))
    pk = _platform_key("latency_p2p_platform_us", machine)
    terms = [
        (f"latency_p2p_endpoint_us[{ek}]", const("latency_p2p_endpoint_us", ek)),
        (f"latency_p2p_platform_us[{pk}]", const("latency_p2p_platform_us", pk)),
    ]
    keys = {"latency_p2p_endpoint_us": ek, "latency_p2p_platform_us": pk}
    consts = ["latency_p2p_endpoint_us", "latency_p2p_platform_us"]
    low = "default" in (ek, pk)
    switches = [machine.nodes[n] for n in route if g.nodes[n]["kind"] == "switch"]
    if switches:
        skeys = [_switch_key(n) for n in switches]
        for sk in dict.fromkeys(skeys):
            n = skeys.count(sk)
            terms.append((f"{n} x latency_switch_hop_us[{sk}]", n * const("latency_switch_hop_us", sk)))
        keys["latency_switch_hop_us"] = skeys[0] if len(set(skeys)) == 1 else "default"
        consts.append("latency_switch_hop_us")
        low = low or "default" in skeys
    if path == "SYS":
        xk = _platform_key("latency_socket_link_us", machine)
        terms.append((f"latency_socket_link_us[{xk}]", const("latency_socket_link_us", xk)))
        keys["latency_socket_link_us"] = xk
        consts.append("latency_socket_link_us")
        low = low or xk == "default"
    return _fig(
        sum(v for _, v in terms),
        "us",
        " + ".join(name for name, _ in terms),
        {"path": path, "arch": arch, "switches": len(switches)} | {name: round(v, 3) for name, v in terms},
        consts,
        "low" if low else "calibrated",
        keys,
    )


def _nps(machine: Machine) -> int | None:
    """The BIOS's NUMA nodes per socket on an AMD platform, where the build says it."""
    bios = getattr(machine.build, "bios", None)
    return bios.nps if bios is not None and machine.cpu_vendor == "amd" else None


def _ring(g: MachineGraph, gpus: list[Node]) -> list[Node]:
    """GPUs in PCIe tree order (depth-first from socket 0), the order NCCL's rings tend to follow."""
    order = {n: i for i, n in enumerate(g.dfs_preorder(ids.ROOT))} if ids.ROOT in g else {}
    return sorted(gpus, key=lambda n: (order.get(n.id, 1 << 30), n.index))


def _nccl_sm(node: Node) -> str:
    """The key of nccl_nvlink_link_gbps for a GPU: NCCL's ncclTopoNVLinkBw() branches on the compute
    capability (>= 10.0, >= 9.0, == 8.6, >= 8.0, >= 7.0, >= 6.0; anything else reads SM80's)."""
    cc = node.gpu.compute_capability if node.gpu else None
    try:
        major, minor = (int(x) for x in (cc or "").split(".")[:2])
    except ValueError:
        return "default"
    v = major * 10 + minor
    for key, lo in (("sm100", 100), ("sm90", 90)):
        if v >= lo:
            return key
    if v == 86:
        return "sm86"
    for key, lo in (("sm80", 80), ("sm70", 70), ("sm60", 60)):
        if v >= lo:
            return key
    return "default"


def _nvlink_hop(g: MachineGraph, n: Node, m: Node) -> tuple[float, str, str]:
    """What NCCL moves over an NVLink bridge per direction: links x its per-link effective rate (SM
    copies with 128-byte payloads, below the copy engines' rate the copy figures use), the slower
    GPU's rate. Returns (GB/s, nccl_nvlink_link_gbps key, why)."""
    links = g.edges[n.id, m.id].get("links") or 0
    key = min((_nccl_sm(x) for x in (n, m)), key=lambda k: const("nccl_nvlink_link_gbps", k))
    per = const("nccl_nvlink_link_gbps", key)
    return links * per, key, f"{links} links x nccl_nvlink_link_gbps[{key}] {per}"


def _allreduce(g: MachineGraph, machine: Machine, ring: list[Node], pairs: list[PairPrediction]) -> Figure:
    by = {(p.a, p.b): p for p in pairs}
    by.update({(p.b, p.a): p for p in pairs})
    flows, hops = {}, []
    p2p_eff, shm_eff = const("allreduce_p2p_efficiency"), const("allreduce_shm_efficiency")
    nvl_keys: dict[str, str] = {}
    nvl_why: dict[str, str] = {}
    missing: list[str] = []
    for i, n in enumerate(ring):
        m = ring[(i + 1) % len(ring)]
        p = by[(n.index, m.index)]
        if p.nccl_transport == "NVLink":
            rate, key, why = _nvlink_hop(g, n, m)
            if not rate:
                # NCCL's rate is links x per-link: without the link count, the bridge's copy rate stands in
                # (low confidence, said in the derivation); without that either, the hop is unknown
                rate, why = p.uni.value, _("the bridge's link count is unknown: its copy rate")
                if rate is None:
                    missing += [
                        f for f in _nvlink_missing(n, m, "links", "gbps_per_direction") if f not in missing
                    ]
                    why = _("unknown: the catalog has neither the bridge's link count nor its rate")
            arch = _arch(n) if _arch(n) == _arch(m) else "default"
            fabric_key = f"nvswitch-{arch}" if machine.nvswitch else arch
            ek = _key("allreduce_nvlink_efficiency", fabric_key)
            nvl_keys |= {"nccl_nvlink_link_gbps": key, "allreduce_nvlink_efficiency": ek}
            nvl_why[f"{n.index}->{m.index}"] = why
            hops.append((f"{n.index}->{m.index}", "NVLink", rate, const("allreduce_nvlink_efficiency", ek)))
            edges = []
        elif p.nccl_transport == "P2P":
            rate = p.uni.value
            missing += [f for f in p.uni.missing if f not in missing]
            edges = _directed(pcie_path(g, n.id, m.id))
            hops.append((f"{n.index}->{m.index}", p.nccl_transport, rate, p2p_eff))
        else:
            # allreduce_shm_efficiency was fitted over this leg rate at the default host-copy efficiency,
            # Gen5 cases included: the product is what the calibration holds, so the legs keep it
            legs = [_bottleneck(g, host_path(g, x.id))[0] for x in (n, m)]
            rate = min(legs) * const("h2d_efficiency", "default")
            edges = _directed(host_path(g, n.id)) + _directed(list(reversed(host_path(g, m.id))))
            hops.append((f"{n.index}->{m.index}", "SHM", rate, shm_eff))
        flows[f"{n.index}->{m.index}"] = (rate, edges)
    if missing or any(r is None for r, _ in flows.values()):
        return _unknown_allreduce(ring, hops, missing, nvl_why)
    cap, _kind = _bridge_cap(machine)
    shared = max_min_share(flows, _capacities(g, "h2d_efficiency", by_gen=False, bridge_cap=cap))
    per_hop = [(name, t, shared[name], eff) for name, t, _, eff in hops]
    name, transport, rate, eff = min(per_hop, key=lambda h: h[2] * h[3])
    nvlink_ring = any(t == "NVLink" for _, t, _, _ in per_hop)
    if nvlink_ring and machine.nvswitch and all(t == "NVLink" for _, t, _, _ in per_hop):
        nvls = _nvls(machine, ring, rate, nvl_why)
        if nvls is not None:
            return nvls
    low = (nvlink_ring and not machine.nvswitch) or any(
        _arch(n) not in ("ada", "ampere", "hopper", "blackwell") for n in ring
    )
    bridged = (
        _(
            "two published all-reduces over NVLink bridges, one per architecture (A100 PCIe 208 GB/s, H100 PCIe "
            "116 GB/s, both 2 GPUs): each efficiency rests on its one case, and the H100's half of NCCL's own "
            "per-link rate is not explained; none over a GA102 bridge (3090, A6000) is published: the A100's "
            "efficiency is used"
        )
        if "sm86" in nvl_keys.values()
        else _(
            "two published all-reduces over NVLink bridges, one per architecture (A100 PCIe 208 GB/s, H100 PCIe "
            "116 GB/s, both 2 GPUs): each efficiency rests on its one case, and the H100's half of NCCL's own "
            "per-link rate is not explained"
        )
    )
    inputs_note = (
        {
            "confidence_note": _(
                "through NVSwitch: one published all-reduce per architecture (A100 SXM ~230 GB/s, H100 SXM ring "
                "365-370 GB/s) sets each efficiency"
            ),
            "nvlink_hops": nvl_why,
        }
        if nvlink_ring and machine.nvswitch
        else {"confidence_note": bridged, "nvlink_hops": nvl_why}
        if nvlink_ring
        else {}
    )
    used = {
        "NVLink": ["nccl_nvlink_link_gbps", "allreduce_nvlink_efficiency"],
        "P2P": ["allreduce_p2p_efficiency", "h2d_efficiency"],
        "SHM": ["allreduce_shm_efficiency", "h2d_efficiency"],
    }[transport]
    return _fig(
        rate * eff,
        "GB/s",
        _(
            "slowest ring hop (all hops at once, shared links fair-shared) x allreduce_<transport>_efficiency "
            "(an NVLink hop: links x NCCL's per-link rate)"
        )
        if transport == "NVLink"
        else _(
            "slowest ring hop (all hops at once, shared links fair-shared) x allreduce_<transport>_efficiency"
        ),
        {
            "gpus": len(ring),
            "ring": [n.index for n in ring],
            "slowest_hop": name,
            "transport": transport,
            "hop_gbps": round(rate, 3),
            "efficiency": eff,
            "hops": {h[0]: h[1] for h in per_hop},
        }
        | inputs_note,
        used,
        "low" if low else "calibrated",
        nvl_keys if transport == "NVLink" else None,
    )


def _nvls(machine: Machine, ring: list[Node], hop: float, nvl_why: dict[str, str]) -> Figure | None:
    """NCCL's NVLS all-reduce on NVSwitch that reduces in the fabric (H100 on): the NVLink hop rate x
    allreduce_nvls_factor; None where the system has no NVLS, NCCL_NVLS_ENABLE=0, or its factor is not
    measured for the architecture (the ring figure stands then)."""
    if not machine.nvls or machine.software.nccl_nvls_enable is False:
        return None
    arch = _arch(ring[0]) if len({_arch(n) for n in ring}) == 1 else "default"
    key = _key("allreduce_nvls_factor", arch)
    factor = const("allreduce_nvls_factor", key)
    if factor is None:
        return None
    return _fig(
        hop * factor,
        "GB/s",
        _(
            "NVLink hop rate (links x NCCL's per-link rate) x allreduce_nvls_factor (NVLS: the NVSwitch reduces)"
        ),
        {
            "gpus": len(ring),
            "ring": [n.index for n in ring],
            "transport": "NVLS",
            "hop_gbps": round(hop, 3),
            "nvls_factor": factor,
            "nvlink_hops": nvl_why,
            "confidence_note": _("one published NVLS all-reduce (8x H100, 476 GB/s) sets the factor"),
        },
        ["nccl_nvlink_link_gbps", "allreduce_nvls_factor"],
        keys={"allreduce_nvls_factor": key},
    )


def _nics(g: MachineGraph, machine: Machine) -> list[NicPrediction]:
    """Each NIC with the GPU nearest it (NCCL's local GPU for that NIC; among equally near GPUs one not yet
    serving a NIC), whether NCCL uses GPUDirect RDMA (the NIC within nccl_net_gdr_level of that GPU and the
    build not saying it is off), and what it moves per direction with every NIC busy at once: its line rate
    x net_allreduce_efficiency, or less where the PCIe links its traffic crosses are shared (without GDR
    the traffic goes GPU -> CPU -> NIC, as NCCL diverts it)."""
    gpus = machine.gpus
    nics = [n for n in machine.nics if n.link is not None]
    if not gpus or not nics:
        return []
    level = const("nccl_net_gdr_level")
    sw = machine.software
    served: dict[int, int] = {}
    out: list[tuple[Node, Node, str, bool, str]] = []
    for nic in nics:
        best = min(
            gpus,
            key=lambda x: (class_rank(path_class(g, x.id, nic.id)), served.get(x.index or 0, 0), x.index),
        )
        served[best.index or 0] = served.get(best.index or 0, 0) + 1
        path = path_class(g, best.id, nic.id)
        if sw.gpudirect_rdma is False:
            gdr, why = False, _("software.gpudirect_rdma: false (no nvidia-peermem): staged through the CPU")
        elif class_rank(path) <= class_rank(level):
            gdr, why = (
                True,
                (
                    _(
                        "within {level} of GPU{index} ({path}): NCCL reads and writes GPU memory directly "
                        "(GPUDirect RDMA taken as working)"
                    )
                    if sw.gpudirect_rdma is None
                    else _("within {level} of GPU{index} ({path}): NCCL reads and writes GPU memory directly")
                ).format(level=level, index=best.index, path=path),
            )
        else:
            gdr, why = (
                False,
                _("{path} from GPU{index}, beyond NCCL's GDR level {level}: staged through the CPU").format(
                    path=path, index=best.index, level=level
                ),
            )
        out.append((nic, best, path, gdr, why))
    caps = _capacities(g, "h2d_efficiency", bridge_cap=_bridge_cap(machine)[0])
    flows: dict[str, tuple[float, list[tuple[str, str]]]] = {}
    demand: dict[str, float | None] = {}
    for nic, gpu, _path, gdr, _reason in out:
        fabric = nic.nic.fabric if nic.nic else None
        eff = const("net_allreduce_efficiency", _key("net_allreduce_efficiency", fabric or "default"))
        gbps = nic.nic.gbps if nic.nic else None
        rate = gbps / 8 * eff if gbps is not None and eff is not None else None
        demand[nic.id] = rate
        if rate is None:
            continue
        if gdr:
            route = pcie_path(g, gpu.id, nic.id)
        else:
            route = host_path(g, gpu.id) + pcie_path(g, ids.socket(gpu.socket), nic.id)[1:]
        flows[f"{nic.id}>"] = (rate, _directed(route))
        flows[f"{nic.id}<"] = (rate, _directed(list(reversed(route))))
    shared = max_min_share(flows, caps) if flows else {}
    preds = []
    for nic, gpu, path, gdr, why in out:
        d = demand[nic.id]
        fabric = nic.nic.fabric if nic.nic else None
        fk = _key("net_allreduce_efficiency", fabric or "default")
        if d is None:
            missing = [] if nic.nic and nic.nic.gbps else [f"{nic.label}: gbps (the NIC's line rate)"]
            rate = Figure(
                None,
                "GB/s",
                _("NIC line rate / 8 x net_allreduce_efficiency: unknown")
                if missing
                else _(
                    "NIC line rate / 8 x net_allreduce_efficiency: unknown (no measured efficiency for {fabric})"
                ).format(fabric=fabric),
                {"nic": nic.label, "fabric": fabric},
                [],
                "low",
                missing=missing,
            )
        else:
            got = min(shared[f"{nic.id}>"], shared[f"{nic.id}<"])
            rate = _fig(
                got,
                "GB/s",
                (
                    _(
                        "NIC line rate / 8 x net_allreduce_efficiency[{key}], fair-shared over the PCIe links its "
                        "traffic crosses"
                    )
                    if gdr
                    else _(
                        "NIC line rate / 8 x net_allreduce_efficiency[{key}], fair-shared over the PCIe links its "
                        "traffic crosses (through the CPU: no GPUDirect RDMA)"
                    )
                ).format(key=fk),
                {"nic": nic.label, "gbps": nic.nic.gbps if nic.nic else None, "alone_gbps": round(d, 3)},
                ["net_allreduce_efficiency", "nccl_net_gdr_level"],
                "calibrated" if gdr else "low",
                {"net_allreduce_efficiency": fk},
            )
        preds.append(NicPrediction(nic, gpu.index or 0, path, gdr, why, rate))
    return preds


def _internode(machine: Machine, intra: Figure | None, nics: list[NicPrediction], local: int) -> Figure:
    """The all-reduce of a job across `machine.node_count` identical nodes, as NCCL runs it. A ring crosses
    each node's NICs once per direction, so its busbw is at most what the node's NICs move together (and
    at most the one-node figure); on two nodes the tree sends each byte across the network once where the
    ring sends it 2(n-1)/n times, so its busbw can reach the network's x 2(n-1)/n (NCCL's maintainer:
    two-node tree figures exceed the network's limit; nccl-tests#196). NCCL picks the tree on two nodes and
    the ring beyond; software.nccl_algo forces one."""
    nodes = machine.node_count
    ranks = nodes * local
    missing = [m for n in nics for m in n.rate.missing]
    if not nics or missing or any(n.rate.value is None for n in nics):
        why = _("no NIC in the build: nodes cannot be joined") if not nics else _("a NIC's rate is unknown")
        return Figure(
            None,
            "GB/s",
            _("all-reduce across {nodes} nodes: unknown ({why})").format(nodes=nodes, why=why),
            {"nodes": nodes, "ranks": ranks, "transport": "NET"},
            [],
            "low",
            missing=missing or ["nics: the NICs that join the nodes (name, gbps, fabric)"],
        )
    net = sum(n.rate.value for n in nics if n.rate.value is not None)
    bound = intra.value if intra is not None and intra.value is not None and local > 1 else float("inf")
    ring = min(bound, net)
    tree = min(bound, net * 2 * (ranks - 1) / ranks) if nodes == 2 else ring
    algo = machine.software.nccl_algo or ("tree" if nodes == 2 else "ring")
    value = tree if algo == "tree" else ring
    network = net * 2 * (ranks - 1) / ranks if algo == "tree" and nodes == 2 else net
    limit = _("the nodes' NICs") if network <= bound else _("one node's own all-reduce")
    staged = [n for n in nics if not n.gdr]
    return _fig(
        value,
        "GB/s",
        (
            _("min(one node's all-reduce, the NICs' rates summed x 2(n-1)/n): NCCL's tree on two nodes")
            if algo == "tree" and nodes == 2
            else _("min(one node's all-reduce, the NICs' rates summed): NCCL's ring across nodes")
        ),
        {
            "nodes": nodes,
            "ranks": ranks,
            "transport": "NET",
            "algorithm": algo
            if machine.software.nccl_algo
            else _("{algorithm} (NCCL's choice)").format(algorithm=algo),
            "network_gbps": round(net, 3),
            "node_allreduce_gbps": None if bound == float("inf") else round(bound, 3),
            "ring_gbps": round(ring, 3),
            "tree_gbps": round(tree, 3),
            "limited_by": limit,
            "nics": {f"NIC{n.nic.index} ({n.nic.label})": round(n.rate.value or 0.0, 3) for n in nics},
        }
        | (
            {"confidence_note": _("the two-node tree rests on NCCL's algorithm, not on a fitted constant")}
            if algo == "tree" and nodes == 2
            else {}
        ),
        ["net_allreduce_efficiency", "nccl_net_gdr_level"],
        "low" if staged or (algo == "tree" and nodes == 2) else "calibrated",
        {"net_allreduce_efficiency": nics[0].rate.keys.get("net_allreduce_efficiency", "default")},
    )


def _nvlink_missing(a: Node, b: Node, *fields: str) -> list[str]:
    """The catalog facts an NVLink figure of this pair lacks, as "GPU name: nvlink.FIELD"."""
    out = []
    for n in (a, b):
        gpu = n.gpu
        for f in fields:
            label = f"{gpu.name if gpu else 'GPU' + str(n.index)}: nvlink.{f}"
            if (gpu is None or getattr(gpu.nvlink, f) is None) and label not in out:
                out.append(label)
    return out


def _unknown_allreduce(ring: list[Node], hops: list, missing: list[str], nvl_why: dict[str, str]) -> Figure:
    """The all-reduce when a hop's rate rests on a catalog value that is null: unknown, never a 0."""
    unknown = [h for h in hops if h[2] is None]
    name, transport = unknown[0][:2] if unknown else hops[0][:2]
    return Figure(
        None,
        "GB/s",
        _("slowest ring hop x allreduce_<transport>_efficiency: unknown, a hop's rate is not in the catalog"),
        {
            "gpus": len(ring),
            "ring": [n.index for n in ring],
            "slowest_hop": name,
            "transport": transport,
            "hops": {h[0]: h[1] for h in hops},
            "nvlink_hops": nvl_why,
        },
        [],
        "low",
        missing=list(missing),
    )


def allreduce_scope(pred: Prediction) -> str:
    """'8 GPUs', or '16 GPUs on 2 nodes': what the all-reduce spans, in words."""
    m = pred.machine
    if m.node_count > 1:
        return _("{gpus} GPUs on {nodes} nodes").format(
            gpus=len(pred.ring) * m.node_count, nodes=m.node_count
        )
    return _("{gpus} GPUs").format(gpus=len(pred.ring))


def allreduce_how(pred: Prediction) -> str:
    """What sets the all-reduce, in words: the slowest ring hop, NVLS, or the network across nodes."""
    a = pred.allreduce
    assert a is not None
    t = a.transport
    if t == "NET":
        node = pred.allreduce_node
        values = dict(
            algorithm=a.inputs["algorithm"],
            limit=a.inputs["limited_by"],
            net=f"{a.inputs['network_gbps']:.1f}",
        )
        if node is not None and node.value is not None:
            return _(
                "NCCL's {algorithm} across nodes, limited by {limit} (the NICs move {net} GB/s per direction "
                "together); one node alone: {node} GB/s"
            ).format(**values, node=f"{node.value:.1f}")
        return _(
            "NCCL's {algorithm} across nodes, limited by {limit} (the NICs move {net} GB/s per direction together)"
        ).format(**values)
    if t == "NVLS":
        return _("NVLS: the NVSwitch reduces in the fabric (NVLink SHARP)")
    return _("slowest hop {hop} via {transport}").format(hop=a.inputs["slowest_hop"], transport=t)


def nic_matrix(pred: Prediction) -> list[list[str]]:
    """nvidia-smi topo -m's NIC columns: per GPU, its path class to each NIC (PIX, PXB, NODE, SYS)."""
    nics = [n for n in pred.machine.nics if n.link is not None]
    return [[path_class(pred.graph, g.id, n.id) for n in nics] for g in pred.machine.gpus]


def topo_matrix(pred: Prediction) -> list[list[str]]:
    gpus = pred.machine.gpus
    by = {}
    for p in pred.pairs:
        by[(p.a, p.b)] = by[(p.b, p.a)] = p.nvml_path
    return [["X" if a.index == b.index else by[(a.index, b.index)] for b in gpus] for a in gpus]
