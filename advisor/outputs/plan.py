"""The output of `advisor plan --json` as a typed model (its JSON Schema: `advisor catalog schema --output plan`)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from advisor.findings.finding import Finding
from advisor.findings.verdict import verdict
from advisor.i18n import N_, _
from advisor.model.constants import constants
from advisor.model.machine import Machine, Node
from advisor.model.predict import Prediction, nic_matrix, topo_matrix
from advisor.model.readiness import PairReadiness, readiness
from advisor.outputs.common import ConstantOut, Derivation, Output, r1
from advisor.outputs.workload import WorkloadOutput

# written whole here, translated where shown (`_(NOT_CHECKED)`)
NOT_CHECKED = N_(
    "Not checked: BIOS settings beyond those in the build, cable and riser quality, thermals under load, "
    "driver and NCCL versions other than the defaults named, and network traffic other than the all-reduce "
    "across nodes (the switches between nodes are taken as non-blocking)."
)


class LinkOut(Output):
    gen: int
    width: int
    max_gen: int = Field(description="The card's own maximum generation")
    max_width: int = Field(description="The card's own maximum width")
    limited_by: list[str] = Field(description="Why the link is below the card's maximum, in plain words")


class GpuOut(Output):
    index: int
    slot: str | None
    model: str | None
    model_id: str | None
    link: LinkOut
    h2d_gbps: float | None = Field(description="Pinned host->device copy, this GPU alone, GB/s")
    d2h_gbps: float | None
    h2d_all_gbps: float | None = Field(description="Pinned host->device with every GPU copying at once, GB/s")
    d2h_all_gbps: float | None
    host_link_gbps: float | None = Field(
        default=None,
        description="Raw rate of the narrowest link between this GPU and its CPU, per direction (PCIe after "
        "line encoding, before protocol overhead), GB/s: the ceiling the host copies reach a fraction of; "
        "null where a link on the way is not known (a chipset uplink the catalog lacks)",
    )
    bottleneck: str
    unknown: list[str] = Field(
        default_factory=list,
        description="Catalog facts a null figure of this GPU could not be computed without "
        "('ASUS ROG Strix Z790-E Gaming WiFi: chipset_uplink (and the CPU's)'): the figure is unknown, never a 0",
    )
    typical: dict[str, list[float]] | None = Field(
        default=None,
        description="Typical range [lo, hi] of each figure, from the model's leave-one-out errors on the "
        "calibration cases (rules/intervals.yaml); a figure with no out-of-sample check has none",
    )
    derivation: dict[str, Derivation] | None = None


class PairOut(Output):
    a: int
    b: int
    path: str = Field(description="NV#, PIX, PXB, PHB, NODE or SYS, as nvidia-smi topo -m prints it")
    route: str = Field(
        default="",
        description="The physical class of the route, where nvidia-smi's label differs (a single-socket "
        "workstation labels NODE pairs SYS)",
    )
    p2p: bool = Field(description="CUDA peer access available")
    p2p_reason: str
    via: str = Field(description="nvlink, p2p or staged (through host memory)")
    nccl_p2p: bool
    nccl_transport: str
    nccl_reason: str
    uni_gbps: float | None
    bidi_gbps: float | None
    latency_us: float | None
    confidence: str
    unknown: list[str] = Field(
        default_factory=list,
        description="Catalog facts a null figure of this pair could not be computed without "
        "('NVIDIA H200 NVL: nvlink.gbps_per_direction'): the figure is unknown, never a 0",
    )
    typical: dict[str, list[float]] | None = Field(
        default=None,
        description="Typical range [lo, hi] of each figure, from the model's leave-one-out errors on the "
        "calibration cases (rules/intervals.yaml); a figure with no out-of-sample check has none",
    )
    derivation: dict[str, Derivation] | None = None


class AllreduceOut(Output):
    gpus: int = Field(description="GPUs in the job: every node's")
    nodes: int = Field(default=1, description="Nodes the all-reduce spans")
    algorithm: str | None = Field(
        default=None, description="Across nodes: NCCL's ring or tree (and whether NCCL chose it)"
    )
    node_busbw_gbps: float | None = Field(
        default=None, description="Across nodes: the all-reduce within one node, GB/s (a bound on the whole)"
    )
    network_gbps: float | None = Field(
        default=None, description="Across nodes: what one node's NICs move together per direction, GB/s"
    )
    busbw_gbps: float | None = Field(
        description="nccl-tests bus bandwidth for large messages, GB/s; null when a hop's rate is unknown"
    )
    unknown: list[str] = Field(
        default_factory=list,
        description="Catalog facts the all-reduce could not be computed without, when busbw_gbps is null",
    )
    ring: list[int]
    slowest_hop: Any
    transport: Any
    confidence: str = Field(default="calibrated", description="calibrated, or low (with the reason)")
    confidence_note: str | None = None
    typical: dict[str, list[float]] | None = Field(
        default=None,
        description="Typical range [lo, hi] of each figure, from the model's leave-one-out errors on the "
        "calibration cases (rules/intervals.yaml); a figure with no out-of-sample check has none",
    )
    derivation: Derivation | None = None


class TopoOut(Output):
    gpus: list[str]
    matrix: list[list[str]]
    nics: list[str] = Field(default_factory=list, description="NIC columns, as nvidia-smi topo -m adds them")
    nic_matrix: list[list[str]] = Field(
        default_factory=list, description="Per GPU (row), its path class to each NIC (column)"
    )


class HostAllOut(Output):
    h2d_gbps: float | None = Field(description="Every GPU copying host->device at once: the sum, GB/s")
    d2h_gbps: float | None = Field(description="Every GPU copying device->host at once: the sum, GB/s")
    limited_by: list[str] = Field(
        default_factory=list, description="The shared links or root complexes that hold it"
    )
    typical: dict[str, list[float]] | None = None
    derivation: dict[str, Derivation] | None = None


class NicOut(Output):
    index: int
    name: str
    gbps: int | None = Field(description="Line rate, Gb/s (null: not stated)")
    fabric: str | None = Field(description="infiniband, roce or ethernet (null: not stated)")
    gpu: int = Field(description="The GPU nearest the NIC, whose traffic it carries")
    path: str = Field(description="nvidia-smi's class between that GPU and the NIC")
    gpudirect_rdma: bool
    gpudirect_reason: str
    gbps_per_direction: float | None = Field(
        description="What NCCL moves through it per direction with every NIC busy, GB/s"
    )
    confidence: str


class DeviceLinkOut(Output):
    gen: int
    width: int


class DeviceOut(Output):
    kind: Literal["nvme", "nic"]
    name: str
    connector: str | None
    link: DeviceLinkOut | None


class LayerOut(Output):
    layer: str = Field(description="hardware, driver, acs, nccl or engine, in the order they decide")
    verdict: Literal["PASS", "FAIL", "UNKNOWN"]
    why: str
    fix: str | None = Field(description="What changes the outcome: BIOS, kernel command line, env, flags")
    check: str | None = Field(default=None, description="The command that settles it on the real machine")
    sources: list[str] = Field(default_factory=list)


class ReadinessOut(Output):
    a: int
    b: int
    path: str
    verdict: Literal["PASS", "FAIL", "UNKNOWN"] = Field(
        description="FAIL when any layer fails, UNKNOWN when one is not known, else PASS"
    )
    summary: str
    layers: list[LayerOut]


class TreeNodeOut(Output):
    id: str
    kind: Literal["socket", "host_bridge", "root_port", "chipset", "switch", "gpu", "nvme", "nic"]
    parent: str | None = Field(description="The node it hangs from (null: a socket)")
    socket: int
    name: str | None = Field(
        description="What tells it from its siblings: a CPU's or GPU's model, a host bridge's number, the "
        "chipset's name, a switch's chip or id, a NIC's name (null where the kind says all)"
    )
    connector: str | None = Field(description="The slot or M.2 socket a device sits in")
    index: int | None = Field(description="A GPU's or NIC's index")
    link: LinkOut | None = Field(description="The link up to its parent, where it has one")


class PlanOutput(Output):
    schema_version: Literal[1] = 1
    verdict: str = Field(
        default="", description="One line: is this a good multi-GPU build, and what matters most"
    )
    verdict_severity: Literal["error", "warning", "ok"] = Field(
        default="ok", description="How bad the verdict is: error (not ready), warning (held back) or ok"
    )
    build: str | None
    cpu_name: str | None = Field(default=None, description="The CPU as the catalog names it")
    board_name: str | None = Field(default=None, description="The board as the catalog names it")
    system_name: str | None = Field(default=None, description="The system as the catalog names it")
    cpu: str | None
    board: str | None
    system: str | None = Field(
        default=None, description="The catalog system (HGX baseboard), if the build names one"
    )
    nodes: int = Field(default=1, description="Identical nodes the build describes")
    sockets: int
    gpus: list[GpuOut]
    host_all: HostAllOut | None = Field(
        default=None, description="Every GPU copying to or from host memory at once (two GPUs or more)"
    )
    pairs: list[PairOut]
    nics: list[NicOut] = Field(default_factory=list, description="Each NIC as NCCL uses it across nodes")
    allreduce: AllreduceOut | None
    readiness: list[ReadinessOut] = Field(
        default_factory=list,
        description="Per GPU pair, whether P2P is really used: each layer's verdict, reason, fix and the "
        "command that settles it",
    )
    topo: TopoOut
    tree: list[TreeNodeOut] = Field(
        default_factory=list,
        description="The PCIe tree of one node, parents before children: sockets, host bridges, root ports, "
        "chipset, switches and devices, for drawing the machine",
    )
    devices: list[DeviceOut]
    unlinked: list[str] = Field(description="Devices placed where no lanes reach them")
    allocation_notes: list[str] = Field(description="What the lane allocation did, in plain words")
    assumptions: list[str]
    findings: list[Finding]
    not_checked: str
    constants: dict[str, ConstantOut] | None = None
    workload: WorkloadOutput | None = Field(
        default=None, description="With --train/--infer: the output of `advisor workload`"
    )


def readiness_out(rows: list[PairReadiness]) -> list[ReadinessOut]:
    return [
        ReadinessOut(
            a=r.a,
            b=r.b,
            path=r.path,
            verdict=r.verdict,
            summary=r.summary,
            layers=[LayerOut(**{k: v for k, v in vars(x).items() if k != "generic"}) for x in r.layers],
        )
        for r in rows
    ]


def _typical(**figs) -> dict:
    """{"typical": {name: [lo, hi]}} for the figures that carry an interval, else nothing."""
    out = {k: list(f.interval) for k, f in figs.items() if f.interval is not None}
    return {"typical": out} if out else {}


def plan_output(pred: Prediction, findings: list[Finding] | None = None, explain: bool = False) -> PlanOutput:
    m = pred.machine
    gpus = []
    for p in pred.gpus:
        n = p.node
        extra = (
            {
                "derivation": {
                    k: Derivation.of(getattr(p, k))
                    for k in ("h2d", "d2h", "h2d_all", "d2h_all", "host_link")
                    if getattr(p, k) is not None
                }
            }
            if explain
            else {}
        )
        gpus.append(
            GpuOut(
                index=n.index or 0,
                slot=n.connector,
                model=n.gpu.name if n.gpu else None,
                model_id=n.part_id,
                link=LinkOut(
                    gen=n.link.gen,
                    width=n.link.width,
                    max_gen=n.link.max_gen,
                    max_width=n.link.max_width,
                    limited_by=list(n.link.limited_by),
                ),
                h2d_gbps=r1(p.h2d.value),
                d2h_gbps=r1(p.d2h.value),
                h2d_all_gbps=r1(p.h2d_all.value),
                d2h_all_gbps=r1(p.d2h_all.value),
                host_link_gbps=r1(p.host_link.value) if p.host_link is not None else None,
                bottleneck=p.bottleneck,
                unknown=sorted(
                    {
                        f
                        for x in (p.h2d, p.d2h, p.h2d_all, p.d2h_all, p.host_link)
                        if x is not None
                        for f in x.missing
                    }
                ),
                **_typical(h2d_gbps=p.h2d, d2h_gbps=p.d2h, h2d_all_gbps=p.h2d_all, d2h_all_gbps=p.d2h_all),
                **extra,
            )
        )
    pairs = []
    for p in pred.pairs:
        extra = (
            {
                "derivation": {
                    "uni": Derivation.of(p.uni),
                    "bidi": Derivation.of(p.bidi),
                    "latency": Derivation.of(p.latency),
                }
            }
            if explain
            else {}
        )
        pairs.append(
            PairOut(
                a=p.a,
                b=p.b,
                path=p.nvml_path,
                route=p.path,
                p2p=p.p2p,
                p2p_reason=p.p2p_reason,
                via=p.via,
                nccl_p2p=p.nccl_p2p,
                nccl_transport=p.nccl_transport,
                nccl_reason=p.nccl_reason,
                uni_gbps=r1(p.uni.value),
                bidi_gbps=r1(p.bidi.value),
                latency_us=None if p.latency.value is None else round(p.latency.value, 2),
                confidence=p.uni.confidence,
                unknown=sorted({f for x in (p.uni, p.bidi, p.latency) for f in x.missing}),
                **_typical(uni_gbps=p.uni, bidi_gbps=p.bidi, latency_us=p.latency),
                **extra,
            )
        )
    allreduce = None
    if pred.allreduce is not None:
        a = pred.allreduce
        extra = {"derivation": Derivation.of(a)} if explain else {}
        net = a.transport == "NET"
        allreduce = AllreduceOut(
            gpus=len(pred.ring) * m.node_count,
            nodes=m.node_count,
            algorithm=a.inputs.get("algorithm") if net else None,
            node_busbw_gbps=r1(pred.allreduce_node.value) if net and pred.allreduce_node else None,
            network_gbps=r1(a.inputs.get("network_gbps")) if net else None,
            busbw_gbps=r1(a.value),
            ring=pred.ring,
            unknown=list(a.missing),
            slowest_hop=a.inputs.get("slowest_hop"),
            transport=None if a.transport is None else a.transport.value,
            confidence=a.confidence,
            **({"confidence_note": a.inputs["confidence_note"]} if "confidence_note" in a.inputs else {}),
            **_typical(busbw_gbps=a),
            **extra,
        )
    extra = {"constants": {c.name: ConstantOut.of(c) for c in constants().values()}} if explain else {}
    v = verdict(pred, list(findings or []))
    return PlanOutput(
        schema_version=1,
        verdict=v.line,
        verdict_severity=v.severity,  # type: ignore[arg-type]
        build=m.build.name if m.build else None,
        cpu_name=m.cpu.name if m.cpu else None,
        board_name=m.board.name if m.board else None,
        system_name=m.system.name if m.system is not None else None,
        cpu=m.cpu.id if m.cpu else None,
        board=m.board.id if m.board else None,
        system=m.system.id if m.system is not None else None,
        nodes=m.node_count,
        sockets=m.sockets,
        gpus=gpus,
        host_all=_host_all(pred, explain),
        pairs=pairs,
        nics=[
            NicOut(
                index=n.nic.index or 0,
                name=n.nic.label,
                gbps=n.nic.nic.gbps if n.nic.nic else None,
                fabric=n.nic.nic.fabric if n.nic.nic else None,
                gpu=n.gpu,
                path=n.path,
                gpudirect_rdma=n.gdr,
                gpudirect_reason=n.gdr_reason,
                gbps_per_direction=r1(n.rate.value),
                confidence=n.rate.confidence,
            )
            for n in pred.nics
        ],
        allreduce=allreduce,
        readiness=readiness_out(readiness(pred)),
        topo=TopoOut(
            gpus=[f"GPU{n.index}" for n in m.gpus],
            matrix=topo_matrix(pred),
            nics=[f"NIC{n.index}" for n in m.nics if n.link is not None],
            nic_matrix=nic_matrix(pred) if any(n.link is not None for n in m.nics) else [],
        ),
        tree=_tree(m),
        devices=[_device(n) for n in m.nodes.values() if n.kind in ("nvme", "nic")],
        unlinked=list(m.unlinked),
        allocation_notes=list(m.notes),
        assumptions=list(pred.assumptions),
        findings=list(findings or []),
        not_checked=_(NOT_CHECKED),
        **extra,
    )


def _host_all(pred: Prediction, explain: bool) -> HostAllOut | None:
    if not pred.host_sum:
        return None
    h, d = pred.host_sum["h2d"], pred.host_sum["d2h"]
    return HostAllOut(
        h2d_gbps=r1(h.value),
        d2h_gbps=r1(d.value),
        limited_by=list(h.limited_by),
        **_typical(h2d_gbps=h, d2h_gbps=d),
        **({"derivation": {"h2d": Derivation.of(h), "d2h": Derivation.of(d)}} if explain else {}),
    )


def _tree(m: Machine) -> list[TreeNodeOut]:
    """The machine's nodes, each after its parent, with the name that tells it from its siblings."""
    out: list[TreeNodeOut] = []
    seen: set[str] = set()

    def add(n: Node) -> None:
        seen.add(n.id)
        out.append(
            TreeNodeOut(
                id=n.id,
                kind=n.kind.value,  # type: ignore[arg-type]
                parent=n.parent,
                socket=n.socket,
                name=_name(m, n),
                connector=n.connector,
                index=n.index,
                link=None
                if n.link is None
                else LinkOut(
                    gen=n.link.gen,
                    width=n.link.width,
                    max_gen=n.link.max_gen,
                    max_width=n.link.max_width,
                    limited_by=list(n.link.limited_by),
                ),
            )
        )
        for c in m.children(n.id):
            if c.id not in seen:
                add(c)

    for n in m.nodes.values():
        if n.parent is None and n.id not in seen:
            add(n)
    return out


