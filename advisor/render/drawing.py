"""The machine as an SVG drawing: sockets, host bridges (root complexes), the chipset, switches and the
devices in their slots, each link drawn as wide as its lanes, GPUs below their own link marked, and how
each pair of GPUs copies: over NVLink, PCIe P2P, or staged through host memory.

Drawn from `PlanOutput` (its `tree`, `gpus` and `pairs`), never from the model's objects: the report,
`--format svg`, the picture and the app all draw the same thing. The drawing holds its own style, so the
file alone renders the same as the drawing inside the report; it has no script and fetches nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from advisor.outputs.plan import GpuOut, PairOut, PlanOutput, TreeNodeOut
from advisor.render.words import (
    cells,
    esc,
    gpu_label,
    link_label,
    number,
    slot_label,
    t,
    uplink_label,
    way_label,
    wrap,
)

# the system's own font, with the Chinese fonts of macOS, Linux and Windows after it: the drawing carries
# no font and reads in the reader's language on each of them
FONT_STACK = (
    'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "PingFang SC", '
    '"Hiragino Sans GB", "Noto Sans CJK SC", "Source Han Sans SC", "Microsoft YaHei", '
    '"WenQuanYi Micro Hei", sans-serif'
)

FONT = 12  # px, the drawing's text
LINE = 15  # px between lines of a box
CELL = 7.0  # px a half-width cell of FONT takes at most, about (a Chinese character: two)
GAP = 12  # px between columns
ROW_GAP = 34  # px between rows
MARGIN = 16
DEVICE_W = {"gpu": 190, "nvme": 140, "nic": 150}
INNER_W = 176  # a socket, host bridge, chipset or switch, at most
DEVICES = ("gpu", "nvme", "nic")

WAYS = ("nvlink", "pcie-p2p", "staged")


@dataclass
class _Box:
    node: TreeNodeOut
    depth: int
    children: list[_Box] = field(default_factory=list)
    lines: list[tuple[str, str]] = field(default_factory=list)  # (class, text)
    x: float = 0.0  # centre
    y: float = 0.0  # top
    w: float = 0.0
    h: float = 0.0
    first_gpu: int = 10**6

    @property
    def device(self) -> bool:
        return self.node.kind in DEVICES


def _below(n: TreeNodeOut) -> bool:
    lk = n.link
    return lk is not None and (lk.gen < lk.max_gen or lk.width < lk.max_width)


def _node_lines(n: TreeNodeOut, gpu: GpuOut | None, width: float) -> list[tuple[str, str]]:
    """The lines of a node's box, first the kind (bold), then what tells it from its siblings."""
    fit = int(width / CELL) - 2
    out: list[tuple[str, str]] = []
    name = [("", s) for s in wrap(n.name, fit)] if n.name else []
    lk = n.link
    if n.kind == "socket":
        out = [("b", t("CPU{socket}", socket=n.socket)), *name]
    elif n.kind == "host_bridge":
        out = [("b", t("Host bridge {name}", name=n.name) if n.name else t("Host bridge"))]
        out.append(("dim", t("root complex")))
    elif n.kind == "chipset":
        out = [("b", t("Chipset {name}", name=n.name) if n.name else t("Chipset"))]
        if lk is not None:
            out.append(("warn", uplink_label(lk.gen, lk.width)))
    elif n.kind == "switch":
        out = [("b", t("PCIe switch")), *name]
        if lk is not None:
            out.append(("", uplink_label(lk.gen, lk.width)))
    elif n.kind == "gpu":
        out = [("b", gpu_label(n.index)), *name]
        if n.connector:
            out.append(("dim", slot_label(n.connector)))
        if lk is not None:
            out.append(
                ("warn" if _below(n) else "", t("Link: Gen{gen} x{width}", gen=lk.gen, width=lk.width))
            )
            if _below(n):
                card = t("The card takes Gen{gen} x{width}", gen=lk.max_gen, width=lk.max_width)
                out.append(("warn", card))
        h2d = number(gpu.h2d_gbps) if gpu else None
        out.append(("", t("Host to GPU: {gbps} GB/s", gbps=h2d) if h2d else t("Host to GPU: unknown")))
    elif n.kind == "nvme":
        out = [("b", t("NVMe SSD"))]
        if n.connector:
            out.append(("dim", t("In {slot}", slot=n.connector)))
        if lk is not None:
            out.append(("", link_label(lk.gen, lk.width)))
    elif n.kind == "nic":
        out = [("b", t("NIC{index}", index=n.index)), *name]
        if n.connector:
            out.append(("dim", slot_label(n.connector)))
        if lk is not None:
            out.append(("", link_label(lk.gen, lk.width)))
    else:
        out = name
    # every line within the box: a long one (a chipset's uplink, a slot's name) goes on to the next
    return [(c, part) for c, text in out for part in wrap(text, fit, 3)]


