"""Modal screens: pick a part or a slot, a file path, a few values; confirm quitting or replacing a file;
help."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from rich.cells import cell_len
from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, DataTable, DirectoryTree, Input, Label, Select, Static, Switch

from advisor.i18n import _
from advisor.session.parts import Choice


class _ChoiceTable(DataTable):
    """The picker's table: tells its screen when its width changes, so the columns follow it."""

    def on_resize(self, event: events.Resize) -> None:  # after DataTable's own handler (Textual calls both)
        if isinstance(self.screen, ChoicePicker):
            self.screen.fit_columns(self.scrollable_content_region.width)


def match_rank(c: Choice, text: str) -> tuple[int, ...] | None:
    """How well a choice matches what was typed in a picker's filter, best lowest; None: not shown.

    The names come first (the row's name, its other names, its key), the specs last: what is typed
    is a name ("G5)_2", "4090", "wrx90") far more often than a spec, and a spec may name another row
    (a slot row says which slot a card would swap with). Best: a name that is the text; then a name
    that holds it (ending with it first, then the shortest: "4090" before "4090 D"); then a name that
    holds every word; then every word among the names; then every word among names and specs."""
    query = text.casefold().strip()
    if not query:
        return (0,)
    words = query.split()
    names = [n.casefold() for n in (c.label, *c.aliases, c.key) if n]
    if query in names:
        return (0,)
    holding = [n for n in names if query in n]
    if holding:
        return (1, 0 if any(n.endswith(query) for n in holding) else 1, min(len(n) for n in holding))
    if any(all(w in n for w in words) for n in names):
        return (2,)
    joined = " ".join(names)
    if all(w in joined for w in words):
        return (3,)
    if all(w in f"{joined} {c.specs.casefold()}" for w in words):
        return (4,)
    return None


