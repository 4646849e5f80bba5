"""The live views of a build: the machine tree, host links, the GPU matrix, findings, the summary line.

Each view has `show(planner)`, which redraws it from the planner's current evaluation. Views
never change the build; they only read it.
"""

from __future__ import annotations

import textwrap

from rich.cells import cell_len, set_cell_size
from rich.markup import escape
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.coordinate import Coordinate
from textual.widgets import DataTable, OptionList, Static
from textual.widgets.option_list import Option, OptionDoesNotExist

from advisor.base.text import unknown_because
from advisor.i18n import N_, _, ngettext, pgettext
from advisor.model import nodeids as ids
from advisor.model.build import Build
from advisor.model.machine import Machine, Node
from advisor.model.predict import Figure, Prediction, allreduce_how, allreduce_scope
from advisor.model.readiness import layer_name
from advisor.session.buildyaml import cards_of
from advisor.session.planner import Planner
from advisor.tui.changebox import show_changes
from advisor.tui.prose import ProseStatic

SEVERITY_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}
# a finding's severity as the views say it: a word in a table, a heading over its text
SEVERITY_WORD = {"error": N_("error"), "warning": N_("warning"), "info": N_("info")}
SEVERITY_HEAD = {"error": N_("ERROR"), "warning": N_("WARNING"), "info": N_("INFO")}
VIA_STYLE = {"nvlink": "bold green", "pcie-p2p": "green", "staged": "yellow"}


def pad(text: str, width: int) -> str:
    """`text` padded with spaces to `width` terminal cells (a Chinese character takes two)."""
    return text + " " * max(0, width - cell_len(text))


def derivation(name: str, fig: Figure) -> str:
    """A figure's derivation as Rich markup: value, formula, inputs, constants."""
    if fig.value is None:
        value = _("unknown")
    else:
        value = f"{fig.value:.2f} {fig.unit}"
    inputs = ", ".join(f"{k} = {v}" for k, v in fig.inputs.items() if k != "hops")
    low = " [yellow]" + _("(low confidence)") + "[/]" if fig.confidence == "low" else ""
    return (
        f"[b]{escape(name)}[/] = [b]{value}[/]{low}\n  = {escape(fig.formula)}\n"
        "  [dim]"
        + _("inputs: {inputs}").format(inputs=escape(inputs))
        + "\n  "
        + _("constants: {names} (advisor plan --explain lists their sources)").format(
            names=escape(", ".join(fig.constants))
        )
        + "[/]"
    )


# ---------------------------------------------------------------------- the build panel


class BuildList(OptionList):
    """An OptionList that keeps its drawn lines when only its height changes (a card added or
    removed changes the panel below it): OptionList drops them on every resize, which costs a
    second full frame per edit."""

    _drawn_width: int | None = None

    def _on_resize(self, event: events.Resize) -> None:
        if event.size.width == self._drawn_width:
            event.prevent_default()  # OptionList's own handler would clear the drawn lines
        self._drawn_width = event.size.width

    def _on_click(self, event: events.Click) -> None:
        """One click selects a line, as in a terminal (OptionList's own click would also pick it: one
        click on a GPU opened the Move dialog, on an SSD removed it); a double click, or Enter, edits
        the line. The '+ add' lines are buttons: one click acts."""
        index = event.style.meta.get("option")
        if index is None or event.chain >= 2 or (self.options[index].id or "").startswith("add-"):
            return  # OptionList's handler (called after this one) selects the option
        event.prevent_default()
        if not self.options[index].disabled:
            self.highlighted = index
            self.focus()


