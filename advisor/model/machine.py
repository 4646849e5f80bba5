"""The resolved machine: every device with the link it negotiated, in a PCIe tree.

Both kinds of build (catalog-based, explicit tree) become a Machine; the graph, the predictions
and the rules only ever look at a Machine.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from advisor.base.enums import StrEnum
from advisor.model.catalog.models import Board, Cpu, Gpu


@dataclass
class Link:
    gen: int
    width: int
    max_gen: int  # what the device itself can do
    max_width: int
    limited_by: list[str] = field(default_factory=list)  # plain-words reasons it is below the device's max
    shared: bool = False  # narrower because a populated connector shares its lanes (read by a fix, not words)

    @property
    def label(self) -> str:
        return f"Gen{self.gen} x{self.width}"


@dataclass
class Nic:
    """A network card's network side: line rate and fabric (null when the build does not say)."""

    gbps: int | None = None
    fabric: str | None = None  # infiniband | roce | ethernet


class NodeKind(StrEnum):
    """What a node of the machine is. A str enum: `node.kind == "gpu"` reads as before, and a kind
    that is none of these is refused where the node is made."""

    SOCKET = "socket"
    HOST_BRIDGE = "host_bridge"
    ROOT_PORT = "root_port"
    CHIPSET = "chipset"
    SWITCH = "switch"
    GPU = "gpu"
    NVME = "nvme"
    NIC = "nic"


@dataclass
class Node:
    id: str
    kind: NodeKind
    parent: str | None
    socket: int
    label: str
    link: Link | None = None  # link to the parent
    connector: str | None = None  # slot or M.2 socket name
    gpu: Gpu | None = None
    index: int | None = None  # GPU index (CUDA order) for GPUs
    part_id: str | None = None
    position: int | None = None
    chip: str | None = None  # a switch's chip as its vendor names it (its latency is keyed by vendor)
    nic: Nic | None = None  # a NIC's network side

    def __post_init__(self) -> None:
        self.kind = NodeKind(self.kind)


@dataclass
class LaneBudget:
    """The CPU lanes one socket's populated connectors take, against what the CPU has (without it, a
    w5-2455X with 4 GPUs at x16 and an M.2 at x4 drew 68 of its 64 lanes with no word)."""

    socket: int
    usable: int | None  # the CPU's pcie.usable_lanes per socket; None = not in the catalog
    drawn: int  # lanes the negotiated links of devices on this socket's CPU lane groups take
    takers: list[tuple[str, str, int]] = field(default_factory=list)  # (device, connector, lanes)
    off_by_rule: list[str] = field(default_factory=list)  # connectors the board wires only for more lanes

    @property
    def over(self) -> int:
        """Lanes drawn beyond the CPU's usable lanes (0 within budget or when they are unknown)."""
        return max(0, self.drawn - self.usable) if self.usable is not None else 0


@dataclass
class Machine:
    nodes: dict[str, Node]
    sockets: int
    cpu_vendor: str  # intel | amd | unknown
    cpu: Cpu | None = None
    board: Board | None = None
    inter_socket: str | None = None  # UPI | xGMI | QPI
    nvlink: list[tuple[int, int]] = field(default_factory=list)
    software: Any = None
    build: Any = None
    notes: list[str] = field(default_factory=list)  # what the allocation did, in plain words
    unlinked: list[str] = field(default_factory=list)  # devices placed where no lanes reach them
    placement: dict[int, str] = field(default_factory=dict)  # GPU index -> connector
    lane_budget: list[LaneBudget] = field(default_factory=list)  # per socket; empty for an explicit tree
    platform: str | None = None  # desktop | workstation | server: the CPU's segment, or the tree's say
    family_said: str | None = None  # the CPU family a tree names where its CPU is not in the catalog
    nvswitch: bool = False  # every GPU pair reaches the others through NVSwitch (an HGX baseboard)
    nvls: bool = False  # the NVSwitch reduces in the fabric (NVLink SHARP)
    system: Any = None  # the catalog system (an HGX baseboard) the machine is built on
    node_count: int = 1  # identical machines joined by their NICs (a multi-node build)

    @property
    def segment(self) -> str | None:
        return self.cpu.segment if self.cpu is not None else self.platform

    @property
    def cpu_family(self) -> str | None:
        """The CPU family id (catalog CPU's, or what a tree says), for platform-keyed constants."""
        return self.cpu.family if self.cpu is not None else self.family_said

    @property
    def nics(self) -> list[Node]:
        return sorted((n for n in self.nodes.values() if n.kind == "nic"), key=lambda n: n.index or 0)

    @property
    def gpus(self) -> list[Node]:
        return sorted(
            (n for n in self.nodes.values() if n.kind == "gpu" and n.link is not None),
            key=lambda n: n.index or 0,
        )

    @property
    def all_gpus(self) -> list[Node]:
        return sorted((n for n in self.nodes.values() if n.kind == "gpu"), key=lambda n: n.index or 0)

    def on_chipset(self, node_id: str) -> bool:
        """The device hangs off the chipset, not the CPU's lanes: it shares the chipset's uplink."""
        return any(self.nodes[a].kind == "chipset" for a in self.ancestors(node_id)[1:])

    def ancestors(self, node_id: str) -> list[str]:
        """The node and its ancestors up to the socket, nearest first."""
        out = []
        cur: str | None = node_id
        while cur is not None:
            out.append(cur)
            cur = self.nodes[cur].parent
        return out

    def children(self, node_id: str) -> list[Node]:
        return [n for n in self.nodes.values() if n.parent == node_id]