def _tree(plan: PlanOutput) -> list[_Box]:
    """The drawn tree: root ports are left out (a device hangs from its host bridge, its slot named on
    it), children ordered by their first GPU, the chipset last, as a board's slots usually read."""
    nodes = {n.id: n for n in plan.tree}
    gpus = {g.index: g for g in plan.gpus}
    order = {n.id: i for i, n in enumerate(plan.tree)}

    def up(n: TreeNodeOut) -> str | None:
        p = n.parent
        while p is not None and p in nodes and nodes[p].kind == "root_port":
            p = nodes[p].parent
        return p

    boxes: dict[str, _Box] = {}
    roots: list[_Box] = []
    for n in plan.tree:
        if n.kind == "root_port":
            continue
        parent = up(n)
        depth = boxes[parent].depth + 1 if parent in boxes else 0
        b = _Box(n, depth)
        if n.kind == "gpu" and n.index is not None:
            b.first_gpu = n.index
        boxes[n.id] = b
        (boxes[parent].children if parent in boxes else roots).append(b)

    def settle(b: _Box) -> None:
        for c in b.children:
            settle(c)
        if b.children:
            b.first_gpu = min(b.first_gpu, *(c.first_gpu for c in b.children))
        b.children.sort(key=lambda c: (c.node.kind == "chipset", c.first_gpu, order[c.node.id]))

    for r in roots:
        settle(r)
    roots.sort(key=lambda r: (r.node.socket, order[r.node.id]))
    for b in boxes.values():
        b.w = DEVICE_W[b.node.kind] if b.device else INNER_W
    _place(roots, gpus)
    return roots


def _walk(boxes: list[_Box]):
    for b in boxes:
        yield b
        yield from _walk(b.children)


def _place(roots: list[_Box], gpus: dict[int | None, GpuOut]) -> None:
    """Columns from the leaves up (each parent centred over its children), rows by depth with every
    device in the bottom row, so the GPUs line up whatever they hang from."""
    cursor = MARGIN

    def columns(b: _Box) -> None:
        nonlocal cursor
        if not b.children:
            b.x = cursor + b.w / 2
            cursor += b.w + GAP
            return
        start = cursor
        for c in b.children:
            columns(c)
        span = cursor - GAP - start
        b.x = (b.children[0].x + b.children[-1].x) / 2
        b.w = max(120.0, min(INNER_W, span))

    for i, r in enumerate(roots):
        if i:
            cursor += 3 * GAP  # the sockets apart
        columns(r)
    every = list(_walk(roots))
    for b in every:
        b.lines = _node_lines(b.node, gpus.get(b.node.index) if b.node.kind == "gpu" else None, b.w)
    inner_depth = max((b.depth for b in every if not b.device), default=-1)
    rows: dict[int, list[_Box]] = {}
    for b in every:
        rows.setdefault(inner_depth + 1 if b.device else b.depth, []).append(b)
    y = 0.0
    for r in sorted(rows):
        h = max(12 + LINE * len(b.lines) for b in rows[r])
        for b in rows[r]:
            b.y, b.h = y, float(h)
        y += h + ROW_GAP


@dataclass
class Drawing:
    """The SVG text and its size in px (the picture is rendered at that size)."""

    svg: str
    width: int
    height: int


