"""The advisor app: a planner on the left, live views on the right, quote / measure / compare in tabs.

State lives in an advisor.session.planner.Planner (the build, its evaluation, undo) and in the list of
loaded measurements; widgets read them after every change. Every edit goes through `edit()`, which
catches the user's mistakes (UserError) and shows them instead of crashing.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import events, on
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal
from textual.lazy import Lazy
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Button, Footer, Header, OptionList, Static, TabbedContent, TabPane

from advisor.base.errors import UserError
from advisor.base.files import atomic_write
from advisor.base.resources import bundled
from advisor.base.yamlio import loads, read_text
from advisor.i18n import LANGUAGES, N_, _, language, set_language
from advisor.model.buildfile import build_from_data, load_build
from advisor.model.catalog.store import Catalog, load_catalog
from advisor.session.buildyaml import cards_of, file_name_for
from advisor.session.naming import parts_name
from advisor.session.parts import Choice
from advisor.session.planner import Planner
from advisor.tui import autosave
from advisor.tui.changebox import short_name
from advisor.tui.commands import PartsCommands
from advisor.tui.dialogs import ChoicePicker, ConfirmQuit, ConfirmReplace, FormDialog, HelpScreen, PathPrompt
from advisor.tui.panes import ComparePane, MeasurePane, QuotePane
from advisor.tui.recommend_pane import RecommendScreen
from advisor.tui.views import BuildPanel, FindingsView, HostView, MachineTree, MatrixView, summary_text
from advisor.tui.workload_pane import WorkloadPane

if TYPE_CHECKING:  # measurements are read only when one is loaded
    from advisor.measure.models import Measurement

# The tabs, in key order (1-8): title (in English: shown with _()), tab id, widget, widget id.
PANES = (
    (N_("Machine"), "machine", MachineTree, "machine-tree"),
    (N_("Links"), "links", HostView, "host"),
    (N_("GPUs"), "matrix", MatrixView, "matrix-view"),
    (N_("Findings"), "findings", FindingsView, "findings-view"),
    (N_("Quote"), "quote", QuotePane, "quote-pane"),
    (N_("Measure"), "measure", MeasurePane, "measure-pane"),
    (N_("Compare"), "compare", ComparePane, "compare-pane"),
    (N_("Job"), "workload", WorkloadPane, "workload-pane"),
)
# The views drawn from the build (the others hold their own input): redrawn after every edit, lazily.
VIEWS = {tab: cls for _, tab, cls, _ in PANES if tab not in ("quote", "measure")}
EXAMPLE = "2x4090-z790-hero.yaml"
# What to do about a build that cannot be evaluated, by what is wrong: the app's keys, not the CLI's
HINTS = {"cpu-board": N_("press b for a board that takes the CPU, or c for a CPU that fits the board")}
# The settings form's choice for a setting the build does not state (as `advisor plan` takes it)
UNSTATED = {
    "driver": "not set (stock)",
    "iommu": "unknown",
    "acs": "unknown",
    "large_bar": "unknown",
}
# The settings form's choices as the form shows them, where they are words (the values the form returns
# stay these English words; ids such as ddp, vllm or PXB are shown as they are)
CHOICE_WORDS = {
    "not set (stock)": N_("not set (stock)"),
    "unknown": N_("unknown"),
    "stock": N_("stock"),
    "on": N_("on"),
    "off": N_("off"),
    "default": N_("default"),
    "none": N_("none"),
    "linux": "Linux",
    "windows": "Windows",
    "vm": N_("vm"),
    "vm-clique": N_("vm-clique"),
}
FROM_QUOTE = "build from "  # the name a quote's build gets: "build from quote 2x4090-z790-hero-email.txt"
# What is written, as the questions and notices about writing it name it
WRITTEN = {"build": N_("build"), "report": N_("report"), "quote report": N_("quote report")}
# The palette entry and key that switch the language: both names, each in its own language
LANGUAGE_SWITCH = "中文 / English"
# Textual's own words the app shows (its palette commands, the palette key in the footer): translated
# where they are shown, like the app's own
TEXTUAL_WORDS = frozenset(
    {
        N_("palette"),
        N_("Open the command palette"),
        N_("Theme"),
        N_("Change the current theme"),
        N_("Quit"),
        N_("Quit the application as soon as possible"),
        N_("Keys"),
        N_("Hide the keys and widget help panel"),
        N_("Show help for the focused widget and a summary of available keys"),
        N_("Minimize"),
        N_("Minimize the widget and restore to normal size"),
        N_("Maximize"),
        N_("Maximize the focused widget"),
        N_("Screenshot"),
        N_("Save an SVG 'screenshot' of the current screen"),
    }
)


def choices(values: Iterable[Any]) -> list[tuple[str, Any]]:
    """A form's options as (label, value): the value as it is, its label in the current language."""
    return [(_(CHOICE_WORDS[v]) if isinstance(v, str) and v in CHOICE_WORDS else str(v), v) for v in values]


MAX_BUILD_BYTES = 4 * 1024 * 1024  # a file larger than this is not read to find out whether it is a build


class LazyView(Lazy):
    """Textual's Lazy, except that a view whose tab has gone before it was mounted is left unmounted:
    a session of `advisor serve` closed while the app drew its first screen made Lazy mount into a
    tab pane no longer there (MountError, its traceback printed on the server's output)."""

    async def mount_composed_widgets(self, widgets: list[Any]) -> None:
        parent = self.parent
        if parent is None:
            return

        async def mount() -> None:
            if not parent.is_attached or not self.is_attached:
                return  # the app is closing
            await parent.mount(self._replace_widget, after=self)
            await self.remove()

        self.call_after_refresh(mount)


