"""`advisor workload` as people read it: a short text report (1 GPU vs N GPUs, split, memory, bottleneck,
what to change). The JSON form is advisor.outputs.workload."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from advisor.base.text import unknown_because
from advisor.i18n import N_, _, ngettext, sentences
from advisor.model.constants import constants
from advisor.render.layout import Col, hang, print_table, terminal_console
from advisor.render.words import constant_line
from advisor.workload.analyse import Analysis
from advisor.workload.result import Config
from advisor.workload.run import unknown_what
from advisor.workload.train import gradient_traffic


def _t(x: float | None) -> str:
    if x is None:
        return "-"
    if x >= 1:
        return f"{x:.2f} s"
    if x >= 1e-3:
        return f"{x * 1e3:.1f} ms"
    return f"{x * 1e6:.0f} us"


# the memory terms (the JSON's keys) and the figures of --explain, as a reader sees them
_TERMS = {
    "weights": N_("weights"),
    "gradients": N_("gradients"),
    "optimizer": N_("optimizer"),
    "gathered_layers": N_("gathered_layers"),
    "activations": N_("activations"),
    "kv_cache": N_("kv_cache"),
}
_FIGURES = {"ttft": N_("ttft"), "decode_step": N_("decode_step"), "optimizer": N_("optimizer")}


def _rate(c: Config) -> str:
    if not c.fits:
        return _("does not fit")
    if c.unknown:
        return _("unknown")
    return f"{c.throughput.value:,.1f} {c.throughput.unit}"


def _cell(c: Config, text, missing: str = "-") -> str:
    """A configuration's figure: `missing` where the job does not fit, "unknown" where its time rests on
    a null catalog value, else `text(c)`."""
    if not c.fits:
        return missing
    return _("unknown") if c.unknown else text(c)


def _gpus(n: int) -> str:
    """A column of n GPUs: '1 GPU', '2 GPUs'."""
    return ngettext("{n} GPU", "{n} GPUs", n).format(n=n)


def title(a: Analysis) -> str:
    """The job in words, each of its traits a clause of its own."""
    w, m = a.workload, a.workload.model
    job = dict(
        model=m.label,
        strategy=w.strategy_name,
        precision=w.precision,
        batch=w.batch,
        seq=w.seq,
        accum=w.accum,
        prompt=w.prompt,
        gen=w.gen,
    )
    if w.task == "train" and m.transformer:
        what = (
            _(
                "train {model}, {strategy}, {precision}, micro-batch {batch} x {seq} tokens, accumulation {accum}, recompute"
            )
            if w.recompute
            else _(
                "train {model}, {strategy}, {precision}, micro-batch {batch} x {seq} tokens, accumulation {accum}"
            )
        ).format(**job)
    elif w.task == "train":
        what = _("train {model}, {strategy}, {precision}, micro-batch {batch}, accumulation {accum}").format(
            **job
        )
    else:
        what = _(
            "infer {model}, {strategy}, {precision}, {batch} concurrent sequence(s), prompt {prompt} + {gen} "
            "generated tokens"
        ).format(**job)
    one = w.baseline_batch or w.batch
    if w.task == "infer":
        if w.request_rate:
            what = ngettext(
                "{what}; {rate} requests/s arriving (the tables at the concurrency it brings: {batch} on {n} GPU, "
                "{one} on one)",
                "{what}; {rate} requests/s arriving (the tables at the concurrency it brings: {batch} on {n} GPUs, "
                "{one} on one)",
                a.gpus,
            ).format(what=what, rate=f"{w.request_rate:g}", batch=w.batch, n=a.gpus, one=one)
        if w.max_concurrency:
            what = ngettext(
                "{what} (as many as the KV cache admits: {batch} on {n} GPU, {one} on one)",
                "{what} (as many as the KV cache admits: {batch} on {n} GPUs, {one} on one)",
                a.gpus,
            ).format(what=what, batch=w.batch, n=a.gpus, one=one)
        if w.quant:
            what = _("{what}; weights {format}").format(what=what, format=w.quant)
        if w.kv_cache:
            what = _("{what}; KV cache {format}").format(what=what, format=w.kv_cache)
    if m.moe:
        what = _("{what}; mixture of {experts} experts, {active} per token ({params}B active)").format(
            what=what, experts=m.experts, active=m.active_experts, params=f"{m.active / 1e9:.3g}"
        )
    if w.task == "train":
        if w.accum > 1 and w.sync_every:
            what = _("{what} (gradients all-reduced on every micro-step)").format(what=what)
        if w.framework:
            from advisor.workload.frameworks import framework_words

            what = _("{what}; {framework}").format(what=what, framework=framework_words(w.framework))
        if w.param_dtype:
            what = _("{what}; weights in {dtype}").format(what=what, dtype=w.param_dtype)
        if w.attention:
            what = _("{what}; {attention} attention").format(what=what, attention=w.attention)
        if w.optimizer != "adamw":
            what = {
                "adamw-8bit": _("{what}; 8-bit AdamW"),
                "sgd": _("{what}; SGD with momentum"),
            }[w.optimizer].format(what=what)
        if w.lora_rank is not None:
            what = (
                _("{what}; QLoRA rank {rank} ({trained}M trained), base in {bits} bits")
                if w.base_bits == 4
                else _("{what}; LoRA rank {rank} ({trained}M trained), base in {bits} bits")
            ).format(what=what, rank=w.lora_rank, trained=f"{w.trainable / 1e6:.3g}", bits=w.base_bits)
        if w.baseline_batch or w.baseline_accum or w.baseline_recompute is not None:
            rc = w.recompute if w.baseline_recompute is None else w.baseline_recompute
            what = (
                _("{what}; the 1-GPU run: micro-batch {batch}, accumulation {accum}, recompute")
                if rc
                else _("{what}; the 1-GPU run: micro-batch {batch}, accumulation {accum}, no recompute")
            ).format(what=what, batch=one, accum=w.baseline_accum or w.accum)
    return what


def how_sure(a) -> str:
    """The speed-up's class and typical range in words, and a warning where the class has large errors."""
    if a.speedup_class is None or a.speedup is None:
        return ""
    from advisor.workload.confidence import class_words

    klass = class_words(a.speedup_class)
    iv = a.speedup_interval
    if iv is None:
        return _("{klass}: no published speed-ups of this class to say how far off it can be.").format(
            klass=klass
        )
    sp = a.speedup.value
    text = (
        _(
            "{klass}: typically {lo}-{hi}x (80% of {figures} published speed-ups of this class, each predicted "
            "without its own case, fell within x{rlo}-{rhi} of the prediction; median error {error}%); this "
            "class's predictions are often far off, so read the figure as a hint."
        )
        if iv.large
        else _(
            "{klass}: typically {lo}-{hi}x (80% of {figures} published speed-ups of this class, each predicted "
            "without its own case, fell within x{rlo}-{rhi} of the prediction; median error {error}%)."
        )
    )
    return text.format(
        klass=klass,
        lo=f"{sp * iv.lo:.2f}",
        hi=f"{sp * iv.hi:.2f}",
        figures=iv.figures,
        rlo=f"{iv.lo:.2f}",
        rhi=f"{iv.hi:.2f}",
        error=f"{iv.median_abs_error_pct:.0f}",
    )


