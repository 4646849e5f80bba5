"""`advisor workload` as people read it: a short text report (1 GPU vs N GPUs, split, memory, bottleneck,
what to change). The JSON form is advisor.outputs.workload."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from advisor.base.text import unknown_because
from advisor.model.constants import constants
from advisor.render.layout import Col, hang, print_table, terminal_console
from advisor.workload.analyse import Analysis
from advisor.workload.result import Config
from advisor.workload.train import gradient_traffic


def _t(x: float | None) -> str:
    if x is None:
        return "-"
    if x >= 1:
        return f"{x:.2f} s"
    if x >= 1e-3:
        return f"{x * 1e3:.1f} ms"
    return f"{x * 1e6:.0f} us"


def _rate(c: Config) -> str:
    if not c.fits:
        return "does not fit"
    if c.unknown:
        return "unknown"
    return f"{c.throughput.value:,.1f} {c.throughput.unit}"


def _cell(c: Config, text, missing: str = "-") -> str:
    """A configuration's figure: `missing` where the job does not fit, "unknown" where its time rests on
    a null catalog value, else `text(c)`."""
    if not c.fits:
        return missing
    return "unknown" if c.unknown else text(c)


def title(a: Analysis) -> str:
    w, m = a.workload, a.workload.model
    what = (
        f"train {m.label}, {w.strategy_name}, {w.precision}, micro-batch {w.batch} x {w.seq} tokens, "
        f"accumulation {w.accum}" + (", recompute" if w.recompute else "")
        if w.task == "train" and m.transformer
        else f"train {m.label}, {w.strategy_name}, {w.precision}, micro-batch {w.batch}, "
        f"accumulation {w.accum}"
        if w.task == "train"
        else f"infer {m.label}, {w.strategy_name}, {w.precision}, {w.batch} concurrent sequence(s), "
        f"prompt {w.prompt} "
        f"+ {w.gen} generated tokens"
    )
    if w.task == "infer":
        if w.request_rate:
            what += (
                f"; {w.request_rate:g} requests/s arriving (the tables at the concurrency it brings: "
                f"{w.batch} on {a.gpus} GPU{'s' if a.gpus > 1 else ''}, {w.baseline_batch or w.batch} on one)"
            )
        if w.max_concurrency:
            what += (
                f" (as many as the KV cache admits: {w.batch} on {a.gpus} GPU{'s' if a.gpus > 1 else ''}, "
                f"{w.baseline_batch or w.batch} on one)"
            )
        if w.quant:
            what += f"; weights {w.quant}"
        if w.kv_cache:
            what += f"; KV cache {w.kv_cache}"
    if m.moe:
        what += (
            f"; mixture of {m.experts} experts, {m.active_experts} per token ({m.active / 1e9:.3g}B active)"
        )
    if w.task == "train":
        if w.accum > 1 and w.sync_every:
            what += " (gradients all-reduced on every micro-step)"
        if w.framework:
            from advisor.workload.frameworks import FRAMEWORKS

            what += "; " + FRAMEWORKS.get(w.framework, w.framework)
        if w.param_dtype:
            what += f"; weights in {w.param_dtype}"
        if w.attention:
            what += f"; {w.attention} attention"
        if w.optimizer != "adamw":
            what += {"adamw-8bit": "; 8-bit AdamW", "sgd": "; SGD with momentum"}[w.optimizer]
        if w.lora_rank is not None:
            what += (
                f"; {'QLoRA' if w.base_bits == 4 else 'LoRA'} rank {w.lora_rank} "
                f"({w.trainable / 1e6:.3g}M trained), base in {w.base_bits} bits"
            )
        if w.baseline_batch or w.baseline_accum or w.baseline_recompute is not None:
            rc = w.recompute if w.baseline_recompute is None else w.baseline_recompute
            what += (
                f"; the 1-GPU run: micro-batch {w.baseline_batch or w.batch}, accumulation "
                f"{w.baseline_accum or w.accum}" + (", recompute" if rc else ", no recompute")
            )
    return what


def how_sure(a) -> str:
    """The speed-up's class and typical range in words, and a warning where the class has large errors."""
    if a.speedup_class is None or a.speedup is None:
        return ""
    iv = a.speedup_interval
    if iv is None:
        return f"{a.speedup_class}: no published speed-ups of this class to say how far off it can be."
    sp = a.speedup.value
    text = (
        f"{a.speedup_class}: typically {sp * iv.lo:.2f}-{sp * iv.hi:.2f}x (80% of {iv.figures} published "
        f"speed-ups of this class, each predicted without its own case, fell within x{iv.lo:.2f}-{iv.hi:.2f} "
        f"of the prediction; median error {iv.median_abs_error_pct:.0f}%)"
    )
    if iv.large:
        text += "; this class's predictions are often far off, so read the figure as a hint"
    return text + "."


