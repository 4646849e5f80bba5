"""Will N GPUs beat one? The workload model (advisor.workload) on the build being planned.

A small form (job, model, strategy, weights: LoRA/QLoRA or a quantized format, batch, sequence,
accumulation, GPUs) and the same report as
`advisor workload`, redrawn when the form or the build changes.
"""

from __future__ import annotations

import io

from rich.console import Console
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Input, Label, Select, Static

from advisor.base.errors import UserError
from advisor.i18n import N_, _, pgettext
from advisor.session.planner import Planner

# a field as a message about it names it
FIELD_WORDS = {"batch": N_("batch"), "seq": N_("seq"), "accum": N_("accum"), "gpus": N_("gpus")}
STRATEGIES = {
    "train": ("ddp", "dataparallel", "zero2", "zero3", "fsdp", "tp", "pp"),
    "infer": ("tp", "pp", "replicas", "ep", "row"),
}
# what the weights are, by job: full fine-tuning or LoRA/QLoRA; 16-bit or quantized inference weights
# (labels in English, shown with _(): forms())
FORMATS = {
    "train": ((N_("full"), "full"), ("LoRA", "lora"), ("QLoRA", "qlora")),
    "infer": (
        ("16-bit", "none"),
        ("fp8", "fp8"),
        ("int4", "int4"),
        ("Q8_0", "q8_0"),
        ("Q6_K", "q6_k"),
        ("Q4_K_M", "q4_k_m"),
    ),
}


TASKS = ((N_("train"), "train"), (N_("infer"), "infer"))


def forms(pairs) -> list[tuple[str, str]]:
    """A Select's (label, value) pairs with the labels in the current language."""
    return [(_(label), value) for label, value in pairs]


def relabel_select(select: Select, options: list[tuple[str, str]]) -> None:
    """New labels for a Select's options, its value kept; it does not say it changed (it has not)."""
    value = select.value
    with select.prevent(Select.Changed):
        select.set_options(options)
        select.value = value


