"""Command line: `advisor plan`, `advisor workload`, `advisor catalog ...`, `advisor accuracy`."""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
from pathlib import Path

from advisor import __version__
from advisor.base.errors import UserError


def _add_build_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("build", nargs="?", help="build YAML file (see examples/)")
    p.add_argument("--cpu", help='CPU by id or name, e.g. "i9-14900K"')
    p.add_argument("--board", help='motherboard, e.g. "Maximus Z790 Hero"')
    p.add_argument("--gpu", action="append", default=[], metavar="MODEL[:COUNT][@SLOT]",
                   help='GPU, repeatable: "RTX 4090", "RTX 4090:2", "RTX 4090@PCIEX16(G5)_1"')
    p.add_argument("--nvme", action="append", default=[], metavar="M2_SOCKET", help="an NVMe drive in this M.2 socket")
    p.add_argument("--catalog", action="append", default=[], metavar="DIR",
                   help="a folder of your own catalog parts, layered over the bundled catalog")
    p.add_argument("--rules", action="append", default=[], metavar="DIR",
                   help="a folder of your own findings rules (also $ADVISOR_RULES)")


def _add_workload_args(p: argparse.ArgumentParser, required: bool) -> None:
    g = p.add_argument_group("workload" + ("" if required else " (adds a workload section)"))
    job = g.add_mutually_exclusive_group(required=required)
    job.add_argument("--train", metavar="MODEL", help="train a preset (1b, 1.3b, 7b, 8b, 13b, 32b, 70b, bert-large, "
                     "resnet-50) or a parameter count (3b, 2.7e9)")
    job.add_argument("--infer", metavar="MODEL", help="serve a decoder LLM preset or a parameter count")
    g.add_argument("--params", type=float, metavar="N", help="parameter count, e.g. 1.3e9 (overrides the preset's)")
    g.add_argument("--strategy", choices=["ddp", "dataparallel", "zero2", "zero3", "fsdp", "tp", "pp", "replicas"],
                   help="training: ddp (default), dataparallel, zero2, zero3, fsdp, tp, pp; "
                        "inference: tp (default), pp, replicas")
    g.add_argument("--precision", choices=["bf16", "fp16", "fp32"], default="bf16", help="default bf16")
    g.add_argument("--batch", type=int, metavar="B", help="training: micro-batch per GPU (default 8); "
                   "inference: concurrent sequences (default 1)")
    g.add_argument("--seq", type=int, metavar="S", help="training sequence length (default 1024; BERT 512)")
    g.add_argument("--accum", type=int, default=1, metavar="A", help="gradient accumulation micro-steps (default 1)")
    g.add_argument("--recompute", action="store_true", help="full activation recomputation (checkpointing)")
    g.add_argument("--gpus", type=int, metavar="N", help="GPUs to use (default: all of the build's)")
    g.add_argument("--prompt", type=int, default=512, metavar="P", help="inference prompt tokens (default 512)")
    g.add_argument("--gen", type=int, default=256, metavar="G", help="inference generated tokens (default 256)")