# the serving table's rows, in their order
_SERVING_ROWS = (
    N_("keeps up"),
    N_("requests in flight"),
    N_("time per request"),
    N_("time to first token"),
    N_("time between tokens"),
    N_("capacity"),
    N_("most in flight (cap)"),
)


def _serving_table(con: Console, a: Analysis) -> None:
    """--request-rate: each configuration's steady state (advisor.workload.rate)."""
    rate = a.workload.request_rate
    t = Table(
        title=_("Serving {rate} requests/s (continuous batching, steady state)").format(rate=f"{rate:g}")
    )
    t.add_column("")
    rows: dict[str, list[str]] = {k: [] for k in _SERVING_ROWS}
    for k, sv in zip((1, a.gpus), a.serving, strict=False):
        t.add_column(_gpus(k), justify="right")
        if sv is None:
            for key in rows:
                rows[key].append(_("does not fit") if key == "keeps up" else "-")
            continue
        rows["keeps up"].append(_("yes") if sv.sustained else "[red]" + _("no: the queue grows") + "[/]")
        rows["requests in flight"].append(f"{sv.concurrency.value:.1f}" if sv.concurrency else "-")
        rows["time per request"].append(_t(sv.latency.value) if sv.latency else "-")
        rows["time to first token"].append(_t(sv.ttft.value))
        rows["time between tokens"].append(_t(sv.inter_token.value) if sv.inter_token else "-")
        rows["capacity"].append(_("{rate} requests/s").format(rate=f"{sv.capacity.value:.2f}"))
        rows["most in flight (cap)"].append(str(sv.cap))
    for key, cells in rows.items():
        t.add_row(_(key), *cells)
    con.print(t)


