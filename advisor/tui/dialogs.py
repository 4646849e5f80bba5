"""Modal screens: pick a part or a slot, a file path, a few values; confirm quitting; help."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, DataTable, DirectoryTree, Input, Label, Select, Static, Switch

from advisor.session.planner import Choice


class ChoicePicker(ModalScreen[Any]):
    """A filterable list of choices (parts, slots, sockets) with their key specs and price.

    Type to filter (every word must appear); Enter or a click picks; Escape cancels. With
    `count=True` a second field asks how many (for GPUs) and the result is (key, count).
    """

    BINDINGS = [
        Binding("escape", "cancel", "Cancel"),
        # the filter field keeps the focus; these keys move the list under it
        Binding("down", "table('cursor_down')", show=False),
        Binding("up", "table('cursor_up')", show=False),
        Binding("pagedown", "table('page_down')", show=False),
        Binding("pageup", "table('page_up')", show=False),
    ]

    def __init__(
        self,
        title: str,
        choices: list[Choice],
        prices: bool = True,
        count: bool = False,
        current: str | None = None,
    ) -> None:
        super().__init__()
        self.title_text = title
        self.choices = choices
        self.prices = prices
        self.count = count
        self.current = current
        self.shown: list[Choice] = []

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog picker"):
            yield Label(self.title_text, classes="dialog-title")
            with Horizontal(classes="picker-inputs"):
                yield Input(placeholder="type to filter", id="filter")
                if self.count:
                    yield Label("how many", id="count-label")
                    yield Input("1", id="count", type="integer", max_length=2, tooltip="how many cards")
            yield DataTable(id="choices", cursor_type="row")
            yield Static("[dim]Enter picks · Esc cancels[/]", id="picker-help")

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_column("name", width=32)
        table.add_column("key specs", width=38 if self.prices else 46)
        if self.prices:
            table.add_column("price", width=7)
        table.add_column("")
        self._fill("")
        self.query_one("#filter", Input).focus()

    def _fill(self, text: str) -> None:
        words = text.lower().split()
        table = self.query_one(DataTable)
        table.clear()
        self.shown = [
            c for c in self.choices if all(w in f"{c.label} {c.key} {c.specs}".lower() for w in words)
        ]
        for c in self.shown:
            style = "" if c.fits else "dim"
            cells = [Text(c.label, style + (" bold" if c.key == self.current else "")), Text(c.specs, style)]
            if self.prices:
                cells.append(Text(f"${c.price:,.0f}" if c.price else "", style))
            cells.append(
                Text(c.why_not, "yellow")
                if c.why_not
                else Text("current" if c.key == self.current else "", "green")
            )
            table.add_row(*cells)
        if not self.shown:
            self.query_one("#picker-help", Static).update("[yellow]nothing matches: fewer or other words[/]")
        else:
            self.query_one("#picker-help", Static).update(
                f"[dim]{len(self.shown)} of {len(self.choices)} · Enter picks · Esc cancels[/]"
            )

    @on(Input.Changed, "#filter")
    def _filter(self, event: Input.Changed) -> None:
        self._fill(event.value)

    @on(Input.Submitted)
    def _submit(self) -> None:
        self._pick(self.query_one(DataTable).cursor_row)

    @on(DataTable.RowSelected)
    def _selected(self, event: DataTable.RowSelected) -> None:
        self._pick(event.cursor_row)

    def _pick(self, row: int) -> None:
        if not self.shown or not 0 <= row < len(self.shown):
            self.app.bell()
            return
        key = self.shown[row].key
        if self.count:
            raw = self.query_one("#count", Input).value or "1"
            n = int(raw) if raw.isdigit() else 0
            if not 1 <= n <= 16:
                self.notify("how many: a whole number from 1 to 16", severity="error")
                return
            self.dismiss((key, n))
        else:
            self.dismiss(key)

    def action_cancel(self) -> None:
        self.dismiss(None)

    def action_table(self, action: str) -> None:
        getattr(self.query_one(DataTable), f"action_{action}")()


class _Files(DirectoryTree):
    def __init__(self, path: str, suffixes: Iterable[str], **kwargs) -> None:
        self.suffixes = tuple(suffixes)
        super().__init__(path, **kwargs)

    def filter_paths(self, paths: Iterable[Path]) -> Iterable[Path]:
        return [
            p
            for p in paths
            if not p.name.startswith(".") and (p.is_dir() or p.suffix.lower() in self.suffixes)
        ]


class PathPrompt(ModalScreen[str | None]):
    """Ask for a file path: type it, or pick a file in the tree below."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(
        self,
        title: str,
        value: str = "",
        suffixes: Iterable[str] = (".yaml", ".yml"),
        must_exist: bool = True,
    ) -> None:
        super().__init__()
        self.title_text, self.value, self.suffixes, self.must_exist = (
            title,
            value,
            tuple(suffixes),
            must_exist,
        )

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog path-dialog"):
            yield Label(self.title_text, classes="dialog-title")
            yield Input(self.value, placeholder="path/to/file", id="path")
            yield _Files(".", self.suffixes, id="files")
            yield Static("[dim]Enter accepts · Tab to the files · Esc cancels[/]")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @on(DirectoryTree.FileSelected)
    def _file(self, event: DirectoryTree.FileSelected) -> None:
        inp = self.query_one(Input)
        inp.value = str(event.path)
        if self.must_exist:
            self.dismiss(str(event.path))
        else:
            inp.focus()

    @on(Input.Submitted)
    def _submit(self, event: Input.Submitted) -> None:
        value = event.value.strip()
        if not value:
            self.notify("give a file path", severity="error")
            return
        path = Path(value).expanduser()
        if self.must_exist and not path.is_file():
            self.notify(f"{value}: no such file", severity="error")
            return
        if not self.must_exist and path.is_dir():
            self.notify(f"{value} is a folder: add a file name", severity="error")
            return
        self.dismiss(str(path))

    def action_cancel(self) -> None:
        self.dismiss(None)