def _workload_from_args(args):
    """The Workload the flags describe, or None when neither --train nor --infer is given."""
    name = args.train or args.infer
    if name is None:
        return None
    from advisor.workload.models import Workload
    from advisor.workload.presets import resolve
    if args.params is not None and args.params <= 0:
        raise UserError(f"--params must be a positive parameter count (got {args.params:g})")
    spec = resolve(name, args.params)
    task = "train" if args.train else "infer"
    seq = args.seq or spec.default_seq or 1024
    return Workload(task=task, model=spec, strategy=args.strategy or ("ddp" if task == "train" else "tp"),
                    precision=args.precision, batch=args.batch if args.batch is not None else (8 if task == "train"
                                                                                                else 1),
                    seq=seq, accum=args.accum, gpus=args.gpus, prompt=args.prompt, gen=args.gen,
                    recompute=args.recompute)


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="advisor", description=(
        "Hardware configuration advisor for multi-GPU machines: the PCIe link each GPU really gets, "
        "P2P paths and predicted bandwidths, with the derivation of every number."))
    ap.add_argument("--version", action="version", version=f"advisor {__version__}")
    sub = ap.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("plan", help="predict links, P2P paths and bandwidths for a build")
    _add_build_args(p)
    p.add_argument("--json", action="store_true", help="machine-readable output (same as --format json)")
    p.add_argument("--format", choices=["text", "markdown", "json"], default="text",
                   help="markdown: a report to keep or share")
    p.add_argument("--explain", action="store_true", help="show every figure's derivation and the constants")
    _add_workload_args(p, required=False)

    wl = sub.add_parser("workload", help="will N GPUs beat one for my training or inference job on this build?",
                        description="Time per step (training) or tokens/s and time to first token (inference) on "
                        "1 GPU and on N GPUs of the build, the speed-up, the split into compute, exposed "
                        "communication and bubbles, memory per GPU, the bottleneck and what to change. Example: "
                        "advisor workload --cpu i9-14900K --board 'ROG Maximus Z790 Hero' --gpu 'RTX 4090:2' "
                        "--train 1.3b --batch 8")
    _add_build_args(wl)
    _add_workload_args(wl, required=True)
    wl.add_argument("--json", action="store_true", help="machine-readable output")
    wl.add_argument("--explain", action="store_true", help="every figure's formula, inputs and constants")

    c = sub.add_parser("catalog", help="list, show, validate the parts catalog; export its JSON Schema")
    csub = c.add_subparsers(dest="catalog_command", metavar="ACTION")
    cl = csub.add_parser("list", help="list parts")
    cl.add_argument("--kind", choices=["cpu", "board", "gpu"])
    cl.add_argument("--json", action="store_true")
    cs = csub.add_parser("show", help="show one part")
    cs.add_argument("id", help="part id or name")
    cs.add_argument("--json", action="store_true")
    cv = csub.add_parser("validate", help="check every catalog file; problems as file:line: field: message")
    csch = csub.add_parser("schema", help="JSON Schema for catalog parts and build files")
    csch.add_argument("--kind", choices=["cpu", "board", "gpu", "build"], help="one schema (default: all)")
    for x in (cl, cs, cv, csch):
        x.add_argument("--catalog", action="append", default=[], metavar="DIR")

    r = sub.add_parser("rules", help="list the findings rules, or explain one")
    rsub = r.add_subparsers(dest="rules_command", metavar="ACTION")
    rl = rsub.add_parser("list", help="every rule with its id, severity and title")
    rl.add_argument("--json", action="store_true")
    re_ = rsub.add_parser("explain", help="a rule's documentation: what, why, example, fix, sources")
    re_.add_argument("id")

    v = sub.add_parser("validate", help="check a vendor's quote (text, CSV or YAML): parts, lanes, findings, claims")
    v.add_argument("quote", help="the quote file, or - for stdin")
    v.add_argument("--json", action="store_true", help="machine-readable output (same as --format json)")
    v.add_argument("--format", choices=["text", "markdown", "json"], default="text",
                   help="markdown: a report to forward to the vendor")
    v.add_argument("--catalog", action="append", default=[], metavar="DIR")
    v.add_argument("--rules", action="append", default=[], metavar="DIR", help="a folder of your own rules")

    im = sub.add_parser("import", help="read a measurement tool's output into a measurement file")
    im.add_argument("tool", choices=["nvbandwidth", "p2p", "nccl-tests", "topo", "smi-q", "lspci", "auto"])
    im.add_argument("file", help="the tool's output (text, or JSON for nvbandwidth -j / nccl-tests -J)")
    im.add_argument("--json", action="store_true", help="print the measurement as JSON")
    im.add_argument("-o", "--output", metavar="FILE", help="write the measurement file (JSON)")

    bn = sub.add_parser("bench", help="measure this machine's GPUs with torch (pip install 'advisor[bench]')")
    bn.add_argument("--quick", action="store_true", help="smaller sizes and fewer repeats")
    bn.add_argument("-o", "--output", metavar="FILE", default="advisor-bench.json", help="measurement file to write")
    bn.add_argument("--json", action="store_true", help="also print the measurement")

    fm = sub.add_parser("from-machine", help="an explicit-tree build from nvidia-smi topo -m (+ -q or a probe file)")
    fm.add_argument("files", nargs="+", help="topo -m output, nvidia-smi -q output, measurement files")
    fm.add_argument("--gpu", help="GPU model for GPUs the files do not name")
    fm.add_argument("-o", "--output", metavar="FILE", help="write the build YAML (atomic)")

    pr = sub.add_parser("probe", help="read GPUs, PCIe links, P2P status and topology through NVML")
    pr.add_argument("-o", "--output", metavar="FILE", help="measurement file to write")
    pr.add_argument("--json", action="store_true")

    cm = sub.add_parser("compare", help="predicted vs measured for a build and a measurement file")
    cm.add_argument("build", help="build YAML file")
    cm.add_argument("measurement", nargs="+", help="measurement files (from advisor import), or tool outputs")
    cm.add_argument("--json", action="store_true")
    cm.add_argument("--format", choices=["text", "markdown", "json"], default="text")
    cm.add_argument("--tolerance", type=float, default=0.15, help="flag figures off by more than this (0.15)")
    cm.add_argument("--catalog", action="append", default=[], metavar="DIR")

    t = sub.add_parser("tui", help="plan a build interactively (Textual app): parts, slots, live links and findings")
    t.add_argument("build", nargs="?", help="build YAML file to open (default: your last unsaved build, or an example)")
    t.add_argument("--quote", metavar="FILE", help="open with this vendor's quote checked")
    t.add_argument("--measurement", action="append", default=[], metavar="FILE",
                   help="measurement files to compare against (repeatable)")
    t.add_argument("--catalog", action="append", default=[], metavar="DIR")

    sv = sub.add_parser("serve", help="serve the app in a web browser on this machine (textual-serve)")
    sv.add_argument("build", nargs="?", help="build YAML file to open")
    sv.add_argument("--host", default="localhost", help="address to listen on (default localhost)")
    sv.add_argument("--port", type=int, default=8000, help="port (default 8000)")

    a = sub.add_parser("accuracy", help="predicted vs measured on the calibration cases")
    a.add_argument("--json", action="store_true")
    a.add_argument("--workload", action="store_true",
                   help="published 1-GPU vs N-GPU speed-ups against `advisor workload` (calibration/workload-cases.yaml)")
    return ap


