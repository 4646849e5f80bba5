"""Lane allocation: which link every device negotiates on a catalog board.

Each non-independent lane group picks one bifurcation mode; a populated connector gets the
segment that starts at its first lane, narrowed to its width (docs/boards.md). The negotiated
generation is the lowest of device, connector, lane group and CPU.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from itertools import pairwise

from advisor.base.errors import UserError
from advisor.i18n import _, ngettext
from advisor.model import nodeids as ids
from advisor.model.build import Build
from advisor.model.catalog.models import Board, Connector, Cpu, Gpu, LaneGroup
from advisor.model.catalog.store import Catalog
from advisor.model.machine import LaneBudget, Link, Machine, Nic, Node


@dataclass
class Device:
    key: str  # unique: gpu0, nvme:M.2_1, nic0, switch:sw0
    kind: str
    gen: int
    width: int
    gpu: Gpu | None = None
    index: int | None = None
    label: str = ""
    nic: Nic | None = None  # a NIC's network side


def _modes(group: LaneGroup) -> list[list[int]]:
    modes = group.bifurcation or [f"x{group.lanes}"]
    return [[int(x) for x in m.split("x") if x] for m in modes]


def _segments(mode: list[int]) -> dict[int, int]:
    out, start = {}, 0
    for w in mode:
        out[start] = w
        start += w
    return out


_PRIORITY = {"gpu": 0, "switch": 0, "nic": 1, "nvme": 2}


def _allocate_group(group: LaneGroup, members: list[tuple[Connector, Device, int]]) -> dict[str, int]:
    """Width per connector name for one shared group; 0 = no link. members: (connector, device, cap)."""
    if group.independent or group.lanes is None:
        return {c.name: cap for c, _, cap in members}
    best: tuple | None = None
    best_widths: dict[str, int] = {}
    for mode in _modes(group):
        segs = _segments(mode)
        widths = {}
        taken: set[int] = set()
        # A segment goes to one connector only: GPUs (and switch uplinks) first, then the rest.
        for c, _dev, cap in sorted(members, key=lambda m: _PRIORITY.get(m[1].kind, 9)):
            seg = segs.get(c.first_lane)
            if seg and cap and c.first_lane not in taken:
                widths[c.name] = min(seg, cap)
                taken.add(c.first_lane)
            else:
                widths[c.name] = 0
        linked_gpus = sum(1 for c, d, _ in members if d.kind == "gpu" and widths[c.name])
        linked = sum(1 for c, _, _ in members if widths[c.name])
        gpu_lanes = sum(widths[c.name] for c, d, _ in members if d.kind in ("gpu", "switch"))
        score = (linked_gpus, linked, gpu_lanes, sum(widths.values()))
        if best is None or score > best:
            best, best_widths = score, widths
    return best_widths


def _gen_of(board: Board, cpu: Cpu | None, conn: Connector, dev: Device) -> tuple[int, list[str]]:
    group = board.group(conn.group)
    caps = [("the device", dev.gen), (f"lane group {group.id}", group.gen)]
    if conn.gen:
        caps.append((f"{conn.name}", conn.gen))
    if group.source == "cpu" and cpu is not None:
        caps.append((cpu.name, cpu.pcie.max_gen))
    if group.source == "switch":
        sw = next(s for s in board.switches if s.id == group.switch)
        caps.append((f"switch {sw.id}", sw.gen))
    gen = min(g for _, g in caps)
    why = [
        _("{part} is Gen{gen}").format(part=name, gen=g)
        for name, g in caps
        if g == gen and gen < dev.gen and name != "the device"
    ]
    return gen, why


def resolve_parts(build: Build, catalog: Catalog) -> tuple[Cpu, Board, list[Gpu]]:
    cpu = catalog.resolve(build.cpu or "", "cpu", "CPU", build.where("cpu", build.cpu))
    board = catalog.resolve(build.board or "", "board", "motherboard", build.where("board", build.board))
    gpus = [catalog.resolve(g.model, "gpu", "GPU", build.where("gpu", g.model)) for g in build.gpus]
    if cpu.socket.lower() != board.socket.lower():
        raise UserError(
            _("{cpu} (socket {cpu_socket}) does not fit {board} (socket {board_socket})").format(
                cpu=cpu.name, cpu_socket=cpu.socket, board=board.name, board_socket=board.socket
            ),
            hint=_("pick a board with the CPU's socket: {command}").format(
                command="`advisor catalog list --kind board`"
            ),
        )
    if board.cpu_families is not None and cpu.family not in board.cpu_families:
        others = [
            b.name
            for b in catalog.boards
            if b.slots
            and b.socket.lower() == cpu.socket.lower()
            and (b.cpu_families is None or cpu.family in b.cpu_families)
        ]
        hint = (
            _("pick a CPU of one of those families, or a board that takes this one: {boards}").format(
                boards=", ".join(sorted(others))
            )
            if others
            # a board lists a family only where a source says its BIOS runs it; the user may know better
            else _(
                "pick a CPU of one of those families; no catalog board takes the {family} family yet (no "
                "board's CPU support list naming it was found). If your board's BIOS runs it, copy the "
                "board's entry into your own catalog folder (--catalog DIR) and add {family} to its "
                "cpu_families"
            ).format(family=cpu.family)
        )
        raise UserError(
            _("{board} does not take {cpu} (family {family}); it takes: {families}").format(
                board=board.name, cpu=cpu.name, family=cpu.family, families=", ".join(board.cpu_families)
            ),
            hint=hint,
        )
    return cpu, board, gpus  # type: ignore[return-value]


def allocate(build: Build, catalog: Catalog) -> Machine:
    """Resolve the build's parts, place the devices and negotiate every link."""
    cpu, board, gpu_parts = resolve_parts(build, catalog)
    # a one-socket part (EPYC "P") on a two-socket board runs alone, unless the build asks for two
    sockets = build.cpu_count or min(board.sockets, cpu.max_sockets)
    if sockets > board.sockets or sockets > cpu.max_sockets:
        raise UserError(
            _("{n} CPUs asked for, but {board} has {sockets} socket(s) and {cpu} supports {most}").format(
                n=sockets, board=board.name, sockets=board.sockets, cpu=cpu.name, most=cpu.max_sockets
            )
        )

    devices: list[tuple[Device, str | None]] = []  # (device, requested slot)
    idx = 0
    for spec, part in zip(build.gpus, gpu_parts, strict=True):
        if spec.slot and spec.count > 1:
            raise UserError(
                _("GPU {model}: a slot can take one card, but count is {count}").format(
                    model=repr(spec.model), count=spec.count
                ),
                hint=_("list each card with its own slot"),
            )
        for _i in range(spec.count):
            devices.append(
                (
                    Device(
                        ids.device("gpu", idx), "gpu", part.pcie.gen, part.pcie.width, part, idx, part.name
                    ),
                    spec.slot,
                )
            )
            idx += 1
    for i, nic in enumerate(n for spec in build.nics for n in [spec] * spec.count):
        devices.append(
            (
                Device(f"nic{i}", "nic", nic.gen, nic.width, None, i, nic.name, Nic(nic.gbps, nic.fabric)),
                nic.slot,
            )
        )

    # Slot and socket names as people type them: case does not matter ("PCIEX16_1" = "PCIEx16_1").
    by_fold = {c.name.casefold(): c.name for c in board.slots + board.m2}
    devices = [(d, by_fold.get(s.casefold(), s) if s else s) for d, s in devices]
    slot_names = {c.name for c in board.slots}
    for _dev, slot in devices:
        if slot is not None and slot not in slot_names:
            raise UserError(
                _("{board} has no slot {slot}").format(board=board.name, slot=repr(slot)),
                hint=_("its slots: {slots}").format(slots=", ".join(c.name for c in board.slots)),
            )
    wanted = [s for _dev, s in devices if s]
    dup = {s for s in wanted if wanted.count(s) > 1}
    if dup:
        raise UserError(_("slot {slot} is given to more than one card").format(slot=repr(sorted(dup)[0])))
    usable_slots = [c for c in board.slots if _reaches_cpu(board, board.group(c.group), cpu, sockets)]
    if devices and not board.slots:
        raise UserError(
            _("{board} has no slot table in the catalog, so no card can be placed on it").format(
                board=board.name
            ),
            hint=_(
                "its catalog entry lists no slots yet (`advisor catalog audit` names such boards); describe "
                "the machine as an explicit `topology:` tree, or add the board's slots in your own catalog folder"
            ),
        )
    if len(devices) > len(board.slots):
        hint = _("use fewer cards, or a board with more slots")
        if not board.verified:
            hint = _(
                "this board's slot table is not verified and may be incomplete in the catalog; "
                "describe the machine as an explicit `topology:` tree, or add the board to your own catalog"
            )
        raise UserError(
            _("{n} cards (GPUs and NICs) but {board} has {slots} slots in the catalog").format(
                n=len(devices), board=board.name, slots=len(board.slots)
            ),
            hint=hint,
        )

    m2_names = {c.name for c in board.m2}
    nvme: list[tuple[Device, str]] = []
    for n in build.nvme:
        n = n.model_copy(update={"socket": by_fold.get(n.socket.casefold(), n.socket)})
        if n.socket not in m2_names:
            raise UserError(
                _("{board} has no M.2 socket {socket}").format(board=board.name, socket=repr(n.socket)),
                hint=_("its M.2 sockets: {sockets}").format(sockets=", ".join(sorted(m2_names)) or _("none")),
            )
        nvme.append((Device(f"nvme:{n.socket}", "nvme", n.gen, n.width, label="NVMe SSD"), n.socket))

    fixed = {s: d for d, s in devices if s}
    free = [d for d, s in devices if not s]
    candidates = [c.name for c in usable_slots if c.name not in fixed] or []
    if len(free) > len(candidates):
        candidates = [c.name for c in board.slots if c.name not in fixed]
    best: tuple | None = None
    best_result = None
    free_gpus = [d for d in free if d.kind == "gpu"]
    free_other = [d for d in free if d.kind != "gpu"]
    combos = (
        itertools.permutations(candidates, len(free_gpus))
        if _distinct_gpus(free_gpus)
        else itertools.combinations(candidates, len(free_gpus))
    )
    seen = 0
    for combo in combos:
        seen += 1
        if seen > 5000:
            break
        placed = dict(fixed)
        placed.update(zip(combo, free_gpus, strict=False))
        rest = [c for c in candidates if c not in combo]
        placed.update(zip(rest, free_other, strict=False))
        result = _negotiate(board, cpu, sockets, placed, nvme)
        score = _placement_score(board, placed, result, nvme)
        if best is None or score > best:
            best, best_result = score, (placed, result)
    if best_result is None:
        placed = dict(fixed)
        best_result = (placed, _negotiate(board, cpu, sockets, placed, nvme))
    placed, (links, notes) = best_result
    if sockets < board.sockets and not build.cpu_count:
        notes = [
            _(
                "{cpu} runs in one socket only (max_sockets {most}): {board}'s socket {socket} stays empty, "
                "and the slots wired to it have no lanes"
            ).format(cpu=cpu.name, most=cpu.max_sockets, board=board.name, socket=sockets),
            *notes,
        ]
    machine = _to_machine(build, cpu, board, sockets, placed, nvme, links, notes)
    machine.lane_budget = lane_budget(board, cpu, sockets, placed, nvme, links)
    return machine