class BuildPanel(Vertical):
    """The parts of the build as a list: Enter on a line edits it; the last edit's effect below."""

    def compose(self) -> ComposeResult:
        yield BuildList(id="build-items")
        yield ProseStatic(id="changes")

    def show(self, planner: Planner) -> None:
        items = self.query_one("#build-items", OptionList)
        keep = items.highlighted_option.id if items.highlighted_option else None
        b = planner.build
        options: list[Option | None] = []

        width = max(16, (items.scrollable_content_region.width or 34) - 10)  # room for a scrollbar

        def line(key: str, label: str, value: str | list[Text], style: str = "") -> None:
            """A label and its value, the value's lines indented under it (Rich tables are too slow here)."""
            rows = value if isinstance(value, list) else [Text(w, style) for w in _wrap(value, width) or [""]]
            text = Text(pad(label, 6) + " ", "bold")
            for i, row in enumerate(rows):
                # no-break spaces: the list's own wrapping drops ordinary spaces at the start of a line
                text.append_text(row if i == 0 else Text("\n" + "\u00a0" * 7) + row)
            options.append(Option(text, id=key))

        if planner.explicit:
            line(
                "tree",
                _("Tree"),
                _("explicit PCIe tree ({count} GPUs)").format(
                    count=len(planner.prediction.gpus) if planner.prediction else "?"
                ),
            )
            line("board", _("Board"), _("pick one to start a catalog build"), "dim")
        else:
            line("cpu", "CPU", planner.cpu.name if planner.cpu else (b.cpu or "-"))
            line("board", _("Board"), planner.board.name if planner.board else (b.board or "-"))
        options.append(None)
        links = {}
        if planner.prediction:
            for n in planner.prediction.machine.all_gpus:
                links[n.index] = n
        placement = planner.placement
        if not planner.explicit:
            for i, card in enumerate(cards_of(b)):
                n = links.get(i)
                model = _short(n.gpu.name) if n and n.gpu else card.model
                # a build that cannot be evaluated has no links: the slot asked for, or automatic
                where = placement.get(i) or ("" if planner.prediction else _("auto"))
                how = "" if card.slot or not planner.prediction else " " + _("(auto)")
                link = (
                    n.link.label
                    if n and n.link
                    else _("no lanes")
                    if planner.prediction
                    else _("not evaluated")
                )
                style = (
                    "red"
                    if not (n and n.link)
                    else (
                        "yellow" if n.link.width < n.link.max_width or n.link.gen < n.link.max_gen else "cyan"
                    )
                )
                fits = cell_len(link) + cell_len(where) + cell_len(how) + 2 <= width
                where = f"  {where}{how}" if fits else f"  {where}"
                line(
                    f"gpu:{i}",
                    f"GPU{i}",
                    [
                        Text(_fit(model, width)),
                        Text.assemble((link, style), (_fit(where, width - cell_len(link)), "dim")),
                    ],
                )
            line("add-gpu", "", _("+ add GPU (g)"), "dim")
            options.append(None)
            for n in b.nvme:
                line(f"nvme:{n.socket}", "SSD", _("NVMe in {socket}").format(socket=n.socket))
            line("add-nvme", "", _("+ add NVMe SSD (n)"), "dim")
            for i, nic in enumerate(b.nics):
                slot = nic.slot or _("(auto)")
                line(f"nic:{i}", "NIC", f"{nic.name} {slot} Gen{nic.gen} x{nic.width}")
            line("add-nic", "", _("+ add NIC"), "dim")
            options.append(None)
        psu = f"{b.psu_w} W" if b.psu_w else _("not set")
        if b.psu_12v_2x6 is not None:
            psu += _(", ") + f"{b.psu_12v_2x6}x 12V-2x6"
        line("psu", _("PSU"), psu)
        line("software", _("Soft"), software_text(b))
        line("nvlink", "NVLink", _(", ").join(f"GPU{a}-GPU{c}" for a, c in b.nvlink) or _("no bridge"))
        items.clear_options()
        items.add_options(options)
        if keep is not None:
            try:
                items.highlighted = items.get_option_index(keep)
            except OptionDoesNotExist:  # the line is gone (a removed card)
                items.highlighted = 0
        # Measure the new lines now rather than while drawing, which would cost a second full frame.
        items.scroll_to_highlight()
        show_changes(self.query_one("#changes", Static), planner.changes)  # fitted, never cut silently


# a setting's value as the build panel names it
SETTING_WORDS = {"on": N_("on"), "off": N_("off"), "passthrough": N_("passthrough")}


def _setting(value: object) -> str:
    return _(SETTING_WORDS[value]) if isinstance(value, str) and value in SETTING_WORDS else str(value)