def main(argv: list[str] | None = None) -> int:
    ap = _parser()
    args = ap.parse_args(argv)
    if not args.command:
        ap.print_help()
        return 0
    from advisor.findings import rules as rules_module
    rules_module.CLI_RULE_DIRS = tuple(getattr(args, "rules", None) or ())
    try:
        if args.command == "plan":
            return cmd_plan(args)
        if args.command == "workload":
            return cmd_workload(args)
        if args.command == "catalog":
            return cmd_catalog(args, ap)
        if args.command == "validate":
            return cmd_validate(args)
        if args.command == "import":
            return cmd_import(args)
        if args.command == "bench":
            return cmd_bench(args)
        if args.command == "from-machine":
            from advisor.measure import load
            from advisor.measure.to_build import build_from
            from advisor.base.yamlio import atomic_write, dumps
            text = dumps(build_from([load(f) for f in args.files], args.gpu))
            if args.output:
                atomic_write(args.output, text)
                print(f"wrote {args.output}; `advisor plan {args.output}` predicts it", file=sys.stderr)
            else:
                print(text, end="")
            return 0
        if args.command == "probe":
            from advisor.measure.probe import probe
            meas = probe()
            if args.output:
                meas.save(args.output)
            if args.json or not args.output:
                print(meas.to_json(), end="")
            return 0
        if args.command == "compare":
            return cmd_compare(args)
        if args.command == "rules":
            return cmd_rules(args, ap)
        if args.command == "accuracy":
            if args.workload:
                from advisor.workload.accuracy import render, run_cases
                rows, skipped = run_cases()
                print(render(rows, skipped, args.json))
                return 0
            from advisor.model.accuracy import cmd_accuracy
            return cmd_accuracy(args)
        if args.command == "tui":
            return cmd_tui(args)
        if args.command == "serve":
            return cmd_serve(args)
    except UserError as exc:
        print(f"advisor: error: {exc.render()}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    ap.print_help()
    return 2


def _build_from_args(args):
    from advisor.model.engine import build_from_flags, load_build
    base = load_build(args.build) if args.build else None
    if base is not None and not (args.cpu or args.board or args.gpu or args.nvme):
        return base
    return build_from_flags(args.cpu, args.board, args.gpu, args.nvme, base)


def cmd_plan(args) -> int:
    from advisor.model.catalog.store import load_catalog
    from advisor.model.engine import evaluate
    from advisor.render.plan import render_text, to_json
    catalog = load_catalog([Path(d) for d in args.catalog])
    build = _build_from_args(args)
    pred = evaluate(build, catalog)
    workload = _workload_from_args(args)
    analysis = None
    if workload is not None:
        from advisor.workload import analyse
        analysis = analyse(build, workload, catalog, pred)
    findings = _findings(pred, analysis)
    fmt = "json" if args.json else args.format
    if fmt == "json":
        out = to_json(pred, findings, explain=args.explain)
        if analysis is not None:
            from advisor.workload.report import to_json as workload_json
            out["workload"] = workload_json(analysis, explain=args.explain)
        print(json.dumps(out, indent=2))
    elif fmt == "markdown":
        from advisor.render.plan import render_markdown
        print(render_markdown(pred, findings), end="")
        if analysis is not None:
            from rich.console import Console
            from advisor.workload.report import render_text as workload_text
            con = Console(record=True, width=100, file=io.StringIO())
            workload_text(analysis, explain=args.explain, console=con)
            print("\n## Workload\n\n```text\n" + con.export_text().rstrip() + "\n```")
    else:
        render_text(pred, findings, explain=args.explain)
        if analysis is not None:
            from rich.console import Console
            from advisor.workload.report import render_text as workload_text
            con = Console()
            con.rule("Workload")
            workload_text(analysis, explain=args.explain, console=con)
    return 0


def cmd_workload(args) -> int:
    from advisor.model.catalog.store import load_catalog
    from advisor.model.engine import evaluate
    from advisor.workload import analyse
    from advisor.workload.report import render_text, to_json
    catalog = load_catalog([Path(d) for d in args.catalog])
    build = _build_from_args(args)
    workload = _workload_from_args(args)
    pred = evaluate(build, catalog)
    analysis = analyse(build, workload, catalog, pred)
    from advisor.findings.rules import load_rules
    scoped = {r.id for r in load_rules() if r.scope == "workload"}
    findings = [f for f in _findings(pred, analysis) if f["id"] in scoped]
    if args.json:
        out = to_json(analysis, explain=args.explain)
        out["findings"] = findings
        print(json.dumps(out, indent=2))
    else:
        render_text(analysis, explain=args.explain)
        if findings:
            from rich.console import Console
            con = Console()
            con.print("[bold]Findings[/]")
            for f in findings:
                con.print(f"{f['severity'].upper():7} {f['id']}: {f['message']}")
                con.print(f"         fix: {f['fix']}")
    return 0


def cmd_tui(args) -> int:
    from advisor.model.catalog.store import load_catalog
    from advisor.tui.app import AdvisorApp
    for path in [args.build, args.quote, *args.measurement]:
        if path and not Path(path).is_file():
            raise UserError(f"{path}: no such file", hint="check the path")
    app = AdvisorApp(args.build, load_catalog([Path(d) for d in args.catalog]), args.quote, args.measurement)
    app.run()
    return app.return_code or 0


def cmd_serve(args) -> int:
    import shlex
    try:
        from textual_serve.server import Server
    except ImportError:
        raise UserError("advisor serve needs textual-serve", hint="pip install textual-serve") from None
    if args.build and not Path(args.build).is_file():
        raise UserError(f"{args.build}: no such file", hint="check the path")
    command = shlex.join([sys.executable, "-m", "advisor", "tui", *([str(Path(args.build).resolve())] if args.build else [])])
    print(f"advisor: serving the planner at http://{args.host}:{args.port} (Ctrl+C stops)", file=sys.stderr)
    Server(command, host=args.host, port=args.port, title="advisor").serve()
    return 0


def cmd_validate(args) -> int:
    from advisor.model.catalog.store import load_catalog
    from advisor.quote.reader import evaluate_quote, read_quote
    from advisor.render.quote import render
    if args.quote == "-":
        raw, name = sys.stdin.buffer.read() if hasattr(sys.stdin, "buffer") else sys.stdin.read().encode(), "<stdin>"
    else:
        name = args.quote
        try:
            raw = Path(args.quote).read_bytes()
        except OSError as exc:
            raise UserError(f"{args.quote}: cannot read the quote: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise UserError(f"{name}: this is not a text file (not UTF-8)",
                        hint="save the quote as text, CSV or YAML") from None
    catalog = load_catalog([Path(d) for d in args.catalog])
    result = evaluate_quote(read_quote(text, name, catalog), catalog)
    print(render(result, "json" if args.json else args.format), end="")
    return result["exit_code"]


def _findings(pred, analysis=None) -> list[dict]:
    from advisor.findings.rules import evaluate_rules
    return [f.to_json() for f in evaluate_rules(pred, workload=analysis)]


def cmd_catalog(args, ap) -> int:
    from advisor.model.catalog.store import load_catalog, load_catalog_checked
    dirs = [Path(d) for d in getattr(args, "catalog", [])]
    action = args.catalog_command
    if action == "validate":
        catalog, problems = load_catalog_checked(dirs)
        for p in problems:
            print(p.render(), file=sys.stderr)
        counts = {k: len(catalog.of_kind(k)) for k in ("cpu", "board", "gpu")}
        print(f"{sum(counts.values())} parts ({counts['cpu']} CPUs, {counts['board']} boards, {counts['gpu']} GPUs); "
              f"{len(problems)} problem(s)")
        return 1 if problems else 0
    if action == "schema":
        from advisor.outputs.schema import schemas
        out = schemas()
        print(json.dumps(out[args.kind] if args.kind else out, indent=2))
        return 0
    catalog = load_catalog(dirs)
    if action == "list":
        parts = sorted(catalog.parts.values(), key=lambda p: (p.kind, p.id))
        if args.kind:
            parts = [p for p in parts if p.kind == args.kind]
        if args.json:
            print(json.dumps([{"id": p.id, "kind": p.kind, "name": p.name, "socket": getattr(p, "socket", None),
                               "verified": p.verified, "unverified_fields": p.unverified_fields,
                               "sources": p.sources, "price_usd": p.price_usd} for p in parts], indent=2))
        else:
            from rich.console import Console
            from rich.table import Table
            t = Table()
            for col in ("kind", "id", "name", "key specs", "verified"):
                t.add_column(col)
            for p in parts:
                t.add_row(p.kind, p.id, p.name, _specs(p), "yes" if p.verified else "[yellow]no[/]")
            Console().print(t)
        return 0
    if action == "show":
        part = catalog.get(args.id) or _resolve_any(catalog, args.id)
        data = part.model_dump(mode="json")
        if args.json:
            print(json.dumps(data, indent=2))
        else:
            from advisor.base.yamlio import dumps
            file, line = catalog.origin[part.id]
            print(f"# {file}")
            print(dumps(data), end="")
        return 0
    ap.parse_args(["catalog", "--help"])
    return 2


def _read_text(path: str) -> str:
    from advisor.base.yamlio import read_text
    return read_text(path)


def cmd_bench(args) -> int:
    try:
        import torch
    except ImportError:
        print("advisor bench needs torch: pip install 'advisor[bench]' (or torch on its own)", file=sys.stderr)
        return 2
    if not torch.cuda.is_available() or torch.cuda.device_count() == 0:
        print("No CUDA GPU is visible to torch here: nothing to measure. `advisor import` reads the outputs of "
              "nvbandwidth, p2pBandwidthLatencyTest, nccl-tests and nvidia-smi from another machine.")
        return 0
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    from advisor.bench.torch_bench import Settings, run
    settings = Settings.quick() if args.quick else Settings()
    with Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                  console=__import__("rich.console").console.Console(stderr=True)) as bar:
        task = bar.add_task("starting", total=None)
        meas = run(settings, progress=lambda text: bar.update(task, description=text))
    meas.save(args.output)
    print(f"wrote {args.output}: {len(meas.results)} results on {len(meas.machine.gpus)} GPU(s)", file=sys.stderr)
    if args.json:
        print(meas.to_json(), end="")
    return 0