def render_text(a: Analysis, explain: bool = False, console: Console | None = None) -> None:
    con = console or terminal_console()
    w = a.workload
    con.print(_("[bold]Workload[/]: {job}").format(job=title(a)))
    con.print(
        ngettext(
            "[bold]Interconnect[/] ({n} GPU): {fabric}", "[bold]Interconnect[/] ({n} GPUs): {fabric}", a.gpus
        ).format(n=a.gpus, fabric=a.many.fabric)
    )
    cols = [a.one] if a.gpus == 1 else [a.one, a.many]
    t = Table(title=_("1 GPU vs N GPUs"))
    t.add_column("")
    for c in cols:
        t.add_column(_gpus(c.gpus), justify="right")
    no_fit = _("does not fit")
    if w.task == "train":
        t.add_row(_("time per step"), *[_cell(c, lambda c: _t(c.time.value), no_fit) for c in cols])
    else:
        t.add_row(
            _("time to first token"),
            *[_cell(c, lambda c: _t(c.extra["ttft"].value), no_fit) for c in cols],
        )
        t.add_row(
            _("decode per token"), *[_cell(c, lambda c: _t(c.extra["decode_step"].value)) for c in cols]
        )
    t.add_row(_("throughput"), *[_rate(c) for c in cols])
    for label, key in (
        (N_("compute"), "compute"),
        (N_("exposed communication"), "exposed_comm"),
        (N_("bubbles"), "bubble"),
    ):
        t.add_row(
            _(label),
            *[
                _cell(c, lambda c, key=key: f"{_t(getattr(c, key).value)} ({100 * c.split()[key]:.0f}%)")
                for c in cols
            ],
        )
    if w.task == "infer":
        t.add_row(
            _("sequences that fit (KV cache)"),
            *["-" if c.memory.max_sequences is None else str(c.memory.max_sequences.value) for c in cols],
        )
    if w.task == "train":
        t.add_row(_("optimizer step"), *[_cell(c, lambda c: _t(c.extra["optimizer"].value)) for c in cols])
    t.add_row(
        _("memory per GPU"),
        *[
            (
                _("{need} of {usable} GB (fits)") if c.fits else _("{need} of {usable} GB (does not fit)")
            ).format(need=f"{c.memory.total.value:.1f}", usable=f"{c.memory.usable.value:.1f}")
            for c in cols
        ],
    )
    con.print(t)
    if a.serving:
        _serving_table(con, a)
    if a.gpus > 1:
        if a.speedup:
            con.print(
                (
                    _(
                        "[bold]Speed-up[/]: {x}x one GPU in requests per second kept up with, scaling efficiency "
                        "{efficiency}%"
                    )
                    if a.serving
                    else _("[bold]Speed-up[/]: {x}x one GPU, scaling efficiency {efficiency}%")
                ).format(x=f"{a.speedup.value:.2f}", efficiency=f"{100 * a.efficiency.value:.0f}")
            )
            sure = how_sure(a)
            if sure:
                hang(con, _("[bold]How sure[/]: "), sure)
        elif a.many.unknown and a.many.fits and a.one.fits:
            hang(
                con,
                _("[bold]Speed-up[/]: "),
                _("unknown — {what} is {why}").format(
                    what=unknown_what(a.many.time), why=unknown_because(a.many.time.missing)
                ),
            )
        else:
            con.print(
                _("[bold]Speed-up[/]: none to give — it does not fit on one GPU")
                if not a.one.fits
                else _("[bold]Speed-up[/]: none to give — it does not fit on the GPUs given")
            )
    terms = _(", ").join(
        f"{_(_TERMS.get(k, k))} {v.value:.1f}" for k, v in a.many.memory.terms.items() if v.value is not None
    )
    con.print(
        ngettext(
            "[bold]Memory per GPU[/] ({n} GPU): {terms} GB — total {need} GB of {usable} GB usable: {fits}",
            "[bold]Memory per GPU[/] ({n} GPUs): {terms} GB — total {need} GB of {usable} GB usable: {fits}",
            a.gpus,
        ).format(
            n=a.gpus,
            terms=terms,
            need=f"{a.many.memory.total.value:.1f}",
            usable=f"{a.many.memory.usable.value:.1f}",
            fits=_("fits") if a.many.fits else "[red]" + _("does not fit") + "[/]",
        )
    )
    con.print(_("[bold]Bottleneck[/]: {text}").format(text=a.bottleneck))
    if w.task == "train" and a.gpus > 1 and w.strategy not in ("tp", "pp"):
        hang(con, _("[bold]Gradients[/]: "), gradient_traffic(w, a.gpus))
    for note in a.many.notes:
        hang(con, "[yellow]•[/] ", note)
    if a.strategies:
        scols = [Col(_("strategy"), "key")]
        scols += [
            Col(_(h))
            for h in (N_("tokens/s"), N_("time to first token"), N_("decode per token"), N_("memory per GPU"))
        ]
        rows = [
            [
                c.strategy,
                _rate(c),
                _cell(c, lambda c: _t(c.extra["ttft"].value)),
                _cell(c, lambda c: _t(c.extra["decode_step"].value)),
                (_("{need} GB") if c.fits else _("{need} GB (does not fit)")).format(
                    need=f"{c.memory.total.value:.1f}"
                ),
            ]
            for c in a.strategies
        ]
        if a.skipped_strategies:  # why a strategy cannot run is prose: a column of its own, below when narrow
            scols.append(Col(_("why not"), "prose"))
            rows = [r + [""] for r in rows]
            rows += [[s, _("not possible"), "", "", "", why] for s, why in a.skipped_strategies.items()]
        print_table(con, scols, rows, title=_("Strategies on {n} GPUs").format(n=a.gpus))
    if a.changes or a.fit_note:
        _changes(a, con)
    if explain:
        con.print(_("[bold]Derivations[/]"))
        for c in cols:
            figs = [
                (_("time"), c.time),
                (_("throughput"), c.throughput),
                (_("compute"), c.compute),
                (_("exposed communication"), c.exposed_comm),
                (_("bubbles"), c.bubble),
                *((_(_FIGURES.get(k, k)), f) for k, f in c.extra.items()),
                *(
                    (_("memory {term}").format(term=_(_TERMS.get(k, k))), f)
                    for k, f in c.memory.terms.items()
                ),
                (_("usable memory"), c.memory.usable),
            ]
            for name, f in figs:
                said = dict(gpus=c.gpus, name=name, formula=f.formula, inputs=f.inputs)
                line = (
                    _("{gpus} GPU {name} = {formula}; inputs {inputs}; constants {constants}")
                    if f.constants
                    else _("{gpus} GPU {name} = {formula}; inputs {inputs}")
                ).format(**said, constants=", ".join(f.constants))
                hang(con, "  ", line, indent=6)
        if a.speedup:
            hang(
                con,
                "  ",
                _("speed-up = {formula}; inputs {inputs}").format(
                    formula=a.speedup.formula, inputs=a.speedup.inputs
                ),
                indent=6,
            )
        for k in constants("workload.yaml").values():
            hang(con, "  ", constant_line(k), indent=6)
    if a.run_as:
        con.print(_("[bold]Run it as[/] (the flags this prediction assumes):"))
        for line in a.run_as:
            hang(con, "  • ", line, indent=4)
    con.print(_("Assumptions: {assumptions}").format(assumptions=sentences(a.assumptions)))


