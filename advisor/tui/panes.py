"""The other two jobs inside the app: check a vendor's quote; measure a machine and compare.

Panes post messages (a quote's build to open, a measurement that arrived); the app owns the
state and decides what to do with them. The bench runs in a thread worker that reaches the
widgets only through call_from_thread.
"""

from __future__ import annotations

import importlib.util
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.markup import escape
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Button, DataTable, Log, ProgressBar, Static, TextArea

from advisor.base.errors import UserError
from advisor.i18n import N_, _, ngettext, pgettext
from advisor.render.quote import _VERDICT as VERDICT_WORD
from advisor.session.planner import Planner
from advisor.tui.prose import ProseStatic

if TYPE_CHECKING:
    from advisor.measure.models import Measurement
    from advisor.outputs.validate import ValidateOutput

VERDICT_STYLE = {
    "PASS": "bold green",
    "WARN": "bold yellow",
    "PROBLEMS": "bold red",
    "INCOMPLETE": "bold yellow",
}
# a quote line's status as the table shows it
LINE_STATUS = {
    "part": N_("part"),
    "recognized": N_("recognized"),
    "not_in_catalog": N_("not in catalog"),
    "other": N_("other"),
    "title": N_("title"),
    "total": N_("total"),
    "claim": N_("claim"),
    "mention": N_("mention"),
    "continued": N_("continued"),
}


def relabel_columns(table: DataTable, columns: tuple[str, ...]) -> None:
    """Give a table its column headings again in the current language (its rows go: the view that
    owns it fills them again when it is next drawn)."""
    table.clear(columns=True)
    table.add_columns(*(_(c) for c in columns))


def button_words(pane, words: dict[str, str]) -> None:
    """Each button's label (by id) in the current language, the button as wide as its new label (a
    Button keeps the width it measured for its old one otherwise)."""
    for wid, label in words.items():
        button = pane.query_one(f"#{wid}", Button)
        button.label = _(label)
        button.clear_cached_dimensions()
        button.refresh(layout=True)