def lane_budget(
    board: Board,
    cpu: Cpu,
    sockets: int,
    placed: dict[str, Device],
    nvme: list[tuple[Device, str]],
    links: dict[str, Link | None],
) -> list[LaneBudget]:
    """Per socket: the CPU lanes the negotiated links of the populated connectors (and switch uplinks)
    on CPU lane groups take, against the CPU's usable lanes. Groups the board wires only for a CPU with
    more lanes (`requires_cpu_lanes`) have already lost theirs; they are listed as the board's rule."""
    budgets = {s: LaneBudget(s, cpu.pcie.usable_lanes, 0) for s in range(sockets)}
    takers: list[tuple[LaneGroup, str, str, str]] = []  # (group, device key, what, connector)
    for name, dev in list(placed.items()) + [(s, d) for d, s in nvme]:
        conn = board.connector(name)
        if conn is None:
            continue
        what = f"GPU{dev.index}" if dev.kind == "gpu" else dev.label or dev.kind
        takers.append((board.group(conn.group), dev.key, what, name))
    for sw in board.switches:
        takers.append(
            (board.group(sw.uplink_group), ids.switch(sw.id), f"switch {sw.chip or sw.id}", "uplink")
        )
    for group, key, what, where in takers:
        link = links.get(key)
        if group.source != "cpu" or link is None or group.socket not in budgets:
            continue
        b = budgets[group.socket]
        b.drawn += link.width
        b.takers.append((what, where, link.width))
    for group in board.lane_groups:
        if group.source == "cpu" and group.socket in budgets and not _group_wired(group, cpu, sockets):
            if group.requires_cpu_lanes:
                budgets[group.socket].off_by_rule += [
                    c.name for c in board.slots + board.m2 if c.group == group.id
                ]
    return [budgets[s] for s in sorted(budgets)]


