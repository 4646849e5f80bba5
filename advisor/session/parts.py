"""What a part is, in the few words a picker, a list or a message shows: key specs, a board's slots and
how their lanes split, the short names people use, and whether a board takes a CPU."""

from __future__ import annotations

from dataclasses import dataclass

from advisor.base.errors import UserError
from advisor.i18n import N_, _, ngettext
from advisor.model.catalog.models import Board, Connector, Cpu, Gpu, Part
from advisor.model.catalog.store import Catalog
from advisor.model.lanes import widths_with


@dataclass
class Choice:
    """One row of a part or slot picker: what to pick, how to show it, whether it fits."""

    key: str
    label: str
    specs: str
    price: float | None = None
    fits: bool = True
    why_not: str = ""
    aliases: tuple[str, ...] = ()  # other names the part goes by, for the picker's filter


def part_specs(p: Part) -> str:
    """A part's key specs in one short line, for pickers and lists."""
    if isinstance(p, Cpu):
        lanes = p.pcie.usable_lanes if p.pcie.usable_lanes is not None else "?"
        specs = [p.socket]
        if p.cores:
            specs.append(_("{count} cores").format(count=p.cores))
        specs.append(_("{count} lanes Gen{gen}").format(count=lanes, gen=p.pcie.max_gen))
        specs.append(_("{count}ch").format(count=p.memory.channels or "?"))  # memory channels
        return _(", ").join(specs)
    if isinstance(p, Gpu):
        specs = [
            f"{p.vram_gb:g} GB",
            f"Gen{p.pcie.gen} x{p.pcie.width}",
            "P2P" if p.p2p.stock_linux else _("no P2P"),
        ]
        if p.nvlink.supported:
            specs.append("NVLink")
        if p.board_power_w:
            specs.append(f"{p.board_power_w} W")
        return _(", ").join(specs)
    if isinstance(p, Board):
        return board_summary(p)
    return ""


# a board's market segment as a picker names it (the catalog's value is an id)
SEGMENT_WORDS = {
    "consumer": N_("consumer"),
    "workstation": N_("workstation"),
    "server": N_("server"),
    "gpu-server": N_("gpu-server"),
}


def _segment(board: Board) -> str:
    return _(SEGMENT_WORDS[board.segment]) if board.segment in SEGMENT_WORDS else board.segment


