"""`advisor import`, `probe`, `from-machine`, `compare`, `accuracy`: real machines against the prediction."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from advisor.cli.output import STDOUT, check_output, write_output
from advisor.i18n import N_, _


def cmd_import(args) -> int:
    from advisor.base.yamlio import read_text
    from advisor.measure.parsers import parse

    if args.output:
        check_output(args.output)
    meas = parse(args.tool, read_text(args.file), args.file)
    if args.output:
        if write_output(args.output, meas.to_json()):
            print(
                _("wrote {file}: {n} results from {tool}").format(
                    file=args.output, n=len(meas.results), tool=meas.source.tool
                ),
                file=sys.stderr,
            )
    if (args.json and args.output != STDOUT) or not args.output:
        print(meas.to_json(), end="")
    return 0


def cmd_export(args) -> int:
    from pathlib import Path

    from advisor.assess import Request, assess
    from advisor.cli.plan import build_from_args
    from advisor.measure.parsers.ncclxml import export
    from advisor.model.catalog.store import load_catalog

    check_output(args.output)
    # the prediction alone: NCCL's topology file needs the machine, not the findings
    pred = assess(
        Request(build_from_args(args), load_catalog([Path(d) for d in args.catalog]), job="compare")
    ).prediction
    if write_output(args.output, export(pred)):
        print(
            _("wrote {file}: {n} GPUs as NCCL topology XML").format(file=args.output, n=len(pred.gpus)),
            file=sys.stderr,
        )
    return 0


def cmd_probe(args) -> int:
    from advisor.measure.probe import probe

    if args.output:
        check_output(args.output)
    meas = probe()
    if args.output:
        write_output(args.output, meas.to_json())
    if (args.json and args.output != STDOUT) or not args.output:
        print(meas.to_json(), end="")
    return 0


def cmd_doctor(args) -> int:
    import shutil
    import subprocess

    from advisor.base.errors import UserError
    from advisor.base.inputs import MAX_LINE, read_input
    from advisor.measure.doctor import diagnose

    recorded = bool(args.lspci or args.cmdline or args.sysfs)
    # with recorded files, sysfs is read only from the folder given: never this machine's
    root = Path(args.sysfs) if args.sysfs else None if recorded else Path("/")
    if root is not None and args.sysfs and not root.is_dir():
        raise UserError(
            _("--sysfs {path}: not a folder").format(path=args.sysfs),
            hint=_("give the folder that holds sys/bus/pci"),
        )
    if args.lspci:
        lspci = read_input(args.lspci, N_("lspci's output"), max_line=MAX_LINE)
        note = _("lspci: {file}").format(file=args.lspci)
    elif recorded:
        lspci, note = None, _("lspci: not given")
    elif shutil.which("lspci"):
        try:
            done = subprocess.run(["lspci", "-vvv"], capture_output=True, text=True, timeout=30, check=False)
            lspci = done.stdout
            root_user = hasattr(os, "geteuid") and os.geteuid() == 0
            note = "lspci -vvv" if root_user else _("lspci -vvv (not root: capabilities, ACS and AER hidden)")
        except (OSError, subprocess.SubprocessError) as exc:
            lspci, note = None, _("lspci could not run ({error})").format(error=exc)
    else:
        lspci, note = None, _("lspci is not installed (package pciutils): links from sysfs only, no ACS")
    if args.cmdline:
        cmdline = read_input(args.cmdline, N_("a kernel command line"), max_line=MAX_LINE)
        from advisor.measure.parsers.cmdline import command_line

        cmdline = command_line(cmdline)
    elif not recorded:
        try:
            cmdline = Path("/proc/cmdline").read_text()
        except OSError:
            cmdline = None
    else:
        cmdline = None
    cpus = None
    if args.cpus:
        from advisor.measure.doctor import cpu_list

        cpus = cpu_list(args.cpus)
    # torch is imported only when a live machine's GPUs are loaded (advisor.bench.load: the core never
    # imports it); without torch or a CUDA GPU the report says the links were read idle, and why
    from advisor.bench.load import load_gpus

    report = diagnose(
        lspci,
        cmdline,
        root,
        live=not recorded,
        load=not args.no_load,
        lspci_note=note,
        cpus=cpus,
        loader=load_gpus,
    )
    if args.json:
        print(report.model_dump_json(indent=2))
    else:
        _print_doctor(report)
    if report.nothing_to_check:
        # nothing was checked: not a clean bill of health (exit 0) nor a problem with the GPUs (exit 1), but
        # input that could not be used, as everywhere else in the CLI (exit 2)
        raise UserError(report.nothing_to_check)
    return 1 if any(f.severity in ("error", "warning") for f in report.findings) else 0


def _print_doctor(report) -> None:
    from rich.markup import escape

    from advisor.render.layout import hang, terminal_console

    # every text here may quote the files read (a device's name, a file's name): rich markup in it
    # ("[link=...]") is shown as written, never drawn
    con = terminal_console()
    for line in report.read:
        hang(con, escape(_("read: ")), escape(line))
    for g in report.gpus:
        now = "Gen{}x{}".format(*g["link_now"]) if g["link_now"] else "?"
        top = "Gen{}x{}".format(*g["link_max"]) if g["link_max"] else "?"
        link = _("{bus} {name}: link {now} of {top}").format(
            bus=g["bus_id"], name=g["name"], now=now, top=top
        )
        if g["numa_node"] is not None:
            link = _("{link}, NUMA node {node}").format(link=link, node=g["numa_node"])
        if g["bar1_mib"] is not None:
            link = _("{link}, BAR1 {mib} MiB").format(link=link, mib=g["bar1_mib"])
        hang(con, f"GPU{g['index']} ", escape(link))
    if not report.findings and not report.nothing_to_check:
        con.print(escape(_("No problem found in what was read.")))
    for f in report.findings:
        colour = {"error": "red", "warning": "yellow"}.get(f.severity, "blue")
        severity = _pad(_(_SEVERITY.get(f.severity, f.severity.upper())), 7)
        hang(
            con,
            f"[{colour}]{escape(severity)}[/] ",
            escape(_("{id} {subject}: {message}").format(id=f.id, subject=f.subject, message=f.message)),
        )
        hang(con, " " * 8 + escape(_("fix: ")), escape(f.fix))


# a finding's severity as a reader sees it (the JSON keeps the word itself)
_SEVERITY = {"error": N_("ERROR"), "warning": N_("WARNING"), "info": N_("INFO")}


def _pad(text: str, width: int) -> str:
    """`text` padded to `width` columns (a Chinese character takes two)."""
    from advisor.render.words import cells

    return text + " " * max(0, width - cells(text))


def cmd_from_machine(args) -> int:
    from advisor.base.yamlio import dumps
    from advisor.measure import load
    from advisor.measure.to_build import build_from

    if args.output:
        check_output(args.output)
    text = dumps(build_from([load(f) for f in args.files], args.gpu))
    if args.output:
        if write_output(args.output, text):
            print(
                _("wrote {file}; `advisor plan {file}` predicts it").format(file=args.output), file=sys.stderr
            )
    else:
        print(text, end="")
    return 0


def cmd_compare(args) -> int:
    from advisor.assess import Request, assess
    from advisor.measure import load
    from advisor.model.buildfile import load_build
    from advisor.model.catalog.store import load_catalog
    from advisor.outputs.compare import compare_output

    a = assess(
        Request(
            load_build(args.build),
            load_catalog([Path(d) for d in args.catalog]),
            job="compare",
            measurements=tuple((path, load(path)) for path in args.measurement),
            gpu_map=args.gpu_map,
            tolerance=args.tolerance,
            rule_dirs=tuple(getattr(args, "rules", None) or ()),
        )
    )
    c = a.comparison
    assert c is not None  # a compare request always has its comparison
    out = compare_output(list(c.rows), c.settled, list(c.notes))
    fmt = "json" if args.json else args.format
    if fmt == "json":
        print(out.json_text())
    else:
        from advisor.render.compare import render_compare
        from advisor.render.layout import terminal_width

        print(render_compare(out, markdown=fmt == "markdown", width=terminal_width()), end="")
    return 1 if out.flagged else 0


def cmd_accuracy(args) -> int:
    if args.workload and args.write_intervals:
        from advisor.base.files import atomic_write
        from advisor.base.resources import bundled
        from advisor.workload.accuracy import run_cases, write_intervals

        rows, _skipped = run_cases()
        path = bundled("rules") / "workload-intervals.yaml"
        atomic_write(path, write_intervals(rows))
        print(_("wrote {file}").format(file=path))
        return 0
    if args.workload:
        if args.json:
            from advisor.outputs.catalog import WorkloadAccuracyOutput
            from advisor.workload.accuracy import render, run_cases

            rows, skipped = run_cases()
            print(WorkloadAccuracyOutput.model_validate_json(render(rows, skipped, True)).json_text())
            return 0
        from advisor.render.accuracy import render_workload_accuracy

        render_workload_accuracy()
        return 0
    if args.write_intervals:
        from advisor.base.files import atomic_write
        from advisor.base.resources import bundled
        from advisor.model.accuracy import leave_one_out, run_cases, write_intervals

        rows, _skipped = run_cases()
        leave_one_out(rows)
        path = bundled("rules") / "intervals.yaml"
        atomic_write(path, write_intervals(rows))
        print(_("wrote {file}").format(file=path))
        return 0
    from advisor.render.accuracy import render_accuracy

    text = render_accuracy(args.json, loo=args.loo)
    if text is not None:
        print(text)
    return 0