_STYLE = """
.adv-machine text { font-size: 12px; fill: #0f172a; }
.adv-machine .b { font-weight: 700; }
.adv-machine .dim { fill: #475569; }
.adv-machine .warn { fill: #b45309; font-weight: 600; }
.adv-machine .title { font-size: 16px; font-weight: 700; }
.adv-machine .box { stroke-width: 1.5; }
.adv-machine .socket .box { fill: #e0e7ff; stroke: #4338ca; }
.adv-machine .host_bridge .box { fill: #eef2ff; stroke: #6366f1; }
.adv-machine .chipset .box { fill: #fef3c7; stroke: #d97706; }
.adv-machine .switch .box { fill: #f1f5f9; stroke: #475569; }
.adv-machine .gpu .box { fill: #ecfdf5; stroke: #059669; }
.adv-machine .gpu.below .box { fill: #fffbeb; stroke: #d97706; stroke-width: 2.5; }
.adv-machine .nvme .box, .adv-machine .nic .box { fill: #f8fafc; stroke: #94a3b8; }
.adv-machine .edge { fill: none; stroke: #64748b; stroke-linejoin: round; }
.adv-machine .edge.below { stroke: #d97706; }
.adv-machine .edge.inside { stroke: #a5b4fc; }
.adv-machine path.pair { fill: none; stroke-width: 3; }
.adv-machine path.nvlink { stroke: #16a34a; }
.adv-machine path.pcie-p2p { stroke: #2563eb; }
.adv-machine path.staged { stroke: #ea580c; stroke-dasharray: 7 5; }
.adv-machine rect.cell { stroke: #ffffff; stroke-width: 2; }
.adv-machine rect.cell.nvlink { fill: #dcfce7; }
.adv-machine rect.cell.pcie-p2p { fill: #dbeafe; }
.adv-machine rect.cell.staged { fill: #ffedd5; }
.adv-machine rect.cell.self { fill: #f1f5f9; }
.adv-machine .label { paint-order: stroke; stroke: #ffffff; stroke-width: 4px; stroke-linejoin: round; }
"""


def machine_svg(plan: PlanOutput, *, title: bool = False, font: str | None = None) -> Drawing:
    """The drawing of the plan's machine. `title`: the build's name above it (the file alone, the picture);
    `font`: a family to put first (the picture names the Chinese font it found)."""
    roots = _tree(plan)
    every = list(_walk(roots))
    top = MARGIN + (30 if title else 0)
    body: list[str] = []
    if title:
        body.append(f'<text class="title" x="{MARGIN}" y="{MARGIN + 16}">{esc(report_title(plan))}</text>')
    width = max((b.x + b.w / 2 for b in every), default=MARGIN) + MARGIN
    if title:  # the name is never cut at the drawing's edge
        width = max(width, 2 * MARGIN + cells(report_title(plan)) * 9.5)
    bottom = top + max((b.y + b.h for b in every), default=0.0)
    # the edges first, under the boxes
    for b in every:
        for c in b.children:
            body.append(_edge(b, c, top))
    sockets = [b for b in roots if b.node.kind == "socket"]
    for a, b in zip(sockets, sockets[1:], strict=False):
        y = top + a.y + a.h / 2
        body.append(
            f'<path class="edge inside" stroke-width="4" d="M{a.x + a.w / 2:.1f} {y:.1f} H{b.x - b.w / 2:.1f}"/>'
        )
        body.append(_text((a.x + b.x) / 2, y - 6, t("Link between the sockets"), "dim label", "middle"))
    for b in every:
        body.append(_box(b, top))
    gpus = {b.node.index: b for b in every if b.node.kind == "gpu"}
    if plan.pairs and len(gpus) <= 4:
        part, bottom = _arcs(plan.pairs, gpus, top, bottom)
        body += part
    elif plan.pairs:
        part, bottom, w = _matrix(plan, top, bottom)
        body += part
        width = max(width, w)
    legend, bottom, width = _legend(plan, bottom, width)
    body += legend
    if plan.nodes > 1:
        bottom += 6
        body.append(
            _text(MARGIN, bottom + 12, t("One of {nodes} identical nodes.", nodes=plan.nodes), "dim", "start")
        )
        bottom += 18
    w, h = int(width + 0.999), int(bottom + MARGIN + 0.999)
    family = (f'"{font}", ' if font else "") + FONT_STACK
    name = t("Drawing of the machine")
    svg = (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="adv-machine" viewBox="0 0 {w} {h}" '
        f'width="{w}" height="{h}" font-family="{esc(family)}" role="img" aria-label="{esc(name)}">'
        f"<title>{esc(name)}</title>"
        f"<style>{_STYLE}</style>"
        f'<rect width="{w}" height="{h}" fill="#ffffff"/>' + "".join(body) + "</svg>"
    )
    return Drawing(svg, w, h)


def svg_file(plan: PlanOutput) -> str:
    """`--format svg`: the drawing as a file of its own, headed with the build's name."""
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + machine_svg(plan, title=True).svg + "\n"


def report_title(plan: PlanOutput) -> str:
    """The build's name, else its CPU and board (or system): what the report and the drawing are headed."""
    if plan.build:
        return plan.build
    board = plan.system_name or plan.board_name
    if plan.cpu_name and board:
        return t("{cpu} on {board}", cpu=plan.cpu_name, board=board)
    return board or plan.cpu_name or t("A machine described by its PCIe tree")