class FormDialog(ModalScreen[dict | None]):
    """A few labelled fields (text, whole numbers, choices, switches) and Apply / Cancel."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: str, fields: list[tuple[str, str, Any, Any]]) -> None:
        """fields: (key, label, kind, value); kind is 'int', 'text', 'bool' or a list of options."""
        super().__init__()
        self.title_text = title
        self.fields = fields

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog form"):
            yield Label(self.title_text, classes="dialog-title")
            with VerticalScroll(classes="form-fields"):
                for key, label, kind, value in self.fields:
                    with Horizontal(classes="form-row"):
                        yield Label(label, classes="form-label")
                        if kind == "bool":
                            yield Switch(bool(value), id=f"f-{key}")
                        elif isinstance(kind, list):
                            yield Select(
                                [(str(o), o) for o in kind], value=value, allow_blank=False, id=f"f-{key}"
                            )
                        else:
                            yield Input(
                                "" if value is None else str(value),
                                id=f"f-{key}",
                                type="integer" if kind == "int" else "text",
                            )
            with Horizontal(classes="buttons"):
                yield Button("Apply", variant="primary", id="apply")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        first = self.query(".form-row > *").results()
        for w in first:
            if w.can_focus:
                w.focus()
                break

    def _values(self) -> dict | None:
        out: dict[str, Any] = {}
        for key, label, kind, _ in self.fields:
            w = self.query_one(f"#f-{key}")
            if kind == "bool":
                out[key] = w.value
            elif isinstance(kind, list):
                out[key] = w.value
            elif kind == "int":
                raw = w.value.strip()
                if raw and not raw.isdigit():
                    self.notify(f"{label}: a whole number, or empty", severity="error")
                    return None
                out[key] = int(raw) if raw else None
            else:
                out[key] = w.value.strip()
        return out

    @on(Button.Pressed, "#apply")
    @on(Input.Submitted)
    def _apply(self) -> None:
        values = self._values()
        if values is not None:
            self.dismiss(values)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)


class ConfirmQuit(ModalScreen[str | None]):
    """Unsaved changes: save, quit without saving, or stay."""

    BINDINGS = [
        Binding("escape", "stay", "Stay"),
        Binding("s", "choose('save')", "Save"),
        Binding("d", "choose('discard')", "Discard"),
    ]

    def __init__(self, name: str) -> None:
        super().__init__()
        self.build_name = name

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog confirm"):
            yield Label(f"{self.build_name} has unsaved changes.", classes="dialog-title")
            yield Static("Save them before quitting? (An autosave is kept until you save or discard.)")
            with Horizontal(classes="buttons"):
                yield Button("Save (s)", variant="primary", id="save")
                yield Button("Quit without saving (d)", variant="error", id="discard")
                yield Button("Stay (Esc)", id="stay")

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(None if event.button.id == "stay" else event.button.id)

    def action_choose(self, what: str) -> None:
        self.dismiss(what)

    def action_stay(self) -> None:
        self.dismiss(None)


HELP = """\
# advisor: plan a multi-GPU build