def _chipset_bridge(board: Board, group: LaneGroup) -> str | None:
    """The host bridge the chipset hangs from: its group's own, else the one every CPU group of its socket
    names (a desktop CPU has one root complex, bus 00: a chipset GPU and a CPU-slot GPU are PHB, not NODE),
    else unknown."""
    if group.host_bridge is not None:
        return group.host_bridge
    named = {g.host_bridge for g in board.lane_groups if g.source == "cpu" and g.socket == group.socket}
    return named.pop() if len(named) == 1 and None not in named else None


def _distinct_gpus(gpus: list[Device]) -> bool:
    return len({d.gpu.id for d in gpus if d.gpu}) > 1


def _reaches_cpu(board: Board, group: LaneGroup, cpu: Cpu, sockets: int, depth: int = 0) -> bool:
    """A lane group whose lanes lead to a populated CPU: wired itself and, behind a switch, every switch
    uplink up to the CPU (a slot behind a switch on an empty socket is as dead as the socket's own)."""
    if not _group_wired(group, cpu, sockets):
        return False
    if group.source != "switch" or depth > 8:
        return True
    switch = next((s for s in board.switches if s.id == group.switch), None)
    if switch is None:
        return True
    return _reaches_cpu(board, board.group(switch.uplink_group), cpu, sockets, depth + 1)