class WorkloadPane(Vertical):
    # each field's label and tooltip, by the id of the widget that shows it (in English: shown with _())
    LABELS = {"wl-batch-label": N_("batch"), "wl-seq-label": N_("seq"), "wl-accum-label": N_("accum")}
    TOOLTIPS = {
        "wl-task": N_("training step or inference"),
        "wl-model": N_("model preset"),
        "wl-strategy": N_("parallel strategy"),
        "wl-format": N_(
            "training: full fine-tuning, LoRA or QLoRA (rank 16); inference: the weights' "
            "format (int4: AWQ/GPTQ; Q8_0-Q4_K_M: GGUF)"
        ),
        "wl-batch": N_(
            "micro-batch per GPU (train); concurrent sequences, or max for as many as the KV cache admits (infer)"
        ),
        "wl-seq": N_("sequence length (train); prompt (infer)"),
        "wl-accum": N_("gradient accumulation steps"),
        "wl-gpus": N_("GPUs used (default all)"),
    }

    def compose(self) -> ComposeResult:
        from advisor.workload import defaults as d
        from advisor.workload.presets import presets

        tip = {k: _(v) for k, v in self.TOOLTIPS.items()}
        models = [(key, key) for key in presets()]
        with Horizontal(classes="wl-row"):
            yield Select(forms(TASKS), value="train", allow_blank=False, id="wl-task", tooltip=tip["wl-task"])
            yield Select(models, value=d.MODEL, allow_blank=False, id="wl-model", tooltip=tip["wl-model"])
            yield Select(
                [(s, s) for s in STRATEGIES["train"]],
                value=d.STRATEGY["train"],
                allow_blank=False,
                id="wl-strategy",
                tooltip=tip["wl-strategy"],
            )
            yield Select(
                forms(FORMATS["train"]),
                value="full",
                allow_blank=False,
                id="wl-format",
                tooltip=tip["wl-format"],
            )
        with Horizontal(classes="wl-row"):
            yield Label(_(self.LABELS["wl-batch-label"]), classes="wl-label", id="wl-batch-label")
            yield Input(str(d.BATCH["train"]), id="wl-batch", tooltip=tip["wl-batch"])
            yield Label(_(self.LABELS["wl-seq-label"]), classes="wl-label", id="wl-seq-label")
            yield Input(
                str(d.seq_for(presets()[d.MODEL])),
                id="wl-seq",
                type="integer",
                tooltip=tip["wl-seq"],
            )
            yield Label(_(self.LABELS["wl-accum-label"]), classes="wl-label", id="wl-accum-label")
            yield Input(str(d.ACCUM), id="wl-accum", type="integer", tooltip=tip["wl-accum"])
            yield Label(pgettext("how many GPUs", "GPUs"), classes="wl-label")
            yield Input("", id="wl-gpus", type="integer", placeholder=_("all"), tooltip=tip["wl-gpus"])
        with VerticalScroll(id="wl-scroll"):
            yield Static(id="wl-report")

    def relabel(self) -> None:
        """The form's words in the current language; what is picked and typed in it stays (the report is
        drawn again when the view is shown)."""
        for wid, label in self.LABELS.items():
            self.query_one(f"#{wid}", Label).update(_(label))
        for wid, tip in self.TOOLTIPS.items():
            self.query_one(f"#{wid}").tooltip = _(tip)
        self.query_one("#wl-gpus", Input).placeholder = _("all")
        task = str(self.query_one("#wl-task", Select).value)
        for wid, options in (("#wl-task", TASKS), ("#wl-format", FORMATS[task])):
            relabel_select(self.query_one(wid, Select), forms(options))

    def workload(self):
        """The Workload the form describes (a UserError when a field is unusable)."""
        from advisor.workload import defaults
        from advisor.workload.presets import resolve

        task = self.query_one("#wl-task", Select).value
        values = {}
        most = False
        for key, low in (("batch", 1), ("seq", 1), ("accum", 1), ("gpus", 1)):
            raw = self.query_one(f"#wl-{key}", Input).value.strip()
            if not raw and key == "gpus":
                values[key] = None
                continue
            if key == "batch" and task == "infer" and raw.lower() == "max":
                most, values[key] = True, 1  # as many sequences as each configuration's KV cache admits
                continue
            if not raw.isdigit() or int(raw) < low:
                said = (
                    _("{field}: a whole number of at least {low}, or max (as many as the KV cache admits)")
                    if key == "batch" and task == "infer"
                    else _("{field}: a whole number of at least {low}")
                )
                raise UserError(said.format(field=_(FIELD_WORDS[key]), low=low))
            values[key] = int(raw)
        model = resolve(str(self.query_one("#wl-model", Select).value))
        strategy = str(self.query_one("#wl-strategy", Select).value)
        fmt = str(self.query_one("#wl-format", Select).value)
        if task == "infer":
            return defaults.workload(
                "infer",
                model,
                strategy=strategy,
                batch=values["batch"],
                prompt=values["seq"],
                gpus=values["gpus"],
                quant=None if fmt in ("none", "full", "lora", "qlora") else fmt,
                max_concurrency=most or None,
            )
        lora = {"lora": {"lora_rank": 16}, "qlora": {"lora_rank": 16, "base_bits": 4}}.get(fmt, {})
        if lora:
            from advisor.workload.models import lora_params

            lora_params(model, 16)  # a model without the shape LoRA needs says so here
        return defaults.workload(
            "train",
            model,
            strategy=strategy,
            batch=values["batch"],
            seq=values["seq"],
            accum=values["accum"],
            gpus=values["gpus"],
            **lora,
        )

    def on_resize(self) -> None:
        self.app.redraw_view("workload")  # the report's tables are drawn for the width

    def show(self, planner: Planner) -> None:
        scroll = self.query_one("#wl-scroll")
        out = self.query_one("#wl-report", Static)
        pred = planner.prediction
        if pred is None:
            out.update(Text(_("cannot evaluate the build: {error}").format(error=planner.error), "red"))
            return
        from advisor.assess import Request, assess
        from advisor.render.workload import render_text

        try:
            a = assess(
                Request(
                    planner.build,
                    planner.catalog,
                    job="workload",
                    workload=self.workload(),
                    rule_dirs=planner.rule_dirs,
                    prediction=pred,
                )
            )
            analysis, findings = a.analysis, a.findings
            assert analysis is not None
        except UserError as exc:
            out.update(Text(exc.render(), "yellow"))
            return
        width = max(40, (scroll.size.width or self.size.width) - 2)
        console = Console(
            record=True, width=width, file=io.StringIO(), color_system="truecolor", highlight=False
        )
        render_text(analysis, console=console)
        from advisor.tui.views import SEVERITY_HEAD

        for f in findings:
            style = {"error": "bold red", "warning": "yellow"}.get(f.severity, "cyan")
            head = _(SEVERITY_HEAD[f.severity]) if f.severity in SEVERITY_HEAD else f.severity.upper()
            console.print(f"[{style}]{head} {f.id}[/]: {f.message}")
            console.print("  " + _("fix: ") + f.fix, style="dim")
        out.update(Text.from_ansi(console.export_text(styles=True)))

    @on(Select.Changed)
    def _select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "wl-task":
            from advisor.workload import defaults as d
            from advisor.workload.presets import resolve

            task = str(event.value)
            strategy = self.query_one("#wl-strategy", Select)
            choices = STRATEGIES[task]
            strategy.set_options([(s, s) for s in choices])
            strategy.value = d.STRATEGY[task]
            fmt = self.query_one("#wl-format", Select)
            fmt.set_options(forms(FORMATS[task]))
            fmt.value = FORMATS[task][0][1]
            model = resolve(str(self.query_one("#wl-model", Select).value))
            self.query_one("#wl-seq", Input).value = str(d.PROMPT if task == "infer" else d.seq_for(model))
        self.app.redraw_view("workload")

    @on(Input.Changed)
    def _input_changed(self) -> None:
        self.app.redraw_view("workload")