def _serving_table(con: Console, a: Analysis) -> None:
    """--request-rate: each configuration's steady state (advisor.workload.rate)."""
    rate = a.workload.request_rate
    t = Table(title=f"Serving {rate:g} requests/s (continuous batching, steady state)")
    t.add_column("")
    rows: dict[str, list[str]] = {
        k: []
        for k in (
            "keeps up",
            "requests in flight",
            "time per request",
            "time to first token",
            "time between tokens",
            "capacity",
            "most in flight (cap)",
        )
    }
    for k, sv in zip((1, a.gpus), a.serving, strict=False):
        t.add_column(f"{k} GPU" + ("s" if k > 1 else ""), justify="right")
        if sv is None:
            for key in rows:
                rows[key].append("does not fit" if key == "keeps up" else "-")
            continue
        rows["keeps up"].append("yes" if sv.sustained else "[red]no: the queue grows[/]")
        rows["requests in flight"].append(f"{sv.concurrency.value:.1f}" if sv.concurrency else "-")
        rows["time per request"].append(_t(sv.latency.value) if sv.latency else "-")
        rows["time to first token"].append(_t(sv.ttft.value))
        rows["time between tokens"].append(_t(sv.inter_token.value) if sv.inter_token else "-")
        rows["capacity"].append(f"{sv.capacity.value:.2f} requests/s")
        rows["most in flight (cap)"].append(str(sv.cap))
    for key, cells in rows.items():
        t.add_row(key, *cells)
    con.print(t)


def render_text(a: Analysis, explain: bool = False, console: Console | None = None) -> None:
    con = console or terminal_console()
    w = a.workload
    con.print(f"[bold]Workload[/]: {title(a)}")
    con.print(f"[bold]Interconnect[/] ({a.gpus} GPU{'s' if a.gpus > 1 else ''}): {a.many.fabric}")
    cols = [a.one] if a.gpus == 1 else [a.one, a.many]
    t = Table(title="1 GPU vs N GPUs")
    t.add_column("")
    for c in cols:
        t.add_column(f"{c.gpus} GPU" + ("s" if c.gpus > 1 else ""), justify="right")
    if w.task == "train":
        t.add_row("time per step", *[_cell(c, lambda c: _t(c.time.value), "does not fit") for c in cols])
    else:
        t.add_row(
            "time to first token",
            *[_cell(c, lambda c: _t(c.extra["ttft"].value), "does not fit") for c in cols],
        )
        t.add_row("decode per token", *[_cell(c, lambda c: _t(c.extra["decode_step"].value)) for c in cols])
    t.add_row("throughput", *[_rate(c) for c in cols])
    for label, key in (
        ("compute", "compute"),
        ("exposed communication", "exposed_comm"),
        ("bubbles", "bubble"),
    ):
        t.add_row(
            label,
            *[
                _cell(c, lambda c, key=key: f"{_t(getattr(c, key).value)} ({100 * c.split()[key]:.0f}%)")
                for c in cols
            ],
        )
    if w.task == "infer":
        t.add_row(
            "sequences that fit (KV cache)",
            *["-" if c.memory.max_sequences is None else str(c.memory.max_sequences.value) for c in cols],
        )
    if w.task == "train":
        t.add_row("optimizer step", *[_cell(c, lambda c: _t(c.extra["optimizer"].value)) for c in cols])
    t.add_row(
        "memory per GPU",
        *[
            f"{c.memory.total.value:.1f} of {c.memory.usable.value:.1f} GB "
            f"({'fits' if c.fits else 'does not fit'})"
            for c in cols
        ],
    )
    con.print(t)
    if a.serving:
        _serving_table(con, a)
    if a.gpus > 1:
        if a.speedup:
            con.print(
                f"[bold]Speed-up[/]: {a.speedup.value:.2f}x one GPU"
                + (" in requests per second kept up with" if a.serving else "")
                + f", scaling efficiency {100 * a.efficiency.value:.0f}%"
            )
            sure = how_sure(a)
            if sure:
                hang(con, "[bold]How sure[/]: ", sure)
        elif a.many.unknown and a.many.fits and a.one.fits:
            hang(
                con,
                "[bold]Speed-up[/]: ",
                f"unknown — {a.many.time.formula.removeprefix('unknown: ')} is "
                f"{unknown_because(a.many.time.missing)}",
            )
        else:
            con.print(
                "[bold]Speed-up[/]: none to give — "
                + ("it does not fit on one GPU" if not a.one.fits else "it does not fit on the GPUs given")
            )
    terms = ", ".join(f"{k} {v.value:.1f}" for k, v in a.many.memory.terms.items() if v.value is not None)
    con.print(
        f"[bold]Memory per GPU[/] ({a.gpus} GPU{'s' if a.gpus > 1 else ''}): {terms} GB — total "
        f"{a.many.memory.total.value:.1f} GB of {a.many.memory.usable.value:.1f} GB usable: "
        f"{'fits' if a.many.fits else '[red]does not fit[/]'}"
    )
    con.print(f"[bold]Bottleneck[/]: {a.bottleneck}")
    if w.task == "train" and a.gpus > 1 and w.strategy not in ("tp", "pp"):
        hang(con, "[bold]Gradients[/]: ", gradient_traffic(w, a.gpus))
    for note in a.many.notes:
        hang(con, "[yellow]•[/] ", note)
    if a.strategies:
        scols = [Col("strategy", "key")]
        scols += [Col(h) for h in ("tokens/s", "time to first token", "decode per token", "memory per GPU")]
        rows = [
            [
                c.strategy,
                _rate(c),
                _cell(c, lambda c: _t(c.extra["ttft"].value)),
                _cell(c, lambda c: _t(c.extra["decode_step"].value)),
                f"{c.memory.total.value:.1f} GB{'' if c.fits else ' (does not fit)'}",
            ]
            for c in a.strategies
        ]
        if a.skipped_strategies:  # why a strategy cannot run is prose: a column of its own, below when narrow
            scols.append(Col("why not", "prose"))
            rows = [r + [""] for r in rows]
            rows += [[s, "not possible", "", "", "", why] for s, why in a.skipped_strategies.items()]
        print_table(con, scols, rows, title=f"Strategies on {a.gpus} GPUs")
    if a.changes or a.fit_note:
        _changes(a, con)
    if explain:
        con.print("[bold]Derivations[/]")
        for c in cols:
            figs = {
                "time": c.time,
                "throughput": c.throughput,
                "compute": c.compute,
                "exposed communication": c.exposed_comm,
                "bubbles": c.bubble,
                **c.extra,
                **{f"memory {k}": v for k, v in c.memory.terms.items()},
                "usable memory": c.memory.usable,
            }
            for name, f in figs.items():
                used = f"; constants {', '.join(f.constants)}" if f.constants else ""
                hang(con, "  ", f"{c.gpus} GPU {name} = {f.formula}; inputs {f.inputs}{used}", indent=6)
        if a.speedup:
            hang(con, "  ", f"speed-up = {a.speedup.formula}; inputs {a.speedup.inputs}", indent=6)
        for k in constants("workload.yaml").values():
            hang(
                con, "  ", f"{k.name} = {k.value} {k.unit}  [dim]sources: {', '.join(k.sources)}[/]", indent=6
            )
    if a.run_as:
        con.print("[bold]Run it as[/] (the flags this prediction assumes):")
        for line in a.run_as:
            hang(con, "  • ", line, indent=4)
    con.print("Assumptions: " + " ".join(a.assumptions))