def _group_wired(group: LaneGroup, cpu: Cpu, sockets: int) -> bool:
    if group.socket >= sockets:
        return False
    # An unknown lane count is not taken as too few: the slot is assumed wired (and a rule can say so).
    if (
        group.requires_cpu_lanes
        and cpu.pcie.usable_lanes is not None
        and cpu.pcie.usable_lanes < group.requires_cpu_lanes
    ):
        return False
    return True


def _placement_score(
    board: Board, placed: dict[str, Device], result, nvme: list[tuple[Device, str]] = ()
) -> tuple:
    """Higher is better: every GPU linked, then every SSD the user put in a socket keeps its lanes
    (a GPU in a slot that shares them would leave it dead), then no cooler over the next card, then
    the slowest GPU's link, all GPUs' links, fewer on chipset lanes, nearer the CPU."""
    links, _notes = result
    nvme_linked = sum(1 for dev, _ in nvme if links.get(dev.key))
    gpu_rates = []
    chipset = 0
    for name, dev in placed.items():
        if dev.kind != "gpu":
            continue
        link = links.get(dev.key)
        rate = link.width * (2 ** (link.gen - 1)) if link else 0
        gpu_rates.append(rate)
        conn = board.connector(name)
        if conn and board.group(conn.group).source == "chipset":
            chipset += 1
    overlaps = _overlaps(board, placed)
    positions = sum((board.connector(n).position or 99) for n in placed)
    linked = sum(1 for r in gpu_rates if r)
    return (linked, nvme_linked, -overlaps, min(gpu_rates or [0]), sum(gpu_rates), -chipset, -positions)


def _overlaps(board: Board, placed: dict[str, Device]) -> int:
    """Cards whose cooler covers the next populated slot position."""
    count = 0
    spans = []
    for name, dev in placed.items():
        conn = board.connector(name)
        if conn is None or conn.position is None:
            continue
        thick = dev.gpu.slot_width if dev.gpu and dev.gpu.slot_width else 1
        spans.append((conn.position, conn.position + thick))
    spans.sort()
    for (_a0, a1), (b0, _b1) in pairwise(spans):
        if b0 < a1:
            count += 1
    return count