class QuotePane(VerticalScroll):
    """Paste a quote or open a file; Check shows the matched parts, claims and findings."""

    class Checked(Message):
        def __init__(self, result: ValidateOutput, build: Any, name: str) -> None:
            super().__init__()
            self.result, self.build, self.name = result, build, name

    PASTED = "pasted quote"  # the name of a quote checked from the box, not from a file
    INTRO = N_(
        "Paste the vendor's quote below (text, CSV or YAML), or open a file. "
        "[b]Check[/] matches it to the catalog and opens its build in the planner."
    )
    BUTTONS = {
        "quote-check": N_("Check"),
        "quote-open": N_("Open quote file…"),
        "quote-export": N_("Export .md…"),
        "quote-export-html": N_("Export .html…"),
    }
    COLUMNS = (N_("line"), N_("status"), N_("part, or the line's text"), N_("conf"), N_("qty"), N_("price"))

    result: ValidateOutput | None = None
    _checked: tuple[str, str] | None = None  # the text and name of the quote the result is of

    def compose(self) -> ComposeResult:
        yield ProseStatic(_(self.INTRO), classes="intro")
        yield TextArea(id="quote-text", soft_wrap=True, show_line_numbers=True)
        with Horizontal(classes="buttons"):
            yield Button(_(self.BUTTONS["quote-check"]), variant="primary", id="quote-check")
            yield Button(_(self.BUTTONS["quote-open"]), id="quote-open")
            yield Button(_(self.BUTTONS["quote-export"]), id="quote-export", disabled=True)
            yield Button(_(self.BUTTONS["quote-export-html"]), id="quote-export-html", disabled=True)
        yield ProseStatic(id="quote-verdict")
        yield DataTable(id="quote-lines", cursor_type="row", show_cursor=False)
        yield ProseStatic(id="quote-claims")

    def on_mount(self) -> None:
        self.query_one("#quote-lines", DataTable).add_columns(*(_(c) for c in self.COLUMNS))
        self.query_one("#quote-lines", DataTable).display = False

    def relabel(self) -> None:
        """The pane's words in the current language; a quote checked is checked again, so that its
        verdict, claims and findings are said in it too (its build is not opened again)."""
        self.query_one(".intro", Static).update(_(self.INTRO))
        button_words(self, self.BUTTONS)
        relabel_columns(self.query_one("#quote-lines", DataTable), self.COLUMNS)
        if self._checked is not None:
            self.check(*self._checked, reopen=False)

    @on(Button.Pressed, "#quote-check")
    def _check_pressed(self) -> None:
        self.check(self.query_one(TextArea).text, self.PASTED)

    def load_text(self, text: str, name: str) -> None:
        self.query_one(TextArea).load_text(text)
        self.check(text, name)

    def check(self, text: str, name: str, reopen: bool = True) -> None:
        """Check the quote; with `reopen`, its build is offered to the app (a Checked message)."""
        from advisor.quote.check import evaluate_quote
        from advisor.quote.reader import read_quote

        verdict = self.query_one("#quote-verdict", Static)
        if not text.strip():
            verdict.update("[yellow]" + _("The quote is empty: paste it above or open a file.") + "[/]")
            return
        catalog = self.app.planner.catalog
        try:
            quote = read_quote(text, name, catalog)
            result = evaluate_quote(quote, catalog)
        except UserError as exc:
            verdict.update(f"[red]{escape(exc.render())}[/]")
            return
        self.result = result
        self._checked = (text, name)
        self._show(result)
        self.query_one("#quote-export", Button).disabled = False
        self.query_one("#quote-export-html", Button).disabled = False
        if reopen:
            self.post_message(self.Checked(result, quote.build, name))

    def _show(self, r: ValidateOutput) -> None:
        q = r.quote
        word = _(VERDICT_WORD.get(r.verdict, r.verdict))
        # the file's name as the user gave it; a quote pasted in the box is named so in the user's language
        file = _("pasted quote") if q.file == self.PASTED else q.file
        self.query_one("#quote-verdict", Static).update(
            Text.assemble((word, VERDICT_STYLE[r.verdict]), f"  {r.summary}  ({file}, {q.format})")
        )
        table = self.query_one("#quote-lines", DataTable)
        table.clear()
        table.display = True
        style = {
            "part": "",
            "recognized": "",
            "not_in_catalog": "yellow",
            "other": "dim",
            "title": "cyan",
            "total": "dim",
            "claim": "magenta",
        }
        for x in q.lines:
            if x.status == "header":
                continue
            part = " + ".join(p.part_id or p.name for p in x.parts)
            conf = " ".join(f"{p.confidence:.0f}" for p in x.parts if p.confidence is not None)
            price = "" if x.price is None else f"{x.price:,.0f}{' ' + x.currency if x.currency else ''}"
            what = part if x.status == "part" else x.text.strip()[:60]
            qty = f"{x.qty}?" if x.qty_unclear else (str(x.qty) if x.parts else "")
            said = _(LINE_STATUS[x.status]) if x.status in LINE_STATUS else x.status.replace("_", " ")
            table.add_row(
                str(x.line),
                Text(said, style.get(x.status, "")),
                what,
                conf,
                qty,
                price,
            )
        lines = []
        for c in r.claims:
            mark = {
                True: "[green]" + escape(_("true")) + "[/]",
                False: "[bold red]" + escape(_("FALSE")) + "[/]",
            }.get(c.verdict, "[yellow]" + escape(_("unknown")) + "[/]")
            lines.append(
                _('{mark} line {line}: "{claim}" - {why}').format(
                    mark=mark, line=c.line, claim=escape(c.claim), why=escape(c.why)
                )
            )
        if r.missing:
            lines.append("[yellow]" + _("missing from the quote:") + "[/] " + escape(_(", ").join(r.missing)))
        for p in r.build_problems:
            lines.append(f"[red]{escape(p)}[/]")
        findings = r.plan.findings if r.plan else []
        worst = [f for f in findings if f.severity in ("error", "warning")]
        if worst:
            lines.append(
                ngettext(
                    "{count} finding; the worst: ", "{count} findings; the worst: ", len(findings)
                ).format(count=len(findings))
                + _("; ").join(
                    f"[{'red' if f.severity == 'error' else 'yellow'}]{f.id}[/] {escape(f.message)}"
                    for f in worst[:3]
                )
            )
        for s in r.spec_checks:
            mark = (
                "[green]" + escape(_("spec agrees")) + "[/]"
                if s.agrees
                else "[bold yellow]" + escape(_("spec DIFFERS")) + "[/]"
            )
            lines.append(
                _("{mark} line {line}: {says} - catalog: {catalog}").format(
                    mark=mark, line=s.line, says=escape(s.says), catalog=escape(s.catalog)
                )
            )
        if r.ask_vendor:
            lines.append(
                "[b]" + _("Ask the vendor for:") + "[/] " + _("; ").join(escape(a) for a in r.ask_vendor)
            )
        self.query_one("#quote-claims", Static).update(
            "\n".join(lines) or "[dim]" + _("no claims found in the quote") + "[/]"
        )

    def markdown(self) -> str | None:
        from advisor.render.quote import render

        return render(self.result, "markdown") if self.result else None

    def html(self) -> str | None:
        from advisor.render.report import validate_html

        return validate_html(self.result) if self.result else None


