"""The machine as a networkx graph: one pure function builds it; queries live beside it.

Nodes carry their kind and catalog id; edges carry the PCIe link (gen, width, raw GB/s per
direction), the chipset uplink, the inter-socket link, and NVLink bridges.
"""

from __future__ import annotations

import networkx as nx

from advisor.model import nodeids as ids
from advisor.model.constants import const
from advisor.model.machine import Machine

PATH_ORDER = ["NV", "PIX", "PXB", "PHB", "NODE", "SYS"]


def raw_gbps(gen: int, width: int) -> float:
    return const("pcie_lane_gbps")[gen] * width


def build_graph(machine: Machine) -> nx.Graph:
    g = nx.Graph()
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
                links=links,
                gbps=min(ga.nvlink.gbps_per_direction or 0, gb.nvlink.gbps_per_direction or 0) or None,
            )
    return g


def pcie_path(g: nx.Graph, a: str, b: str) -> list[str]:
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
        raise nx.NetworkXNoPath(f"no PCIe path between {a} and {b}")
    in_b = set(ub)
    meet = next(n for n in ua if n in in_b)
    path = ua[: ua.index(meet) + 1] + list(reversed(ub[: ub.index(meet)]))
    cache[(a, b)] = path
    return path


def path_class(g: nx.Graph, a: str, b: str) -> str:
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


def host_path(g: nx.Graph, gpu: str) -> list[str]:
    """From a GPU up to its socket (where its host memory is)."""
    socket = ids.socket(g.nodes[gpu]["socket"])
    return pcie_path(g, gpu, socket)