def _negotiate(
    board: Board, cpu: Cpu, sockets: int, placed: dict[str, Device], nvme: list[tuple[Device, str]]
) -> tuple[dict[str, Link | None], list[str]]:
    notes: list[str] = []
    populated: dict[str, Device] = dict(placed)
    for dev, sock in nvme:
        populated[sock] = dev
    caps: dict[str, int] = {}
    disabled: set[str] = set()
    for rule in board.sharing:
        if all(n in populated for n in rule.when):
            for target, eff in rule.effect.items():
                if eff == "disabled":
                    disabled.add(target)
                else:
                    caps[target] = min(caps.get(target, 16), int(eff))
                if target in populated:
                    if eff == "disabled":
                        text = ngettext(
                            "{target} disabled because {when} is populated",
                            "{target} disabled because {when} are populated",
                            len(rule.when),
                        )
                    else:
                        text = ngettext(
                            "{target} limited to x{width} because {when} is populated",
                            "{target} limited to x{width} because {when} are populated",
                            len(rule.when),
                        )
                    notes.append(text.format(target=target, width=eff, when=_(" and ").join(rule.when)))
    members_by_group: dict[str, list[tuple[Connector, Device, int]]] = {}
    for name, dev in populated.items():
        conn = board.connector(name)
        assert conn is not None
        cap = min(conn.width, dev.width, caps.get(name, 16))
        if name in disabled:
            cap = 0
        members_by_group.setdefault(conn.group, []).append((conn, dev, cap))
    # switch uplinks claim lanes in their parent group like a device
    for sw in board.switches:
        conn = Connector(
            name=ids.switch(sw.id),
            group=sw.uplink_group,
            first_lane=sw.uplink_first_lane,
            width=sw.uplink_width,
        )
        dev = Device(ids.switch(sw.id), "switch", sw.gen, sw.uplink_width, label=sw.chip or sw.id)
        members_by_group.setdefault(sw.uplink_group, []).append((conn, dev, sw.uplink_width))
    links: dict[str, Link | None] = {}
    for gid, members in members_by_group.items():
        group = board.group(gid)
        if not _group_wired(group, cpu, sockets):
            for c, d, _cap in members:
                links[d.key] = None
                if d.kind != "switch":
                    why = (
                        _("{slot} has no lanes: its lane group {group} needs a CPU with {lanes} lanes")
                        if group.requires_cpu_lanes
                        and cpu.pcie.usable_lanes is not None
                        and cpu.pcie.usable_lanes < group.requires_cpu_lanes
                        else _(
                            "{slot} has no lanes: its lane group {group} is wired to CPU socket {socket}, which is empty"
                        )
                    )
                    notes.append(
                        why.format(
                            slot=c.name, group=gid, lanes=group.requires_cpu_lanes, socket=group.socket + 1
                        )
                    )
            continue
        widths = _allocate_group(group, [(c, d, cap) for c, d, cap in members])
        for c, d, _cap in members:
            w = widths.get(c.name, 0)
            if w <= 0:
                links[d.key] = None
                if d.kind != "switch" and c.name not in disabled:
                    notes.append(
                        _(
                            "{slot} gets no lanes: they are taken by another populated connector in {group}"
                        ).format(slot=c.name, group=gid)
                    )
                continue
            conn_for_gen = c if d.kind != "switch" else Connector(name=c.name, group=gid, width=c.width)
            gen, why = _gen_of(board, cpu, conn_for_gen, d)
            if d.kind == "switch":
                gen = min(gen, group.gen)
            limited = list(why)
            shared = False
            if w < d.width:
                if w < min(c.width, d.width) or c.name in caps:
                    sharers = [o.name for o, od, _o in members if o is not c and widths.get(o.name)]
                    shared = bool(sharers)
                    names = ", ".join(sharers)
                    reason = (
                        ngettext(
                            "{slot} runs x{width} because {others} shares its lanes",
                            "{slot} runs x{width} because {others} share its lanes",
                            len(sharers),
                        )
                        if sharers
                        else _("{slot} runs x{width}")
                    )
                    limited.append(reason.format(slot=c.name, width=w, others=names))
                    if d.kind == "gpu" and sharers:
                        note = ngettext(
                            "{device} in {slot}: x{full} -> x{width} because {others} shares its lanes",
                            "{device} in {slot}: x{full} -> x{width} because {others} share its lanes",
                            len(sharers),
                        )
                        notes.append(
                            note.format(
                                device=d.label, slot=c.name, full=min(c.width, d.width), width=w, others=names
                            )
                        )
                else:
                    limited.append(_("{slot} is wired x{width}").format(slot=c.name, width=w))
            links[d.key] = Link(
                gen=gen, width=w, max_gen=d.gen, max_width=d.width, limited_by=limited, shared=shared
            )
    return links, notes


