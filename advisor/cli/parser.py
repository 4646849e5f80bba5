"""The command line's arguments: one parser for every command (`advisor --help`)."""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn

from advisor import __version__
from advisor.findings.finding import JOB_SCOPES
from advisor.i18n import N_, _, retell
from advisor.render.words import cells

OUTPUTS = (
    "plan",
    "validate",
    "compare",
    "workload",
    "measurement",
    "doctor",
    "catalog-list",
    "catalog-audit",
    "rules-list",
    "rules-facts",
    "accuracy",
    "accuracy-workload",
    "recommend",
)

# The largest value each workload count flag takes (0 or less is an error, never a default): beyond
# these the question is not one advisor's model answers.
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
    its COUNT_MAX (`--seq 0` once meant 1024); a --params that is nan, inf or 1e308; a --tolerance that
    is not a finite fraction. Checked for every command that takes the flag, with or without
    --train/--infer."""
    from advisor.base.errors import UserError
    from advisor.workload.defaults import PARAMS, PARAMS_TEXT

    for flag, high in COUNT_MAX.items():
        value = getattr(args, flag[2:], None)
        if value is None:
            continue
        if value < 1:
            raise UserError(_("{flag} must be at least 1 (got {value})").format(flag=flag, value=value))
        if value > high:
            raise UserError(
                _("{flag} must be at most {high} (got {value})").format(
                    flag=flag, high=f"{high:,}", value=_short(value)
                )
            )
    params = getattr(args, "params", None)
    if params is not None and not (params == params and PARAMS[0] <= params <= PARAMS[1]):
        raise UserError(
            _("--params must be a parameter count from {range} (got {value})").format(
                range=PARAMS_TEXT, value=f"{params:g}"
            )
        )
    tolerance = getattr(args, "tolerance", None)
    if tolerance is not None and not (tolerance == tolerance and 0 <= tolerance <= 10):
        raise UserError(
            _("--tolerance must be a fraction from 0 to 10, such as 0.15 (got {value})").format(
                value=f"{tolerance:g}"
            )
        )


def _short(n: int) -> str:
    return str(n) if len(str(n)) <= 20 else _("a {digits}-digit number").format(digits=len(str(n)))


def _port(text: str) -> int:
    if not (text.isascii() and text.isdigit()) or len(text) > 5 or int(text) > 65535:
        raise argparse.ArgumentTypeError(
            _("must be a port number from 0 to 65535 (got {value})").format(value=repr(text[:20]))
        )
    return int(text)


SCOPES = tuple(sorted({s for scopes in JOB_SCOPES.values() for s in scopes}))


# argparse's own sentences, as its English prints them (Python 3.11-3.13), with their values by name: its
# errors are said again in the run's language by the parser below (argparse looks its words up in
# gettext's global domain, which is not advisor's, so they are matched here instead); one it says
# otherwise stays English, never dropped
ARGPARSE_ERRORS = (
    N_("the following arguments are required: {arguments}"),
    N_("argument {argument}: {message}"),
    N_("invalid choice: {value} (choose from {choices})"),
    N_("invalid {type} value: {value}"),
    N_("unrecognized arguments: {arguments}"),
    N_("expected one argument"),
    N_("expected at most one argument"),
    N_("expected at least one argument"),
    N_("expected {count} argument"),
    N_("expected {count} arguments"),
    N_("one of the arguments {arguments} is required"),
    N_("not allowed with argument {argument}"),
    N_("ambiguous option: {option} could match {matches}"),
    N_("ignored explicit argument {value}"),
    N_("unknown parser {name} (choices: {choices})"),
    N_("can't open {filename}: {error}"),
)


class _Help(argparse.HelpFormatter):
    """An option column wide enough for `--gpu MODEL[:COUNT][@SLOT]`, so that each option's help
    starts on the option's own line: a help page a person reads, not one line of flag per line of text.
    The "usage:" before the usage line is said in the run's language."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, max_help_position=30)

    def _format_usage(self, usage, actions, groups, prefix) -> str:
        if prefix is None:
            prefix = _("usage: ")
        # argparse lines the usage up under the prefix by its length in characters: laid out with a
        # prefix of as many spaces as the words take columns (a Chinese character takes two), then the
        # words put in their place
        blank = " " * cells(prefix)
        text = super()._format_usage(usage, actions, groups, blank)
        return prefix + text.removeprefix(blank)