def _text(x: float, y: float, text: str, cls: str = "", anchor: str = "start") -> str:
    c = f' class="{cls}"' if cls else ""
    a = f' text-anchor="{anchor}"' if anchor != "start" else ""
    return f'<text x="{x:.1f}" y="{y:.1f}"{c}{a}>{esc(text)}</text>'


def _box(b: _Box, top: float) -> str:
    n = b.node
    cls = n.kind + (" below" if _below(n) and n.kind == "gpu" else "")
    ident = f' id="gpu{n.index}"' if n.kind == "gpu" and n.index is not None else ""
    x0, y0 = b.x - b.w / 2, top + b.y
    tip = ""
    if n.link is not None and n.link.limited_by:
        tip = f"<title>{esc('; '.join(n.link.limited_by))}</title>"
    out = [
        f'<g class="node {cls}"{ident}>{tip}',
        f'<rect class="box" x="{x0:.1f}" y="{y0:.1f}" width="{b.w:.1f}" height="{b.h:.1f}" rx="6"/>',
    ]
    for i, (c, s) in enumerate(b.lines):
        out.append(_text(x0 + 8, y0 + 6 + LINE * (i + 1) - 3, s, c))
    out.append("</g>")
    return "".join(out)


def _edge(parent: _Box, child: _Box, top: float) -> str:
    n = child.node
    lk = n.link
    width = 1.5 + (lk.width / 4 if lk is not None else 2)
    cls = "edge" + (" below" if _below(n) else "") + (" inside" if lk is None else "")
    px, py = parent.x, top + parent.y + parent.h
    cx, cy = child.x, top + child.y
    mid = cy - ROW_GAP / 2
    path = (
        f"M{cx:.1f} {cy:.1f} V{mid:.1f} H{px:.1f} V{py:.1f}"
        if abs(cx - px) > 0.5
        else f"M{cx:.1f} {cy:.1f} V{py:.1f}"
    )
    return f'<path class="{cls}" stroke-width="{width:.1f}" d="{path}"/>'


def _pair_words(p: PairOut) -> tuple[str, str]:
    """The two lines under a pair's arc: how it copies, and how fast one way."""
    gbps = number(p.uni_gbps)
    return way_label(p.via), (t("{gbps} GB/s one way", gbps=gbps) if gbps else t("speed unknown"))


def _arcs(pairs: list[PairOut], gpus: dict, top: float, bottom: float) -> tuple[list[str], float]:
    """Up to four GPUs: a U-shaped line under the GPUs for each pair, one level deeper wherever it would
    run along another, its two ends set apart on each GPU so no two lines share a stretch; the labels
    (how the pair copies, how fast) are drawn last, over the lines, each on a white halo."""
    known = [p for p in pairs if p.a in gpus and p.b in gpus]

    def ends(p: PairOut) -> tuple[float, float]:
        return tuple(sorted((gpus[p.a].x, gpus[p.b].x)))  # type: ignore[return-value]

    order = sorted(known, key=lambda p: (ends(p)[1] - ends(p)[0], ends(p)))
    placed: list[tuple[int, float, float]] = []
    levels: dict[tuple[int, int], int] = {}
    for p in order:
        lo, hi = ends(p)
        level = 0
        while any(lv == level and min(hi, b) - max(lo, a) > 30 for lv, a, b in placed):
            level += 1
        placed.append((level, lo, hi))
        levels[(p.a, p.b)] = level
    # where each line leaves a GPU: toward the left the nearest partner leftmost, toward the right the
    # nearest rightmost, so a deeper line never crosses a shallower one of the same GPU
    offset: dict[tuple[int, int, int], float] = {}
    for g, box in gpus.items():
        mine = [p for p in known if g in (p.a, p.b)]
        other = {id(p): (p.b if p.a == g else p.a) for p in mine}
        left = sorted(
            (p for p in mine if gpus[other[id(p)]].x < box.x), key=lambda p: box.x - gpus[other[id(p)]].x
        )
        right = sorted(
            (p for p in mine if gpus[other[id(p)]].x > box.x), key=lambda p: box.x - gpus[other[id(p)]].x
        )
        seq = left + right
        for i, p in enumerate(seq):
            offset[(g, p.a, p.b)] = (i - (len(seq) - 1) / 2) * 10
    y0, radius, first, step = bottom, 8.0, 40.0, 40.0
    lines: list[str] = []
    labels: list[str] = []
    deepest = bottom
    for p in known:
        xa = gpus[p.a].x + offset[(p.a, p.a, p.b)]
        xb = gpus[p.b].x + offset[(p.b, p.a, p.b)]
        xa, xb = min(xa, xb), max(xa, xb)
        y = y0 + first + step * levels[(p.a, p.b)]
        lines.append(
            f'<g class="pair-link" data-pair="{p.a}-{p.b}" data-way="{p.via}">'
            f'<path class="pair {p.via}" d="M{xa:.1f} {y0:.1f} V{y - radius:.1f} '
            f"Q{xa:.1f} {y:.1f} {xa + radius:.1f} {y:.1f} H{xb - radius:.1f} "
            f'Q{xb:.1f} {y:.1f} {xb:.1f} {y - radius:.1f} V{y0:.1f}"/></g>'
        )
        way, speed = _pair_words(p)
        mid = (xa + xb) / 2
        labels.append(
            f'<g class="pair-label" data-pair="{p.a}-{p.b}">'
            + _text(mid, y - 20, way, "b label", "middle")
            + _text(mid, y - 6, speed, "label", "middle")
            + "</g>"
        )
        deepest = max(deepest, y + 8)
    return lines + labels, deepest