def _to_machine(
    build: Build,
    cpu: Cpu,
    board: Board,
    sockets: int,
    placed: dict[str, Device],
    nvme: list[tuple[Device, str]],
    links: dict[str, Link | None],
    notes: list[str],
) -> Machine:
    nodes: dict[str, Node] = {}
    for s in range(sockets):
        nodes[ids.socket(s)] = Node(ids.socket(s), "socket", None, s, f"CPU{s} {cpu.name}", part_id=cpu.id)

    def host_bridge(socket: int, hb: str | None) -> str:
        hid = ids.host_bridge(socket, hb)
        if hid not in nodes:
            nodes[hid] = Node(
                hid, "host_bridge", ids.socket(socket), socket, _("host bridge {id}").format(id=hb or "0")
            )
        return hid

    uplink = board.chipset_uplink or cpu.chipset_uplink
    sw_parent: dict[str, str] = {}

    def parent_for(group: LaneGroup, conn_name: str) -> str:
        if group.source == "cpu":
            hb = host_bridge(group.socket, group.host_bridge)
            rp = ids.root_port(hb, group.id, conn_name)
            nodes.setdefault(
                rp,
                Node(
                    rp,
                    "root_port",
                    hb,
                    group.socket,
                    _("root port {id} ({slot})").format(id=group.id, slot=conn_name),
                ),
            )
            return rp
        if group.source == "chipset":
            cid = ids.chipset(group.socket)
            if cid not in nodes:
                hb = host_bridge(group.socket, _chipset_bridge(board, group))
                link = (
                    Link(
                        uplink.gen, uplink.width, uplink.gen, uplink.width, [f"chipset uplink {uplink.type}"]
                    )
                    if uplink
                    else None
                )
                nodes[cid] = Node(
                    cid, "chipset", hb, group.socket, f"chipset {board.chipset or ''}".strip(), link=link
                )
            return cid
        return sw_parent[group.switch or ""]

    # switches first (they may cascade)
    pending = list(board.switches)
    for _round in range(len(pending) + 1):
        for sw in list(pending):
            g = board.group(sw.uplink_group)
            if g.source == "switch" and g.switch not in sw_parent:
                continue
            sid = ids.switch(sw.id)
            link = links.get(sid)
            if link is not None:
                par = parent_for(g, sid)
                # a switch's socket is its parent's (a downstream lane group's own socket field defaults to 0)
                nodes[sid] = Node(
                    sid,
                    "switch",
                    par,
                    nodes[par].socket,
                    f"switch {sw.id} ({sw.chip or 'PCIe switch'})",
                    link=link,
                    chip=sw.chip,
                )
            sw_parent[sw.id] = sid
            pending.remove(sw)
    unlinked = []
    placement = {}
    for name, dev in list(placed.items()) + [(s, d) for d, s in nvme]:
        conn = board.connector(name)
        assert conn is not None
        group = board.group(conn.group)
        link = links.get(dev.key)
        if dev.kind == "gpu":
            placement[dev.index] = name
        socket = group.socket
        if link is None or (group.source == "switch" and sw_parent.get(group.switch or "") not in nodes):
            unlinked.append(f"{dev.label} in {name}")
            par = None
            nodes[dev.key] = Node(
                dev.key,
                dev.kind,
                None,
                socket,
                dev.label,
                None,
                name,
                dev.gpu,
                dev.index,
                dev.gpu.id if dev.gpu else None,
                conn.position,
            )
            continue
        par = parent_for(group, name)
        socket = nodes[par].socket  # behind a switch: the socket the switch hangs off
        nodes[dev.key] = Node(
            dev.key,
            dev.kind,
            par,
            socket,
            dev.label,
            link,
            name,
            dev.gpu,
            dev.index,
            dev.gpu.id if dev.gpu else None,
            conn.position,
            nic=dev.nic,
        )
    inter = cpu.inter_socket.type if (cpu.inter_socket and sockets > 1) else None
    return Machine(
        nodes=nodes,
        sockets=sockets,
        cpu_vendor=cpu.cpu_vendor,
        cpu=cpu,
        board=board,
        inter_socket=inter,
        nvlink=[(a, b) for a, b in build.nvlink],
        software=build.software,
        build=build,
        notes=notes,
        unlinked=unlinked,
        placement=placement,
        node_count=build.nodes,
    )


def widths_with(board: Board, populated: list[tuple[Connector, str]]) -> dict[str, int]:
    """The width each connector gets with exactly these populated ((connector, 'gpu' or 'nvme')), by
    this module's own lane allocation, one lane group at a time (the app's board summaries use it)."""
    out: dict[str, int] = {}
    groups: dict[str, list] = {}
    for conn, kind in populated:
        groups.setdefault(conn.group, []).append((conn, Device(conn.name, kind, 5, conn.width), conn.width))
    for gid, members in groups.items():
        out.update(_allocate_group(board.group(gid), members))
    return out