def describe_file(path: Path) -> str:
    """What the file at `path` is, for the question before replacing it: "build" when it reads as a
    build; else, in words, why it is not one: "it does not read as one", "it is a device or a pipe, not
    a file". Never reads a device or a pipe (a FIFO would block), nor a file too large to be a build."""
    import stat

    try:
        st = path.stat()
    except OSError as exc:
        return _("it cannot be read: {why}").format(why=exc.strerror or exc)
    if stat.S_ISDIR(st.st_mode):
        return _("it is a folder")
    if not stat.S_ISREG(st.st_mode):
        return _("it is a device or a pipe, not a file")
    if st.st_size > MAX_BUILD_BYTES:
        return _("it does not read as one: {size} bytes").format(size=f"{st.st_size:,}")
    try:
        build_from_data(loads(read_text(path), str(path)), str(path))
    except Exception:  # any reason it is not a build is the same answer: it does not read as one
        return _("it does not read as one")
    return "build"


class AdvisorApp(App):
    TITLE = "advisor"
    SUB_TITLE = "multi-GPU build planner"
    CSS_PATH = "app.tcss"
    COMMANDS = App.COMMANDS | {PartsCommands}
    # descriptions in English, shown in the current language (_relabel_bindings)
    BINDINGS = [
        Binding("c", "pick_cpu", "CPU"),
        Binding("b", "pick_board", N_("Board")),
        Binding("g", "add_gpu", "+GPU"),
        Binding("m", "move_gpu", N_("Move")),
        Binding("n", "add_nvme", "+SSD"),
        Binding("delete,x", "remove", N_("Remove")),
        Binding("a", "auto_place", N_("Auto"), show=False),
        Binding("plus,equals_sign", "more", N_("One more"), show=False),
        Binding("minus", "remove", N_("Remove"), show=False),
        Binding("v", "matrix_mode", N_("Matrix mode"), show=False),
        Binding("r", "recommend", N_("What to buy"), show=False),
        Binding("ctrl+s", "save", N_("Save")),
        Binding("ctrl+o", "open", N_("Open")),
        Binding("ctrl+e", "export", N_("Export"), show=False),
        Binding("ctrl+z", "undo", N_("Undo"), show=False),
        Binding("ctrl+y", "redo", N_("Redo"), show=False),
        Binding("ctrl+t", "toggle_theme", N_("Theme"), show=False),
        Binding("f2", "switch_language", LANGUAGE_SWITCH, show=False),
        Binding("f1", "help", N_("Help")),
        Binding("ctrl+q", "quit", N_("Quit"), priority=True),
        Binding("escape", "leave_field", N_("Leave the text field")),
        *[
            Binding(str(i + 1), f"view('{tab}')", title, show=False)
            for i, (title, tab, _cls, _wid) in enumerate(PANES)
        ],
    ]

    def __init__(
        self,
        build_path: str | None = None,
        catalog: Catalog | None = None,
        quote_path: str | None = None,
        measurements: Iterable[str] = (),
    ) -> None:
        super().__init__()
        # each binding's description and tooltip as written (English), to show in the current language
        self._binding_words = {
            key: [(b.description, b.tooltip) for b in bindings]
            for key, bindings in self._bindings.key_to_bindings.items()
        }
        self._relabel_bindings()
        self.catalog = catalog or load_catalog()
        self.build_path = build_path
        self.quote_path = quote_path
        self.measurement_paths = list(measurements)
        self.measurements: list[tuple[str, Measurement]] = []
        self._stale: set[str] = set()  # views to redraw when they are next shown
        self._startup_notes: list[tuple[str, str]] = []  # (message, severity), said once mounted
        self._autosave_off: str | None = None  # why autosave is off, when it is
        self._autosave_timer: Timer | None = None
        self._claim = autosave.Claim(None, None, None)  # this app's autosave file, held while it runs
        self.planner = self._start_planner()

    # ------------------------------------------------------------------ start-up

    def _start_planner(self) -> Planner:
        self._autosave_off = autosave.problem()
        if self._autosave_off:
            self._startup_notes.append(
                (
                    _(
                        "autosave is off: {why}. Save your work with Ctrl+S; to keep autosaves, "
                        "set ADVISOR_STATE_DIR to a folder you can write to"
                    ).format(why=self._autosave_off),
                    "warning",
                )
            )
        if self.build_path:
            planner = Planner.open(self.build_path, self.catalog, HINTS)
            saved = self._recover(planner.path)
            if saved is not None:
                self._restore(
                    planner,
                    saved,
                    _(
                        "restored unsaved changes to {path} from the autosave; "
                        "'Revert to saved file' in the palette drops them"
                    ).format(path=self.build_path),
                )
            return planner
        saved = self._recover(None)
        planner = Planner(load_build(bundled("examples") / EXAMPLE), self.catalog, hints=HINTS)
        if saved is not None:
            self._restore(planner, saved, _("restored your unsaved build from the last session"))
        return planner

    def _recover(self, origin: Path | None) -> str | None:
        """This app's autosave of `origin` claimed, and the unsaved work to restore, if any (the newest of
        the apps that have gone; the others' kept aside and named). Another live app's is left to it."""
        found = autosave.recover(origin)
        self._claim = found.claim
        for damaged in found.damaged:
            self._unreadable_autosave(damaged, origin)
        what = _("the untitled build") if origin is None else str(origin)
        if found.busy:
            self._startup_notes.append(
                (
                    _(
                        "another advisor app is editing {build}: its unsaved changes stay its own, and this "
                        "app keeps its own in an autosave of its own"
                    ).format(build=what),
                    "warning",
                )
            )
        for kept in found.kept:
            self._startup_notes.append(
                (
                    _(
                        "unsaved changes to {build} from another session are kept, unchanged, as {kept}; "
                        "open it to compare (Ctrl+O)"
                    ).format(build=what, kept=kept),
                    "warning",
                )
            )
        if found.claim.path is None and self._autosave_off is None:
            self._autosave_off = _("{count} other advisor apps hold an autosave of {build}").format(
                count=autosave.MAX_APPS, build=what
            )
        return found.text

    def _claim_for(self, origin: Path | None) -> None:
        """Move this app's autosave to `origin`'s build (a build opened or saved under another name)."""
        if self._claim.origin == origin:
            return
        self._claim.release()
        self._claim = autosave.claim(origin)

    def _restore(self, planner: Planner, text: str, message: str) -> None:
        origin = planner.path
        try:
            planner.replace(build_from_data(loads(text, "autosave"), "autosave"))
            planner.undo_stack.clear()
            self._startup_notes.append((message, "information"))
        except Exception as exc:
            # whatever is wrong with it (a newer version's key, a bug in reading it), the app starts
            # and the autosave is kept aside
            why = exc.render() if isinstance(exc, UserError) else f"{type(exc).__name__}: {exc}"
            why = why.splitlines()[0] if why.strip() else _("it is not a build")
            self._unreadable_autosave(autosave.set_aside(self._claim, why[:300]), origin)

    def _unreadable_autosave(self, damaged: autosave.Damaged, origin: Path | None) -> None:
        """An autosave that cannot be read back: it was moved aside (never overwritten, never deleted),
        and the user is told why and where it is; where it could not be moved, autosave stays off."""
        opened = (
            _("the example build is open instead")
            if origin is None
            else _("{path} is open as last saved").format(path=origin)
        )
        if damaged.kept is not None:
            self._startup_notes.append(
                (
                    _(
                        "an autosave could not be read: {why}. It is kept, unchanged, as {kept}; {opened}."
                    ).format(why=damaged.why, kept=damaged.kept, opened=opened),
                    "warning",
                )
            )
            return
        self._autosave_off = _("the autosave {path} could not be moved aside ({why})").format(
            path=damaged.path, why=damaged.move_error
        )
        self._startup_notes.append(
            (
                _(
                    "an autosave could not be read: {why}. It could not be moved aside either "
                    "({move_error}), so autosave is off and nothing overwrites it: it is {path}; "
                    "{opened}. Save your work with Ctrl+S."
                ).format(why=damaged.why, move_error=damaged.move_error, path=damaged.path, opened=opened),
                "warning",
            )
        )

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="main"):
            yield BuildPanel(id="build")
            with TabbedContent(id="views", initial="machine"):
                for title, tab, cls, wid in PANES:
                    with TabPane(_(title), id=tab):
                        # the hidden tabs are mounted after the first screen is drawn
                        yield cls(id=wid) if tab == "machine" else LazyView(cls(id=wid))
        yield Static(id="summary")
        yield Footer(compact=True)

    def on_unmount(self) -> None:
        self._claim.release()  # the lock goes with the process anyway; its file goes here

    def on_mount(self) -> None:
        self.query_one("#build").border_title = _("Build")
        for path in self.measurement_paths:
            self.load_measurement(path)
        self.refresh_views()
        self.query_one("#build-items").focus()
        for message, severity in self._startup_notes:
            self.notify(
                message, severity=severity, timeout=8 if severity == "information" else 20, markup=False
            )
        if self.quote_path:
            self.open_quote(self.quote_path)

    # ------------------------------------------------------------------ the one way state changes

    def refresh_views(self) -> None:
        """Redraw the build panel, the summary and the view on screen; the other views when they are shown."""
        p = self.planner
        name = p.build.name or (p.path.stem if p.path else _("untitled build"))
        self.sub_title = name + (f" ({p.path})" if p.path else "") + (" " + _("*unsaved") if p.dirty else "")
        self.query_one(BuildPanel).show(p)
        self.query_one("#summary", Static).update(summary_text(p), layout=False)  # one line, always
        self._stale = set(VIEWS)
        self._show_view(self.query_one(TabbedContent).active)

    def _show_view(self, tab: str) -> None:
        if tab not in self._stale:
            return
        view = self.query(VIEWS[tab])
        if (
            not view or not view.first().size.width
        ):  # a lazy tab not mounted or laid out yet: draw it once it is
            self.call_after_refresh(self._show_view, tab)
            return
        self._stale.discard(tab)
        view.first().show(self.planner)

    @on(TabbedContent.TabActivated)
    def _tab_shown(self, event: TabbedContent.TabActivated) -> None:
        self._show_view(event.pane.id or "")

    def redraw_view(self, tab: str) -> None:
        """A view's own inputs changed: redraw it now if it is on screen, else when it is shown."""
        self._stale.add(tab)
        if self.is_mounted:
            self._show_view(self.query_one(TabbedContent).active)

    def edit(
        self, change: Callable[..., list[str]], *args: Any, announce: bool = True, **kwargs: Any
    ) -> bool:
        """Apply one edit to the planner; a mistake becomes a message, never a crash. With `announce`,
        links that moved are also said in a notification (the build panel always lists them)."""
        try:
            changes = change(*args, **kwargs)
        except UserError as exc:
            self.notify(exc.render(), title=_("not changed"), severity="error", timeout=8)
            return False
        self.refresh_views()
        self._schedule_autosave()
        # a card moved or its link changed: the change's line has "->" in every language
        moved = [c for c in changes if "->" in c and "all-reduce" not in c]
        if moved and announce:
            more = "\n" + _("and {count} more: {names}").format(
                count=len(moved) - 4, names=_(", ").join(short_name(c) for c in moved[4:])
            )
            self.notify(
                "\n".join(moved[:4]) + (more if len(moved) > 4 else ""), title=_("links changed"), timeout=5
            )
        elif self.planner.error:
            self.notify(self.planner.error, title=_("cannot evaluate"), severity="warning", timeout=8)
        return True

    def _schedule_autosave(self) -> None:
        if self._autosave_timer is not None:
            self._autosave_timer.stop()
        self._autosave_timer = self.set_timer(1.0, self.flush_autosave)

    def flush_autosave(self) -> None:
        if self.planner.dirty and self._autosave_off is None:
            self._claim_for(self.planner.path)
            try:
                autosave.write(self._claim, self.planner.yaml)
            except OSError as exc:  # a WriteError says the path and what is wrong
                self.notify(_("autosave failed: {why}").format(why=exc), severity="warning", markup=False)

    # ------------------------------------------------------------------ what is selected

    def selected_line(self) -> str | None:
        opt = self.query_one("#build-items", OptionList).highlighted_option
        return opt.id if opt else None

    def selected_gpu(self) -> int | None:
        key = self.selected_line() or ""
        if key.startswith("gpu:"):
            return int(key.split(":")[1])
        return 0 if cards_of(self.planner.build) else None

    # ------------------------------------------------------------------ build editing actions

    def pick(self, title: str, choices: list[Choice], then: Callable[[Any], None], **kwargs: Any) -> None:
        def done(result: Any) -> None:
            if result is not None:
                then(result)

        self.push_screen(ChoicePicker(title, choices, **kwargs), done)

    def action_pick_cpu(self) -> None:
        cur = self.planner.cpu.id if self.planner.cpu else None
        self.pick(
            _("CPU (ones that fit the board first)"), self.planner.cpu_choices(), self.choose_cpu, current=cur
        )

    def choose_cpu(self, key: str) -> None:
        """Put the CPU `key` in the build. One the board does not take is never put on it: the boards
        that take it are offered, and the CPU changes with the board picked; Esc keeps both as they are."""
        p = self.planner
        choice = next((c for c in p.cpu_choices() if c.key == key), None)
        board = p.board
        if choice is None or choice.fits or board is None or p.explicit:
            self.edit(p.set_cpu, key)
            return
        cpu = p.catalog.resolve(key, "cpu")
        boards = [c for c in p.board_choices(cpu) if c.fits]  # type: ignore[arg-type]
        old = p.cpu.name if p.cpu else _("the CPU")
        if not boards:
            self.notify(
                _(
                    "{cpu} does not fit {board} ({why}), and no board in the catalog takes it: {old} is kept"
                ).format(cpu=cpu.name, board=board.name, why=choice.why_not, old=old),
                title=_("not changed"),
                severity="warning",
                timeout=8,
            )
            return

        def done(board_key: str | None) -> None:
            if board_key is None:
                self.notify(
                    _("{old} and {board} are kept").format(old=old, board=board.name),
                    title=_("not changed"),
                    timeout=5,
                )
            else:
                self.edit(p.set_platform, key, board_key)

        self.push_screen(
            ChoicePicker(
                _(
                    "{cpu} does not fit {board} ({why}): pick a board that takes it, or Esc to keep {old}"
                ).format(cpu=cpu.name, board=board.name, why=choice.why_not, old=old),
                boards,
            ),
            done,
        )

    def action_pick_board(self) -> None:
        cpu = self.planner.cpu
        choices = [c for c in self.planner.board_choices() if c.fits]
        title = (
            _("Board (the ones that take {cpu})").format(cpu=cpu.name)
            if cpu and not self.planner.explicit
            else _("Board")
        )
        cur = self.planner.board.id if self.planner.board else None
        self.pick(title, choices, lambda key: self.edit(self.planner.set_board, key), current=cur)

    def action_add_gpu(self) -> None:
        self.pick(
            _("Add GPUs (model, and how many in the second field)"),
            self.planner.gpu_choices(),
            lambda r: self.edit(self.planner.add_gpu, r[0], count=r[1]),
            count=True,
        )

    def action_more(self) -> None:
        i = self.selected_gpu()
        if i is None:
            self.action_add_gpu()
            return
        self.edit(self.planner.add_gpu, cards_of(self.planner.build)[i].model)

    def action_move_gpu(self) -> None:
        i = self.selected_gpu()
        if i is None:
            self.notify(_("the build has no GPU to move"), severity="warning")
            return
        if self.planner.explicit:
            self.notify(_("an explicit PCIe tree: move cards by editing its file"), severity="warning")
            return
        self.pick(
            _("Move GPU{index} to a slot (what it would get there)").format(index=i),
            self.planner.slot_choices(i),
            lambda slot: self.edit(self.planner.move_gpu, i, slot or None),
            prices=False,
            current=self.planner.placement.get(i),
            wrap=True,  # each row names every other card the move shifts: shown whole
        )

    def action_auto_place(self) -> None:
        self.edit(self.planner.auto_place)

    def action_remove(self) -> None:
        key = self.selected_line() or ""
        kind, _sep, what = key.partition(":")
        if kind == "gpu":
            self.edit(self.planner.remove_gpu, int(what))
        elif kind == "nvme":
            self.edit(self.planner.remove_nvme, what)
        elif kind == "nic":
            self.edit(self.planner.remove_nic, int(what))
        else:
            self.notify(_("select a GPU, SSD or NIC line in the build to remove it"), severity="warning")

    def action_add_nvme(self) -> None:
        choices = self.planner.m2_choices()
        if not choices:
            self.notify(_("this build has no board with M.2 sockets in the catalog"), severity="warning")
            return
        self.pick(
            _("Add an NVMe SSD: M.2 socket (and the lanes it shares)"),
            choices,
            lambda s: self.edit(self.planner.add_nvme, s),
            prices=False,
            wrap=True,
        )

    def action_add_nic(self) -> None:
        def done(v: dict | None) -> None:
            if v:
                self.edit(self.planner.add_nic, v["name"] or "NIC", None, v["gen"], v["width"])

        self.push_screen(
            FormDialog(
                _("Add a network card (placed automatically)"),
                [
                    ("name", _("name"), "text", "NIC"),
                    ("gen", _("PCIe generation"), [3, 4, 5], 4),
                    ("width", _("lanes"), [1, 4, 8, 16], 16),
                ],
            ),
            done,
        )

    def action_psu(self) -> None:
        b = self.planner.build

        def done(v: dict | None) -> None:
            if v:
                self.edit(self.planner.set_psu, v["psu_w"], v["cables"])

        self.push_screen(
            FormDialog(
                _("Power supply"),
                [
                    ("psu_w", _("watts"), "int", b.psu_w),
                    ("cables", _("native 12V-2x6 cables"), "int", b.psu_12v_2x6),
                ],
            ),
            done,
        )

    def action_software(self) -> None:
        b = self.planner.build
        sw = b.software
        tristate = {True: "on", False: "off", None: "unknown"}

        def stated(name: str, shown: Any = None) -> Any:
            """The setting as the form shows it: its value where the build states it, else unknown."""
            value = getattr(sw, name)
            return (value if shown is None else shown[value]) if sw.known(name) else UNSTATED[name]

        def done(v: dict | None) -> None:
            if v:
                # a setting left unknown stays out of the build: plan and readiness say UNKNOWN
                for name, unknown in UNSTATED.items():
                    if v[name] == unknown:
                        v[name] = None
                if v["large_bar"] is not None:
                    v["large_bar"] = v["large_bar"] == "on"
                v["nccl_p2p_level"] = None if v["nccl_p2p_level"] == "default" else v["nccl_p2p_level"]
                v["framework"] = None if v["framework"] == "unknown" else v["framework"]
                v["engine"] = None if v["engine"] == "none" else v["engine"]
                above = v.pop("above_4g")
                # the BIOS and kernel sections say what the software settings say, so the two never disagree
                bios = b.bios.model_dump() | {"above_4g": {"on": True, "off": False}.get(above)}
                if bios["rebar"] is not None:
                    bios["rebar"] = v["large_bar"]
                if bios["acs"] is not None:
                    bios["acs"] = v["acs"]
                if bios["iommu"] == "off" and v["iommu"] != "off":
                    bios["iommu"] = None if v["iommu"] is None else "on"
                kernel = b.kernel.model_dump()
                if kernel["iommu"] is not None:
                    kernel["iommu"] = {"passthrough": "pt", "on": "on", "off": "off", None: None}[v["iommu"]]
                self.edit(self.planner.set_settings, v, bios, kernel, chosen=UNSTATED)

        self.push_screen(
            FormDialog(
                _("Software and BIOS settings"),
                [
                    (
                        "driver",
                        _("NVIDIA driver"),
                        choices([UNSTATED["driver"], "stock", "patched-p2p"]),
                        stated("driver"),
                    ),
                    (
                        "iommu",
                        "IOMMU",
                        choices([UNSTATED["iommu"], "passthrough", "on", "off"]),
                        stated("iommu"),
                    ),
                    ("acs", "PCIe ACS", choices([UNSTATED["acs"], "off", "on"]), stated("acs")),
                    (
                        "large_bar",
                        _("large / resizable BAR"),
                        choices([UNSTATED["large_bar"], "on", "off"]),
                        stated("large_bar", {True: "on", False: "off"}),
                    ),
                    (
                        "above_4g",
                        _("Above 4G decoding"),
                        choices(["unknown", "on", "off"]),
                        tristate[b.bios.above_4g],
                    ),
                    (
                        "nccl_p2p_level",
                        "NCCL_P2P_LEVEL",
                        choices(["default", "LOC", "NVL", "PIX", "PXB", "PHB", "SYS"]),
                        sw.nccl_p2p_level or "default",
                    ),
                    ("nccl_p2p_disable", "NCCL_P2P_DISABLE=1", "bool", sw.nccl_p2p_disable),
                    ("cuda_p2p", _("program enables peer access"), "bool", sw.cuda_p2p),
                    (
                        "framework",
                        _("training framework"),
                        choices(["unknown", "ddp", "dataparallel", "fsdp", "deepspeed"]),
                        sw.framework or "unknown",
                    ),
                    (
                        "engine",
                        _("serving engine"),
                        choices(["none", "vllm", "sglang", "tensorrt-llm"]),
                        sw.engine or "none",
                    ),
                    ("os", _("operating system"), choices(["linux", "windows"]), sw.os),
                    (
                        "virtualization",
                        _("virtual machine"),
                        choices(["none", "vm", "vm-clique"]),
                        sw.virtualization,
                    ),
                ],
            ),
            done,
        )

    def action_nvlink(self) -> None:
        pred = self.planner.prediction
        gpus = pred.machine.all_gpus if pred else []
        bridged = {tuple(sorted(p)) for p in self.planner.build.nvlink}
        pairs = []
        for i, a in enumerate(gpus):
            for b in gpus[i + 1 :]:
                ok = bool(a.gpu and b.gpu and a.gpu.nvlink.supported and b.gpu.nvlink.supported)
                key = f"{a.index}-{b.index}"
                state = _("bridged: pick to remove") if (a.index, b.index) in bridged else _("no bridge")
                pairs.append(
                    Choice(
                        key,
                        f"GPU{a.index}-GPU{b.index}",
                        state,
                        fits=ok,
                        why_not="" if ok else _("a card without an NVLink connector"),
                    )
                )
        if not pairs:
            self.notify(_("NVLink bridges join two GPUs: add another GPU first"), severity="warning")
            return
        self.pick(
            _("NVLink bridge between"),
            pairs,
            lambda key: self.edit(self.planner.toggle_nvlink, *map(int, key.split("-"))),
            prices=False,
        )

    @on(OptionList.OptionSelected, "#build-items")
    def _line_chosen(self, event: OptionList.OptionSelected) -> None:
        key = event.option.id or ""
        kind = key.split(":")[0]
        action = {
            "cpu": self.action_pick_cpu,
            "board": self.action_pick_board,
            "tree": self.action_pick_board,
            "gpu": self.action_move_gpu,
            "add-gpu": self.action_add_gpu,
            "add-nvme": self.action_add_nvme,
            "nvme": self.action_remove,
            "add-nic": self.action_add_nic,
            "nic": self.action_remove,
            "psu": self.action_psu,
            "software": self.action_software,
            "nvlink": self.action_nvlink,
        }.get(kind)
        if action:
            action()

    # ------------------------------------------------------------------ files

    def ask_path(
        self,
        title: str,
        then: Callable[[str], Any],
        value: str = "",
        suffixes: Iterable[str] = (".yaml", ".yml"),
        must_exist: bool = True,
    ) -> None:
        """Ask for a file path; `then(path)` runs only if the user gave one."""
        self.push_screen(
            PathPrompt(title, value, suffixes, must_exist), lambda path: then(path) if path else None
        )

    def write_report(self, path: str, text: str, what: str) -> None:
        def write(parents: bool) -> None:
            try:
                atomic_write(path, text, parents=parents)
            except OSError as exc:  # a WriteError: the path, what is wrong, what to do
                self.notify(str(exc), title=_("not written"), severity="error", timeout=10, markup=False)
                return
            self.notify(_("{what} written to {path}").format(what=_(WRITTEN[what]), path=path))

        self.confirm_replace(path, what, write)

    def confirm_replace(self, path: str, what: str, then: Callable[[bool], Any]) -> None:
        """Run `then(parents)`, which writes `path`, now when nothing is there to replace; else only once
        the user has said so, in a dialog that names the file and says when it is not a build, or names
        the folder that does not exist yet (then `parents` is True: make it)."""
        target = Path(path)
        full = str(target.absolute())
        folder = target.absolute().parent
        if not folder.exists() and not folder.is_symlink():
            question = _("The folder {folder} does not exist: create it and write {file} there?").format(
                folder=folder, file=target.name
            )
            self.push_screen(
                ConfirmReplace(question, full, action="Create"), lambda yes: then(True) if yes else None
            )
            return
        question = self.replace_question(target, what)
        if question is None:
            then(False)
            return
        self.push_screen(ConfirmReplace(question, full), lambda yes: then(False) if yes else None)

    def replace_question(self, path: Path, what: str) -> str | None:
        """What to ask before writing `what` ("build", "report") over `path`; None when there is
        nothing to replace (no file there; a link to nothing, which the write then refuses) or it is
        the build's own file being saved again."""
        if not path.exists():
            return None
        if what == "build" and self.planner.path is not None:
            try:
                if path.samefile(self.planner.path):
                    return None
            except OSError:
                pass
        name = path.name
        kind = describe_file(path)
        if what == "build":
            if kind == "build":
                return _("{file} is already there (a build file): replace it with this build?").format(
                    file=name
                )
            return _("{file} is not a build file ({why}): replace it anyway?").format(file=name, why=kind)
        said = _(WRITTEN[what])
        if kind == "build":
            return _("{file} is a build file: replace it with the {what} anyway?").format(
                file=name, what=said
            )
        return _("{file} is already there: replace it with the {what}?").format(file=name, what=said)

    def action_open(self) -> None:
        self.ask_path(_("Open a build file"), self.open_build)

    def open_build(self, path: str) -> None:
        try:
            opened = Planner.open(path, self.catalog)
        except UserError as exc:
            self.notify(exc.render(), title=_("cannot open"), severity="error", timeout=10)
            return
        self.flush_autosave()
        self.edit(self.planner.replace, opened.build, path, announce=False)

    def action_save(self) -> None:
        if self.planner.path is None:
            self.action_save_as()
        else:
            self.save_to(str(self.planner.path))

    def action_save_as(self, then: Callable[[], None] | None = None) -> None:
        # a build with no file yet (an example, a quote's) is named after its parts: 2x-rtx-4090-z790-hero.yaml
        suggestion = self.planner.path or file_name_for(parts_name(self.planner.build, self.catalog))

        def save(path: str, parents: bool) -> None:
            if self.save_to(path, parents) and then:
                then()

        self.ask_path(
            _("Save the build as"),
            lambda path: self.confirm_replace(path, "build", lambda parents: save(path, parents)),
            str(suggestion),
            must_exist=False,
        )

    def save_to(self, path: str, parents: bool = False) -> bool:
        try:
            saved = self.planner.save(path, parents=parents)
        except UserError as exc:
            self.notify(exc.render(), title=_("not saved"), severity="error", timeout=10)
            return False
        # this app's autosave of the build as it was goes; the saved file's is this app's from now on
        self._claim.discard()
        self._claim_for(saved)
        self._claim.discard()
        self.refresh_views()
        self.notify(_("saved {path}").format(path=saved))
        return True

    def action_revert(self) -> None:
        if self.planner.path is None:
            self.notify(_("this build has no file to revert to"), severity="warning")
            return
        self._claim.discard()
        self.open_build(str(self.planner.path))
        self.planner.dirty = False
        self.refresh_views()

    def action_export(self) -> None:
        pred = self.planner.prediction
        if pred is None:
            self.notify(_("nothing to export: {why}").format(why=self.planner.error), severity="error")
            return
        from advisor.render.plan import render_markdown

        stem = self.planner.path.stem if self.planner.path else "build"
        text = render_markdown(pred, self.planner.findings)
        self.ask_path(
            _("Export the report (Markdown)"),
            lambda path: self.write_report(path, text, "report"),
            f"{stem}-report.md",
            (".md",),
            must_exist=False,
        )

    def action_export_html(self) -> None:
        """The report `advisor plan --format html` writes: one page to send on, next to the build."""
        pred = self.planner.prediction
        if pred is None:
            self.notify(_("nothing to export: {why}").format(why=self.planner.error), severity="error")
            return
        from advisor.outputs.plan import plan_output
        from advisor.render.report import plan_html

        path = self.planner.path
        default = str(path.with_name(f"{path.stem}-report.html")) if path else "build-report.html"
        text = plan_html(plan_output(pred, self.planner.findings))
        self.ask_path(
            _("Export the report (HTML)"),
            lambda target: self.write_report(target, text, "report"),
            default,
            (".html", ".htm"),
            must_exist=False,
        )

    # ------------------------------------------------------------------ quote, measure

    def action_open_quote(self) -> None:
        self.ask_path(
            _("Open a quote (text, CSV or YAML)"),
            self.open_quote,
            suffixes=(".txt", ".csv", ".yaml", ".yml", ".eml", ".md"),
        )

    @on(Button.Pressed, "#quote-open")
    def _quote_open_pressed(self) -> None:
        self.action_open_quote()

    def open_quote(self, path: str) -> None:
        pane = self.query(QuotePane)
        if not pane:  # at start-up, before the lazy tab is mounted
            self.call_after_refresh(self.open_quote, path)
            return
        try:
            text = read_text(path)
        except UserError as exc:
            self.notify(exc.render(), severity="error")
            return
        self.action_view("quote")
        pane.first().load_text(text, path)

    @on(QuotePane.Checked)
    def _quote_checked(self, event: QuotePane.Checked) -> None:
        if event.build is None:
            self.notify(
                _("the quote does not name a CPU and a board from the catalog: no build to open"),
                severity="warning",
                timeout=8,
            )
            return
        self.flush_autosave()
        # named for where it came from, never as the quote file itself ("...email.txt has unsaved changes");
        # the name is the build's own from then on (saved in its file), in the language it was made in
        pasted = event.name == QuotePane.PASTED
        name = (
            _("build from a pasted quote")
            if pasted
            else _("build from quote {file}").format(file=Path(event.name).name)
        )
        build = event.build.model_copy(update={"name": name})
        self.edit(self.planner.replace, build, untitled=True, announce=False)
        self.notify(
            _(
                "{quote}: its build is open in the planner, untitled (Ctrl+Z brings back the previous one)"
            ).format(quote=_("pasted quote") if pasted else event.name),
            timeout=8,
        )

    def action_recommend(self) -> None:
        """What to buy for a job (`advisor recommend`): a row picked there opens as the build, untitled."""

        def chosen(result) -> None:
            if result is None:
                return
            build, label = result
            self.flush_autosave()
            self.edit(
                self.planner.replace,
                build.model_copy(update={"name": _("recommended {build}").format(build=label)}),
                untitled=True,
                announce=False,
            )
            self.notify(
                _("{build}: open in the planner, untitled (Ctrl+Z brings back the previous build)").format(
                    build=label
                ),
                timeout=8,
            )

        self.push_screen(RecommendScreen(), chosen)

    @on(Button.Pressed, "#quote-export")
    def _quote_export(self) -> None:
        text = self.query_one(QuotePane).markdown()
        if text is not None:
            self.ask_path(
                _("Export the quote report (Markdown)"),
                lambda path: self.write_report(path, text, "quote report"),
                "quote-report.md",
                (".md",),
                must_exist=False,
            )

    @on(Button.Pressed, "#quote-export-html")
    def _quote_export_html(self) -> None:
        """The page `advisor validate --format html` writes, next to the quote file when there is one."""
        pane = self.query_one(QuotePane)
        text = pane.html()
        if text is not None and pane.result is not None:
            origin = Path(pane.result.quote.file)
            default = (
                str(origin.with_name(f"{origin.stem}-review.html"))
                if origin.is_file()
                else "quote-review.html"
            )
            self.ask_path(
                _("Export the quote report (HTML)"),
                lambda path: self.write_report(path, text, "quote report"),
                default,
                (".html", ".htm"),
                must_exist=False,
            )

    def action_load_measurement(self) -> None:
        def done(path: str) -> None:
            if self.load_measurement(path):
                self.action_view("compare")

        self.ask_path(
            _("Load a measurement (advisor bench/import JSON, or a tool's output)"),
            done,
            suffixes=(".json", ".txt", ".log", ".xml", ".out"),
        )

    @on(Button.Pressed, "#bench-load")
    def _bench_load_pressed(self) -> None:
        self.action_load_measurement()

    def load_measurement(self, path: str) -> bool:
        from advisor.measure import load

        try:
            meas = load(path)
        except UserError as exc:
            self.notify(exc.render(), title=_("cannot load"), severity="error", timeout=10)
            return False
        self._add_measurement(meas, path)
        return True

    @on(MeasurePane.Loaded)
    def _bench_done(self, event: MeasurePane.Loaded) -> None:
        self._add_measurement(event.measurement, event.path)
        self.action_view("compare")

    def _add_measurement(self, meas: Measurement, path: str) -> None:
        self.measurements = [(p, m) for p, m in self.measurements if p != path] + [(path, meas)]
        if self.is_mounted:
            for pane in self.query(MeasurePane):  # none yet at start-up: it lists them when mounted
                pane.listed(self.measurements)
            self.redraw_view("compare")

    # ------------------------------------------------------------------ view, history, app

    # Keys that edit the build: they act where the build is being edited (the build panel, the tab bar,
    # nothing focused), never from inside a view, where a letter may be meant for that view's widget
    # (Tab then `x` on the Quote view removed a GPU). The footer shows them only where they act.
    EDIT_ACTIONS = frozenset(
        {"pick_cpu", "pick_board", "add_gpu", "move_gpu", "add_nvme", "remove", "auto_place", "more"}
    )

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in self.EDIT_ACTIONS:
            return self.editing_here()
        if action == "leave_field":
            return self._in_text_field()
        if action == "switch_language":
            return not self.screen.is_modal  # a dialog keeps the words it opened with: switch outside it
        return True

    def _in_text_field(self) -> bool:
        from textual.widgets import Input, TextArea

        return isinstance(self.focused, (Input, TextArea))

    def editing_here(self) -> bool:
        """Whether the focus is where build edits belong: not inside a view, not in a text field."""
        focused = self.focused
        if focused is None:
            return True
        if self._in_text_field():
            return False
        tabs = next(iter(self.screen.query(TabbedContent)), None)
        if tabs is None:
            return True  # a dialog is up: its own keys come first
        return tabs not in focused.ancestors or focused is tabs.query_one("ContentTabs")

    def action_leave_field(self) -> None:
        """Escape from a text field (the quote box): the focus goes to the tab bar, so view keys work."""
        self.query_one(TabbedContent).query_one("ContentTabs").focus()

    def on_descendant_focus(self) -> None:
        self.refresh_bindings()  # the footer follows the focus: edit keys only where they act

    def action_view(self, tab: str) -> None:
        tabs = self.query_one(TabbedContent)
        focused = self.focused
        if focused is not None and tabs in focused.ancestors and focused is not tabs.query_one("ContentTabs"):
            # a widget inside the view being left keeps focus otherwise, and TabbedContent shows the pane
            # that holds the focus again: the key would only move focus. Leave the focus on the tab bar.
            tabs.query_one("ContentTabs").focus()
        tabs.active = tab
        if tab == "quote":
            self._in_quote_box()  # the Quote view is for pasting: the box takes what is typed or pasted

    def _in_quote_box(self, text: str | None = None) -> None:
        """Focus the quote's text box (and insert `text` at its cursor), once the lazy tab has it."""
        from textual.widgets import TextArea

        box = self.query("#quote-text")
        if not box:
            self.call_after_refresh(self._in_quote_box, text)  # never dropped: pasted text is the user's
            return
        area = box.first(TextArea)
        if text is not None:
            area.insert(text)
        area.focus()

    def on_paste(self, event: events.Paste) -> None:
        """A paste that no text field took (the focus on the build list, a view, the tab bar): the only
        text the app reads is a quote, so it goes into the Quote view's box."""
        if self._in_text_field() or self.screen.is_modal or not event.text:
            return
        event.stop()
        tabs = self.query_one(TabbedContent)
        if tabs.active != "quote":
            self.action_view("quote")
        self._in_quote_box(event.text)

    def action_matrix_mode(self) -> None:
        self.query_one(MatrixView).cycle_mode(self.planner)

    def action_undo(self) -> None:
        if not self.planner.undo_stack:
            self.notify(_("nothing to undo"))
            return
        self.edit(self.planner.undo)

    def action_redo(self) -> None:
        if not self.planner.redo_stack:
            self.notify(_("nothing to redo"))
            return
        self.edit(self.planner.redo)

    def action_toggle_theme(self) -> None:
        self.theme = "textual-light" if self.theme == "textual-dark" else "textual-dark"

    def action_help(self) -> None:
        from advisor.tui.help import help_markdown

        # the views' names and keys from the table the tab bar is made from, every key from the bindings
        self.push_screen(HelpScreen(help_markdown(PANES, self.BINDINGS, self.COMMAND_PALETTE_BINDING)))

    async def action_quit(self) -> None:
        if not self.planner.dirty:
            self.exit()
            return
        self.flush_autosave()

        def done(choice: str | None) -> None:
            if choice == "discard":
                self._claim.discard()  # this app's own autosave: never another live app's
                self.exit()
            elif choice == "save":
                if self.planner.path is not None:
                    if self.save_to(str(self.planner.path)):
                        self.exit()
                else:
                    self.action_save_as(then=self.exit)

        self.push_screen(ConfirmQuit(self.build_phrase(), autosave=self._autosave_off is None), done)

    def build_phrase(self) -> str:
        """The build as the quit prompt names it: its name (and file), "The build from quote X.txt"."""
        p = self.planner
        name = p.build.name or ""
        if p.path is not None:
            return f"{name} ({p.path.name})" if name and name != p.path.stem else p.path.name
        if name.startswith(FROM_QUOTE):
            return "The " + name  # a name made in English: a Chinese one reads as it is
        return name or _("This build")

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        for command in super().get_system_commands(screen):  # Textual's own, in the app's language
            yield command._replace(
                title=self._textual_word(command.title), help=self._textual_word(command.help)
            )
        for title, help_, action in (
            (N_("Save"), N_("write the build file (atomic)"), self.action_save),
            (N_("Save as…"), N_("write the build to another file"), self.action_save_as),
            (N_("Open build…"), N_("open a build YAML file"), self.action_open),
            (N_("Revert to saved file"), N_("drop unsaved changes and the autosave"), self.action_revert),
            (N_("Export report (Markdown)…"), N_("the plan as Markdown"), self.action_export),
            (
                N_("Export report (HTML)…"),
                N_("one page to send on: the verdict, a drawing of the machine, the figures, the findings"),
                self.action_export_html,
            ),
            (N_("Undo"), N_("undo the last edit"), self.action_undo),
            (N_("Redo"), N_("redo"), self.action_redo),
            (N_("Automatic placement"), N_("every card back to the best slots"), self.action_auto_place),
            (N_("Add NVMe SSD…"), N_("in an M.2 socket"), self.action_add_nvme),
            (N_("Add NIC…"), N_("a network card"), self.action_add_nic),
            (N_("Power supply…"), N_("watts and 12V-2x6 cables"), self.action_psu),
            (N_("Software and BIOS…"), N_("driver, IOMMU, ACS, NCCL settings"), self.action_software),
            (N_("NVLink bridge…"), N_("bridge two GPUs"), self.action_nvlink),
            (N_("Check a quote file…"), N_("validate a vendor's quote"), self.action_open_quote),
            (N_("Load measurement…"), N_("for the Compare view"), self.action_load_measurement),
            (N_("Toggle light/dark"), N_("theme"), self.action_toggle_theme),
            (
                LANGUAGE_SWITCH,
                N_("switch the language: every view is said again, the build and its history kept"),
                self.action_switch_language,
            ),
            (N_("Help"), N_("keys and views"), self.action_help),
        ):
            yield SystemCommand(_(title), _(help_), action)
        for i, (title, tab, _cls, _wid) in enumerate(PANES):
            yield SystemCommand(
                _("Show {view}").format(view=_(title)),
                _("view {key}").format(key=i + 1),
                lambda t=tab: self.action_view(t),
            )

    @staticmethod
    def _textual_word(text: str) -> str:
        return _(text) if text in TEXTUAL_WORDS else text

    # ------------------------------------------------------------------ language

    def _relabel_bindings(self) -> None:
        """Each binding's description (the footer) and tooltip in the current language."""
        for key, bindings in self._bindings.key_to_bindings.items():
            words = self._binding_words.get(key)
            if words is None or len(words) != len(bindings):
                continue  # a binding added at run time (none is): left as it was made
            self._bindings.key_to_bindings[key] = [
                dataclasses.replace(b, description=_(said) if said else said, tooltip=_(tip) if tip else tip)
                for b, (said, tip) in zip(bindings, words, strict=True)
            ]

    def action_switch_language(self) -> None:
        """The next language (中文 <-> English): every view and label is said again in it, in place."""
        codes = list(LANGUAGES)
        set_language(codes[(codes.index(language()) + 1) % len(codes)])
        self.relabel()

    def relabel(self) -> None:
        """Say everything on the planner's screen again in the current language: the bindings (the
        footer), the tabs, the panes' own words, the build's evaluation (the findings and the verdict are
        worded when they are made) and what the last edit changed. The build, its file, the undo history,
        the views' inputs (a quote's text, the job form, the measurements) stay as they are."""
        self._relabel_bindings()
        self.planner.relabel()
        main = self.screen_stack[0]
        tabs = main.query_one(TabbedContent)
        for title, tab, _cls, _wid in PANES:
            tabs.get_tab(tab).label = _(title)
        main.query_one("#build").border_title = _("Build")
        for pane in main.query("HostView, FindingsView, QuotePane, MeasurePane, ComparePane, WorkloadPane"):
            pane.relabel()  # type: ignore[attr-defined]
        self.refresh_views()
        self.refresh_bindings()