def software_text(b: Build) -> str:
    """The build's software and BIOS settings in a line, as `advisor plan` takes them: a setting the
    build does not state is shown as such ("ACS unknown"), never as the value the predictions assume;
    the driver, where not stated, is the stock one the predictions and readiness take ("(default)")."""
    sw = b.software
    unknown = _("unknown")
    if sw.driver == "stock":
        driver = pgettext("the driver a build names", "stock driver")
    elif sw.driver == "patched-p2p":
        driver = _("patched-p2p driver")
    else:
        driver = f"{sw.driver} driver"
    said = [driver if sw.known("driver") else _("{driver} (default)").format(driver=driver)]
    said.append("IOMMU " + (_setting(sw.iommu) if sw.known("iommu") else unknown))
    said.append("ACS " + (_setting(sw.acs) if sw.known("acs") else unknown))
    if sw.nccl_p2p_level or sw.nccl_p2p_disable:
        said.append("NCCL_P2P_" + ("DISABLE=1" if sw.nccl_p2p_disable else f"LEVEL={sw.nccl_p2p_level}"))
    if sw.known("large_bar") and not sw.large_bar:
        said.append(_("large BAR off"))
    elif not sw.known("large_bar") and sw.driver == "patched-p2p":
        said.append(_("large BAR unknown"))  # the patched driver needs it: readiness asks
    if b.bios.above_4g is not None:
        said.append("Above 4G " + _setting("on" if b.bios.above_4g else "off"))
    if b.kernel.iommu is not None:
        said.append(_("kernel iommu={mode}").format(mode=b.kernel.iommu))
    if sw.engine:
        said.append(sw.engine)
    if sw.os != "linux":
        said.append(f"{sw.os.capitalize()} (WDDM)")
    if sw.virtualization != "none":
        said.append(_("in a VM with the P2P clique") if sw.virtualization == "vm-clique" else _("in a VM"))
    return _(", ").join(said)


# ---------------------------------------------------------------------- machine tree


def _short(name: str) -> str:
    return name.replace("NVIDIA ", "").replace("GeForce ", "")


def _fit(text: str, width: int) -> str:
    """`text` cut to `width` terminal cells with an ellipsis (a Chinese character takes two)."""
    return text if cell_len(text) <= width else set_cell_size(text, max(1, width - 1)) + "…"


def _wrap(text: str, width: int) -> list[str]:
    """`text` in lines of at most `width` terminal cells: between words, or anywhere in a run of Chinese
    (textwrap counts characters, and a Chinese character takes two cells)."""
    if cell_len(text) == len(text):
        return textwrap.wrap(text, width)
    return [line.plain for line in Text(text).wrap(_console(), width)]


def _node_label(n: Node, pred: Prediction, in_root_port: bool = False) -> list[Text]:
    """A node's line in the tree, in pieces: a long line wraps between pieces (before a piece that
    starts with a space), so that "H2D/D2H 13.2/13.2 GB/s" stays whole on its line."""
    parts: list[Text] = []

    def add(text: str, style: str = "") -> None:
        parts.append(Text(text, style))

    if n.kind == "socket":
        add(n.label, "bold")
    elif n.kind == "gpu":
        gp = next((g for g in pred.gpus if g.node.id == n.id), None)
        add(f"GPU{n.index} ", "bold")
        parts[-1].append(_short(n.gpu.name) if n.gpu else n.label)
        if n.connector and not in_root_port:
            add(_(" in {slot}").format(slot=n.connector))
        if n.link:
            low = n.link.width < n.link.max_width or n.link.gen < n.link.max_gen
            add(f" {n.link.label}", "yellow" if low else "cyan")
            if low:
                add(
                    _(" (of x{width})").format(width=n.link.max_width)
                    if n.link.gen == n.link.max_gen
                    else _(" (of Gen{gen} x{width})").format(gen=n.link.max_gen, width=n.link.max_width),
                    "yellow",
                )
        if gp:
            add(f" H2D/D2H {gp.h2d.value:.1f}/{gp.d2h.value:.1f} GB/s", "green")
    else:
        add({"nvme": "NVMe SSD", "nic": n.label}.get(n.kind, n.label))
        if n.connector and n.kind in ("nvme", "nic") and not in_root_port:
            add(_(" in {slot}").format(slot=n.connector))
        if n.link:
            add(f"  {n.link.label}", "cyan")
            if n.kind in ("chipset", "switch"):
                from advisor.model.graph import raw_gbps

                rate = f"{raw_gbps(n.link.gen, n.link.width):.1f}"
                add("  " + _("uplink {rate} GB/s raw").format(rate=rate), "dim")
    return parts


def wrap_parts(parts: list[Text], first: int, rest: int) -> list[Text]:
    """Lay the pieces of a line out in a first line of `first` cells and further lines of `rest`: a
    line breaks before a piece that starts with a space; a piece too long for a line breaks between
    its words."""
    units: list[Text] = []
    for part in parts:
        if not units or part.plain[:1].isspace():
            units.append(Text())
        units[-1].append_text(part)
    lines: list[Text] = []
    line = Text()
    for unit in units:
        width = rest if lines else first
        if line.plain and line.cell_len + unit.cell_len > width:
            lines.append(line)
            line, width = _lstrip(unit), rest
        else:
            line.append_text(unit)
        if line.cell_len > width:  # one piece longer than a line of its own
            *done, line = _break_words(line, width, rest)
            lines += done
    lines.append(line)
    return [_rstrip(t) for t in lines]