class MeasurePane(Vertical):
    """Run the torch bench (with live progress) where torch and a CUDA GPU are present, or load a file."""

    class Loaded(Message):
        def __init__(self, measurement: Measurement, path: str) -> None:
            super().__init__()
            self.measurement, self.path = measurement, path

    BUTTONS = {"bench-run": N_("Run bench (quick)"), "bench-load": N_("Load measurement…")}
    COLUMNS = (N_("file"), N_("tool"), N_("results"), "GPUs")  # GPUs: how many (pgettext, columns())

    def compose(self) -> ComposeResult:
        yield ProseStatic(id="bench-status")
        with Horizontal(classes="buttons"):
            yield Button(_(self.BUTTONS["bench-run"]), variant="primary", id="bench-run")
            yield Button(_(self.BUTTONS["bench-load"]), id="bench-load")
        yield ProgressBar(id="bench-progress", show_eta=False)
        yield Log(id="bench-log", max_lines=500)
        yield DataTable(id="measurements", cursor_type="row", show_cursor=False)

    def on_mount(self) -> None:
        self.query_one("#measurements", DataTable).add_columns(*self.columns())
        self.listed(self.app.measurements)
        self.query_one(ProgressBar).display = False
        if importlib.util.find_spec("torch") is None:
            self.query_one("#bench-run", Button).disabled = True
        self._status()

    def columns(self) -> list[str]:
        return [_(c) for c in self.COLUMNS[:-1]] + [pgettext("how many GPUs", "GPUs")]

    def _status(self) -> None:
        if importlib.util.find_spec("torch") is None:
            self.query_one("#bench-status", Static).update(
                _(
                    "[yellow]torch is not installed here[/], so the bench cannot run: `pip install "
                    "'advisor[bench]'` on the GPU machine. You can still load a measurement file: `advisor "
                    "bench`, `advisor import`, or a tool's output (nvbandwidth, p2pBandwidthLatencyTest, "
                    "nccl-tests, nvidia-smi)."
                )
            )
        else:
            self.query_one("#bench-status", Static).update(
                _(
                    "torch is installed: [b]Run bench[/] measures this machine's GPUs (host copies, peer copies, "
                    "all-reduce, memory, matmul) and compares them with the build. Or load a measurement file."
                )
            )

    def relabel(self) -> None:
        """The pane's words in the current language (the bench's log keeps the lines it has written)."""
        self._status()
        button_words(self, self.BUTTONS)
        table = self.query_one("#measurements", DataTable)
        table.clear(columns=True)
        table.add_columns(*self.columns())
        self.listed(self.app.measurements)  # type: ignore[attr-defined]

    @on(Button.Pressed, "#bench-run")
    def _run(self) -> None:
        self.query_one("#bench-run", Button).disabled = True
        bar = self.query_one(ProgressBar)
        bar.display = True
        bar.update(total=None)
        self.query_one(Log).write_line(_("starting the bench: importing torch…"))
        self.bench()

    @work(thread=True, exclusive=True, group="bench")
    def bench(self) -> None:
        started = time.monotonic()
        say = self.app.call_from_thread
        try:
            import torch

            if not torch.cuda.is_available() or torch.cuda.device_count() == 0:
                say(
                    self._finished,
                    None,
                    _(
                        "No CUDA GPU is visible to torch here: nothing to measure. Load a "
                        "measurement file from the GPU machine instead (`advisor bench -o FILE` there)."
                    ),
                )
                return
            from advisor.bench.torch_bench import Settings, run

            meas = run(Settings.quick(), progress=lambda text: say(self._progress, text))
            path = Path(f"advisor-bench-{time.strftime('%Y%m%d-%H%M%S')}.json").resolve()
            meas.save(path)
        except Exception as exc:  # the bench is the user's machine talking: report, never crash the app
            say(
                self._finished,
                None,
                _("the bench failed: {error}").format(error=f"{type(exc).__name__}: {exc}"),
            )
            return
        say(
            self._finished,
            (meas, str(path)),
            _("done in {seconds} s: {count} results, saved to {path}").format(
                seconds=f"{time.monotonic() - started:.0f}", count=len(meas.results), path=path
            ),
        )

    def _progress(self, text: str) -> None:
        self.query_one(Log).write_line(text)

    def _finished(self, loaded: tuple[Measurement, str] | None, message: str) -> None:
        self.query_one(ProgressBar).display = False
        self.query_one("#bench-run", Button).disabled = False
        self.query_one(Log).write_line(message)
        self.notify(message, severity="information" if loaded else "warning", timeout=8)
        if loaded:
            self.post_message(self.Loaded(*loaded))

    def listed(self, measurements: list[tuple[str, Measurement]]) -> None:
        table = self.query_one("#measurements", DataTable)
        table.clear()
        for path, m in measurements:
            table.add_row(
                Path(path).name, m.source.tool, str(len(m.results)), str(len(m.machine.gpus) or "?")
            )


