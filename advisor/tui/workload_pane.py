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
from advisor.session.planner import Planner

STRATEGIES = {
    "train": ("ddp", "dataparallel", "zero2", "zero3", "fsdp", "tp", "pp"),
    "infer": ("tp", "pp", "replicas", "ep", "row"),
}
# what the weights are, by job: full fine-tuning or LoRA/QLoRA; 16-bit or quantized inference weights
FORMATS = {
    "train": (("full", "full"), ("LoRA", "lora"), ("QLoRA", "qlora")),
    "infer": (
        ("16-bit", "none"),
        ("fp8", "fp8"),
        ("int4", "int4"),
        ("Q8_0", "q8_0"),
        ("Q6_K", "q6_k"),
        ("Q4_K_M", "q4_k_m"),
    ),
}


class WorkloadPane(Vertical):
    def compose(self) -> ComposeResult:
        from advisor.workload import defaults as d
        from advisor.workload.presets import presets

        models = [(key, key) for key in presets()]
        with Horizontal(classes="wl-row"):
            yield Select(
                [("train", "train"), ("infer", "infer")],
                value="train",
                allow_blank=False,
                id="wl-task",
                tooltip="training step or inference",
            )
            yield Select(models, value=d.MODEL, allow_blank=False, id="wl-model", tooltip="model preset")
            yield Select(
                [(s, s) for s in STRATEGIES["train"]],
                value=d.STRATEGY["train"],
                allow_blank=False,
                id="wl-strategy",
                tooltip="parallel strategy",
            )
            yield Select(
                list(FORMATS["train"]),
                value="full",
                allow_blank=False,
                id="wl-format",
                tooltip="training: full fine-tuning, LoRA or QLoRA (rank 16); inference: the weights' "
                "format (int4: AWQ/GPTQ; Q8_0-Q4_K_M: GGUF)",
            )
        with Horizontal(classes="wl-row"):
            yield Label("batch", classes="wl-label")
            yield Input(
                str(d.BATCH["train"]),
                id="wl-batch",
                tooltip="micro-batch per GPU (train); concurrent sequences, or max for as many as the KV "
                "cache admits (infer)",
            )
            yield Label("seq", classes="wl-label")
            yield Input(
                str(d.seq_for(presets()[d.MODEL])),
                id="wl-seq",
                type="integer",
                tooltip="sequence length (train); prompt (infer)",
            )
            yield Label("accum", classes="wl-label")
            yield Input(str(d.ACCUM), id="wl-accum", type="integer", tooltip="gradient accumulation steps")
            yield Label("GPUs", classes="wl-label")
            yield Input(
                "", id="wl-gpus", type="integer", placeholder="all", tooltip="GPUs used (default all)"
            )
        with VerticalScroll(id="wl-scroll"):
            yield Static(id="wl-report")

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
                more = (
                    ", or max (as many as the KV cache admits)" if key == "batch" and task == "infer" else ""
                )
                raise UserError(f"{key}: a whole number of at least {low}{more}")
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
            out.update(Text(f"cannot evaluate the build: {planner.error}", "red"))
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
        for f in findings:
            style = {"error": "bold red", "warning": "yellow"}.get(f.severity, "cyan")
            console.print(f"[{style}]{f.severity.upper()} {f.id}[/]: {f.message}")
            console.print(f"  fix: {f.fix}", style="dim")
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
            fmt.set_options(list(FORMATS[task]))
            fmt.value = FORMATS[task][0][1]
            model = resolve(str(self.query_one("#wl-model", Select).value))
            self.query_one("#wl-seq", Input).value = str(d.PROMPT if task == "infer" else d.seq_for(model))
        self.app.redraw_view("workload")

    @on(Input.Changed)
    def _input_changed(self) -> None:
        self.app.redraw_view("workload")
