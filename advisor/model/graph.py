"""The machine as a graph: one pure function builds it; queries live beside it.

Nodes carry their kind and catalog id; edges carry the PCIe link (gen, width, raw GB/s per
direction), the chipset uplink, the inter-socket link, and NVLink bridges.

The graph is a `MachineGraph`, a small undirected attribute graph with the part of networkx's
`Graph` interface the model uses (`nodes[n]`, `edges[u, v]`, `edges(data=True)`, `has_edge`,
`dfs_preorder`). Every query here walks the PCIe tree by its parent map, so none needs a graph
library; importing networkx costs about 0.25 s of a process's start on this machine (half of
`advisor validate`'s 0.5 s budget), so the core does not import it.
`MachineGraph.to_networkx()` gives the same graph as a `networkx.Graph` for analysis, and the tests
check the two agree (same nodes, edges, attributes and depth-first order).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from advisor.model import nodeids as ids
from advisor.model.constants import const
from advisor.model.machine import Machine

if TYPE_CHECKING:
    import networkx as nx

PATH_ORDER = ["NV", "PIX", "PXB", "PHB", "NODE", "SYS"]


class NoPath(LookupError):
    """Two nodes with no PCIe route between them (a malformed tree)."""


class _Edges:
    """`g.edges[u, v]` (the edge's attributes) and `g.edges(data=True)` (each edge once)."""

    def __init__(self, g: MachineGraph) -> None:
        self._g = g

    def __getitem__(self, uv: tuple[str, str]) -> dict[str, Any]:
        u, v = uv
        return self._g._adj[u][v]

    def __call__(self, data: bool = False) -> Iterator[tuple]:
        seen: set[str] = set()
        for u, nbrs in self._g._adj.items():
            for v, attrs in nbrs.items():
                if v not in seen:
                    yield (u, v, attrs) if data else (u, v)
            seen.add(u)


class MachineGraph:
    """An undirected graph with node and edge attributes, nodes and neighbours in insertion order
    (as networkx keeps them, so depth-first order is the same)."""

    def __init__(self) -> None:
        self.nodes: dict[str, dict[str, Any]] = {}
        self._adj: dict[str, dict[str, dict[str, Any]]] = {}
        self.graph: dict[str, Any] = {}
        self.edges = _Edges(self)

    def add_node(self, n: str, **attrs: Any) -> None:
        self.nodes.setdefault(n, {}).update(attrs)
        self._adj.setdefault(n, {})

    def add_edge(self, u: str, v: str, **attrs: Any) -> None:
        for n in (u, v):
            self.add_node(n)
        data = self._adj[u].get(v, {})
        data.update(attrs)
        self._adj[u][v] = self._adj[v][u] = data  # one dict for both directions, as networkx does

    def has_edge(self, u: str, v: str) -> bool:
        return v in self._adj.get(u, {})

    def neighbors(self, n: str) -> Iterator[str]:
        return iter(self._adj[n])

    def __contains__(self, n: object) -> bool:
        return n in self.nodes

    def __iter__(self) -> Iterator[str]:
        return iter(self.nodes)

    def __len__(self) -> int:
        return len(self.nodes)

    def dfs_preorder(self, source: str) -> Iterator[str]:
        """Nodes depth-first from source, neighbours in insertion order (networkx's
        `dfs_preorder_nodes`)."""
        yield source
        visited = {source}
        stack = [iter(self._adj[source])]
        while stack:
            for child in stack[-1]:
                if child not in visited:
                    visited.add(child)
                    yield child
                    stack.append(iter(self._adj[child]))
                    break
            else:
                stack.pop()

    def to_networkx(self) -> nx.Graph:
        """The same graph as a `networkx.Graph`, for analysis (networkx is the optional `graph` extra:
        `pip install 'advisor[graph]'`; the model never needs it)."""
        try:
            import networkx
        except ImportError:
            from advisor.base.errors import UserError

            raise UserError(
                "MachineGraph.to_networkx needs networkx, which advisor's model does not use",
                hint="pip install 'advisor[graph]'",
            ) from None

        g = networkx.Graph()
        g.graph.update(self.graph)
        for n, attrs in self.nodes.items():
            g.add_node(n, **attrs)
        for u, v, attrs in self.edges(data=True):
            g.add_edge(u, v, **attrs)
        return g


def raw_gbps(gen: int, width: int) -> float:
    return const("pcie_lane_gbps")[gen] * width


def build_graph(machine: Machine) -> MachineGraph:
    g = MachineGraph()
    for n in machine.nodes.values():
        g.add_node(n.id, kind=n.kind, socket=n.socket, label=n.label, part=n.part_id, connector=n.connector)
    for n in machine.nodes.values():
        if n.parent is None:
            continue
        if n.link is None:
            g.add_edge(n.id, n.parent, kind="internal")  # inside the CPU: root port, host bridge
            continue
        g.add_edge(
            n.id,
            n.parent,
            kind="chipset_uplink" if n.kind == "chipset" else "pcie",
            gen=n.link.gen,
            width=n.link.width,
            gbps=raw_gbps(n.link.gen, n.link.width),
        )
    for s in range(1, machine.sockets):
        g.add_edge(ids.ROOT, ids.socket(s), kind="inter_socket", link=machine.inter_socket)
    # The PCIe fabric is a tree (sockets joined at cpu0): keep parents for fast path queries.
    parent = {n.id: n.parent for n in machine.nodes.values() if n.parent is not None and n.id in g}
    parent.update({ids.socket(s): ids.ROOT for s in range(1, machine.sockets)})
    g.graph["parent"] = parent
    g.graph["paths"] = {}
    by_index = {n.index: n for n in machine.gpus}
    for a, b in machine.nvlink:
        if a in by_index and b in by_index:
            ga, gb = by_index[a].gpu, by_index[b].gpu
            if not (ga and gb and ga.nvlink.supported and gb.nvlink.supported):
                continue  # a bridge cannot join cards without NVLink connectors (rule NVL002 says so)
            links = min(ga.nvlink.links or 0, gb.nvlink.links or 0) or None
            g.add_edge(
                by_index[a].id,
                by_index[b].id,
                kind="nvlink",
                fabric="nvswitch" if machine.nvswitch else "bridge",
                links=links,
                gbps=min(ga.nvlink.gbps_per_direction or 0, gb.nvlink.gbps_per_direction or 0) or None,
            )
    return g


def pcie_path(g: MachineGraph, a: str, b: str) -> list[str]:
    """The PCIe route between two nodes (NVLink edges ignored): up the tree to where they meet, then down."""
    cache = g.graph["paths"]
    if (a, b) in cache:
        return cache[(a, b)]
    parent = g.graph["parent"]

    def up(n: str) -> list[str]:
        out = [n]
        while out[-1] in parent:
            out.append(parent[out[-1]])
        return out

    ua, ub = up(a), up(b)
    if ua[-1] != ub[-1]:
        raise NoPath(f"no PCIe path between {a} and {b}")
    in_b = set(ub)
    meet = next(n for n in ua if n in in_b)
    path = ua[: ua.index(meet) + 1] + list(reversed(ub[: ub.index(meet)]))
    cache[(a, b)] = path
    return path


def path_class(g: MachineGraph, a: str, b: str) -> str:
    """The pair's class as `nvidia-smi topo -m` prints it: NV#, PIX, PXB, PHB, NODE or SYS."""
    if g.has_edge(a, b) and g.edges[a, b]["kind"] == "nvlink":
        links = g.edges[a, b].get("links")
        return f"NV{links}" if links else "NV"
    path = pcie_path(g, a, b)
    inner = [g.nodes[n]["kind"] for n in path[1:-1]]
    if inner.count("socket") >= 2:
        return "SYS"
    if "socket" in inner:
        return "NODE"
    if "host_bridge" in inner or "chipset" in inner:
        return "PHB"
    switches = inner.count("switch")
    return "PIX" if switches <= 1 else "PXB"


def class_rank(path: str) -> int:
    return 0 if path.startswith("NV") else PATH_ORDER.index(path)


def host_path(g: MachineGraph, gpu: str) -> list[str]:
    """From a GPU up to its socket (where its host memory is)."""
    socket = ids.socket(g.nodes[gpu]["socket"])
    return pcie_path(g, gpu, socket)
