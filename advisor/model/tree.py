"""An explicit PCIe tree (for a machine whose board is not in the catalog) becomes a Machine."""

from __future__ import annotations

from advisor.base.errors import UserError
from advisor.model import nodeids as ids
from advisor.model.build import Build, TreeDevice, TreeNode, TreeSwitch
from advisor.model.catalog.store import Catalog
from advisor.model.machine import Link, Machine, Node


def machine_from_tree(build: Build, catalog: Catalog) -> Machine:
    topo = build.topology
    assert topo is not None
    nodes: dict[str, Node] = {}
    vendor = "unknown"
    cpu = None
    for s, sock in enumerate(topo.sockets):
        part = catalog.resolve(sock.cpu, "cpu", "CPU", build.where("cpu", sock.cpu)) if sock.cpu else None
        cpu = cpu or part
        v = sock.vendor or (part.cpu_vendor if part else None)  # type: ignore[union-attr]
        if v:
            vendor = v
        nodes[ids.socket(s)] = Node(
            ids.socket(s),
            "socket",
            None,
            s,
            f"CPU{s} {part.name if part else ''}".strip(),
            part_id=part.id if part else None,
        )
    counter = {"gpu": 0, "nic": 0, "nvme": 0, "switch": 0}

    def add(child: TreeNode, parent: str, socket: int) -> None:
        if isinstance(child, TreeSwitch):
            sid = ids.switch(child.switch)
            if sid in nodes:
                raise UserError(f"switch {child.switch!r} appears twice in the topology")
            nodes[sid] = Node(
                sid,
                "switch",
                parent,
                socket,
                f"switch {child.switch}",
                link=Link(child.gen, child.width, child.gen, child.width),
            )
            for c in child.children:
                add(c, sid, socket)
            return
        assert isinstance(child, TreeDevice)
        if child.gpu:
            gpu = catalog.resolve(child.gpu, "gpu", "GPU", build.where("gpu", child.gpu))
            i = counter["gpu"]
            counter["gpu"] += 1
            gen = child.gen or gpu.pcie.gen
            width = child.width or gpu.pcie.width
            limited = []
            if gen < gpu.pcie.gen or width < gpu.pcie.width:
                limited.append(f"trained at Gen{gen} x{width} in this machine")
            nodes[ids.device("gpu", i)] = Node(
                ids.device("gpu", i),
                "gpu",
                parent,
                socket,
                child.name or gpu.name,
                Link(gen, width, gpu.pcie.gen, gpu.pcie.width, limited),
                connector=child.name,
                gpu=gpu,
                index=i,
                part_id=gpu.id,
            )  # type: ignore[arg-type]
        else:
            kind = "nvme" if child.nvme else "nic"
            i = counter[kind]
            counter[kind] += 1
            gen, width = child.gen or 4, child.width or (4 if kind == "nvme" else 16)
            nodes[ids.device(kind, i)] = Node(
                ids.device(kind, i),
                kind,
                parent,
                socket,
                child.name or child.nic or kind,
                Link(gen, width, gen, width),
            )

    for s, sock in enumerate(topo.sockets):
        for rp in sock.root_ports:
            hb = ids.host_bridge(s, rp.host_bridge)
            nodes.setdefault(
                hb, Node(hb, "host_bridge", ids.socket(s), s, f"host bridge {rp.host_bridge or '0'}")
            )
            rid = ids.root_port(hb, rp.id)
            if rid in nodes:
                raise UserError(f"root port {rp.id!r} appears twice on socket {s}")
            nodes[rid] = Node(rid, "root_port", hb, s, f"root port {rp.id}")
            for c in rp.children:
                add(c, rid, s)
    if topo.chipset:
        ch = topo.chipset
        if ch.socket >= len(topo.sockets):
            raise UserError(f"the chipset is on socket {ch.socket}, but the topology has {len(topo.sockets)}")
        hb = ids.host_bridge(ch.socket, None)
        nodes.setdefault(hb, Node(hb, "host_bridge", ids.socket(ch.socket), ch.socket, "host bridge 0"))
        cid = ids.chipset(ch.socket)
        nodes[cid] = Node(
            cid,
            "chipset",
            hb,
            ch.socket,
            "chipset",
            link=Link(ch.gen, ch.width, ch.gen, ch.width, ["chipset uplink"]),
        )
        for c in ch.children:
            add(c, cid, ch.socket)
    inter = topo.inter_socket or (("UPI" if vendor == "intel" else "xGMI") if len(topo.sockets) > 1 else None)
    return Machine(
        nodes=nodes,
        sockets=len(topo.sockets),
        cpu_vendor=vendor,
        cpu=cpu,
        board=None,
        inter_socket=inter,
        nvlink=[(a, b) for a, b in build.nvlink],
        software=build.software,
        build=build,
        platform=next((sk.platform for sk in topo.sockets if sk.platform), None),
    )