def _break_words(text: Text, width: int, rest: int) -> list[Text]:
    """`text` over a first line of `width` cells and further lines of `rest`, broken between words."""
    console = _console()
    head = text.wrap(console, max(1, width), overflow="fold")
    if len(head) <= 1:
        return [text]
    tail = _lstrip(text[len(head[0].plain) :])
    return [head[0], *tail.wrap(console, max(1, rest), overflow="fold")]


_CONSOLE: list = []


def _console():
    """A console to measure and wrap text with (created once: creating one costs a millisecond)."""
    if not _CONSOLE:
        from rich.console import Console

        _CONSOLE.append(Console(width=500))
    return _CONSOLE[0]


def _lstrip(text: Text) -> Text:
    return text[len(text.plain) - len(text.plain.lstrip()) :]


def _rstrip(text: Text) -> Text:
    text = text.copy()
    text.rstrip()
    return text


def _empty_slots(m: Machine) -> dict[str, list[str]]:
    """Parent node id -> labels of the board's empty slots under it (where another card could go)."""
    board = m.board
    if board is None:
        return {}
    used = {n.connector for n in m.nodes.values() if n.connector}
    out: dict[str, list[str]] = {}
    for c in board.slots:
        if c.name in used:
            continue
        g = board.group(c.group)
        parent = ids.group_parent(g.source, g.socket, g.host_bridge, g.switch)
        if parent not in m.nodes:
            parent = ids.socket(g.socket) if ids.socket(g.socket) in m.nodes else ids.ROOT
        said = {
            "cpu": _("{slot}: empty, x{width} Gen{gen} from the CPU"),
            "chipset": _("{slot}: empty, x{width} Gen{gen} from the chipset"),
            "switch": _("{slot}: empty, x{width} Gen{gen} from the switch"),
        }[g.source]
        out.setdefault(parent, []).append(said.format(slot=c.name, width=c.width, gen=c.gen or g.gen))
    return out


class MachineTree(VerticalScroll):
    """Sockets, host bridges, root ports, chipset, switches, slots and devices with links and GB/s.

    Drawn as one Text with tree guides: a full redraw costs a fraction of a Tree widget's. A line
    longer than the view wraps under its own branch, two cells in from where its label starts, with
    the guides of the branches around it drawn on (never back to the first column, never cut); the
    view draws itself again when its width changes.
    """

    # the width to wrap for stays the same when the tree grows taller than the view
    DEFAULT_CSS = "MachineTree { scrollbar-gutter: stable; }"
    MIN_TEXT = 16  # the least room a label's lines get, however deep the tree: beyond it the view scrolls

    _planner: Planner | None = None
    _drawn_width = 0

    def compose(self) -> ComposeResult:
        yield Static(id="machine-text")

    def on_resize(self, event: events.Resize) -> None:
        if self._planner is not None and self.scrollable_content_region.width != self._drawn_width:
            self.show(self._planner)

    def show(self, planner: Planner) -> None:
        self._planner = planner
        width = self._drawn_width = self.scrollable_content_region.width or 80
        out = self.query_one("#machine-text", Static)
        pred = planner.prediction
        if pred is None:
            out.update(Text(_("cannot evaluate: {error}").format(error=planner.error), "red"))
            return
        m = pred.machine
        text = Text(no_wrap=True)
        title = wrap_parts(
            [Text(m.board.name if m.board else _("explicit PCIe tree"), "bold")], width, width - 2
        )
        text.append_text(title[0])
        for more in title[1:]:
            text.append("\n  ")
            text.append_text(more)
        empty = _empty_slots(m)
        kids: dict[str | None, list[Node]] = {}
        for n in m.nodes.values():
            kids.setdefault(n.parent, []).append(n)

        def branch(label: list[Text], prefix: str, last: bool, has_children: bool = False) -> None:
            guide = prefix + ("└─ " if last else "├─ ")
            # further lines of the label: the guides go on (the siblings' line, the children's), then
            # the text, two cells in from the label's start
            hang = prefix + ("   " if last else "│  ") + ("│ " if has_children else "  ")
            room = max(self.MIN_TEXT, width - len(hang))
            lines = wrap_parts(label, max(self.MIN_TEXT, width - len(guide)), room)
            text.append("\n" + guide, "dim")
            text.append_text(lines[0])
            for line in lines[1:]:
                text.append("\n" + hang, "dim")
                text.append_text(line)

        def children_of(node: Node) -> list[Text | Node]:
            children: list[Text | Node] = sorted(
                kids.get(node.id, []), key=lambda c: (c.kind != "switch", c.index or 0, c.id)
            )
            return children + [Text(label, "dim") for label in empty.get(node.id, [])]

        def add(node: Node, prefix: str) -> None:
            children = children_of(node)
            for i, c in enumerate(children):
                last = i == len(children) - 1
                if isinstance(c, Text):
                    branch([c], prefix, last)
                    continue
                branch(_node_label(c, pred, node.kind == "root_port"), prefix, last, bool(children_of(c)))
                add(c, prefix + ("   " if last else "│  "))

        roots = [r for r in sorted(kids.get(None, []), key=lambda n: n.id) if r.kind == "socket"]
        tail = [Text(_("{device}: no lanes").format(device=u), "red") for u in m.unlinked]
        for i, r in enumerate(roots):
            last = i == len(roots) - 1 and not tail
            branch(_node_label(r, pred), "", last, bool(children_of(r)))
            add(r, "   " if last else "│  ")
        for i, t in enumerate(tail):
            branch([t], "", i == len(tail) - 1)
        out.update(text)


