"""The plan as people read it: a text report for the terminal (rich) and a Markdown report."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.tree import Tree

from advisor.base.text import for_markdown as md
from advisor.base.text import unknown_because
from advisor.findings.finding import Finding
from advisor.findings.verdict import verdict_line
from advisor.i18n import N_, _, ngettext
from advisor.model.constants import constants
from advisor.model.machine import Machine
from advisor.model.predict import Prediction, allreduce_how, allreduce_scope, nic_matrix, topo_matrix
from advisor.model.readiness import grouped, layer_name, readiness
from advisor.outputs.plan import NOT_CHECKED
from advisor.render.layout import Col, hang, print_table, terminal_console
from advisor.render.words import constant_line


def tree_of(m: Machine) -> Tree:
    roots = [n for n in m.nodes.values() if n.parent is None and n.kind == "socket"]
    title = (
        m.system.name if m.system is not None else f"{m.board.name}" if m.board else _("explicit PCIe tree")
    )
    if m.node_count > 1:
        title = _("{title} (x{n} nodes)").format(title=title, n=m.node_count)
    tree = Tree(f"[bold]{title}[/]")

    def label(n) -> str:
        link = f" [cyan]{n.link.label}[/]" if n.link else ""
        idx = f"GPU{n.index} " if n.kind == "gpu" else ""
        text = (
            _("{device} in {slot}").format(device=idx + n.label, slot=n.connector)
            if n.connector and n.kind in ("gpu", "nvme", "nic")
            else idx + n.label
        )
        warn = (
            " [yellow]"
            + _("(below the card's Gen{gen} x{width})").format(gen=n.link.max_gen, width=n.link.max_width)
            + "[/]"
            if n.link and n.kind == "gpu" and (n.link.gen < n.link.max_gen or n.link.width < n.link.max_width)
            else ""
        )
        return f"{text}{link}{warn}"

    def add(branch, node):
        kids = sorted(m.children(node.id), key=lambda c: (c.kind != "switch", c.index or 0, c.id))
        for c in kids:
            # skip root-port nodes: show the device directly under the host bridge
            if c.kind == "root_port":
                add(branch, c)
                continue
            sub = branch.add(label(c))
            add(sub, c)

    for r in roots:
        b = tree.add(f"[bold]{r.label}[/]")
        add(b, r)
    for u in m.unlinked:
        tree.add("[red]" + _("{device}: no lanes").format(device=u) + "[/]")
    return tree


_FAMILY_WORDS = {
    "host copy": N_("host copies"),
    "GPU-GPU copy pcie-p2p": N_("copies over PCIe P2P"),
    "GPU-GPU copy staged": N_("staged copies"),
    "GPU-GPU copy nvlink": N_("NVLink copies"),
    "latency pcie-p2p": N_("P2P latency"),
    "latency staged": N_("staged latency"),
    "latency nvlink": N_("NVLink latency"),
}


def _family(f: str) -> str:
    return _(_FAMILY_WORDS[f]) if f in _FAMILY_WORDS else f


def _nics_text(console: Console, pred: Prediction) -> None:
    cols = [
        Col("NIC", "key"),
        Col(_("model"), "wrap"),
        Col("Gb/s"),
        Col(_("fabric")),
        Col("GPU"),
        Col(_("path")),
    ]
    cols += [Col("GPUDirect RDMA"), Col("GB/s"), Col(_("why"), "prose")]
    rows = []
    for n in pred.nics:
        nic = n.nic
        rows.append(
            [
                str(nic.index),
                nic.label,
                str(nic.nic.gbps) if nic.nic and nic.nic.gbps else "?",
                (nic.nic.fabric if nic.nic else None) or "?",
                f"GPU{n.gpu}",
                n.path,
                _("yes") if n.gdr else _("no"),
                _num(n.rate.value),
                n.gdr_reason,
            ]
        )
    print_table(console, cols, rows, title=_("NICs (what NCCL moves across nodes, per direction)"))


def _raw_links(pred: Prediction) -> str:
    """Each GPU's raw link rate to its CPU (`host_link_gbps`): the ceiling its copies reach a share of."""
    rates = []
    for p in pred.gpus:
        fig = p.host_link
        if fig is None:
            continue
        rate = _("unknown") if fig.value is None else f"{fig.value:.1f} GB/s"
        rates.append(_("GPU{index} {rate}").format(index=p.node.index, rate=rate))
    if not rates:
        return ""
    return _("Raw link to the CPU, each direction (the copies above reach a share of it): {rates}").format(
        rates=_(", ").join(rates)
    )