def cmd_import(args) -> int:
    from advisor.measure.parsers import parse
    meas = parse(args.tool, _read_text(args.file), args.file)
    if args.output:
        meas.save(args.output)
        print(f"wrote {args.output}: {len(meas.results)} results from {meas.source.tool}", file=sys.stderr)
    if args.json or not args.output:
        print(meas.to_json(), end="")
    return 0


def cmd_compare(args) -> int:
    from advisor.model.catalog.store import load_catalog
    from advisor.measure.compare import compare
    from advisor.model.engine import evaluate, load_build
    from advisor.measure import load
    catalog = load_catalog([Path(d) for d in args.catalog])
    pred = evaluate(load_build(args.build), catalog)
    rows = []
    for path in args.measurement:
        rows += [(path, r) for r in compare(pred, load(path), args.tolerance)]
    fmt = "json" if args.json else args.format
    if fmt == "json":
        print(json.dumps({"rows": [dict(r.to_json(), source=p) for p, r in rows],
                          "flagged": sum(1 for _, r in rows if r.flagged)}, indent=2))
    else:
        md = fmt == "markdown"
        head = "| metric | where | predicted | measured | ratio | |" if md else \
            f"{'metric':14} {'where':12} {'predicted':>10} {'measured':>10} {'ratio':>6}"
        print(head)
        if md:
            print("|---|---|---|---|---|---|")
        for _, r in rows:
            ratio = "" if r.ratio is None else f"{r.ratio:.2f}"
            flag = "OFF" if r.flagged else "ok"
            if md:
                print(f"| {r.metric} | {r.where} | {r.predicted} | {r.measured} | {ratio} | {flag} |")
            else:
                print(f"{r.metric:14} {r.where:12} {str(r.predicted):>10} {str(r.measured):>10} {ratio:>6}  {flag}")
            for c in r.causes:
                print(f"{'  - ' if md else '    '}{c['id']}: {c['message']} Check: {c['fix']}")
        if not rows:
            print("no metric in the measurement matches a predicted one")
    return 1 if any(r.flagged for _, r in rows) else 0