# ---------------------------------------------------------------------- host links


class HostView(Vertical):
    """Per GPU: link and pinned H2D/D2H alone and with all GPUs copying; the derivation of the selected row."""

    _pred: Prediction | None = None

    def compose(self) -> ComposeResult:
        yield DataTable(id="host-table", cursor_type="row", zebra_stripes=True)
        with VerticalScroll(classes="detail"):
            yield ProseStatic(id="host-detail")

    COLUMNS = ("GPU", N_("slot"), N_("link"), "H2D", "D2H", N_("all H2D"), N_("all D2H"))

    def on_mount(self) -> None:
        self.query_one(DataTable).add_columns(*(_(c) for c in self.COLUMNS))

    def relabel(self) -> None:
        """The column headings in the current language (the rows are drawn again when it is shown)."""
        from advisor.tui.panes import relabel_columns

        relabel_columns(self.query_one(DataTable), self.COLUMNS)

    def show(self, planner: Planner) -> None:
        table = self.query_one(DataTable)
        row = table.cursor_row
        table.clear()
        pred = planner.prediction
        self._pred = pred
        if pred is None:
            self.query_one("#host-detail", Static).update(
                "[red]" + _("cannot evaluate: {error}").format(error=escape(planner.error or "")) + "[/]"
            )
            return
        for p in pred.gpus:
            n = p.node
            low = n.link.width < n.link.max_width or n.link.gen < n.link.max_gen
            table.add_row(
                f"GPU{n.index}",
                n.connector or "-",
                Text(n.link.label, "yellow" if low else ""),
                f"{p.h2d.value:.1f}",
                f"{p.d2h.value:.1f}",
                f"{p.h2d_all.value:.1f}",
                f"{p.d2h_all.value:.1f}",
                key=str(n.index),
            )
        if pred.gpus:
            table.move_cursor(row=min(row, len(pred.gpus) - 1))
        self._detail()

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self._detail()

    def _detail(self) -> None:
        pred = self._pred
        table = self.query_one(DataTable)
        if pred is None or not pred.gpus:
            self.query_one("#host-detail", Static).update("[dim]" + _("no GPU has a link") + "[/]")
            return
        p = pred.gpus[min(table.cursor_row, len(pred.gpus) - 1)]
        n = p.node
        why = _("; ").join(n.link.limited_by) or _("nothing: the card's own maximum")
        shared = _("; ").join(p.h2d_all.limited_by)
        text = (
            _(
                "GPU{index} {model}: {link} (card Gen{gen} x{width}); link limited by {why}; "
                "bottleneck to host: {bottleneck}"
            ).format(
                index=n.index,
                model=escape(n.gpu.name if n.gpu else "?"),
                link=n.link.label,
                gen=n.link.max_gen,
                width=n.link.max_width,
                why=escape(why),
                bottleneck=escape(p.bottleneck),
            )
            + (_("; with all GPUs copying: {limits}").format(limits=escape(shared)) if shared else "")
            + "\n"
            + derivation("H2D", p.h2d)
            + "\n"
            + derivation(_("H2D with all GPUs copying"), p.h2d_all)
        )
        self.query_one("#host-detail", Static).update(text)