class _Parser(argparse.ArgumentParser):
    """Every command's parser, with the help formatter above (subcommands inherit the class)."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("formatter_class", _Help)
        # argparse's own -h says its help in argparse's words; ours, the same words, in the run's language
        add_help = kwargs.pop("add_help", True)
        super().__init__(*args, add_help=False, **kwargs)
        # argparse's two headings of every help page, which it names with its own gettext
        self._positionals.title = _("positional arguments")
        self._optionals.title = _("options")
        if add_help:
            self.add_argument(
                "-h",
                "--help",
                action="help",
                default=argparse.SUPPRESS,
                help=_("show this help message and exit"),
            )

    def error(self, message: str) -> NoReturn:
        """argparse's error, its sentence said in the run's language: the usage, then `PROG: error: ...`,
        exit 2 (as argparse's own)."""
        self.print_usage(sys.stderr)
        text = retell(message, ARGPARSE_ERRORS)
        self.exit(2, _("{prog}: error: {message}").format(prog=self.prog, message=text) + "\n")


CATALOG_HELP = N_("a folder of your own parts ($ADVISOR_CATALOG)")
BUILD_USAGE = "[BUILD | --cpu CPU --board BOARD --gpu GPU ...]"


def _add_build_args(p: argparse.ArgumentParser) -> None:
    b = p.add_argument_group(_("build (a file, or the parts by name)"))
    b.add_argument("build", nargs="?", metavar="BUILD", help=_("a build file (YAML; see examples/)"))
    b.add_argument("--cpu", help=_('CPU by id or name, e.g. "i9-14900K"'))
    b.add_argument("--board", help=_('motherboard, e.g. "ROG Maximus Z790 Hero"'))
    b.add_argument(
        "--gpu",
        action="append",
        default=[],
        metavar="MODEL[:COUNT][@SLOT]",
        help=_('repeatable: "RTX 4090:2", "RTX 4090@PCIEX16_1"'),
    )
    b.add_argument(
        "--nvme", action="append", default=[], metavar="SOCKET", help=_("an NVMe SSD in this M.2 socket")
    )
    b.add_argument(
        "--catalog",
        action="append",
        default=[],
        metavar="DIR",
        help=_(CATALOG_HELP),
    )
    b.add_argument(
        "--rules",
        action="append",
        default=[],
        metavar="DIR",
        help=_("a folder of your own rules ($ADVISOR_RULES)"),
    )
    s = p.add_argument_group(_("software settings (over the build file's; unknown when not given)"))
    s.add_argument(
        "--driver", choices=["stock", "patched"], help=_("patched: an open module with GeForce P2P")
    )
    s.add_argument(
        "--engine",
        choices=["vllm", "sglang", "tensorrt-llm"],
        metavar="ENGINE",
        help=_("serving engine: vllm, sglang or tensorrt-llm"),
    )
    s.add_argument("--os", choices=["linux", "windows"], help=_("windows: the WDDM driver model"))
    s.add_argument(
        "--host-memory",
        choices=["local", "remote"],
        metavar="WHERE",
        help=_("host buffers: local (default) or remote socket"),
    )
    s.add_argument(
        "--virtualization",
        choices=["none", "vm", "vm-clique"],
        metavar="HOW",
        help=_("none, vm (GPUs passed to a VM) or vm-clique"),
    )
    s.add_argument("--nccl-p2p-disable", action="store_true", help=_("NCCL_P2P_DISABLE=1"))
    s.add_argument(
        "--nccl-p2p-level",
        choices=["LOC", "NVL", "PIX", "PXB", "PHB", "SYS"],
        metavar="LEVEL",
        help=_("NCCL_P2P_LEVEL: LOC, NVL, PIX, PXB, PHB or SYS"),
    )
    s.add_argument(
        "--nccl-algo", choices=["ring", "tree"], help=_("NCCL_ALGO across nodes (default: NCCL's choice)")
    )
    s.add_argument(
        "--nccl-nvls", choices=["on", "off"], help=_("NCCL_NVLS_ENABLE: NVLink SHARP on NVSwitch systems")
    )
    s.add_argument(
        "--gpudirect-rdma",
        choices=["on", "off"],
        help=_("GPUDirect RDMA between GPUs and NICs (nvidia-peermem)"),
    )
    s.add_argument(
        "--bios",
        action="append",
        metavar="KEY=VALUE",
        help=_("rebar|above_4g|iommu|acs=on|off, nps=1|2|4"),
    )
    s.add_argument(
        "--kernel-iommu", choices=["pt", "on", "off"], help=_("the kernel command line's IOMMU mode")
    )


FORMATS = ["text", "markdown", "json", "html", "svg", "png"]
REPORT_HELP = N_("html (a page to send on), svg (the drawing) or png (its picture)")
OUTPUT_HELP = N_("write it to FILE (any format but text)")


def _add_output_args(
    p: argparse.ArgumentParser, formats: str | None, explain: bool = True, reports: bool = False
) -> None:
    """-h, --json, and where the command has them --format (`formats` says what markdown is for) and
    --explain, as one group; `reports`: the html, svg and png formats too, and -o FILE."""
    o = p.add_argument_group(_("output"))
    o.add_argument("-h", "--help", action="help", help=_("show this help and exit"))
    o.add_argument(
        "--json",
        action="store_true",
        help=_("JSON for scripts (= --format json)") if formats else _("JSON for scripts"),
    )
    if formats:
        choices = FORMATS if reports else ["text", "markdown", "json"]
        o.add_argument("--format", choices=choices, default="text", metavar="FORMAT", help=formats)
        if reports:
            o.add_argument("-o", "--output", metavar="FILE", help=_(OUTPUT_HELP))
    if explain:
        o.add_argument(
            "--explain", action="store_true", help=_("every figure's formula, inputs and constants")
        )


# The job flags `plan --help` shows; the others are `advisor workload`'s to show (plan takes them all).
PLAN_JOB_FLAGS = ("--train", "--infer", "--strategy", "--batch", "--gpus")


def _add_workload_args(p: argparse.ArgumentParser, required: bool) -> None:
    # every default is advisor.workload.defaults' (the Job view and plan's WL001 assume the same job)
    from advisor.workload import defaults as d

    def shown(flag: str, text: str) -> str:
        return text if required or flag in PLAN_JOB_FLAGS else argparse.SUPPRESS

    g = p.add_argument_group(
        _("job"),
        None if required else _("adds a workload section; every flag of `advisor workload --help` works"),
    )
    job = g.add_mutually_exclusive_group(required=required)
    job.add_argument("--train", metavar="MODEL", help=_("a preset (8b, bert-large, ...) or a size (3b)"))
    job.add_argument("--infer", metavar="MODEL", help=_("an LLM preset (8b, 70b, ...) or a size"))
    g.add_argument(
        "--strategy",
        choices=["ddp", "dataparallel", "zero2", "zero3", "fsdp", "tp", "pp", "replicas", "ep", "row"],
        metavar="NAME",
        help=shown(
            "--strategy",
            _(
                "training: {train} (default), dataparallel, zero2, zero3, fsdp, tp, pp; inference: {infer} "
                "(default), pp, replicas, ep (experts over the GPUs), row (llama.cpp's -sm row)"
            ).format(train=d.STRATEGY["train"], infer=d.STRATEGY["infer"]),
        ),
    )
    g.add_argument(
        "--batch",
        type=int,
        metavar="B",
        help=shown(
            "--batch",
            _(
                "training: micro-batch per GPU (default {train}); inference: concurrent sequences (default {infer})"
            ).format(train=d.BATCH["train"], infer=d.BATCH["infer"]),
        ),
    )
    g.add_argument(
        "--gpus", type=int, metavar="N", help=shown("--gpus", _("GPUs to use (default: all of the build's)"))
    )
    g.add_argument(
        "--params",
        type=float,
        metavar="N",
        help=shown("--params", _("parameter count over the preset's, {range}").format(range=d.PARAMS_TEXT)),
    )
    g.add_argument(
        "--precision",
        choices=["bf16", "fp16", "fp32"],
        default=d.PRECISION,
        metavar="TYPE",
        help=shown("--precision", _("bf16, fp16 or fp32 (default {default})").format(default=d.PRECISION)),
    )
    g.add_argument(
        "--seq",
        type=int,
        metavar="S",
        help=shown("--seq", _("sequence length (default {default}; BERT 512)").format(default=d.SEQ)),
    )
    g.add_argument(
        "--accum",
        type=int,
        default=d.ACCUM,
        metavar="A",
        help=shown(
            "--accum", _("gradient accumulation micro-steps (default {default})").format(default=d.ACCUM)
        ),
    )

    m = p.add_argument_group(_("training memory")) if required else g
    m.add_argument(
        "--recompute", action="store_true", help=shown("--recompute", _("full activation recomputation"))
    )
    m.add_argument(
        "--optimizer",
        choices=["adamw", "adamw-8bit", "sgd"],
        metavar="NAME",
        help=shown("--optimizer", _("adamw (default), adamw-8bit (bitsandbytes), sgd")),
    )
    m.add_argument(
        "--lora",
        type=int,
        metavar="RANK",
        help=shown("--lora", _("LoRA adapters of this rank, the base frozen")),
    )
    m.add_argument(
        "--base-bits",
        type=int,
        choices=[16, 8, 4],
        help=shown("--base-bits", _("the frozen base's bits under LoRA (default 16)")),
    )
    m.add_argument(
        "--qlora", action="store_true", help=shown("--qlora", _("--lora 16 with a 4-bit NF4 base"))
    )

    r = p.add_argument_group(_("how the training run reduces")) if required else g
    from advisor.workload.frameworks import FRAMEWORKS

    r.add_argument(
        "--framework",
        choices=list(FRAMEWORKS),
        metavar="NAME",
        help=shown(
            "--framework",
            _("how the run reduces gradients: {frameworks} (default: PyTorch DDP's overlap)").format(
                frameworks=", ".join(FRAMEWORKS)
            ),
        ),
    )
    r.add_argument(
        "--accum-sync",
        choices=["last", "every"],
        metavar="WHEN",
        help=shown("--accum-sync", _("last (default, no_sync) or every micro-step")),
    )
    r.add_argument(
        "--baseline-batch",
        type=int,
        metavar="B",
        help=shown("--baseline-batch", _("the 1-GPU run's micro-batch, if it differs")),
    )
    r.add_argument(
        "--baseline-accum",
        type=int,
        metavar="A",
        help=shown("--baseline-accum", _("the 1-GPU run's accumulation, if it differs")),
    )
    r.add_argument(
        "--baseline-recompute",
        choices=["on", "off"],
        metavar="ON",
        help=shown("--baseline-recompute", _("the 1-GPU run's activation recomputation, if it differs")),
    )
    r.add_argument(
        "--param-dtype",
        choices=["bf16", "fp16", "fp32"],
        metavar="TYPE",
        help=shown(
            "--param-dtype",
            _(
                "the weights' own dtype (a model loaded in bf16 reduces bf16 gradients); default: fp32 under autocast"
            ),
        ),
    )
    r.add_argument(
        "--attention",
        choices=["eager", "fused"],
        metavar="KIND",
        help=shown("--attention", _("eager writes the attention scores to memory; fused (SDPA) does not")),
    )
    r.add_argument(
        "--host-memory-gbps",
        type=float,
        metavar="GBPS",
        help=shown(
            "--host-memory-gbps",
            _(
                "one socket's memory bandwidth where the CPU is not in the catalog (staged all-reduces are checked "
                "against it)"
            ),
        ),
    )

    i = p.add_argument_group(_("inference")) if required else g
    i.add_argument(
        "--prompt",
        type=int,
        default=d.PROMPT,
        metavar="P",
        help=shown("--prompt", _("prompt tokens (default {default})").format(default=d.PROMPT)),
    )
    i.add_argument(
        "--gen",
        type=int,
        default=d.GEN,
        metavar="G",
        help=shown("--gen", _("generated tokens (default {default})").format(default=d.GEN)),
    )
    i.add_argument(
        "--quant",
        metavar="FORMAT",
        help=shown("--quant", _("fp8, int8, int4, nvfp4 or GGUF (q4_k_m, ...)")),
    )
    i.add_argument(
        "--kv-cache",
        metavar="TYPE",
        help=shown("--kv-cache", _("f16, bf16, fp8 (vLLM), q8_0 or q4_0 (llama.cpp)")),
    )
    i.add_argument(
        "--max-num-seqs",
        type=int,
        metavar="N",
        help=shown(
            "--max-num-seqs",
            _(
                "a serving engine's scheduler (vLLM's flag, 256 by default): --batch requests wait, N at most run "
                "at once, and no more than the KV cache admits"
            ),
        ),
    )
    i.add_argument(
        "--max-concurrency",
        action="store_true",
        help=shown("--max-concurrency", _("as many sequences as each KV cache admits")),
    )
    i.add_argument(
        "--request-rate",
        type=float,
        metavar="R",
        help=shown(
            "--request-rate",
            _(
                "requests/s at a continuous-batching server: does 1 GPU and N keep up, each one's "
                "capacity (--batch caps the sequences in flight)"
            ),
        ),
    )

    dims = (
        p.add_argument_group(
            _("model dimensions (over the preset's)"),
            _("with all of layers, hidden, ffn and vocab, the parameter count is counted from them"),
        )
        if required
        else g
    )
    for flag, what in (
        ("--layers", N_("transformer layers")),
        ("--hidden", N_("hidden size")),
        ("--heads", N_("attention heads")),
        ("--kv-heads", N_("key/value heads (grouped-query attention)")),
        ("--ffn", N_("MLP inner size (each expert's)")),
        ("--vocab", N_("vocabulary size")),
        ("--experts", N_("mixture of experts: experts per layer")),
        ("--active-experts", N_("mixture of experts: experts per token")),
    ):
        dims.add_argument(flag, type=int, metavar="N", help=shown(flag, _(what)))


def parser() -> argparse.ArgumentParser:
    ap = _Parser(
        prog="advisor",
        description=(
            _(
                "Hardware configuration advisor for multi-GPU machines: the PCIe link each GPU really gets, "
                "P2P paths and predicted bandwidths, with the derivation of every number."
            )
        ),
    )
    ap.add_argument(
        "--version",
        action="version",
        version=f"advisor {__version__}",
        help=_("show program's version number and exit"),
    )
    ap.add_argument(
        "--lang",
        choices=["en", "zh"],
        help=_(
            "the language advisor answers in (default: $ADVISOR_LANG, then the locale, then en); "
            "before or after the command"
        ),
    )
    sub = ap.add_subparsers(dest="command", metavar="COMMAND")  # each a _Parser, as ap is

    p = sub.add_parser(
        "plan",
        help=_("predict links, P2P paths and bandwidths for a build"),
        description=_(
            "Each GPU's PCIe link, the P2P path and NCCL transport of every pair, predicted "
            "bandwidths, and the findings with their fixes."
        ),
        usage=f"advisor plan {BUILD_USAGE} [options]",
        add_help=False,
    )
    _add_build_args(p)
    _add_output_args(p, _("text, markdown, json, {reports}").format(reports=_(REPORT_HELP)), reports=True)
    _add_workload_args(p, required=False)

    wl = sub.add_parser(
        "workload",
        help=_("will N GPUs beat one for my training or inference job on this build?"),
        description=_(
            "Time per step (training) or tokens/s and time to first token (inference) on "
            "1 GPU and on N GPUs of the build, the speed-up, the split into compute, exposed "
            "communication and bubbles, memory per GPU, the bottleneck and what to change. Example: "
            "advisor workload --cpu i9-14900K --board 'ROG Maximus Z790 Hero' --gpu 'RTX 4090:2' "
            "--train 1.3b"
        ),
        usage=f"advisor workload {BUILD_USAGE}\n{' ' * 23}(--train MODEL | --infer MODEL) [options]",
        add_help=False,
    )
    _add_build_args(wl)
    _add_output_args(wl, None)
    _add_workload_args(wl, required=True)

    c = sub.add_parser(
        "catalog", help=_("list, show, validate, audit the parts catalog; export its JSON Schema")
    )
    csub = c.add_subparsers(dest="catalog_command", metavar="ACTION")
    cl = csub.add_parser("list", help=_("list parts"))
    cl.add_argument(
        "--kind",
        choices=["cpu", "board", "gpu", "card", "system"],
        help=_("card: board partners' models of a GPU; system: HGX baseboards a build names with `system:`"),
    )
    cl.add_argument("--json", action="store_true", help=_("JSON for scripts"))
    cs = csub.add_parser("show", help=_("show one part"))
    cs.add_argument("id", help=_("part id or name"))
    cs.add_argument("--json", action="store_true", help=_("JSON for scripts"))
    cv = csub.add_parser(
        "validate", help=_("check every catalog file; problems as file:line: field: message")
    )
    ca = csub.add_parser(
        "audit",
        help=_(
            "how complete and well-sourced the catalog is: counts, verified share, nulls the model needs, "
            "sources by domain"
        ),
    )
    ca.add_argument("--json", action="store_true", help=_("JSON for scripts"))
    csch = csub.add_parser(
        "schema", help=_("JSON Schema for catalog parts, build files and the JSON outputs")
    )
    what = csch.add_mutually_exclusive_group()
    what.add_argument(
        "--kind", choices=["cpu", "board", "gpu", "card", "system", "build"], help=_("one input schema")
    )
    what.add_argument(
        "--output",
        choices=list(OUTPUTS),
        help=_("the schema of a command's --json output (measurement: import, bench, probe files)"),
        metavar="NAME",
    )
    for x in (cl, cs, cv, ca, csch):
        x.add_argument("--catalog", action="append", default=[], metavar="DIR", help=_(CATALOG_HELP))

    r = sub.add_parser(
        "rules", help=_("list the findings rules, explain one, or list the facts rules can name")
    )
    rsub = r.add_subparsers(dest="rules_command", metavar="ACTION")
    rl = rsub.add_parser("list", help=_("every rule with its id, severity, scope and title"))
    rl.add_argument(
        "--scope",
        choices=[*SCOPES, "doctor", "quote"],
        help=_(
            "only rules of this scope (doctor, quote: the checks registered for `advisor doctor` and "
            "for a quote's parts and claims)"
        ),
    )
    rl.add_argument("--json", action="store_true", help=_("JSON for scripts"))
    re_ = rsub.add_parser("explain", help=_("a rule's documentation: what, why, example, fix, sources"))
    re_.add_argument("id", help=_("the rule's id, e.g. P2P001 or CMP001"))
    rf = rsub.add_parser(
        "facts", help=_("the facts a rule's condition and message can name, with units and sources")
    )
    rf.add_argument("--scope", choices=list(SCOPES), help=_("only the facts a rule of this scope sees"))
    rf.add_argument("--json", action="store_true", help=_("JSON for scripts"))
    for x in (rl, re_, rf):
        x.add_argument(
            "--rules", action="append", default=[], metavar="DIR", help=_("a folder of your own rules")
        )

    v = sub.add_parser(
        "validate", help=_("check a vendor's quote (text, CSV or YAML): parts, lanes, findings, claims")
    )
    v.add_argument("quote", help=_("the quote file, or - for stdin"))
    v.add_argument("--json", action="store_true", help=_("machine-readable output (same as --format json)"))
    v.add_argument(
        "--format",
        choices=FORMATS,
        default="text",
        metavar="FORMAT",
        help=_("text, json, markdown (a report to forward to the vendor), {reports}").format(
            reports=_(REPORT_HELP)
        ),
    )
    v.add_argument("-o", "--output", metavar="FILE", help=_(OUTPUT_HELP))
    v.add_argument(
        "--explain",
        action="store_true",
        help=_(
            "how each line was read: the parts list, each count and where it was read, what was not counted"
        ),
    )
    v.add_argument("--catalog", action="append", default=[], metavar="DIR", help=_(CATALOG_HELP))
    v.add_argument(
        "--rules", action="append", default=[], metavar="DIR", help=_("a folder of your own rules")
    )
    v.add_argument(
        "--save-prices",
        metavar="FILE",
        help=_(
            "write the quote's prices (one catalog CPU, board or GPU a line, in USD or CNY) as a price list "
            "for `advisor recommend --prices`"
        ),
    )
    v.add_argument(
        "--quote-date", metavar="DATE", help=_("the day the quote's prices held, YYYY-MM-DD (default: today)")
    )

    rc = sub.add_parser(
        "recommend",
        help=_("what to buy: the catalog's builds that run a job best for their price (the Pareto front)"),
        description=_(
            "Every compatible CPU, board, GPU model and count of the catalog, priced, pruned by the "
            "budget, the job's memory and the room's circuit, each left assessed as `advisor plan` with the job "
            "does: the builds no other beats on both price and speed, cheapest first, with what each step up "
            "buys. Example: advisor recommend --train 8b --lora 16 --budget 40000 --currency CNY"
        ),
        usage="advisor recommend (--train MODEL | --infer MODEL) [--budget AMOUNT] [options]",
        add_help=False,
    )
    q = rc.add_argument_group(_("budget and constraints"))
    q.add_argument(
        "--budget", metavar="AMOUNT", help=_("what you can spend: 40000, '8k', '$8000', '4万' (CNY)")
    )
    q.add_argument(
        "--currency", choices=["USD", "CNY"], type=str.upper, help=_("the budget's currency (default USD)")
    )
    q.add_argument("--min-gpus", type=int, default=1, metavar="N", help=_("fewest GPUs (default 1)"))
    q.add_argument("--max-gpus", type=int, default=8, metavar="N", help=_("most GPUs (default 8)"))
    q.add_argument(
        "--form", choices=["tower", "rack"], help=_("tower: no GPU server chassis; rack: passive cards too")
    )
    q.add_argument(
        "--circuit",
        metavar="VxA",
        help=_("the room's circuit, volts x amps: 220x10 (a Chinese home), 120x15 (US)"),
    )
    q.add_argument("--used", action="store_true", help=_("a used price where one is known, else new"))
    q.add_argument(
        "--own",
        action="append",
        metavar="PART[:COUNT]",
        help=_("repeatable: parts you have ('RTX 4090:2'); the builds use them and they cost nothing"),
    )
    q.add_argument(
        "--exclude-vendor", action="append", metavar="NAME", help=_("repeatable: leave a vendor's parts out")
    )
    q.add_argument(
        "--prices",
        action="append",
        metavar="FILE",
        help=_("your price list (YAML or CSV: part, price, currency, date, where), over the catalog's"),
    )
    q.add_argument(
        "--as-of", metavar="DATE", help=_("the day prices are judged stale against (default today)")
    )
    q.add_argument("--catalog", action="append", default=[], metavar="DIR", help=_(CATALOG_HELP))
    _add_output_args(rc, _("text, markdown (a report to share) or json"), explain=False)
    _add_workload_args(rc, required=True)

    im = sub.add_parser("import", help=_("read a measurement tool's output into a measurement file"))
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
        metavar="TOOL",
        help=_(
            "the tool that wrote the file, or auto to tell from the text: nvbandwidth, p2p "
            "(p2pBandwidthLatencyTest), nccl-tests, topo (nvidia-smi topo -m), smi-q (nvidia-smi -q), lspci, "
            "topo-p2p (nvidia-smi topo -p2p), query-gpu (nvidia-smi --query-gpu), bandwidthtest, nccl-topo "
            "(NCCL's topology XML), cmdline (/proc/cmdline), nccl-log (NCCL_DEBUG=INFO)"
        ),
    )
    im.add_argument("file", help=_("the tool's output (text, or JSON for nvbandwidth -j / nccl-tests -J)"))
    im.add_argument("--json", action="store_true", help=_("print the measurement as JSON"))
    im.add_argument("-o", "--output", metavar="FILE", help=_("write the measurement file (JSON)"))

    ex = sub.add_parser(
        "export",
        help=_("write the planned machine for another tool: nccl-topo, the XML NCCL reads (NCCL_TOPO_FILE)"),
        description=_(
            "Write the planned machine as NCCL's topology XML, to compare with the one NCCL dumps "
            "on the real machine (NCCL_TOPO_DUMP_FILE=system.xml, then `advisor compare BUILD system.xml`) or "
            "to feed NCCL a planned topology. Bus ids are made up: NCCL matches GPUs by bus id on a real machine."
        ),
        usage=f"advisor export nccl-topo {BUILD_USAGE}\n{' ' * 21}[-o FILE]",
    )
    ex.add_argument("format", choices=["nccl-topo"], help=_("nccl-topo: NCCL's topology XML"))
    _add_build_args(ex)
    ex.add_argument(
        "-o", "--output", metavar="FILE", default="-", help=_("the file to write (default: standard output)")
    )

    bn = sub.add_parser(
        "bench", help=_("measure this machine's GPUs with torch (pip install 'advisor[bench]')")
    )
    bn.add_argument("--quick", action="store_true", help=_("smaller sizes and fewer repeats"))
    bn.add_argument(
        "-o", "--output", metavar="FILE", default="advisor-bench.json", help=_("measurement file to write")
    )
    bn.add_argument("--json", action="store_true", help=_("also print the measurement"))

    fm = sub.add_parser(
        "from-machine", help=_("an explicit-tree build from nvidia-smi topo -m (+ -q or a probe file)")
    )
    fm.add_argument("files", nargs="+", help=_("topo -m output, nvidia-smi -q output, measurement files"))
    fm.add_argument("--gpu", help=_("GPU model for GPUs the files do not name"))
    fm.add_argument("-o", "--output", metavar="FILE", help=_("write the build YAML (atomic)"))

    pr = sub.add_parser("probe", help=_("read GPUs, PCIe links, P2P status and topology through NVML"))
    pr.add_argument("-o", "--output", metavar="FILE", help=_("measurement file to write"))
    pr.add_argument("--json", action="store_true", help=_("print the measurement as JSON"))

    dr = sub.add_parser(
        "doctor",
        help=_(
            "what is wrong with this machine's GPUs: links, chipset slots, ACS, IOMMU, BAR1, link errors, NUMA "
            "(read-only; or on recorded files)"
        ),
    )
    dr.add_argument("--lspci", metavar="FILE", help=_("a saved `sudo lspci -vvv` instead of running lspci"))
    dr.add_argument("--cmdline", metavar="FILE", help=_("a saved /proc/cmdline (or dmesg 'Command line:')"))
    dr.add_argument(
        "--sysfs", metavar="DIR", help=_("a folder holding a recorded sys/ tree (default: this machine's /)")
    )
    dr.add_argument(
        "--no-load", action="store_true", help=_("do not load the GPUs to read the links under load")
    )
    dr.add_argument(
        "--cpus",
        metavar="LIST",
        help=_(
            "the CPUs your job runs on, like 0-15,32-47 (default: this process's; with recorded files: "
            "none, so no NUMA check)"
        ),
    )
    dr.add_argument("--json", action="store_true", help=_("machine-readable output"))

    cm = sub.add_parser("compare", help=_("predicted vs measured for a build and a measurement file"))
    cm.add_argument("build", help=_("build YAML file"))
    cm.add_argument(
        "measurement", nargs="+", help=_("measurement files (from advisor import), or tool outputs")
    )
    cm.add_argument("--json", action="store_true", help=_("JSON for scripts (= --format json)"))
    cm.add_argument(
        "--format",
        choices=["text", "markdown", "json"],
        default="text",
        help=_("text, markdown (a report to share) or json"),
    )
    cm.add_argument(
        "--tolerance",
        type=float,
        default=0.15,
        metavar="FRACTION",
        help=_("flag figures off by more than this (default 0.15)"),
    )
    cm.add_argument("--catalog", action="append", default=[], metavar="DIR", help=_(CATALOG_HELP))
    cm.add_argument(
        "--rules", action="append", default=[], metavar="DIR", help=_("a folder of your own compare rules")
    )
    cm.add_argument(
        "--gpus",
        dest="gpu_map",
        metavar="LIST",
        help=_(
            "which measured GPU each of the build's GPUs is, in the build's order ('-' for one not measured): "
            "--gpus 4,5 compares measured GPU4 and GPU5 with a 2-GPU build; a file of another GPU count is "
            "refused without it"
        ),
    )

    t = sub.add_parser(
        "tui", help=_("plan a build interactively (Textual app): parts, slots, live links and findings")
    )
    t.add_argument(
        "build",
        nargs="?",
        help=_("build YAML file to open (default: your last unsaved build, or an example)"),
    )
    t.add_argument("--quote", metavar="FILE", help=_("open with this vendor's quote checked"))
    t.add_argument(
        "--measurement",
        action="append",
        default=[],
        metavar="FILE",
        help=_("measurement files to compare against (repeatable)"),
    )
    t.add_argument("--catalog", action="append", default=[], metavar="DIR", help=_(CATALOG_HELP))

    sv = sub.add_parser("serve", help=_("serve the app in a web browser on this machine (textual-serve)"))
    sv.add_argument("build", nargs="?", help=_("build YAML file to open"))
    sv.add_argument(
        "--host",
        default="127.0.0.1",
        help=_("address to listen on (default 127.0.0.1: this machine only; another one warns)"),
    )
    sv.add_argument("--port", type=_port, default=8000, help=_("port (default 8000)"))
    sv.add_argument(
        "--token",
        metavar="TOKEN",
        help=_(
            "the secret the URL must carry (16+ of A-Z a-z 0-9 - _ . ~); default: $ADVISOR_SERVE_TOKEN, "
            "else a new random one each run, printed in the URL. On the command line other users can see it "
            "(ps): prefer the variable"
        ),
    )
    sv.add_argument(
        "--max-sessions",
        type=int,
        default=4,
        metavar="N",
        help=_("browser sessions open at once, one app process each (default 4); the next is refused"),
    )

    a = sub.add_parser("accuracy", help=_("predicted vs measured on the calibration cases"))
    a.add_argument("--json", action="store_true", help=_("JSON for scripts"))
    a.add_argument(
        "--workload",
        action="store_true",
        help=_(
            "published 1-GPU vs N-GPU speed-ups against `advisor workload` (calibration/workload-cases.yaml)"
        ),
    )
    a.add_argument(
        "--loo",
        action="store_true",
        help=_(
            "leave one out: each figure predicted again with its constants refitted without its own case; "
            "error by metric and transport, in sample and out, and how often measured values fall inside "
            "the typical ranges plan prints"
        ),
    )
    a.add_argument(
        "--write-intervals",
        action="store_true",
        help=_(
            "for maintainers: rewrite rules/intervals.yaml (the typical ranges) from the cases; with "
            "--workload, rules/workload-intervals.yaml (each class of speed-up's range)"
        ),
    )
    return ap