def _typical(console: Console, figs: list, fams: list[str]) -> None:
    """One line under a table: how far off such figures typically are (the model's leave-one-out
    range on published machines, rules/intervals.yaml), and which have no out-of-sample check."""
    from advisor.model.intervals import families

    known = families()
    if not figs or not known:
        return
    have = [
        _("{family} x{lo}-{hi}").format(
            family=_family(f), lo=f"{known[f]['lo']:.2f}", hi=f"{known[f]['hi']:.2f}"
        )
        for f in fams
        if f in known
    ]
    missing = [_family(f) for f in fams if f not in known]
    parts = []
    if have:
        parts.append(_("{ranges} of the figure").format(ranges=", ".join(have)))
    if missing:
        parts.append(_("not checked out of sample: {families}").format(families=", ".join(missing)))
    text = _(
        "{ranges} (measured / predicted on published machines, each predicted without its own case)"
    ).format(ranges="; ".join(parts))
    hang(console, "[dim]" + _("typically:") + "[/] ", f"[dim]{escape(text)}[/]")


def render_text(
    pred: Prediction,
    findings: list[Finding] | None = None,
    explain: bool = False,
    console: Console | None = None,
) -> None:
    console = console or terminal_console()
    m = pred.machine
    console.print(f"[b]{escape(verdict_line(pred, list(findings or [])))}[/]")
    console.print(tree_of(m))
    for note in m.notes:
        hang(console, "[yellow]•[/] ", note)
    cols = [Col("GPU", "key"), Col(_("model"), "wrap"), Col(_("slot"), "key"), Col(_("link"))]
    cols += [Col(h) for h in ("H2D", "D2H", _("H2D all"), _("D2H all"))] + [Col(_("limit"), "prose")]
    rows = []
    for p in pred.gpus:
        n = p.node
        limit = p.limit
        rows.append(
            [
                str(n.index),
                n.gpu.name if n.gpu else "?",
                n.connector or "-",
                n.link.label,
                f"{p.h2d.value:.1f}",
                f"{p.d2h.value:.1f}",
                f"{p.h2d_all.value:.1f}",
                f"{p.d2h_all.value:.1f}",
                limit,
            ]
        )
    print_table(console, cols, rows, title=_("Host <-> GPU (pinned copies, GB/s)"))
    if raw := _raw_links(pred):
        hang(console, "", escape(raw))
    if pred.host_sum:
        h, d = pred.host_sum["h2d"], pred.host_sum["d2h"]
        limits = list(h.limited_by)
        values = dict(n=len(pred.gpus), h2d=f"{h.value:.1f}", d2h=f"{d.value:.1f}")
        if limits:
            text = _(
                "All {n} GPUs copying at once: [bold]{h2d} GB/s[/] to the GPUs, [bold]{d2h} GB/s[/] from them "
                "(each alone: {alone} summed; limit: {limit})"
            ).format(**values, alone=f"{h.inputs['sum_alone_gbps']:.1f}", limit="; ".join(limits))
        else:
            text = _(
                "All {n} GPUs copying at once: [bold]{h2d} GB/s[/] to the GPUs, [bold]{d2h} GB/s[/] from them"
            ).format(**values)
        hang(console, "", text)
    _typical(console, [f for p in pred.gpus for f in (p.h2d,)], ["host copy"])
    if pred.pairs:
        cols = [Col(_("pair"), "key")]
        cols += [
            Col(h)
            for h in (_("path"), "CUDA P2P", _("NCCL uses"), _("uni GB/s"), _("bidi GB/s"), _("latency us"))
        ]
        cols.append(Col(_("why"), "prose"))
        rows = []
        for p in pred.pairs:
            why = p.p2p_reason if not p.p2p else p.nccl_reason
            rows.append(
                [
                    f"{p.a}-{p.b}",
                    p.nvml_path,
                    _("yes") if p.p2p else _("no"),
                    p.nccl_transport,
                    _num(p.uni.value),
                    _num(p.bidi.value),
                    _num(p.latency.value),
                    why,
                ]
            )
        print_table(console, cols, rows, title=_("GPU <-> GPU (like p2pBandwidthLatencyTest)"))
        missing = sorted({f for p in pred.pairs for x in (p.uni, p.bidi, p.latency) for f in x.missing})
        if missing:
            hang(console, "[yellow]?[/] ", escape(unknown_because(missing)) + _(_ADD_IT))
        _typical(
            console,
            [f for p in pred.pairs for f in (p.uni, p.latency)],
            sorted({f"GPU-GPU copy {p.via}" for p in pred.pairs} | {f"latency {p.via}" for p in pred.pairs}),
        )
        mat = topo_matrix(pred)
        nic_mat = nic_matrix(pred)
        cols = [Col("", "key")] + [Col(f"GPU{n.index}") for n in m.gpus]
        cols += [Col(f"NIC{n.index}") for n in pred.machine.nics if n.link is not None]
        rows = [[f"GPU{n.index}", *row, *nrow] for n, row, nrow in zip(m.gpus, mat, nic_mat, strict=True)]
        print_table(console, cols, rows, title=_("Predicted nvidia-smi topo -m"))
    if pred.nics:
        _nics_text(console, pred)
    if pred.allreduce and pred.allreduce.value is None:
        hang(
            console,
            "",
            _("All-reduce bus bandwidth ({n} GPUs): [bold]{unknown}[/]").format(
                n=len(pred.ring), unknown=escape(unknown_because(pred.allreduce.missing))
            )
            + _(_ADD_IT),
        )
    elif pred.allreduce:
        a = pred.allreduce
        values = dict(scope=allreduce_scope(pred), value=f"{a.value:.1f}", how=allreduce_how(pred))
        if a.interval:
            text = _(
                "All-reduce bus bandwidth ({scope}, nccl-tests busbw, large messages): [bold]{value} GB/s[/] "
                "(typically {lo}-{hi}) — {how}"
            ).format(**values, lo=f"{a.interval[0]:.1f}", hi=f"{a.interval[1]:.1f}")
        else:
            text = _(
                "All-reduce bus bandwidth ({scope}, nccl-tests busbw, large messages): [bold]{value} GB/s[/] — {how}"
            ).format(**values)
        console.print(text)
        if a.confidence == "low":
            hang(
                console,
                "[yellow]" + _("low confidence:") + "[/] ",
                escape(a.inputs.get("confidence_note", _("no calibration case for these GPUs"))),
            )
    _readiness_text(console, pred)
    if findings:
        console.print(_("[bold]Findings[/] (worst first)"))
        for f in findings:
            colour = {"error": "red", "warning": "yellow"}.get(f.severity, "blue")
            # the message's further lines under the rule id, the fix's under the fix
            hang(console, f"[{colour}]{_severity(f.severity)}[/] ", f"{f.id}: {f.message}")
            if f.fix:
                hang(console, " " * 8 + _("fix: "), f.fix)
    if explain:  # a formula names keyed constants (h2d_efficiency[gen]): escaped, not markup
        console.print(_("[bold]Derivations[/]"))
        for p in pred.gpus:
            said = _("GPU{index} H2D = {formula}; inputs {inputs}").format(
                index=p.node.index, formula=p.h2d.formula, inputs=p.h2d.inputs
            )
            hang(console, "", escape(said), indent=4)
        for p in pred.pairs:
            said = _("{a}-{b} uni = {formula}; inputs {inputs}").format(
                a=p.a, b=p.b, formula=p.uni.formula, inputs=p.uni.inputs
            )
            hang(console, "", escape(said), indent=4)
        if pred.allreduce:
            said = _("all-reduce = {formula}; inputs {inputs}").format(
                formula=pred.allreduce.formula, inputs=pred.allreduce.inputs
            )
            hang(console, "", escape(said), indent=4)
        for c in constants().values():
            hang(console, "  ", constant_line(c), indent=6)
    console.print(_("Assumptions: {assumptions}").format(assumptions=" ".join(pred.assumptions)))
    console.print(f"[dim]{_(NOT_CHECKED)}[/]")


