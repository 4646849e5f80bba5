"""The command line's arguments: one parser for every command (`advisor --help`)."""

from __future__ import annotations

import argparse

from advisor import __version__
from advisor.findings.finding import JOB_SCOPES

OUTPUTS = ("plan", "validate", "compare", "workload", "measurement")

# The largest value each workload count flag takes (issue 18 item 12: 0 or less is an error, never a
# default): beyond these the question is not one advisor's model answers.
COUNT_MAX = {
    "--batch": 65536,
    "--seq": 10_000_000,
    "--accum": 100_000,
    "--gpus": 64,
    "--prompt": 10_000_000,
    "--gen": 10_000_000,
}


def check_args(args: argparse.Namespace) -> None:
    """What argparse's types cannot say, as one UserError (exit 2): a count flag of 0 or less, or past
    its COUNT_MAX (`--seq 0` once meant 1024, issue 18 item 12); a --params that is nan, inf or 1e308
    (issue 18 item 11); a --tolerance that is not a finite fraction. Checked for every command that
    takes the flag, with or without --train/--infer."""
    from advisor.base.errors import UserError
    from advisor.workload.defaults import PARAMS, PARAMS_TEXT

    for flag, high in COUNT_MAX.items():
        value = getattr(args, flag[2:], None)
        if value is None:
            continue
        if value < 1:
            raise UserError(f"{flag} must be at least 1 (got {value})")
        if value > high:
            raise UserError(f"{flag} must be at most {high:,} (got {_short(value)})")
    params = getattr(args, "params", None)
    if params is not None and not (params == params and PARAMS[0] <= params <= PARAMS[1]):
        raise UserError(f"--params must be a parameter count from {PARAMS_TEXT} (got {params:g})")
    tolerance = getattr(args, "tolerance", None)
    if tolerance is not None and not (tolerance == tolerance and 0 <= tolerance <= 10):
        raise UserError(f"--tolerance must be a fraction from 0 to 10, such as 0.15 (got {tolerance:g})")


def _short(n: int) -> str:
    return str(n) if len(str(n)) <= 20 else f"a {len(str(n))}-digit number"


def _port(text: str) -> int:
    if not (text.isascii() and text.isdigit()) or len(text) > 5 or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"must be a port number from 0 to 65535 (got {text[:20]!r})")
    return int(text)


SCOPES = tuple(sorted({s for scopes in JOB_SCOPES.values() for s in scopes}))


def _add_build_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("build", nargs="?", help="build YAML file (see examples/)")
    p.add_argument("--cpu", help='CPU by id or name, e.g. "i9-14900K"')
    p.add_argument("--board", help='motherboard, e.g. "Maximus Z790 Hero"')
    p.add_argument(
        "--gpu",
        action="append",
        default=[],
        metavar="MODEL[:COUNT][@SLOT]",
        help='GPU, repeatable: "RTX 4090", "RTX 4090:2", "RTX 4090@PCIEX16(G5)_1"',
    )
    p.add_argument(
        "--nvme", action="append", default=[], metavar="M2_SOCKET", help="an NVMe drive in this M.2 socket"
    )
    s = p.add_argument_group("software, BIOS and kernel (over the build file's; unknown when not given)")
    s.add_argument(
        "--driver",
        choices=["stock", "patched"],
        help="NVIDIA's stock driver, or a patched open kernel module that enables GeForce P2P",
    )
    s.add_argument("--engine", choices=["vllm", "sglang"], help="the serving engine, for its own P2P gate")
    s.add_argument(
        "--os", choices=["linux", "windows"], help="the operating system (windows: the WDDM driver model)"
    )
    s.add_argument(
        "--host-memory",
        choices=["local", "remote"],
        help="pinned host buffers on the GPU's own socket (local, default) or the other one (remote)",
    )
    s.add_argument(
        "--virtualization",
        choices=["none", "vm", "vm-clique"],
        help="GPUs passed through to a virtual machine (vm), with x-nv-gpudirect-clique set (vm-clique)",
    )
    s.add_argument("--nccl-p2p-disable", action="store_true", help="NCCL_P2P_DISABLE=1")
    s.add_argument(
        "--nccl-p2p-level", choices=["LOC", "NVL", "PIX", "PXB", "PHB", "SYS"], help="NCCL_P2P_LEVEL"
    )
    s.add_argument(
        "--bios",
        action="append",
        metavar="KEY=VALUE",
        help="a BIOS setting, repeatable: rebar=on|off, above_4g=on|off, iommu=on|off, acs=on|off, nps=1|2|4 (AMD NUMA nodes per socket)",
    )
    s.add_argument(
        "--kernel-iommu",
        choices=["pt", "on", "off"],
        help="the kernel command line's IOMMU mode (pt: iommu=pt)",
    )
    p.add_argument(
        "--catalog",
        action="append",
        default=[],
        metavar="DIR",
        help="a folder of your own catalog parts, layered over the bundled catalog",
    )
    p.add_argument(
        "--rules",
        action="append",
        default=[],
        metavar="DIR",
        help="a folder of your own findings rules (also $ADVISOR_RULES)",
    )