# the model labels a node "<its kind in words> <its name>"; the name alone is what a drawing adds to
# the kind, which a face says in its own words
_KIND_WORDS = {
    "host_bridge": "host bridge",
    "root_port": "root port",
    "chipset": "chipset",
    "switch": "switch",
}


# the labels as the model writes them (advisor.model.lanes), each kind's words before {id}
_KIND_LABELS = {"host_bridge": "host bridge {id}", "root_port": "root port {id}", "chipset": "", "switch": ""}


def _name(m: Machine, n: Node) -> str | None:
    if n.kind == "socket":
        return m.cpu.name if m.cpu else None
    if n.kind == "gpu":
        return n.gpu.name if n.gpu else n.label
    if n.kind == "switch" and n.chip:
        return n.chip
    if n.kind in _KIND_WORDS:
        label = n.label
        # the label is in the language of the run: its kind's words are taken off in that language too
        for words in (_KIND_LABELS[n.kind], _KIND_WORDS[n.kind]):
            prefix = _(words).split("{id}")[0].strip() if words else ""
            if prefix and label.startswith(prefix):
                return label.removeprefix(prefix).strip() or None
        return label.strip() or None
    if n.kind == "nvme":
        return None
    return n.label


def _device(n: Node) -> DeviceOut:
    return DeviceOut(
        kind=n.kind,
        name=n.label,
        connector=n.connector,  # type: ignore[arg-type]
        link=DeviceLinkOut(gen=n.link.gen, width=n.link.width) if n.link else None,
    )