_COLOUR = {"PASS": "green", "FAIL": "red", "UNKNOWN": "yellow"}


_SEVERITY = {"error": N_("ERROR"), "warning": N_("WARNING"), "info": N_("INFO")}
_VERDICT = {"PASS": N_("PASS"), "FAIL": N_("FAIL"), "UNKNOWN": N_("UNKNOWN")}


def _cells(text: str) -> int:
    from rich.cells import cell_len

    return cell_len(text)


def _pad(text: str, width: int) -> str:
    """`text` padded with spaces to `width` terminal cells (a Chinese character takes two)."""
    return text + " " * max(0, width - _cells(text))


def _severity(severity: str) -> str:
    """ERROR, WARNING, INFO in the current language, padded to one width."""
    return _pad(_(_SEVERITY.get(severity, severity.upper())), 7)


def _pairs(pairs: list[tuple[int, int]]) -> str:
    names = ", ".join(f"{a}-{b}" for a, b in pairs)
    return ngettext("pair {pairs}", "pairs {pairs}", len(pairs)).format(pairs=names)


def _readiness_text(console: Console, pred: Prediction) -> None:
    """P2P readiness, pairs that read the same together: each layer's verdict and reason, the fix where
    it fails or is not known, and the command that settles an UNKNOWN on the real machine."""
    rows = readiness(pred)
    if not rows:
        return
    console.print(_("[bold]P2P readiness[/] (is P2P really used? layer by layer, per GPU pair)"))
    for pairs, r in grouped(rows):
        colour = _COLOUR[r.verdict]
        hang(console, "", f"[{colour}]{escape(_pairs(pairs))}: {escape(r.summary)}[/]")
        for x in r.layers:
            c = _COLOUR[x.verdict]
            why = x.why if len(pairs) == 1 else (x.generic or x.why)
            hang(
                console,
                f"  [{c}]{_pad(_(_VERDICT[x.verdict]), 7)}[/] {_pad(layer_name(x.layer), 8)} ",
                escape(why),
            )
            if x.verdict != "PASS" and x.fix:
                hang(console, " " * 19 + _("fix: "), escape(x.fix))
            if x.verdict == "UNKNOWN" and x.check:
                hang(console, " " * 19 + _("check: "), escape(x.check))


