"""An explicit PCIe tree (for a machine whose board is not in the catalog) becomes a Machine."""

from __future__ import annotations

from advisor.base.errors import UserError
from advisor.i18n import _
from advisor.model import nodeids as ids
from advisor.model.build import Build, TreeDevice, TreeNode, TreeSwitch
from advisor.model.catalog.models import Gpu, System, SystemSwitch
from advisor.model.catalog.store import Catalog
from advisor.model.machine import Link, Machine, Nic, Node


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
                raise UserError(_("switch {id} appears twice in the topology").format(id=repr(child.switch)))
            nodes[sid] = Node(
                sid,
                "switch",
                parent,
                socket,
                f"switch {child.switch}",
                link=Link(child.gen, child.width, child.gen, child.width),
                chip=child.chip,
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
                index=i,
                nic=Nic(child.gbps, child.fabric) if kind == "nic" else None,
            )

    for s, sock in enumerate(topo.sockets):
        for rp in sock.root_ports:
            hb = ids.host_bridge(s, rp.host_bridge)
            nodes.setdefault(
                hb,
                Node(
                    hb,
                    "host_bridge",
                    ids.socket(s),
                    s,
                    _("host bridge {id}").format(id=rp.host_bridge or "0"),
                ),
            )
            rid = ids.root_port(hb, rp.id)
            if rid in nodes:
                raise UserError(
                    _("root port {id} appears twice on socket {socket}").format(id=repr(rp.id), socket=s)
                )
            nodes[rid] = Node(rid, "root_port", hb, s, _("root port {id}").format(id=rp.id))
            for c in rp.children:
                add(c, rid, s)
    if topo.chipset:
        ch = topo.chipset
        if ch.socket >= len(topo.sockets):
            raise UserError(
                _("the chipset is on socket {socket}, but the topology has {n}").format(
                    socket=ch.socket, n=len(topo.sockets)
                )
            )
        hb = ids.host_bridge(ch.socket, None)
        nodes.setdefault(
            hb,
            Node(hb, "host_bridge", ids.socket(ch.socket), ch.socket, _("host bridge {id}").format(id="0")),
        )
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
    gpu_count = counter["gpu"]
    nvlink = [(a, b) for a, b in build.nvlink]
    if build.nvswitch:
        nvlink = [(a, b) for a in range(gpu_count) for b in range(a + 1, gpu_count)]
    return Machine(
        nodes=nodes,
        sockets=len(topo.sockets),
        cpu_vendor=vendor,
        cpu=cpu,
        board=None,
        inter_socket=inter,
        nvlink=nvlink,
        software=build.software,
        build=build,
        platform=next((sk.platform for sk in topo.sockets if sk.platform), None),
        family_said=next((sk.family for sk in topo.sockets if sk.family), None),
        nvswitch=build.nvswitch,
        nvls=build.nvswitch and _nvls_capable([n.gpu for n in nodes.values() if n.kind == "gpu"]),
        node_count=build.nodes,
    )


def _nvls_capable(gpus: list) -> bool:
    """NVLink SHARP (the NVSwitch reducing in the fabric) came with Hopper's third-generation NVSwitch:
    NCCL's maintainer, nccl-tests#228: 'NVLS was a new feature of H100. A100 GPUs do not support it.'"""
    return bool(gpus) and all(g is not None and g.architecture in ("hopper", "blackwell") for g in gpus)


