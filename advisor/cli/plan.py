"""`advisor plan` and `advisor workload`: a build's links, P2P paths, bandwidths, findings; will N GPUs beat one."""

from __future__ import annotations

import io
from pathlib import Path

from advisor.base.errors import UserError
from advisor.i18n import _


def build_from_args(args):
    """The build the arguments describe: a build file, flags, or flags layered over a file."""
    from advisor.model.buildfile import build_from_flags, load_build

    base = load_build(args.build) if args.build else None
    settings = settings_from_args(args)
    if base is not None and not (args.cpu or args.board or args.gpu or args.nvme or settings):
        return base
    return build_from_flags(args.cpu, args.board, args.gpu, args.nvme, base, settings)


_ON_OFF = {"on": True, "off": False, "true": True, "false": False, "yes": True, "no": False}
BIOS_KEYS = {"rebar": "on|off", "above_4g": "on|off", "iommu": "on|off", "acs": "on|off", "nps": "1|2|4"}


def settings_from_args(args) -> dict[str, dict]:
    """The software, BIOS and kernel settings given as flags, as build-file sections."""
    sw: dict = {}
    if getattr(args, "driver", None):
        sw["driver"] = {"stock": "stock", "patched": "patched-p2p"}[args.driver]
    if getattr(args, "engine", None):
        sw["engine"] = args.engine
    for flag in ("os", "virtualization", "host_memory"):
        if getattr(args, flag, None):
            sw[flag] = getattr(args, flag)
    if getattr(args, "nccl_p2p_disable", False):
        sw["nccl_p2p_disable"] = True
    if getattr(args, "nccl_p2p_level", None):
        sw["nccl_p2p_level"] = args.nccl_p2p_level
    if getattr(args, "nccl_algo", None):
        sw["nccl_algo"] = args.nccl_algo
    if getattr(args, "nccl_nvls", None):
        sw["nccl_nvls_enable"] = args.nccl_nvls == "on"
    if getattr(args, "gpudirect_rdma", None):
        sw["gpudirect_rdma"] = args.gpudirect_rdma == "on"
    bios: dict = {}
    for item in getattr(args, "bios", None) or []:
        key, _sep, value = item.partition("=")
        key, value = key.strip().lower().replace("-", "_"), value.strip().lower()
        if key not in BIOS_KEYS or not value:
            raise UserError(
                _("--bios {item}: write KEY=VALUE with KEY one of {keys}").format(
                    item=repr(item), keys=", ".join(BIOS_KEYS)
                ),
                hint=_("e.g. {example}").format(example="--bios rebar=on --bios acs=off --bios iommu=on"),
            )
        if key == "nps":
            if value not in ("1", "2", "4"):
                raise UserError(
                    _("--bios {item}: nps is 1, 2 or 4 (AMD NUMA nodes per socket)").format(item=repr(item))
                )
            bios[key] = int(value)
        elif key in ("rebar", "above_4g"):
            if value not in _ON_OFF:
                raise UserError(_("--bios {item}: {key} is on or off").format(item=repr(item), key=key))
            bios[key] = _ON_OFF[value]
        elif value in ("on", "off"):
            bios[key] = value
        else:
            raise UserError(_("--bios {item}: {key} is on or off").format(item=repr(item), key=key))
    kernel = {"iommu": args.kernel_iommu} if getattr(args, "kernel_iommu", None) else {}
    return {k: v for k, v in (("software", sw), ("bios", bios), ("kernel", kernel)) if v}


def _lora(args, task: str = "train") -> dict:
    """--lora RANK, --base-bits, --qlora as Workload fields; a base width without LoRA is a mistake."""
    rank, bits = getattr(args, "lora", None), getattr(args, "base_bits", None)
    if task == "infer" and (rank is not None or bits is not None or getattr(args, "qlora", False)):
        raise UserError(
            _(
                "--lora, --base-bits and --qlora are for training (--train); a quantized model to serve is --quant"
            )
        )
    if getattr(args, "qlora", False):
        rank, bits = rank or 16, 4 if bits is None else bits
        if bits != 4:
            raise UserError(
                _("--qlora stores the base in 4 bits; it cannot be given with --base-bits {bits}").format(
                    bits=bits
                )
            )
    if rank is not None and rank < 1:
        raise UserError(_("--lora must be a rank of 1 or more (got {rank})").format(rank=rank))
    if bits is not None and rank is None:
        raise UserError(
            _("--base-bits is the frozen base's width under LoRA: give --lora RANK (or --qlora) too")
        )
    return {"lora_rank": rank, "base_bits": bits}