def _add_workload_args(p: argparse.ArgumentParser, required: bool) -> None:
    # every default is advisor.workload.defaults' (the Job view and plan's WL001 assume the same job)
    from advisor.workload import defaults as d

    g = p.add_argument_group("workload" + ("" if required else " (adds a workload section)"))
    job = g.add_mutually_exclusive_group(required=required)
    job.add_argument(
        "--train",
        metavar="MODEL",
        help="train a preset (1b, 1.3b, 7b, 8b, 13b, 32b, 70b, bert-large, "
        "resnet-50) or a parameter count (3b, 2.7e9)",
    )
    job.add_argument("--infer", metavar="MODEL", help="serve a decoder LLM preset or a parameter count")
    g.add_argument(
        "--params",
        type=float,
        metavar="N",
        help=f"parameter count, e.g. 1.3e9 (overrides the preset's; {d.PARAMS_TEXT})",
    )
    g.add_argument(
        "--strategy",
        choices=["ddp", "dataparallel", "zero2", "zero3", "fsdp", "tp", "pp", "replicas", "ep", "row"],
        help=f"training: {d.STRATEGY['train']} (default), dataparallel, zero2, zero3, fsdp, tp, pp; "
        f"inference: {d.STRATEGY['infer']} (default), pp, replicas, ep (a mixture of experts: experts split "
        "over the GPUs, attention data-parallel, as vLLM's --data-parallel-size N --enable-expert-parallel), "
        "row (llama.cpp's -sm row: each weight matrix split by rows, gathered on the main GPU)",
    )
    g.add_argument(
        "--precision", choices=["bf16", "fp16", "fp32"], default=d.PRECISION, help=f"default {d.PRECISION}"
    )
    g.add_argument(
        "--batch",
        type=int,
        metavar="B",
        help=f"training: micro-batch per GPU (default {d.BATCH['train']}); inference: concurrent "
        f"sequences (default {d.BATCH['infer']})",
    )
    g.add_argument(
        "--max-concurrency",
        action="store_true",
        help="inference: as many concurrent sequences as each configuration's KV cache admits, 1 GPU "
        "and N each their own (instead of --batch)",
    )
    g.add_argument(
        "--request-rate",
        type=float,
        metavar="R",
        help="inference: requests per second arriving at a continuous-batching server; says whether 1 "
        "GPU and N keep up, at what concurrency and latency per request, and each one's capacity "
        "(--batch then caps the sequences in flight, as --max-num-seqs; default what the KV cache admits)",
    )
    g.add_argument(
        "--seq",
        type=int,
        metavar="S",
        help=f"training sequence length (default {d.SEQ}; BERT 512)",
    )
    g.add_argument(
        "--accum",
        type=int,
        default=d.ACCUM,
        metavar="A",
        help=f"gradient accumulation micro-steps (default {d.ACCUM})",
    )
    g.add_argument("--recompute", action="store_true", help="full activation recomputation (checkpointing)")
    g.add_argument(
        "--framework",
        choices=["ddp", "megatron", "deepspeed", "fsdp", "hf-trainer"],
        help="how the gradient reduction overlaps the backward pass: PyTorch DDP (default) and the HF "
        "Trainer overlap it; Megatron-LM (without --overlap-grad-reduce) and DeepSpeed ZeRO 0-2 reduce after it",
    )
    g.add_argument(
        "--accum-sync",
        choices=["last", "every"],
        help="all-reduce the gradients on the last accumulation micro-step (default, no_sync) or on every one",
    )
    g.add_argument(
        "--lora",
        type=int,
        metavar="RANK",
        help="LoRA fine-tuning: adapters of this rank on every linear layer, the base frozen",
    )
    g.add_argument(
        "--base-bits",
        type=int,
        choices=[16, 8, 4],
        help="the frozen base's bits under LoRA (16 default; 4 is QLoRA's NF4)",
    )
    g.add_argument(
        "--qlora", action="store_true", help="QLoRA: --lora (rank 16 unless given) with a 4-bit base"
    )
    g.add_argument(
        "--optimizer",
        choices=["adamw", "adamw-8bit", "sgd"],
        help="the optimizer's state: AdamW (default; fp32 moments), 8-bit AdamW (bitsandbytes), SGD with momentum",
    )
    g.add_argument(
        "--baseline-batch", type=int, metavar="B", help="the 1-GPU run's micro-batch, if it differs"
    )
    g.add_argument(
        "--baseline-accum", type=int, metavar="A", help="the 1-GPU run's accumulation, if it differs"
    )
    g.add_argument(
        "--quant",
        metavar="FORMAT",
        help="inference: the weights' format: fp8, int8, int4 (AWQ/GPTQ), nvfp4, or a GGUF type "
        "(q8_0, q6_k, q5_k_m, q4_k_m, iq4_xs, q3_k_l, q2_k, ...); default the precision's",
    )
    g.add_argument(
        "--kv-cache",
        metavar="TYPE",
        help="inference: the KV cache's type: f16, bf16, fp8 (vLLM), q8_0 or q4_0 (llama.cpp)",
    )
    dims = p.add_argument_group(
        "model dimensions (over the preset's; with all of layers, hidden, ffn and vocab "
        "the parameter count is counted from them)"
    )
    for flag, what in (
        ("--layers", "transformer layers"),
        ("--hidden", "hidden size"),
        ("--heads", "attention heads"),
        ("--kv-heads", "key/value heads (grouped-query attention)"),
        ("--ffn", "MLP inner size (each expert's, for a mixture of experts)"),
        ("--vocab", "vocabulary size"),
        ("--experts", "mixture of experts: experts per layer"),
        ("--active-experts", "mixture of experts: experts each token is routed to"),
    ):
        dims.add_argument(flag, type=int, metavar="N", help=what)
    g.add_argument("--gpus", type=int, metavar="N", help="GPUs to use (default: all of the build's)")
    g.add_argument(
        "--prompt",
        type=int,
        default=d.PROMPT,
        metavar="P",
        help=f"inference prompt tokens (default {d.PROMPT})",
    )
    g.add_argument(
        "--gen",
        type=int,
        default=d.GEN,
        metavar="G",
        help=f"inference generated tokens (default {d.GEN})",
    )


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="advisor",
        description=(
            "Hardware configuration advisor for multi-GPU machines: the PCIe link each GPU really gets, "
            "P2P paths and predicted bandwidths, with the derivation of every number."
        ),
    )
    ap.add_argument("--version", action="version", version=f"advisor {__version__}")
    sub = ap.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("plan", help="predict links, P2P paths and bandwidths for a build")
    _add_build_args(p)
    p.add_argument("--json", action="store_true", help="machine-readable output (same as --format json)")
    p.add_argument(
        "--format",
        choices=["text", "markdown", "json"],
        default="text",
        help="markdown: a report to keep or share",
    )
    p.add_argument("--explain", action="store_true", help="show every figure's derivation and the constants")
    _add_workload_args(p, required=False)

    wl = sub.add_parser(
        "workload",
        help="will N GPUs beat one for my training or inference job on this build?",
        description="Time per step (training) or tokens/s and time to first token (inference) on "
        "1 GPU and on N GPUs of the build, the speed-up, the split into compute, exposed "
        "communication and bubbles, memory per GPU, the bottleneck and what to change. Example: "
        "advisor workload --cpu i9-14900K --board 'ROG Maximus Z790 Hero' --gpu 'RTX 4090:2' "
        "--train 1.3b",
    )
    _add_build_args(wl)
    _add_workload_args(wl, required=True)
    wl.add_argument("--json", action="store_true", help="machine-readable output")
    wl.add_argument("--explain", action="store_true", help="every figure's formula, inputs and constants")

    c = sub.add_parser(
        "catalog", help="list, show, validate, audit the parts catalog; export its JSON Schema"
    )
    csub = c.add_subparsers(dest="catalog_command", metavar="ACTION")
    cl = csub.add_parser("list", help="list parts")
    cl.add_argument(
        "--kind", choices=["cpu", "board", "gpu", "card"], help="card: board partners' models of a GPU"
    )
    cl.add_argument("--json", action="store_true")
    cs = csub.add_parser("show", help="show one part")
    cs.add_argument("id", help="part id or name")
    cs.add_argument("--json", action="store_true")
    cv = csub.add_parser("validate", help="check every catalog file; problems as file:line: field: message")
    ca = csub.add_parser(
        "audit",
        help="how complete and well-sourced the catalog is: counts, verified share, nulls the model needs, "
        "sources by domain",
    )
    ca.add_argument("--json", action="store_true")
    csch = csub.add_parser("schema", help="JSON Schema for catalog parts, build files and the JSON outputs")
    what = csch.add_mutually_exclusive_group()
    what.add_argument("--kind", choices=["cpu", "board", "gpu", "card", "build"], help="one input schema")
    what.add_argument(
        "--output",
        choices=list(OUTPUTS),
        help="the schema of a command's --json output (measurement: import, bench, probe files)",
    )
    for x in (cl, cs, cv, ca, csch):
        x.add_argument("--catalog", action="append", default=[], metavar="DIR")

    r = sub.add_parser("rules", help="list the findings rules, explain one, or list the facts rules can name")
    rsub = r.add_subparsers(dest="rules_command", metavar="ACTION")
    rl = rsub.add_parser("list", help="every rule with its id, severity, scope and title")
    rl.add_argument("--scope", choices=list(SCOPES), help="only rules of this scope")
    rl.add_argument("--json", action="store_true")
    re_ = rsub.add_parser("explain", help="a rule's documentation: what, why, example, fix, sources")
    re_.add_argument("id")
    rf = rsub.add_parser(
        "facts", help="the facts a rule's condition and message can name, with units and sources"
    )
    rf.add_argument("--scope", choices=list(SCOPES), help="only the facts a rule of this scope sees")
    rf.add_argument("--json", action="store_true")
    for x in (rl, re_, rf):
        x.add_argument(
            "--rules", action="append", default=[], metavar="DIR", help="a folder of your own rules"
        )

    v = sub.add_parser(
        "validate", help="check a vendor's quote (text, CSV or YAML): parts, lanes, findings, claims"
    )
    v.add_argument("quote", help="the quote file, or - for stdin")
    v.add_argument("--json", action="store_true", help="machine-readable output (same as --format json)")
    v.add_argument(
        "--format",
        choices=["text", "markdown", "json"],
        default="text",
        help="markdown: a report to forward to the vendor",
    )
    v.add_argument(
        "--explain",
        action="store_true",
        help="how each line was read: the parts list, each count and where it was read, what was not counted",
    )
    v.add_argument("--catalog", action="append", default=[], metavar="DIR")
    v.add_argument("--rules", action="append", default=[], metavar="DIR", help="a folder of your own rules")

    im = sub.add_parser("import", help="read a measurement tool's output into a measurement file")
    im.add_argument(
        "tool",
        choices=[
            "nvbandwidth",
            "p2p",
            "nccl-tests",
            "topo",
            "smi-q",
            "lspci",
            "topo-p2p",
            "query-gpu",
            "bandwidthtest",
            "nccl-topo",
            "cmdline",
            "nccl-log",
            "auto",
        ],
    )
    im.add_argument("file", help="the tool's output (text, or JSON for nvbandwidth -j / nccl-tests -J)")
    im.add_argument("--json", action="store_true", help="print the measurement as JSON")
    im.add_argument("-o", "--output", metavar="FILE", help="write the measurement file (JSON)")

    ex = sub.add_parser(
        "export",
        help="write the planned machine for another tool: nccl-topo, the XML NCCL reads (NCCL_TOPO_FILE)",
        description="Write the planned machine as NCCL's topology XML, to compare with the one NCCL dumps "
        "on the real machine (NCCL_TOPO_DUMP_FILE=system.xml, then `advisor compare BUILD system.xml`) or "
        "to feed NCCL a planned topology. Bus ids are made up: NCCL matches GPUs by bus id on a real machine.",
    )
    ex.add_argument("format", choices=["nccl-topo"])
    _add_build_args(ex)
    ex.add_argument(
        "-o", "--output", metavar="FILE", default="-", help="the file to write (default: standard output)"
    )

    bn = sub.add_parser("bench", help="measure this machine's GPUs with torch (pip install 'advisor[bench]')")
    bn.add_argument("--quick", action="store_true", help="smaller sizes and fewer repeats")
    bn.add_argument(
        "-o", "--output", metavar="FILE", default="advisor-bench.json", help="measurement file to write"
    )
    bn.add_argument("--json", action="store_true", help="also print the measurement")

    fm = sub.add_parser(
        "from-machine", help="an explicit-tree build from nvidia-smi topo -m (+ -q or a probe file)"
    )
    fm.add_argument("files", nargs="+", help="topo -m output, nvidia-smi -q output, measurement files")
    fm.add_argument("--gpu", help="GPU model for GPUs the files do not name")
    fm.add_argument("-o", "--output", metavar="FILE", help="write the build YAML (atomic)")

    pr = sub.add_parser("probe", help="read GPUs, PCIe links, P2P status and topology through NVML")
    pr.add_argument("-o", "--output", metavar="FILE", help="measurement file to write")
    pr.add_argument("--json", action="store_true")

    dr = sub.add_parser(
        "doctor",
        help="what is wrong with this machine's GPUs: links, chipset slots, ACS, IOMMU, BAR1, link errors, NUMA "
        "(read-only; or on recorded files)",
    )
    dr.add_argument("--lspci", metavar="FILE", help="a saved `sudo lspci -vvv` instead of running lspci")
    dr.add_argument("--cmdline", metavar="FILE", help="a saved /proc/cmdline (or dmesg 'Command line:')")
    dr.add_argument(
        "--sysfs", metavar="DIR", help="a folder holding a recorded sys/ tree (default: this machine's /)"
    )
    dr.add_argument(
        "--no-load", action="store_true", help="do not load the GPUs to read the links under load"
    )
    dr.add_argument(
        "--cpus",
        metavar="LIST",
        help="the CPUs your job runs on, like 0-15,32-47 (default: this process's; with recorded files: "
        "none, so no NUMA check)",
    )
    dr.add_argument("--json", action="store_true", help="machine-readable output")

    cm = sub.add_parser("compare", help="predicted vs measured for a build and a measurement file")
    cm.add_argument("build", help="build YAML file")
    cm.add_argument("measurement", nargs="+", help="measurement files (from advisor import), or tool outputs")
    cm.add_argument("--json", action="store_true")
    cm.add_argument("--format", choices=["text", "markdown", "json"], default="text")
    cm.add_argument(
        "--tolerance",
        type=float,
        default=0.15,
        help="flag figures off by more than this (0.15)",
    )
    cm.add_argument("--catalog", action="append", default=[], metavar="DIR")
    cm.add_argument(
        "--rules", action="append", default=[], metavar="DIR", help="a folder of your own compare rules"
    )

    t = sub.add_parser(
        "tui", help="plan a build interactively (Textual app): parts, slots, live links and findings"
    )
    t.add_argument(
        "build", nargs="?", help="build YAML file to open (default: your last unsaved build, or an example)"
    )
    t.add_argument("--quote", metavar="FILE", help="open with this vendor's quote checked")
    t.add_argument(
        "--measurement",
        action="append",
        default=[],
        metavar="FILE",
        help="measurement files to compare against (repeatable)",
    )
    t.add_argument("--catalog", action="append", default=[], metavar="DIR")

    sv = sub.add_parser("serve", help="serve the app in a web browser on this machine (textual-serve)")
    sv.add_argument("build", nargs="?", help="build YAML file to open")
    sv.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1: this machine only; another one warns)",
    )
    sv.add_argument("--port", type=_port, default=8000, help="port (default 8000)")
    sv.add_argument(
        "--token",
        metavar="TOKEN",
        help="the secret the URL must carry (16+ of A-Z a-z 0-9 - _ . ~); default: $ADVISOR_SERVE_TOKEN, "
        "else a new random one each run, printed in the URL. On the command line other users can see it "
        "(ps): prefer the variable",
    )
    sv.add_argument(
        "--max-sessions",
        type=int,
        default=4,
        metavar="N",
        help="browser sessions open at once, one app process each (default 4); the next is refused",
    )

    a = sub.add_parser("accuracy", help="predicted vs measured on the calibration cases")
    a.add_argument("--json", action="store_true")
    a.add_argument(
        "--workload",
        action="store_true",
        help="published 1-GPU vs N-GPU speed-ups against `advisor workload` (calibration/workload-cases.yaml)",
    )
    a.add_argument(
        "--loo",
        action="store_true",
        help="leave one out: each figure predicted again with its constants refitted without its own case; "
        "error by metric and transport, in sample and out, and how often measured values fall inside "
        "the typical ranges plan prints",
    )
    a.add_argument(
        "--write-intervals",
        action="store_true",
        help="for maintainers: rewrite rules/intervals.yaml (the typical ranges) from the cases",
    )
    return ap