# ---------------------------------------------------------------------- GPU matrix


MATRIX_MODES = ("uni", "bidi", "latency", "path")
# what the matrix shows in each mode, and the name of a pair's figure under it
MODE_WORDS = {
    "uni": N_("one way, GB/s"),
    "bidi": N_("both ways, GB/s"),
    "latency": N_("latency, us"),
    "path": N_("path class (nvidia-smi topo -m)"),
}
FIGURE_WORDS = {
    "uni": N_("one way"),
    "path": N_("one way"),
    "bidi": N_("both ways"),
    "latency": N_("latency"),
}


class MatrixView(Vertical):
    """The GPU-to-GPU matrix like p2pBandwidthLatencyTest (path class and figure), the all-reduce, and a pair's derivation."""

    def compose(self) -> ComposeResult:
        yield Static(id="matrix-title")
        yield DataTable(id="matrix-table", cursor_type="cell")
        yield ProseStatic(id="allreduce")
        with VerticalScroll(classes="detail"):
            yield ProseStatic(id="pair-detail")

    mode = "uni"
    _pred: Prediction | None = None
    _ready: dict = {}  # (a, b) -> the pair's P2P readiness, replaced with each prediction

    def cycle_mode(self, planner: Planner) -> None:
        self.mode = MATRIX_MODES[(MATRIX_MODES.index(self.mode) + 1) % len(MATRIX_MODES)]
        self.show(planner)

    def show(self, planner: Planner) -> None:
        table = self.query_one(DataTable)
        cursor = table.cursor_coordinate
        table.clear(columns=True)
        pred = planner.prediction
        self._pred = pred
        what = _(MODE_WORDS[self.mode])
        title = self.query_one("#matrix-title", Static)
        if pred is None:
            title.update(f"[b]GPU <-> GPU[/]: {what}")
            self.query_one("#allreduce", Static).update(
                "[red]" + _("cannot evaluate: {error}").format(error=escape(planner.error or "")) + "[/]"
            )
            self.query_one("#pair-detail", Static).update("")
            return
        gpus = pred.machine.gpus
        from advisor.model.readiness import readiness

        self._ready = {(r.a, r.b): r for r in readiness(pred)}
        by = {}
        for p in pred.pairs:
            by[(p.a, p.b)] = by[(p.b, p.a)] = p
        # "PIX 26.3" where the view is wide enough for every column, the figure alone where it is not
        with_path = self.mode == "path" or (self.size.width or 66) >= 7 + len(gpus) * 11
        title.update(
            f"[b]GPU <-> GPU[/]: {what}"
            + (_(", with the path class") if with_path and self.mode != "path" else "")
            + " [dim]"
            + _("(v: next view)")
            + "[/]"
        )
        table.add_column("", key="row")
        for n in gpus:
            table.add_column(f"GPU{n.index}", key=str(n.index))
        for a in gpus:
            cells: list = [Text(f"GPU{a.index}", "bold")]
            for b in gpus:
                if a.index == b.index:
                    cells.append(Text("X", "dim"))
                    continue
                p = by[(a.index, b.index)]
                if self.mode == "path":
                    cells.append(Text(p.path, VIA_STYLE.get(p.via, "")))
                    continue
                fig = getattr(p, self.mode)
                val = "?" if fig.value is None else f"{fig.value:.1f}"
                cells.append(Text(f"{p.path} {val}" if with_path else val, VIA_STYLE.get(p.via, "")))
            table.add_row(*cells, key=str(a.index))
        if gpus:
            keep = cursor.row < len(gpus) and 0 < cursor.column <= len(gpus)
            table.cursor_coordinate = cursor if keep else Coordinate(0, 2 if len(gpus) > 1 else 1)
        ar = pred.allreduce
        if ar is not None and ar.value is not None:
            self.query_one("#allreduce", Static).update(
                _(
                    "All-reduce bus bandwidth, {scope}: [b]{value} GB/s[/] ({how}). Cells: "
                    "[bold green]NVLink[/] [green]P2P[/] [yellow]staged via host[/]"
                ).format(
                    scope=escape(allreduce_scope(pred)),
                    value=f"{ar.value:.1f}",
                    how=escape(allreduce_how(pred)),
                )
            )
        elif ar is not None:  # a hop's rate rests on a null catalog value: unknown, never 0
            self.query_one("#allreduce", Static).update(
                _("All-reduce bus bandwidth, {count} GPUs: [b]{value}[/]").format(
                    count=len(pred.ring), value=escape(unknown_because(ar.missing))
                )
            )
        else:
            self.query_one("#allreduce", Static).update("[dim]" + _("one GPU: no all-reduce") + "[/]")
        self._detail()

    def on_data_table_cell_highlighted(self, event: DataTable.CellHighlighted) -> None:
        event.stop()
        self._detail()

    def _detail(self) -> None:
        pred = self._pred
        out = self.query_one("#pair-detail", Static)
        if pred is None or not pred.pairs:
            out.update("[dim]" + _("one GPU: no pairs") + "[/]" if pred else "")
            return
        table = self.query_one(DataTable)
        gpus = pred.machine.gpus
        r, c = table.cursor_coordinate.row, table.cursor_coordinate.column - 1
        if not (0 <= r < len(gpus) and 0 <= c < len(gpus)) or r == c:
            out.update("[dim]" + _("pick a cell off the diagonal for that pair's derivation") + "[/]")
            return
        a, b = gpus[r].index, gpus[c].index
        p = next(p for p in pred.pairs if {p.a, p.b} == {a, b})
        # the path view shows each pair's class; its detail derives the one-way copy over that path
        fig = p.uni if self.mode == "path" else getattr(p, self.mode)
        nccl = _("no CUDA P2P") if not p.p2p else p.nccl_reason
        said = (
            _("GPU{a}-GPU{b}: path [b]{path}[/], CUDA P2P yes ({why}); NCCL uses [b]{transport}[/] ({nccl})")
            if p.p2p
            else _(
                "GPU{a}-GPU{b}: path [b]{path}[/], CUDA P2P no ({why}); NCCL uses [b]{transport}[/] ({nccl})"
            )
        )
        out.update(
            said.format(
                a=p.a,
                b=p.b,
                path=p.path,
                why=escape(p.p2p_reason),
                transport=p.nccl_transport,
                nccl=escape(nccl),
            )
            + "\n"
            + derivation(_(FIGURE_WORDS[self.mode]), fig)
            + _readiness_markup(self._ready.get((p.a, p.b)))
        )


