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
from advisor.session.planner import Planner

if TYPE_CHECKING:
    from advisor.measure.models import Measurement
    from advisor.outputs.validate import ValidateOutput

VERDICT_STYLE = {
    "PASS": "bold green",
    "WARN": "bold yellow",
    "PROBLEMS": "bold red",
    "INCOMPLETE": "bold yellow",
}


class QuotePane(VerticalScroll):
    """Paste a quote or open a file; Check shows the matched parts, claims and findings."""

    class Checked(Message):
        def __init__(self, result: ValidateOutput, build: Any, name: str) -> None:
            super().__init__()
            self.result, self.build, self.name = result, build, name

    result: ValidateOutput | None = None

    def compose(self) -> ComposeResult:
        yield Static(
            "Paste the vendor's quote below (text, CSV or YAML), or open a file. "
            "[b]Check[/] matches it to the catalog and opens its build in the planner.",
            classes="intro",
        )
        yield TextArea(id="quote-text", soft_wrap=True, show_line_numbers=True)
        with Horizontal(classes="buttons"):
            yield Button("Check", variant="primary", id="quote-check")
            yield Button("Open quote file…", id="quote-open")
            yield Button("Export .md…", id="quote-export", disabled=True)
            yield Button("Export .html…", id="quote-export-html", disabled=True)
        yield Static(id="quote-verdict")
        yield DataTable(id="quote-lines", cursor_type="row", show_cursor=False)
        yield Static(id="quote-claims")

    def on_mount(self) -> None:
        self.query_one("#quote-lines", DataTable).add_columns(
            "line", "status", "part, or the line's text", "conf", "qty", "price"
        )
        self.query_one("#quote-lines", DataTable).display = False

    @on(Button.Pressed, "#quote-check")
    def _check_pressed(self) -> None:
        self.check(self.query_one(TextArea).text, "pasted quote")

    def load_text(self, text: str, name: str) -> None:
        self.query_one(TextArea).load_text(text)
        self.check(text, name)

    def check(self, text: str, name: str) -> None:
        from advisor.quote.check import evaluate_quote
        from advisor.quote.reader import read_quote

        verdict = self.query_one("#quote-verdict", Static)
        if not text.strip():
            verdict.update("[yellow]The quote is empty: paste it above or open a file.[/]")
            return
        catalog = self.app.planner.catalog
        try:
            quote = read_quote(text, name, catalog)
            result = evaluate_quote(quote, catalog)
        except UserError as exc:
            verdict.update(f"[red]{escape(exc.render())}[/]")
            return
        self.result = result
        self._show(result)
        self.query_one("#quote-export", Button).disabled = False
        self.query_one("#quote-export-html", Button).disabled = False
        self.post_message(self.Checked(result, quote.build, name))

    def _show(self, r: ValidateOutput) -> None:
        q = r.quote
        self.query_one("#quote-verdict", Static).update(
            Text.assemble((r.verdict, VERDICT_STYLE[r.verdict]), f"  {r.summary}  ({q.file}, {q.format})")
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
            table.add_row(
                str(x.line),
                Text(x.status.replace("_", " "), style.get(x.status, "")),
                what,
                conf,
                qty,
                price,
            )
        lines = []
        for c in r.claims:
            mark = {True: "[green]true[/]", False: "[bold red]FALSE[/]"}.get(c.verdict, "[yellow]unknown[/]")
            lines.append(f'{mark} line {c.line}: "{escape(c.claim)}" - {escape(c.why)}')
        if r.missing:
            lines.append(f"[yellow]missing from the quote:[/] {', '.join(r.missing)}")
        for p in r.build_problems:
            lines.append(f"[red]{escape(p)}[/]")
        findings = r.plan.findings if r.plan else []
        worst = [f for f in findings if f.severity in ("error", "warning")]
        if worst:
            lines.append(
                f"{len(findings)} findings; the worst: "
                + "; ".join(
                    f"[{'red' if f.severity == 'error' else 'yellow'}]{f.id}[/] {escape(f.message)}"
                    for f in worst[:3]
                )
            )
        for s in r.spec_checks:
            mark = "[green]spec agrees[/]" if s.agrees else "[bold yellow]spec DIFFERS[/]"
            lines.append(f"{mark} line {s.line}: {escape(s.says)} - catalog: {escape(s.catalog)}")
        if r.ask_vendor:
            lines.append("[b]Ask the vendor for:[/] " + "; ".join(escape(a) for a in r.ask_vendor))
        self.query_one("#quote-claims", Static).update(
            "\n".join(lines) or "[dim]no claims found in the quote[/]"
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

    def compose(self) -> ComposeResult:
        yield Static(id="bench-status")
        with Horizontal(classes="buttons"):
            yield Button("Run bench (quick)", variant="primary", id="bench-run")
            yield Button("Load measurement…", id="bench-load")
        yield ProgressBar(id="bench-progress", show_eta=False)
        yield Log(id="bench-log", max_lines=500)
        yield DataTable(id="measurements", cursor_type="row", show_cursor=False)

    def on_mount(self) -> None:
        self.query_one("#measurements", DataTable).add_columns("file", "tool", "results", "GPUs")
        self.listed(self.app.measurements)
        self.query_one(ProgressBar).display = False
        if importlib.util.find_spec("torch") is None:
            self.query_one("#bench-status", Static).update(
                "[yellow]torch is not installed here[/], so the bench cannot run: `pip install 'advisor[bench]'` "
                "on the GPU machine. You can still load a measurement file: `advisor bench`, `advisor import`, "
                "or a tool's output (nvbandwidth, p2pBandwidthLatencyTest, nccl-tests, nvidia-smi)."
            )
            self.query_one("#bench-run", Button).disabled = True
        else:
            self.query_one("#bench-status", Static).update(
                "torch is installed: [b]Run bench[/] measures this machine's GPUs (host copies, peer copies, "
                "all-reduce, memory, matmul) and compares them with the build. Or load a measurement file."
            )

    @on(Button.Pressed, "#bench-run")
    def _run(self) -> None:
        self.query_one("#bench-run", Button).disabled = True
        bar = self.query_one(ProgressBar)
        bar.display = True
        bar.update(total=None)
        self.query_one(Log).write_line("starting the bench: importing torch…")
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
                    "No CUDA GPU is visible to torch here: nothing to measure. Load a "
                    "measurement file from the GPU machine instead (`advisor bench -o FILE` there).",
                )
                return
            from advisor.bench.torch_bench import Settings, run

            meas = run(Settings.quick(), progress=lambda text: say(self._progress, text))
            path = Path(f"advisor-bench-{time.strftime('%Y%m%d-%H%M%S')}.json").resolve()
            meas.save(path)
        except Exception as exc:  # the bench is the user's machine talking: report, never crash the app
            say(self._finished, None, f"the bench failed: {type(exc).__name__}: {exc}")
            return
        say(
            self._finished,
            (meas, str(path)),
            f"done in {time.monotonic() - started:.0f} s: {len(meas.results)} results, saved to {path}",
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
        yield Static(id="compare-title")
        yield DataTable(id="compare-table", cursor_type="row", zebra_stripes=True)
        yield Static(id="compare-detail", classes="detail")

    def on_mount(self) -> None:
        self.query_one(DataTable).add_columns("metric", "where", "predicted", "measured", "ratio", "")
        self.rows: list[tuple[str, Any]] = []

    def show(self, planner: Planner) -> None:
        from advisor.assess import Request, assess

        measurements: list[tuple[str, Measurement]] = self.app.measurements
        table = self.query_one(DataTable)
        row = table.cursor_row
        table.clear()
        title = self.query_one("#compare-title", Static)
        self.rows = []
        if not measurements:
            title.update("No measurement loaded: run the bench or load a file in [b]Measure[/] (key 6).")
            self.query_one("#compare-detail", Static).update("")
            return
        if planner.prediction is None:
            title.update(f"[red]cannot evaluate the build: {escape(planner.error or '')}[/]")
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
            f"{len(self.rows)} figures compared, [{'red' if flagged else 'green'}]{flagged} off by more than "
            f"{100 * self.tolerance:.0f}%[/]; select a row for its likely causes"
            + "".join(f"\n[red]not compared:[/] {escape(text)}" for text in c.set_aside)
            + "".join(f"\nnote: {escape(text)}" for text in c.notes)
            + "".join(f"\nsettled: {escape(text)}" for text in settled)
        )
        for _path, r in self.rows:
            ratio = "" if r.ratio is None else f"{r.ratio:.2f}"
            if r.predicted is None:  # a prediction the catalog cannot give: neither ok nor off
                flag, predicted = Text("not judged", "yellow"), "unknown"
            else:
                flag, predicted = (
                    (Text("OFF", "bold red") if r.flagged else Text("ok", "green")),
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
        head = f"{r.metric} {r.where}, measured in [b]{escape(Path(path).name)}[/]: "
        if not r.causes:
            out.update(
                head
                + (
                    f"within {100 * self.tolerance:.0f}% of the prediction"
                    if not r.flagged
                    else "off, no likely cause known"
                )
            )
            return
        out.update(
            head
            + "likely causes, first suspect first\n"
            + "\n".join(f"[b]{c.id}[/] {escape(c.message)}\n  check: {escape(c.fix)}" for c in r.causes)
        )