def _readiness_markdown(pred: Prediction) -> list[str]:
    rows = readiness(pred)
    if not rows:
        return []
    out = ["", "## " + _("P2P readiness"), ""]
    for pairs, r in grouped(rows):
        head = [_("layer"), _("verdict"), _("why"), _("fix"), _("check")]
        out += [
            f"**{md(_pairs(pairs))}**: {md(r.summary)}",
            "",
            "| " + " | ".join(head) + " |",
            "|---|---|---|---|---|",
        ]
        for x in r.layers:
            why = x.why if len(pairs) == 1 else (x.generic or x.why)
            cells = [layer_name(x.layer), _(_VERDICT[x.verdict]), why, x.fix or "", x.check or ""]
            out.append("| " + " | ".join(md(c) for c in cells) + " |")
        out.append("")
    return out


def render_markdown(pred: Prediction, findings: list[Finding] | None = None) -> str:
    """The plan as a Markdown report: links, P2P paths, all-reduce, findings, assumptions. Every text in
    it that a build, a catalog entry or a rule wrote goes through advisor.base.text.for_markdown (`md`):
    nothing in an input becomes HTML, a link or a table cell of its own."""
    m = pred.machine
    title = (
        (m.build.name if m.build and m.build.name else None)
        or " / ".join(x.name for x in (m.cpu, m.system or m.board) if x is not None)
        or _("explicit PCIe tree")
    )
    # the same headline as the text and the JSON: the first thing a reader of the report sees
    out = [f"# {md(title)}", "", f"**{md(verdict_line(pred, list(findings or [])))}**", ""]
    if m.cpu or m.board or m.system:
        board = (
            m.system.name if m.system is not None else m.board.name if m.board else _("explicit PCIe tree")
        )
        cpu = md(m.cpu.name) if m.cpu else "?"
        out += [
            "- "
            + ngettext("CPU: {cpu} ({n} socket)", "CPU: {cpu} ({n} sockets)", m.sockets).format(
                cpu=cpu, n=m.sockets
            ),
            "- "
            + (_("System: {name}") if m.system is not None else _("Board: {name}")).format(name=md(board)),
        ]
        if m.node_count > 1:
            out.append("- " + _("Nodes: {n}, joined by their NICs").format(n=m.node_count))
        out.append("")
    if m.notes or m.unlinked:
        out += ["## " + _("What the lane allocation did"), ""]
        out += [f"- {md(n)}" for n in m.notes]
        out += ["- " + _("{device}: no lanes").format(device=md(u)) for u in m.unlinked] + [""]
    head = ["GPU", _("model"), _("slot"), _("link"), "H2D", "D2H", _("H2D all"), _("D2H all"), _("limit")]
    out += [
        "## " + _("Host <-> GPU (pinned copies, GB/s)"),
        "",
        "| " + " | ".join(head) + " |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for p in pred.gpus:
        n = p.node
        limit = p.limit
        out.append(
            f"| {n.index} | {md(n.gpu.name) if n.gpu else '?'} | {md(n.connector or '-')} | {md(n.link.label)} | "
            f"{p.h2d.value:.1f} | {p.d2h.value:.1f} | {p.h2d_all.value:.1f} | {p.d2h_all.value:.1f} | "
            f"{md(limit)} |"
        )
    if raw := _raw_links(pred):
        out += ["", md(raw)]
    if pred.host_sum:
        out += [
            "",
            _("All GPUs copying at once: **{h2d} GB/s** to the GPUs, **{d2h} GB/s** from them.").format(
                h2d=f"{pred.host_sum['h2d'].value:.1f}", d2h=f"{pred.host_sum['d2h'].value:.1f}"
            ),
        ]
    if pred.pairs:
        head = [
            _("pair"),
            _("path"),
            "CUDA P2P",
            _("NCCL uses"),
            _("uni GB/s"),
            _("bidi GB/s"),
            _("latency us"),
            _("why"),
        ]
        out += [
            "",
            "## GPU <-> GPU",
            "",
            "| " + " | ".join(head) + " |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for p in pred.pairs:
            why = p.p2p_reason if not p.p2p else p.nccl_reason
            yes = _("yes") if p.p2p else _("no")
            out.append(
                f"| {p.a}-{p.b} | {md(p.nvml_path)} | {yes} | {md(p.nccl_transport)} | "
                f"{_num(p.uni.value)} | {_num(p.bidi.value)} | {_num(p.latency.value)} | {md(why)} |"
            )
    if pred.nics:
        head = ["NIC", _("model"), "Gb/s", _("fabric"), "GPU", _("path"), "GPUDirect RDMA"]
        head += [_("GB/s per direction"), _("why")]
        out += [
            "",
            "## " + _("NICs"),
            "",
            "| " + " | ".join(head) + " |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for n in pred.nics:
            nic = n.nic
            gdr = _("yes") if n.gdr else _("no")
            out.append(
                f"| {nic.index} | {md(nic.label)} | {nic.nic.gbps if nic.nic and nic.nic.gbps else '?'} | "
                f"{md((nic.nic.fabric if nic.nic else None) or '?')} | GPU{n.gpu} | {md(n.path)} | "
                f"{gdr} | {_num(n.rate.value)} | {md(n.gdr_reason)} |"
            )
    if pred.allreduce:
        a = pred.allreduce
        scope = md(allreduce_scope(pred))
        out += [
            "",
            (
                _("All-reduce bus bandwidth over {scope}: **{unknown}**.").format(
                    scope=scope, unknown=md(unknown_because(a.missing))
                )
                if a.value is None
                else _("All-reduce bus bandwidth over {scope}: **{value} GB/s** ({how}).").format(
                    scope=scope, value=f"{a.value:.1f}", how=md(allreduce_how(pred))
                )
            ),
        ]
    out += _readiness_markdown(pred)
    out += ["", "## " + _("Findings"), ""]
    if findings:
        for f in findings:
            sev = _(_SEVERITY.get(f.severity, f.severity.upper()))
            out.append(f"- **{sev} {f.id}** ({md(f.subject)}): {md(f.message)}")
            if f.fix:
                out.append("  - " + _("Fix: {fix}").format(fix=md(f.fix)))
    else:
        out.append(_("No findings."))
    out += ["", "## " + _("Assumptions"), ""] + [f"- {md(a)}" for a in pred.assumptions]
    out += ["", f"_{_(NOT_CHECKED)}_", ""]
    return "\n".join(out)


_ADD_IT = N_(
    " (add the figure, with its source, to a copy of the part in a catalog folder of your own: --catalog DIR)"
)


def _num(x: float | None) -> str:
    return "?" if x is None else f"{x:.1f}"