def board_summary(board: Board) -> str:
    """What a board offers GPUs, read from its catalog wiring: the x16-long slots on CPU lanes and the
    widths they run at (alone, together when they split a lane group, with the M.2 sockets and the
    sharing rules that take their lanes), slots behind switches, chipset slots, M.2 sockets."""
    if not board.slots:
        return _("slots not in the catalog") + f" · {board.socket} {_segment(board)}"

    def size(c: Connector) -> int:
        return c.physical or c.width

    def source(c: Connector) -> str:
        return board.group(c.group).source

    cpu16 = [c for c in board.slots if source(c) == "cpu" and size(c) >= 16]
    parts = []
    if cpu16:
        alone = {c.name: widths_with(board, [(c, "gpu")])[c.name] for c in cpu16}
        # slots that split one lane group between them: their widths with all of them populated
        by_group: dict[str, list[Connector]] = {}
        for c in cpu16:
            by_group.setdefault(c.group, []).append(c)
        shared = {
            g: cs
            for g, cs in by_group.items()
            if len(cs) > 1 and not board.group(g).independent and board.group(g).lanes is not None
        }
        single = [c for c in cpu16 if c.group not in shared]
        modes = []
        off = _("off")  # a slot the others' lanes switch off
        for cs in shared.values():
            together = widths_with(board, [(c, "gpu") for c in cs])
            split = "/".join(f"x{together[c.name]}" if together[c.name] else off for c in cs)
            lead = "" if not single and len(shared) == 1 else f"{'/'.join(c.name for c in cs)} "
            modes.append(
                lead
                + (
                    _("x{alone}, or {split} with both")
                    if len(cs) == 2
                    else _("x{alone}, or {split} with all {count}")
                ).format(alone=alone[cs[0].name], split=split, count=len(cs))
            )
        if single:
            widths = [alone[c.name] for c in single]
            if len(set(widths)) == 1:
                each = len(single) > 1
                said = (
                    (_("others x{width} each") if each else _("others x{width}"))
                    if shared
                    else (_("x{width} each") if each else "x{width}")
                )
                modes.append(said.format(width=widths[0]))
            else:
                modes.append(
                    _(", ").join(
                        _("{count} at x{width}").format(count=widths.count(w), width=w)
                        for w in sorted(set(widths), reverse=True)
                    )
                )
        # M.2 sockets that take a slot's lanes when populated, and the board's own sharing rules
        takes: dict[tuple[str, str], list[str]] = {}
        for c in cpu16:
            group = board.group(c.group)
            if group.independent or group.lanes is None:
                continue
            for m in board.m2:
                if m.group == c.group:
                    w = widths_with(board, [(c, "gpu"), (m, "nvme")])[c.name]
                    if w < alone[c.name]:
                        takes.setdefault((c.name, f"x{w}" if w else "off"), []).append(m.name)
        for rule in board.sharing:
            for name, effect in rule.effect.items():
                if name in alone:
                    what = off if effect == "disabled" else f"x{effect}"
                    takes.setdefault((name, what), []).append(" + ".join(rule.when))
        for (name, what), by in takes.items():
            modes.append(
                ("" if len(cpu16) == 1 else name + " ")
                + _("{width} with {parts}").format(width=what, parts=_(" or ").join(by))
            )
        need = sorted({board.group(c.group).requires_cpu_lanes or 0 for c in cpu16} - {0})
        for n in need:
            k = sum(1 for c in cpu16 if board.group(c.group).requires_cpu_lanes == n)
            modes.append(_("{count} need a CPU with {lanes} lanes").format(count=k, lanes=n))
        slots = ngettext("{count} CPU x16 slot", "{count} CPU x16 slots", len(cpu16)).format(count=len(cpu16))
        parts.append(_("{slots} ({modes})").format(slots=slots, modes=_("; ").join(modes)))
    cpu_short = [c for c in board.slots if source(c) == "cpu" and size(c) < 16]
    for w in sorted({size(c) for c in cpu_short}, reverse=True):
        k = sum(1 for c in cpu_short if size(c) == w)
        parts.append(
            ngettext("{count} CPU x{width} slot", "{count} CPU x{width} slots", k).format(count=k, width=w)
        )
    behind = [c for c in board.slots if source(c) == "switch"]
    if behind:
        switches = {board.group(c.group).switch for c in behind}
        up = sorted({s.uplink_width for s in board.switches if s.id in switches}, reverse=True)
        uplink = "/".join(f"x{w}" for w in up)
        sizes = "/".join(f"x{w}" for w in sorted({size(c) for c in behind}, reverse=True))
        each = len(switches) > 1
        if board.sockets > 1:
            to = _("each {uplink} to a CPU") if each else _("{uplink} to a CPU")
        else:
            to = _("each {uplink} to the CPU") if each else _("{uplink} to the CPU")
        parts.append(
            _("{slots} behind {switches} ({uplink})").format(
                slots=ngettext("{count} {widths} slot", "{count} {widths} slots", len(behind)).format(
                    count=len(behind), widths=sizes
                ),
                switches=ngettext("{count} switch", "{count} switches", len(switches)).format(
                    count=len(switches)
                ),
                uplink=to.format(uplink=uplink),
            )
        )
    chipset = [c for c in board.slots if source(c) == "chipset"]
    if chipset:
        widths = "/".join(f"x{w}" for w in sorted({c.width for c in chipset}, reverse=True))
        slots = ngettext("{count} chipset slot", "{count} chipset slots", len(chipset)).format(
            count=len(chipset)
        )
        parts.append(_("{slots} ({modes})").format(slots=slots, modes=widths))
    if board.m2:
        parts.append(_("{count} M.2").format(count=len(board.m2)))
    parts.append(f"{board.socket} {_segment(board)}")
    return " · ".join(parts)


def short_part_name(part: Part | None, written: str | None) -> str:
    """A part's name as people say it: a GPU's shortest alias that starts with a letter ("RTX 4090"), a
    board's shortest alias with its chipset in it ("Z790 Hero"), or the name without the vendor."""
    if part is None:
        return written or ""
    names = [part.name, *part.aliases]
    if isinstance(part, Board) and part.chipset:
        with_chipset = [n for n in names if part.chipset.casefold() in n.casefold()]
        if with_chipset:
            return min(with_chipset, key=len)
    if isinstance(part, Gpu):
        lettered = [n for n in names if n[:1].isalpha()]
        if lettered:  # the shortest, written with its spaces ("RTX 4090", not "RTX4090")
            return min(lettered, key=lambda n: (len(n.replace(" ", "")), -n.count(" ")))
    vendor = getattr(part, "vendor", "") or ""
    return part.name[len(vendor) :].strip() if vendor and part.name.startswith(vendor) else part.name


def resolved(catalog: Catalog, ref: str | None, kind: str) -> Part | None:
    try:
        return catalog.resolve(ref, kind) if ref else None
    except UserError:
        return None


def said_name(part: Part | None, written: str | None) -> str:
    """The name a generated build name gives a part: its first alias, the name people say it by in the
    catalog ("RTX 4090", "i9-14900K", "ROG Maximus Z790 Hero"), else its name; as written when the
    catalog does not know it."""
    if part is None:
        return written or ""
    return part.aliases[0] if part.aliases else part.name


def board_refuses(board: Board | None, cpu: Cpu | None) -> str:
    if board is None or cpu is None:
        return ""
    if cpu.socket.lower() != board.socket.lower():
        return _("socket {cpu_socket}, board is {board_socket}").format(
            cpu_socket=cpu.socket, board_socket=board.socket
        )
    if board.cpu_families is not None and cpu.family not in board.cpu_families:
        return _("{board} does not take the {family} family").format(board=board.name, family=cpu.family)
    return ""