# quantization methods by name -> the format rules/workload.yaml sizes (weight_bits_per_param's note:
# "int4 is AWQ/GPTQ with group size 128"; W8A8 is int8)
_QUANT_NAMES = {"awq": "int4", "gptq": "int4", "w4a16": "int4", "w8a8": "int8"}


def _formats(args, task: str) -> dict:
    """--quant and --kv-cache, checked against the formats rules/workload.yaml knows."""
    from advisor.model.constants import constants

    out = {}
    for flag, key, const_name in (
        ("quant", "quant", "weight_bits_per_param"),
        ("kv_cache", "kv_cache", "kv_cache_bytes_per_value"),
    ):
        value = getattr(args, flag, None)
        if value is None:
            continue
        if task != "infer":
            raise UserError(
                _("--{flag} is for inference (--infer); a quantized base for training is --qlora").format(
                    flag=flag.replace("_", "-")
                )
            )
        known = constants("workload.yaml")[const_name].value
        value = value.strip().lower()
        if flag == "quant" and value in _QUANT_NAMES and _QUANT_NAMES[value] in known:
            # the method's name, as vLLM's --quantization and model cards say it: its storage format
            from advisor.base.notices import note

            note(
                _("read --quant {value} as {format} (how it stores the weights)").format(
                    value=value, format=_QUANT_NAMES[value]
                )
            )
            value = _QUANT_NAMES[value]
        if value not in known:
            raise UserError(
                _("--{flag} {value} is not a format advisor knows").format(
                    flag=flag.replace("_", "-"), value=repr(value[:40])
                ),
                hint=_("one of {formats}").format(formats=", ".join(known)),
            )
        out[key] = value
    return out


def workload_from_args(args):
    """The Workload the flags describe, or None when neither --train nor --infer is given."""
    for flag in ("train", "infer"):
        given = getattr(args, flag, None)
        if given is not None and not given.strip():
            raise UserError(
                _("--{flag}: empty; give a model").format(flag=flag),
                hint=_("a preset (8b, 70b, bert-large, ...) or a size (3b)"),
            )
    name = args.train or args.infer
    if name is None:
        return None
    from advisor.workload import defaults
    from advisor.workload.presets import resolve

    if args.params is not None and args.params <= 0:
        raise UserError(
            _("--params must be a positive parameter count (got {value})").format(value=f"{args.params:g}")
        )
    from advisor.workload.presets import DIMS, with_dims

    spec = with_dims(resolve(name, args.params), {k: getattr(args, k, None) for k in DIMS})
    for flag in ("baseline_batch", "baseline_accum"):
        value = getattr(args, flag, None)
        if value is not None and value < 1:
            raise UserError(
                _("--{flag} must be 1 or more (got {value})").format(flag=flag.replace("_", "-"), value=value)
            )
    host = getattr(args, "host_memory_gbps", None)
    if host is not None and not (host > 0 and host < 1e5):
        raise UserError(
            _("--host-memory-gbps must be a positive bandwidth in GB/s (got {value})").format(
                value=f"{host:g}"
            )
        )
    if args.infer:
        given = [
            f
            for f in (
                "framework",
                "accum_sync",
                "optimizer",
                "baseline_recompute",
                "param_dtype",
                "attention",
            )
            if getattr(args, f, None) is not None
        ]
        if given:
            flags = ", ".join("--" + f.replace("_", "-") for f in given)
            raise UserError(
                _("{flags}: for training (--train); an inference job has no gradients to reduce").format(
                    flags=flags
                )
            )
    mns = getattr(args, "max_num_seqs", None)
    if mns is not None:
        if args.train:
            raise UserError(_("--max-num-seqs is for inference (--infer): a serving engine's scheduler"))
        if mns < 1:
            raise UserError(_("--max-num-seqs must be at least 1 (got {value})").format(value=mns))
    if getattr(args, "max_concurrency", False):
        if args.train:
            raise UserError(_("--max-concurrency is for inference (--infer): training sets --batch"))
        if args.batch is not None:
            raise UserError(_("--max-concurrency sets the number of sequences: leave --batch out"))
    rate = getattr(args, "request_rate", None)
    if rate is not None:
        if args.train:
            raise UserError(_("--request-rate is for inference (--infer): training has no requests"))
        if not (rate > 0 and rate < 1e6):
            raise UserError(
                _("--request-rate must be a positive number of requests per second (got {value})").format(
                    value=f"{rate:g}"
                )
            )
        if getattr(args, "max_concurrency", False):
            raise UserError(
                _("--request-rate finds the concurrency the rate brings; leave --max-concurrency out"),
                hint=_("--batch caps the sequences in flight (the engine's --max-num-seqs)"),
            )
    return defaults.workload(
        "train" if args.train else "infer",
        spec,
        request_rate=rate,
        request_cap=args.batch if rate is not None else None,
        max_concurrency=getattr(args, "max_concurrency", False) or None,
        strategy=args.strategy,
        precision=args.precision,
        batch=args.batch,
        seq=args.seq,
        accum=args.accum,
        gpus=args.gpus,
        prompt=args.prompt,
        gen=args.gen,
        recompute=args.recompute,
        framework=getattr(args, "framework", None),
        optimizer=getattr(args, "optimizer", None),
        **_lora(args, "train" if args.train else "infer"),
        **_formats(args, "train" if args.train else "infer"),
        accum_sync=getattr(args, "accum_sync", None),
        baseline_batch=getattr(args, "baseline_batch", None),
        baseline_accum=getattr(args, "baseline_accum", None),
        baseline_recompute=(
            None if getattr(args, "baseline_recompute", None) is None else args.baseline_recompute == "on"
        ),
        param_dtype=getattr(args, "param_dtype", None),
        attention=getattr(args, "attention", None),
        host_memory_gbps=host,
        max_num_seqs=mns,
    )