def _matrix(plan: PlanOutput, top: float, bottom: float) -> tuple[list[str], float, float]:
    """More than four GPUs: a grid of the pairs, like nvidia-smi topo -m, each cell coloured by how the
    pair copies and holding nvidia-smi's word for the path."""
    idx = [g.index for g in plan.gpus]
    by = {(p.a, p.b): p for p in plan.pairs} | {(p.b, p.a): p for p in plan.pairs}
    cw, ch, head = 58, 26, 58
    x0, y0 = MARGIN, bottom + 8
    out = [_text(x0, y0 + 12, t("How each pair of GPUs copies"), "b")]
    y0 += 22
    for j, b in enumerate(idx):
        out.append(_text(x0 + head + cw * j + cw / 2, y0 + 16, gpu_label(b), "dim", "middle"))
    for i, a in enumerate(idx):
        y = y0 + ch * (i + 1)
        out.append(_text(x0, y + 17, gpu_label(a), "dim"))
        for j, b in enumerate(idx):
            x = x0 + head + cw * j
            p = by.get((a, b))
            cls = "self" if a == b else (p.via if p else "self")
            word = "X" if a == b else (p.path if p else "?")
            pair = f' data-pair="{min(a, b)}-{max(a, b)}"' if p and a < b else ""
            out.append(
                f'<g class="cell"{pair}><rect class="cell {cls}" x="{x:.1f}" y="{y:.1f}" width="{cw}" height="{ch}"/>'
                + _text(x + cw / 2, y + 17, word, "", "middle")
                + "</g>"
            )
    end = y0 + ch * (len(idx) + 1)
    return out, end + 8, x0 + head + cw * len(idx) + MARGIN


def _legend(plan: PlanOutput, bottom: float, width: float) -> tuple[list[str], float, float]:
    """A key to the colours the drawing uses, wrapped to its width."""
    items: list[tuple[str, str]] = []
    vias = {p.via for p in plan.pairs}
    for via in WAYS:
        if via in vias:
            items.append((via, way_label(via)))
    if any(_below(n) for n in plan.tree if n.kind == "gpu"):
        items.append(("below", t("GPU below its card's own link")))
    if any(n.kind == "chipset" for n in plan.tree):
        items.append(("chipset", t("Chipset lanes share one uplink to the CPU")))
    if not items:
        return [], bottom, width
    out: list[str] = []
    x, y = MARGIN, bottom + 18
    for key, label in items:
        w = 40 + cells(label) * CELL + 18
        if x > MARGIN and x + w > width - MARGIN:
            x, y = MARGIN, y + 22
        if key in WAYS:
            out.append(f'<path class="pair {key}" d="M{x:.1f} {y - 4:.1f} H{x + 30:.1f}"/>')
        elif key == "below":
            out.append(f'<path class="edge below" stroke-width="4" d="M{x:.1f} {y - 4:.1f} H{x + 30:.1f}"/>')
        else:
            out.append(
                f'<rect x="{x:.1f}" y="{y - 12:.1f}" width="30" height="14" rx="3" fill="#fef3c7" stroke="#d97706"/>'
            )
        out.append(_text(x + 38, y, label, "dim"))
        x += w
    width = max(width, min(x, 900.0))
    return out, y + 8, width