Pick parts on the left; every view on the right follows each change at once. The keys that edit
the build act when the build panel (or the tab bar) has the focus: inside a view, a letter is the
view's own (Tab moves the focus; the footer shows which keys act where).

## Keys

| key | does |
|---|---|
| **c** / **b** | pick the CPU / the board (only boards that take the CPU) |
| **g** | add GPUs (pick a model and how many) |
| **m** | move the selected GPU to another slot (each slot shows the link it would give) |
| **a** | automatic placement for every card |
| **+** / **-** / **Delete** or **x** | one more of the selected card / remove the selected line |
| **n** | add an NVMe SSD in an M.2 socket (shows what lanes it shares) |
| **Enter** | edit the selected line of the build |
| **v** | GPU matrix: one way / both ways / latency / path class |
| **1**-**8** | Machine, Links, GPUs, Findings, Quote, Measure, Compare, Job (from any focus but a text field) |
| **Esc** | leave a text field (the quote box), so view keys work again |
| **Ctrl+O** / **Ctrl+S** | open / save a build file (atomic; unsaved work is autosaved) |
| **Ctrl+E** | export the report as Markdown |
| **Ctrl+Z** / **Ctrl+Y** | undo / redo |
| **Ctrl+P** | command palette: jump to any part or action |
| **Ctrl+T** | light / dark theme |
| **F1** | this help · **Ctrl+Q** quit |

## Views

- **Machine**: sockets, host bridges, root ports, chipset, switches, slots (empty ones too) and
  devices, each with its negotiated link and predicted H2D/D2H.
- **Links**: per GPU pinned host copies alone and with all GPUs copying at once; the selected
  row shows the derivation and what limits the link.
- **GPUs**: the GPU-to-GPU matrix like p2pBandwidthLatencyTest, with the path class
  (`nvidia-smi topo -m`) in each cell where the view is wide enough (**v** shows the paths alone);
  green = P2P or NVLink, yellow = staged through host memory. The selected pair shows CUDA
  P2P and NCCL's transport, with reasons, and the derivation of its figure.
- **Findings**: worst first; the selected finding's fix, why it matters and its sources.
- **Quote**: paste a vendor's quote (or open a file) and check it: matched parts, false claims,
  findings; its build opens in the planner (Ctrl+Z brings yours back).
- **Measure**: run the torch bench here (needs torch and a CUDA GPU) or load a measurement file
  (`advisor bench`, `advisor import`, or a tool's output).
- **Compare**: predicted vs measured for this build; flagged rows name their likely causes.
- **Job**: will N GPUs beat one for your job? Pick training or inference, a model, the
  strategy and the sizes: time per step or tokens/s on 1 GPU and on N of this build, the
  speed-up, where the time goes, memory per GPU, the bottleneck and what to change.

Every number is a prediction from the catalog and the model's constants (`advisor plan
--explain` lists their sources). Not checked: BIOS settings beyond those in the build, risers,
thermals, driver and NCCL versions, multi-node networking.
"""


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,f1,q", "close", "Close")]

    def compose(self) -> ComposeResult:
        from textual.widgets import Markdown  # its parser is only needed when help is asked for

        with VerticalScroll(classes="dialog help"):
            yield Markdown(HELP)

    def action_close(self) -> None:
        self.dismiss(None)