def cmd_rules(args, ap) -> int:
    from advisor.findings.rules import load_rules
    rules = load_rules()
    if args.rules_command == "explain":
        rule = next((r for r in rules if r.id.lower() == args.id.lower()), None)
        if rule is None:
            raise UserError(f"no rule {args.id!r}", hint="`advisor rules list` shows them")
        print(f"{rule.id} ({rule.category}, {rule.severity}): {rule.title}\n")
        print(f"What it checks\n  {rule.when}  (evaluated per {rule.scope})\n")
        print(f"Why it matters\n  {rule.why}\n")
        if rule.example:
            print(f"Example\n  {rule.example}\n")
        print(f"Fix\n  {rule.fix}\n")
        print("Sources\n" + "\n".join(f"  {s}" for s in rule.sources))
        return 0
    if getattr(args, "json", False):
        print(json.dumps([r.model_dump() for r in rules], indent=2))
    else:
        for r in rules:
            print(f"{r.id:8} {r.severity:8} {r.category:9} {r.title}")
    return 0


def _resolve_any(catalog, text):
    matches = catalog.search(text)
    if matches and matches[0].score >= 90:
        return matches[0].part
    names = ", ".join(m.part.id for m in matches[:3])
    raise UserError(f"no part matches {text!r}", hint=f"did you mean: {names}?" if names else None)


def _specs(p) -> str:
    if p.kind == "cpu":
        return f"{p.socket}, {p.pcie.usable_lanes or '?'} lanes Gen{p.pcie.max_gen}, {p.memory.channels or '?'}ch"
    if p.kind == "gpu":
        return (f"{p.vram_gb:g} GB, PCIe Gen{p.pcie.gen} x{p.pcie.width}, "
                f"P2P {'yes' if p.p2p.stock_linux else 'no'}{', NVLink' if p.nvlink.supported else ''}")
    return f"{p.socket}, {len(p.slots)} slots, {len(p.m2)} M.2"


if __name__ == "__main__":
    raise SystemExit(main())