class ChoicePicker(ModalScreen[Any]):
    """A filterable list of choices (parts, slots, sockets) with their key specs and price.

    Type to filter (every word must appear, in the names or the specs), best match first (see
    match_rank): Enter takes the highlighted row, the best match of what was typed, or the one the
    arrows moved to; a click picks; Escape cancels. With
    `count=True` a second field asks how many (for GPUs) and the result is (key, count).

    The columns take the width the dialog has: the name column is as wide as the longest name (a
    name is what the user picks and is never cut: a very long one goes on over two lines of its
    row), the specs column takes the rest. Text too long for it ends in an ellipsis, or with
    `wrap=True` (the slot picker, whose rows say which other cards a move shifts) goes on over
    more lines of its row.
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
        wrap: bool = False,
    ) -> None:
        super().__init__()
        self.title_text = title
        self.choices = choices
        self.prices = prices and any(c.price for c in choices)  # no column that would stay empty
        self.count = count
        self.current = current
        self.wrap = wrap
        self.shown: list[Choice] = []
        self.widths: tuple[int, int, int, int] = (0, 0, 0, 0)  # name, specs, price, status
        self._fitted_to = 0  # the table width the columns were sized for
        self._filter_text = ""

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog picker"):
            yield Label(self.title_text, classes="dialog-title")
            with Horizontal(classes="picker-inputs"):
                yield Input(placeholder=_("type to filter"), id="filter")
                if self.count:
                    yield Label(_("how many"), id="count-label")
                    yield Input("1", id="count", type="integer", max_length=2, tooltip=_("how many cards"))
            yield _ChoiceTable(id="choices", cursor_type="row")
            yield Static("[dim]" + _("Enter picks · Esc cancels") + "[/]", id="picker-help")

    def on_mount(self) -> None:
        # Until the table is laid out, size the columns for the dialog the CSS gives this terminal
        # (96% of it, borders, padding and the scrollbar off); its first resize sizes them exactly.
        self.fit_columns(min(int(self.app.size.width * 0.96), 160) - 8)
        self.query_one("#filter", Input).focus()

    def _status(self, c: Choice) -> str:
        return c.why_not or (_("current") if c.key == self.current else "")

    def fit_columns(self, width: int) -> None:
        """Size the columns to a table `width` cells wide and fill the rows again."""
        if width <= 0 or width == self._fitted_to:
            return
        self._fitted_to = width
        pad = 2  # DataTable's cell padding, one each side
        # a name is never cut: the column is as wide as the longest, or two fifths of the table, and
        # a longer name goes on over a second line of its row
        # widths in terminal cells: a Chinese character takes two
        name_w = min(max([4] + [cell_len(c.label) for c in self.choices]), max(24, width * 2 // 5))
        price_w = max([5] + [cell_len(self._price(c)) for c in self.choices]) if self.prices else 0
        status_need = max([0] + [cell_len(self._status(c)) for c in self.choices])
        spec_need = max([9] + [cell_len(c.specs) for c in self.choices])
        room = width - pad * (3 + self.prices) - name_w - price_w
        if spec_need + status_need <= room:  # everything fits: the specs column takes the rest
            status_w = status_need
        else:  # the status (why a part does not fit) takes up to a third, the specs the rest
            status_w = min(status_need, max(10, room // 3))
        status_w = max(1, status_w)  # DataTable draws an empty column one cell wide
        spec_w = max(16, room - status_w)
        self.widths = (name_w, spec_w, price_w, status_w)
        table = self.query_one(DataTable)
        cursor = table.cursor_row
        table.clear(columns=True)
        table.add_column(_("name"), width=name_w)
        table.add_column(_("key specs"), width=spec_w)
        if self.prices:
            table.add_column(_("price"), width=price_w)
        table.add_column("", width=status_w)
        self._fill(self._filter_text)
        if 0 <= cursor < table.row_count:
            table.move_cursor(row=cursor)

    @staticmethod
    def _price(c: Choice) -> str:
        return f"${c.price:,.0f}" if c.price else ""

    def _cell(self, text: str, width: int, style: str) -> Text:
        cell = Text(text, style)
        if not self.wrap and cell.cell_len > width:
            cell.truncate(width, overflow="ellipsis")
        return cell

    def _fill(self, text: str) -> None:
        self._filter_text = text
        table = self.query_one(DataTable)
        table.clear()
        _name_w, spec_w, _price_w, status_w = self.widths
        ranked = [
            (rank, i, c) for i, c in enumerate(self.choices) if (rank := match_rank(c, text)) is not None
        ]
        self.shown = [c for _, _, c in sorted(ranked, key=lambda r: (r[0], r[1]))]
        for c in self.shown:
            style = "" if c.fits else "dim"
            # the name whole, always: it is what the user picks
            cells = [
                Text(c.label, style + (" bold" if c.key == self.current else "")),
                self._cell(c.specs, spec_w, style),
            ]
            if self.prices:
                cells.append(Text(self._price(c), style))
            cells.append(self._cell(self._status(c), status_w, "yellow" if c.why_not else "green"))
            table.add_row(*cells, height=None if self.wrap or cell_len(c.label) > self.widths[0] else 1)
        if not self.shown:
            self.query_one("#picker-help", Static).update(
                "[yellow]" + _("nothing matches: fewer or other words") + "[/]"
            )
        else:
            self.query_one("#picker-help", Static).update(
                "[dim]"
                + _("{shown} of {count} · Enter picks · Esc cancels").format(
                    shown=len(self.shown), count=len(self.choices)
                )
                + "[/]"
            )

    @on(Input.Changed, "#filter")
    def _filter(self, event: Input.Changed) -> None:
        self._fill(event.value)
        self.query_one(DataTable).move_cursor(row=0)  # the best match of what is typed

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
                self.notify(_("how many: a whole number from 1 to 16"), severity="error")
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
            yield Input(self.value, placeholder=_("path/to/file"), id="path")
            yield _Files(".", self.suffixes, id="files")
            yield Static("[dim]" + _("Enter accepts · Tab to the files · Esc cancels") + "[/]")

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
            self.notify(_("give a file path"), severity="error")
            return
        path = Path(value).expanduser()
        if self.must_exist and not path.is_file():
            self.notify(_("{path}: no such file").format(path=value), severity="error")
            return
        if not self.must_exist and path.is_dir():
            self.notify(_("{path} is a folder: add a file name").format(path=value), severity="error")
            return
        self.dismiss(str(path))

    def action_cancel(self) -> None:
        self.dismiss(None)


class FormDialog(ModalScreen[dict | None]):
    """A few labelled fields (text, whole numbers, choices, switches) and Apply / Cancel."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: str, fields: list[tuple[str, str, Any, Any]]) -> None:
        """fields: (key, label, kind, value); kind is 'int', 'text', 'bool' or a list of options (each a
        value, shown as it is, or a (label, value) pair)."""
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
                                [o if isinstance(o, tuple) else (str(o), o) for o in kind],
                                value=value,
                                allow_blank=False,
                                id=f"f-{key}",
                            )
                        else:
                            yield Input(
                                "" if value is None else str(value),
                                id=f"f-{key}",
                                type="integer" if kind == "int" else "text",
                            )
            with Horizontal(classes="buttons"):
                yield Button(_("Apply"), variant="primary", id="apply")
                yield Button(_("Cancel"), id="cancel")

    def on_mount(self) -> None:
        first = self.query(".form-row > *").results()
        for w in first:
            if w.can_focus:
                w.focus()
                break

    def _values(self) -> dict | None:
        out: dict[str, Any] = {}
        for key, label, kind, _value in self.fields:
            w = self.query_one(f"#f-{key}")
            if kind == "bool":
                out[key] = w.value
            elif isinstance(kind, list):
                out[key] = w.value
            elif kind == "int":
                raw = w.value.strip()
                if raw and not raw.isdigit():
                    self.notify(_("{field}: a whole number, or empty").format(field=label), severity="error")
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

    def __init__(self, name: str, autosave: bool = True) -> None:
        super().__init__()
        self.build_name = name
        self.autosave = autosave

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog confirm"):
            yield Label(
                _("{build} has unsaved changes.").format(build=self.build_name), classes="dialog-title"
            )
            if self.autosave:
                yield Static(_("Save them before quitting? (An autosave is kept until you save or discard.)"))
            else:
                yield Static(
                    _("Save them before quitting? (Autosave is off: quitting without saving loses them.)")
                )
            with Horizontal(classes="buttons"):
                yield Button(_("Save (s)"), variant="primary", id="save")
                yield Button(_("Quit without saving (d)"), variant="error", id="discard")
                yield Button(_("Stay (Esc)"), id="stay")

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(None if event.button.id == "stay" else event.button.id)

    def action_choose(self, what: str) -> None:
        self.dismiss(what)

    def action_stay(self) -> None:
        self.dismiss(None)