def request_from_args(args, job: str):
    """The assessment the arguments ask for: the build, its catalog, the job, the user's rule folders."""
    from advisor.assess import Request
    from advisor.model.catalog.store import load_catalog

    return Request(
        build_from_args(args),
        load_catalog([Path(d) for d in args.catalog]),
        job=job,  # type: ignore[arg-type]
        workload=workload_from_args(args),
        rule_dirs=tuple(getattr(args, "rules", None) or ()),
        command=("advisor", *getattr(args, "argv", [job])),
    )


def cmd_plan(args) -> int:
    from advisor.assess import assess
    from advisor.cli.output import drawing_or_page, start_report, write_report
    from advisor.outputs.plan import plan_output

    fmt = "json" if args.json else args.format
    start_report(args.output, fmt)
    a = assess(request_from_args(args, "plan"))
    pred, findings, analysis = a.prediction, list(a.findings), a.analysis
    if fmt == "text":
        from advisor.render.layout import terminal_console
        from advisor.render.plan import render_text

        con = terminal_console()
        render_text(pred, findings, explain=args.explain, console=con)
        if analysis is not None:
            from advisor.render.workload import render_text as workload_text

            con.rule("Workload")
            workload_text(analysis, explain=args.explain, console=con)
        return 0
    if fmt == "markdown":
        from advisor.render.plan import render_markdown

        text = render_markdown(pred, findings)
        if analysis is not None:
            from rich.console import Console

            from advisor.render.workload import render_text as workload_text

            con = Console(record=True, width=100, file=io.StringIO())
            workload_text(analysis, explain=args.explain, console=con)
            text += "\n## Workload\n\n```text\n" + con.export_text().rstrip() + "\n```\n"
        write_report(args.output, text)
        return 0
    out = plan_output(pred, findings, explain=args.explain and fmt == "json")
    if analysis is not None:
        from advisor.outputs.workload import workload_output

        out.workload = workload_output(analysis, explain=args.explain and fmt == "json")
    if fmt == "json":
        write_report(args.output, out.json_text() + "\n")
        return 0
    from advisor.render.report import plan_html

    write_report(args.output, drawing_or_page(fmt, out, lambda: plan_html(out)))
    return 0


def cmd_workload(args) -> int:
    from advisor.assess import assess

    a = assess(request_from_args(args, "workload"))
    analysis, findings = a.analysis, list(a.findings)
    assert analysis is not None  # `workload`'s parser requires --train or --infer
    if args.json:
        from advisor.outputs.workload import workload_output

        print(workload_output(analysis, explain=args.explain, findings=findings).json_text())
        return 0
    from advisor.render.layout import hang, terminal_console
    from advisor.render.workload import render_text

    con = terminal_console()
    render_text(analysis, explain=args.explain, console=con)
    if findings:
        from advisor.i18n import _
        from advisor.render.plan import _severity

        con.print(_("[bold]Findings[/]"))
        for f in findings:
            # the message's further lines under the rule id, the fix's under the fix
            hang(con, f"{_severity(f.severity)} ", f"{f.id}: {f.message}")
            hang(con, " " * 8 + _("fix: "), f.fix)
    return 0