def machine_from_system(build: Build, catalog: Catalog) -> Machine:
    """A build on a catalog system (an HGX baseboard): its fixed PCIe tree with the build's GPU model in
    the first positions, its NICs (the build's, else the reference ones) in NIC positions 0, 1, ..., every
    GPU pair joined through NVSwitch; the host CPU is the build's `cpu`, else the reference host's vendor."""
    system = catalog.resolve(build.system, "system", "system", build.where("system", build.system))
    assert isinstance(system, System)
    if build.gpus:
        spec = build.gpus[0]
        gpu = catalog.resolve(spec.model, "gpu", "GPU", build.where("gpu", spec.model))
        if gpu.id not in system.gpus:
            takes = ", ".join(system.gpus)
            raise UserError(
                _("{system} takes {takes}; {gpu} does not fit its SXM sockets").format(
                    system=system.name, takes=takes, gpu=gpu.name
                ),
                hint=_("name one of the GPUs the system takes, or leave `gpus` out for its first"),
            )
        count = spec.count
        if count > system.gpu_positions:
            raise UserError(
                _("{system} has {positions} GPU positions; the build asks for {count} GPUs").format(
                    system=system.name, positions=system.gpu_positions, count=count
                )
            )
    else:
        gpu = catalog.resolve(system.gpus[0], "gpu", "GPU")
        count = system.gpu_positions
    assert isinstance(gpu, Gpu)
    nic_specs: list[tuple[str, int | None, str | None, int, int]] = []
    if build.nics:
        for n in build.nics:
            nic_specs += [(n.name, n.gbps, n.fabric, n.gen, n.width)] * n.count
    elif system.reference_nics is not None:
        r = system.reference_nics
        nic_specs = [(r.name, r.gbps, r.fabric, r.gen, r.width)] * r.count
    if len(nic_specs) > system.nic_positions:
        raise UserError(
            _("{system} has {positions} NIC positions; the build fits {count} NICs").format(
                system=system.name, positions=system.nic_positions, count=len(nic_specs)
            )
        )
    cpu = catalog.resolve(build.cpu, "cpu", "CPU", build.where("cpu", build.cpu)) if build.cpu else None
    vendor = cpu.cpu_vendor if cpu is not None else (system.cpu_vendor or "unknown")  # type: ignore[union-attr]
    nodes: dict[str, Node] = {}
    for s in range(system.sockets):
        nodes[ids.socket(s)] = Node(
            ids.socket(s),
            "socket",
            None,
            s,
            f"CPU{s} {cpu.name if cpu else ''}".strip(),
            part_id=cpu.id if cpu else None,
        )

    def add(sw: SystemSwitch, parent: str, socket: int) -> None:
        sid = ids.switch(sw.id)
        nodes[sid] = Node(
            sid,
            "switch",
            parent,
            socket,
            f"switch {sw.id}",
            link=Link(sw.gen, sw.width, sw.gen, sw.width),
            chip=sw.chip,
        )
        for pos in sw.gpus:
            if pos >= count:
                continue
            nid = ids.device("gpu", pos)
            g = gpu.pcie
            nodes[nid] = Node(
                nid,
                "gpu",
                sid,
                socket,
                gpu.name,
                Link(g.gen, g.width, g.gen, g.width),
                gpu=gpu,
                index=pos,
                part_id=gpu.id,
            )
        for pos in sw.nics:
            if pos >= len(nic_specs):
                continue
            name, gbps, fabric, gen, width = nic_specs[pos]
            nid = ids.device("nic", pos)
            nodes[nid] = Node(
                nid, "nic", sid, socket, name, Link(gen, width, gen, width), index=pos, nic=Nic(gbps, fabric)
            )
        for child in sw.switches:
            add(child, sid, socket)

    for s, sock in enumerate(system.topology):
        for rp in sock.root_ports:
            hb = ids.host_bridge(s, rp.host_bridge)
            nodes.setdefault(
                hb,
                Node(
                    hb,
                    "host_bridge",
                    ids.socket(s),
                    s,
                    _("host bridge {id}").format(id=rp.host_bridge or "0"),
                ),
            )
            rid = ids.root_port(hb, rp.id)
            nodes[rid] = Node(rid, "root_port", hb, s, _("root port {id}").format(id=rp.id))
            for sw in rp.switches:
                add(sw, rid, s)
    inter = system.inter_socket or (("UPI" if vendor == "intel" else "xGMI") if system.sockets > 1 else None)
    if cpu is not None and cpu.inter_socket is not None:  # type: ignore[union-attr]
        inter = cpu.inter_socket.type  # type: ignore[union-attr]
    return Machine(
        nodes=nodes,
        sockets=system.sockets,
        cpu_vendor=vendor,
        cpu=cpu,  # type: ignore[arg-type]
        board=None,
        inter_socket=inter,
        nvlink=[(a, b) for a in range(count) for b in range(a + 1, count)],
        software=build.software,
        build=build,
        platform="server",
        family_said=system.cpu_family,
        nvswitch=True,
        nvls=system.nvls and _nvls_capable([gpu]),
        system=system,
        node_count=build.nodes,
    )