class ConfirmReplace(ModalScreen[bool]):
    """A file is already there: replace it, or go back. The question names the file and, for one that
    is not a build, says so ("quote.txt is not a build file (it does not read as one): replace it
    anyway?"); below it, the whole path. With action="Create": the file's folder does not exist yet,
    and the answer is whether to make it."""

    BINDINGS = [
        Binding("escape,n", "answer(False)", "Cancel"),
        # the key of the button's word: r for Replace, c for Create (never c for a Replace: "cancel")
        Binding("r", "key_answer('r')", "Replace", show=False),
        Binding("c", "key_answer('c')", "Create", show=False),
    ]

    def __init__(self, question: str, path: str, action: str = "Replace") -> None:
        super().__init__()
        self.question, self.path, self.action = question, path, action

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog confirm"):
            yield Label(Text(self.question), classes="dialog-title")  # a file name is never markup
            yield Static(Text(self.path, "dim"), id="replace-path")
            with Horizontal(classes="buttons"):
                label = _("Create (c)") if self.action == "Create" else _("Replace (r)")
                yield Button(label, variant="error", id="replace")
                yield Button(_("Cancel (Esc)"), variant="primary", id="cancel")

    def on_mount(self) -> None:
        self.query_one("#cancel", Button).focus()  # Enter alone never replaces a file

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "replace")

    def action_answer(self, replace: bool) -> None:
        self.dismiss(replace)

    def action_key_answer(self, key: str) -> None:
        if key == self.action[0].lower():
            self.dismiss(True)
        else:
            self.app.bell()


class HelpScreen(ModalScreen[None]):
    """The help (F1): Markdown made by advisor.tui.help from the app's tabs and bindings."""

    BINDINGS = [Binding("escape,f1,q", "close", "Close")]

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        from textual.widgets import Markdown  # its parser is only needed when help is asked for

        with VerticalScroll(classes="dialog help"):
            yield Markdown(self.text)

    def action_close(self) -> None:
        self.dismiss(None)