def _changes(a: Analysis, con: Console) -> None:
    """What to change: on a job that does not fit, this build's changes that make it fit first (the same
    training result before a change of what is trained, the fastest first), then what is not enough
    and what is not modelled, then other hardware; each with the command that runs it."""
    from advisor.workload.advise import run_line

    con.print("[bold]What to change[/] (each predicted by re-running the model with the change)")
    if a.fit_note:
        hang(con, "  ", a.fit_note)
    on_build = [c for c in a.changes if not c.hardware]
    hardware = [c for c in a.changes if c.hardware]
    unfit = not a.many.fits
    if unfit and on_build:
        hang(
            con,
            "  ",
            "On this build, what makes it fit (the same training result first, then what changes what is "
            "trained; the fastest first within each):"
            if a.workload.task == "train"
            else "On this build, what makes it fit:",
        )
    for c in on_build:
        _change(a, c, con, run_line(a, c))
    # what is not enough alone, and what is not modelled, where no setting runs the job as asked
    short = unfit and not any(c.quality == 0 for c in on_build)
    if short and a.fit_short:
        usable = a.many.memory.usable.value
        shown = "; ".join(f"{name} {gb:.1f} GB ({' '.join(flags)})" for name, flags, gb in a.fit_short)
        one = " The micro-batch is already 1." if a.workload.task == "train" and a.workload.batch == 1 else ""
        hang(
            con,
            "  ",
            f"Not enough alone on this build (memory per GPU, {usable:.1f} GB usable): {shown}.{one}",
        )
    if short:
        for note in a.not_modelled:
            hang(con, "  ", f"Not modelled: {note}.")
    if hardware and (unfit or on_build):
        hang(con, "  ", "Other hardware:")
    for c in hardware:
        _change(a, c, con, run_line(a, c))


def _change(a: Analysis, c, con: Console, line: str | None) -> None:
    from rich.markup import escape

    from advisor.base.text import plain

    hang(con, "  • ", f"{c.change}: {c.summary} — {c.why}" + (f"; {c.cost}" if c.cost else ""))
    if line is not None:
        hang(con, "      run: ", escape(plain(line)), indent=10)
    elif c.flags:
        hang(con, "      flags: ", escape(plain(" ".join(c.flags))), indent=12)