# ---------------------------------------------------------------------- findings


class FindingsView(Vertical):
    """Findings worst first; the selected one's message, fix, why and sources below."""

    def compose(self) -> ComposeResult:
        yield DataTable(id="findings-table", cursor_type="row")
        with VerticalScroll(id="finding-scroll"):
            yield ProseStatic(id="finding-detail")

    def on_mount(self) -> None:
        self.query_one(DataTable).add_columns(*self.columns())

    @staticmethod
    def columns() -> tuple[str, ...]:
        # "on": what a finding is about (a GPU, a pair, the build), not a setting's value
        return (_("severity"), "id", pgettext("what a finding is about", "on"), _("message"))

    def relabel(self) -> None:
        """The column headings in the current language; the findings are listed again when shown."""
        table = self.query_one(DataTable)
        table.clear(columns=True)
        table.add_columns(*self.columns())
        self._shown = ()

    def on_resize(self) -> None:
        self._shown = ()  # messages are cut to the width: draw them again for the new one
        self.app.redraw_view("findings")

    _shown: tuple = ()
    _findings: list = []  # replaced, never mutated

    def show(self, planner: Planner) -> None:
        shown = tuple((f.id, f.subject, f.message) for f in planner.findings)
        if shown == self._shown and planner.findings:
            return  # the same findings: keep the table and the selection as they are
        self._shown = shown
        table = self.query_one(DataTable)
        row = table.cursor_row
        table.clear()
        self._findings = list(planner.findings)
        room = max(20, self.size.width - 32)  # what the severity, id and subject columns leave
        for i, f in enumerate(self._findings):
            table.add_row(
                Text(_(SEVERITY_WORD.get(f.severity, f.severity)), SEVERITY_STYLE.get(f.severity, "")),
                f.id,
                _subject(f.subject),
                _fit(f.message, room),
                key=str(i),
            )
        if self._findings:
            table.move_cursor(row=min(row, len(self._findings) - 1))
        self._detail()

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self._detail()

    def _detail(self) -> None:
        out = self.query_one("#finding-detail", Static)
        findings = self._findings
        if not findings:
            out.update(_("No findings for this build.") if self.app.planner.prediction else "")
            return
        from advisor.findings.rules import rule_by_id

        f = findings[min(self.query_one(DataTable).cursor_row, len(findings) - 1)]
        rule = rule_by_id(f.id)
        head = _(SEVERITY_HEAD[f.severity]) if f.severity in SEVERITY_HEAD else f.severity.upper()
        text = Text.assemble(
            (f"{head} {f.id}", SEVERITY_STYLE.get(f.severity, "")),
            f" ({_subject(f.subject)})",
            "\n",
            f.message,
            "\n\n",
            (_("Fix: "), "bold"),
            f.fix,
            "\n\n",
            (_("Why: "), "bold"),
            f.why,
        )
        if rule is not None:
            # the rule's title is in the catalog (rules/*.yaml); its example is translated where the
            # catalog has it, and its condition is code
            text.append_text(
                Text.assemble("\n\n", (_("Rule: "), "bold"), f"{_(rule.title)}: ", (rule.when, "italic"))
            )
            if rule.example:
                text.append_text(Text.assemble("\n\n", (_("Example: "), "bold"), _(rule.example)))
            text.append_text(Text.assemble("\n\n", (_("Sources: "), "bold"), ", ".join(rule.sources)))
        out.update(text)


