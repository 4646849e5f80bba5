"""What should I buy? `advisor recommend` in the app (key r): a small form (job, model, weights, batch,
budget and currency, GPU count, the room's circuit), the front as a table, and Enter on a row opens that
build in the planner, untitled, as a quote's build does; Escape leaves it."""

from __future__ import annotations

import datetime as dt

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Button, DataTable, Input, Label, Select, Static

from advisor.base.errors import UserError
from advisor.i18n import N_, _, pgettext
from advisor.tui.prose import ProseStatic
from advisor.tui.workload_pane import FORMATS, TASKS, forms


class RecommendPane(Vertical):
    class Chosen(Message):
        """A row picked: its build, to open in the planner."""

        def __init__(self, build, label: str) -> None:
            super().__init__()
            self.build = build
            self.label = label

    def compose(self) -> ComposeResult:
        from advisor.workload import defaults as d
        from advisor.workload.presets import presets

        with Horizontal(classes="wl-row"):
            yield Select(forms(TASKS), value="train", allow_blank=False, id="rc-task")
            yield Select([(k, k) for k in presets()], value=d.MODEL, allow_blank=False, id="rc-model")
            yield Select(forms(FORMATS["train"]), value="lora", allow_blank=False, id="rc-format")
            yield Label(_("batch"), classes="wl-label")
            yield Input(str(d.BATCH["train"]), id="rc-batch", type="integer")
        with Horizontal(classes="wl-row"):
            yield Label(_("budget"), classes="wl-label")
            yield Input("", id="rc-budget", placeholder=_("none"), tooltip="40000, 8k, 4万")
            yield Select([("USD", "USD"), ("CNY", "CNY")], value="USD", allow_blank=False, id="rc-currency")
            yield Label(pgettext("how many GPUs", "GPUs"), classes="wl-label")
            yield Input("1-8", id="rc-gpus", tooltip=_("the GPU count range, e.g. 1-4"))
            yield Label(_("circuit"), classes="wl-label")
            yield Input("", id="rc-circuit", placeholder=_("any"), tooltip=_("volts x amps: 220x10, 120x15"))
            yield Button(_("Search"), id="rc-search", variant="primary")
        yield DataTable(id="rc-table", cursor_type="row", zebra_stripes=True)
        yield ProseStatic(id="rc-note")

    COLUMNS = ("#", N_("GPUs (slots)"), N_("price"), N_("speed"), N_("board"), "CPU", N_("limits"))

    def on_mount(self) -> None:
        table = self.query_one("#rc-table", DataTable)
        table.add_columns(*(_(c) for c in self.COLUMNS))
        self.query_one("#rc-note", Static).update(
            _(
                "Set the job and the budget, then Search: the builds no other beats on price and speed. "
                "Enter on a row opens it in the planner."
            )
        )
        self._rows: list = []

    def question(self):
        """(workload, constraints, currency, budget) from the form; a UserError for a field it cannot use."""
        from advisor.recommend import Constraints
        from advisor.recommend.question import parse_budget, parse_circuit
        from advisor.workload import defaults
        from advisor.workload.presets import resolve

        task = str(self.query_one("#rc-task", Select).value)
        fmt = str(self.query_one("#rc-format", Select).value)
        raw = self.query_one("#rc-batch", Input).value.strip()
        if not raw.isdigit() or int(raw) < 1:
            raise UserError(_("{field}: a whole number of at least {low}").format(field=_("batch"), low=1))
        model = resolve(str(self.query_one("#rc-model", Select).value))
        if task == "infer":
            w = defaults.workload(
                "infer",
                model,
                batch=int(raw),
                quant=None if fmt in ("none", "full", "lora", "qlora") else fmt,
            )
        else:
            lora = {"lora": {"lora_rank": 16}, "qlora": {"lora_rank": 16, "base_bits": 4}}.get(fmt, {})
            w = defaults.workload("train", model, batch=int(raw), **lora)
        currency = str(self.query_one("#rc-currency", Select).value)
        budget_text = self.query_one("#rc-budget", Input).value.strip()
        budget = parse_budget(budget_text, currency)[0] if budget_text else None
        gpus = self.query_one("#rc-gpus", Input).value.strip() or "1-8"
        lo, _dash, hi = gpus.partition("-")
        if not (lo.isdigit() and (hi or lo).isdigit()):
            raise UserError(_("GPUs: a count or a range, e.g. 2 or 1-4"))
        circuit_text = self.query_one("#rc-circuit", Input).value.strip()
        circuit = parse_circuit(circuit_text) if circuit_text else None
        c = Constraints(budget=budget, min_gpus=int(lo), max_gpus=int(hi or lo), circuit=circuit)
        return w, c, currency

    @on(Button.Pressed, "#rc-search")
    def search(self) -> None:
        from advisor.model.prices import PriceBook
        from advisor.recommend import recommend
        from advisor.recommend.output import answer_output

        note = self.query_one("#rc-note", Static)
        table = self.query_one("#rc-table", DataTable)
        table.clear()
        self._rows = []
        try:
            w, c, currency = self.question()
            catalog = self.app.planner.catalog
            answer = recommend(w, catalog, PriceBook(catalog, currency, dt.date.today()), c)
        except UserError as exc:
            note.update(exc.render())
            return
        out = answer_output(answer)
        from advisor.render.recommend import gpus_words, short_names

        names = short_names(out)
        for b, cand in zip(out.front, answer.front, strict=True):
            table.add_row(
                str(b.rank),
                gpus_words(b, names),
                f"{b.price:,.0f} {currency}" + (" " + _("(stale)") if b.stale_prices else ""),
                f"{b.speed:,.2f} {b.unit}",
                names.get(b.board, b.board),
                names.get(b.cpu, b.cpu),
                _("; ").join(b.limits) or "-",
            )
            self._rows.append((cand.build, f"#{b.rank} {gpus_words(b, names)}"))
        counts = out.counts
        if out.front:
            note.update(
                _(
                    "{count} builds on the front ({enumerated} enumerated, {evaluated} assessed; {unpriced} "
                    "parts have no price). Enter opens a row in the planner."
                ).format(
                    count=len(out.front),
                    enumerated=f"{counts.enumerated:,}",
                    evaluated=counts.evaluated,
                    unpriced=len(out.no_price_known),
                )
            )
            table.focus()
        else:
            note.update(
                _(
                    "No build runs the job within these constraints ({unpriced} parts have no "
                    "price: `advisor recommend --prices` takes yours)."
                ).format(unpriced=len(out.no_price_known))
            )

    @on(DataTable.RowSelected, "#rc-table")
    def _chosen(self, event: DataTable.RowSelected) -> None:
        if 0 <= event.cursor_row < len(self._rows):
            build, label = self._rows[event.cursor_row]
            self.post_message(self.Chosen(build, label))

    @on(Select.Changed, "#rc-task")
    def _task(self, event: Select.Changed) -> None:
        fmt = self.query_one("#rc-format", Select)
        fmt.set_options(forms(FORMATS[str(event.value)]))
        fmt.value = FORMATS[str(event.value)][0][1]


class RecommendScreen(ModalScreen):
    """The form and the front over the planner; dismissed with (build, label) for a row picked, None on
    Escape."""

    BINDINGS = [Binding("escape", "leave", "Back")]

    def compose(self) -> ComposeResult:
        with Vertical(id="rc-dialog"):
            yield Label(_("What to buy: the builds no other beats on price and speed"), id="rc-title")
            yield RecommendPane(id="recommend-pane")

    @on(RecommendPane.Chosen)
    def _chosen(self, event: RecommendPane.Chosen) -> None:
        self.dismiss((event.build, event.label))

    def action_leave(self) -> None:
        self.dismiss(None)