def _changes(a: Analysis, con: Console) -> None:
    """What to change: on a job that does not fit, this build's changes that make it fit first (the same
    training result before a change of what is trained, the fastest first), then what is not enough
    and what is not modelled, then other hardware; each with the command that runs it."""
    from advisor.workload.advise import run_line

    con.print(_("[bold]What to change[/] (each predicted by re-running the model with the change)"))
    if a.fit_note:
        hang(con, "  ", a.fit_note)
    on_build = [c for c in a.changes if not c.hardware]
    hardware = [c for c in a.changes if c.hardware]
    unfit = not a.many.fits
    if unfit and on_build:
        hang(
            con,
            "  ",
            _(
                "On this build, what makes it fit (the same training result first, then what changes what is "
                "trained; the fastest first within each):"
            )
            if a.workload.task == "train"
            else _("On this build, what makes it fit:"),
        )
    for c in on_build:
        _change(a, c, con, run_line(a, c))
    # what is not enough alone, and what is not modelled, where no setting runs the job as asked
    short = unfit and not any(c.quality == 0 for c in on_build)
    if short and a.fit_short:
        shown = _("; ").join(
            _("{change} {need} GB ({flags})").format(change=name, need=f"{gb:.1f}", flags=" ".join(flags))
            for name, flags, gb in a.fit_short
        )
        hang(
            con,
            "  ",
            (
                _(
                    "Not enough alone on this build (memory per GPU, {usable} GB usable): {changes}. The "
                    "micro-batch is already 1."
                )
                if a.workload.task == "train" and a.workload.batch == 1
                else _("Not enough alone on this build (memory per GPU, {usable} GB usable): {changes}.")
            ).format(usable=f"{a.many.memory.usable.value:.1f}", changes=shown),
        )
    if short:
        for note in a.not_modelled:
            hang(con, "  ", _("Not modelled: {note}.").format(note=note))
    if hardware and (unfit or on_build):
        hang(con, "  ", _("Other hardware:"))
    for c in hardware:
        _change(a, c, con, run_line(a, c))


def _change(a: Analysis, c, con: Console, line: str | None) -> None:
    from rich.markup import escape

    from advisor.base.text import plain

    said = (_("{change}: {summary} — {why}; {cost}") if c.cost else _("{change}: {summary} — {why}")).format(
        change=c.change, summary=c.summary, why=c.why, cost=c.cost
    )
    hang(con, "  • ", said)
    if line is not None:
        hang(con, _("      run: "), escape(plain(line)), indent=10)
    elif c.flags:
        hang(con, _("      flags: "), escape(plain(" ".join(c.flags))), indent=12)