def _subject(subject: str) -> str:
    """What a finding is about as the views name it: a GPU, a pair, a slot as they are; the whole build
    in words."""
    if subject == "build":
        return _("build")
    if subject == "workload":
        return _("workload")
    return subject


# ---------------------------------------------------------------------- summary line


def summary_text(planner: Planner) -> Text:
    pred = planner.prediction
    t = Text()
    if pred is None:
        t.append(_("cannot evaluate: "), "bold red")
        t.append(planner.error or "", "red")
        return t
    gpus = pred.machine.gpus
    verdict = planner.current.assessment.verdict  # type: ignore[union-attr]
    t.append(verdict.title, "bold red" if verdict.severity == "error" else "bold")
    t.append(" · ")
    if gpus:
        t.append(
            ngettext("{count} GPU, links", "{count} GPUs, links", len(gpus)).format(count=len(gpus)) + " "
        )
        t.append("/".join(f"x{n.link.width}" for n in gpus), "cyan")
    if pred.allreduce and pred.allreduce.value is not None:
        t.append(f"  all-reduce {pred.allreduce.value:.1f} GB/s")
    elif pred.allreduce:
        t.append("  " + _("all-reduce unknown"), "yellow")
    counts = {s: sum(1 for f in planner.findings if f.severity == s) for s in ("error", "warning", "info")}
    t.append("  ")
    said = {
        "error": lambda n: ngettext("{count} error", "{count} errors", n),
        "warning": lambda n: ngettext("{count} warning", "{count} warnings", n),
        "info": lambda n: ngettext("{count} info", "{count} infos", n),
    }
    for s in ("error", "warning", "info"):
        if counts[s]:
            t.append(said[s](counts[s]).format(count=counts[s]) + " ", SEVERITY_STYLE[s])
    if not planner.findings:
        t.append(_("no findings"), "green")
    return t


_VERDICT_STYLE = {"PASS": "green", "FAIL": "bold red", "UNKNOWN": "yellow"}
_VERDICT_WORD = {"PASS": N_("PASS"), "FAIL": N_("FAIL"), "UNKNOWN": N_("UNKNOWN")}


def _readiness_markup(r) -> str:
    """A pair's P2P readiness under its derivation: each layer's verdict and reason, the fix where it
    fails or is not known, and the command that settles an UNKNOWN."""
    if r is None:
        return ""
    lines = [f"\n[b]{escape(_('P2P readiness'))}[/]: [{_VERDICT_STYLE[r.verdict]}]{escape(r.summary)}[/]"]
    for x in r.layers:
        verdict, layer = pad(_(_VERDICT_WORD[x.verdict]), 7), pad(layer_name(x.layer), 8)
        lines.append(f"  [{_VERDICT_STYLE[x.verdict]}]{verdict}[/] [b]{escape(layer)}[/] {escape(x.why)}")
        if x.verdict != "PASS" and x.fix:
            lines.append("           " + _("[b]fix:[/] {fix}").format(fix=escape(x.fix)))
        if x.verdict == "UNKNOWN" and x.check:
            lines.append("           " + _("[b]check:[/] {check}").format(check=escape(x.check)))
    return "\n".join(lines)