class ComparePane(Vertical):
    """Predicted vs measured for the current build; flagged rows in red with their likely causes."""

    def compose(self) -> ComposeResult:
        yield ProseStatic(id="compare-title")
        yield DataTable(id="compare-table", cursor_type="row", zebra_stripes=True)
        yield ProseStatic(id="compare-detail", classes="detail")

    COLUMNS = (N_("metric"), N_("where"), N_("predicted"), N_("measured"), N_("ratio"), "")

    def on_mount(self) -> None:
        self.query_one(DataTable).add_columns(*(_(c) for c in self.COLUMNS))
        self.rows: list[tuple[str, Any]] = []

    def relabel(self) -> None:
        relabel_columns(self.query_one(DataTable), self.COLUMNS)

    def show(self, planner: Planner) -> None:
        from advisor.assess import Request, assess

        measurements: list[tuple[str, Measurement]] = self.app.measurements
        table = self.query_one(DataTable)
        row = table.cursor_row
        table.clear()
        title = self.query_one("#compare-title", Static)
        self.rows = []
        if not measurements:
            title.update(
                _("No measurement loaded: run the bench or load a file in [b]{view}[/] (key 6).").format(
                    view=_("Measure")
                )
            )
            self.query_one("#compare-detail", Static).update("")
            return
        if planner.prediction is None:
            title.update(
                "[red]"
                + _("cannot evaluate the build: {error}").format(error=escape(planner.error or ""))
                + "[/]"
            )
            return
        # the same comparison `advisor compare` makes (tolerance, settled readiness, causes); a file of
        # another GPU count than the build is set aside with why, never half-compared
        c = assess(
            Request(
                planner.build,
                planner.catalog,
                job="compare",
                measurements=tuple(measurements),
                rule_dirs=planner.rule_dirs,
                prediction=planner.prediction,
                set_aside_other_shapes=True,
            )
        ).comparison
        assert c is not None
        self.tolerance = Request.tolerance
        self.rows = list(c.rows)
        flagged = sum(1 for _, r in self.rows if r.flagged)
        settled = c.settled.read if c.settled else []
        title.update(
            _(
                "{count} figures compared, [{style}]{flagged} off by more than {percent}%[/]; select a row "
                "for its likely causes"
            ).format(
                count=len(self.rows),
                style="red" if flagged else "green",
                flagged=flagged,
                percent=f"{100 * self.tolerance:.0f}",
            )
            + "".join("\n[red]" + _("not compared:") + f"[/] {escape(text)}" for text in c.set_aside)
            + "".join("\n" + _("note: {text}").format(text=escape(text)) for text in c.notes)
            + "".join("\n" + _("settled: {text}").format(text=escape(text)) for text in settled)
        )
        for _path, r in self.rows:
            ratio = "" if r.ratio is None else f"{r.ratio:.2f}"
            if r.predicted is None:  # a prediction the catalog cannot give: neither ok nor off
                flag, predicted = Text(_("not judged"), "yellow"), _("unknown")
            else:
                flag, predicted = (
                    (Text(_("OFF"), "bold red") if r.flagged else Text(_("ok"), "green")),
                    str(r.predicted),
                )
            table.add_row(r.metric, r.where, predicted, str(r.measured), ratio, flag)
        if self.rows:
            table.move_cursor(row=min(row, len(self.rows) - 1))
        self._detail()

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self._detail()

    def _detail(self) -> None:
        out = self.query_one("#compare-detail", Static)
        if not self.rows:
            out.update("")
            return
        path, r = self.rows[min(self.query_one(DataTable).cursor_row, len(self.rows) - 1)]
        head = _("{metric} {where}, measured in [b]{file}[/]: ").format(
            metric=r.metric, where=r.where, file=escape(Path(path).name)
        )
        if not r.causes:
            out.update(
                head
                + (
                    _("within {percent}% of the prediction").format(percent=f"{100 * self.tolerance:.0f}")
                    if not r.flagged
                    else _("off, no likely cause known")
                )
            )
            return
        out.update(
            head
            + _("likely causes, first suspect first")
            + "\n"
            + "\n".join(
                f"[b]{c.id}[/] {escape(c.message)}\n  " + _("check: {fix}").format(fix=escape(c.fix))
                for c in r.causes
            )
        )
