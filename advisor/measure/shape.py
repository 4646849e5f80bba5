"""Whether a measurement is of the build's shape, so that `compare` only ever sets like against like.

A file's figures are compared GPU by GPU (its GPU i with the build's GPU i, its pair a-b with the
build's pair a-b), and its all-GPU figures (an all-reduce, host copies with every GPU copying at once)
with the prediction over all of the build's GPUs. So a file is refused, never half-compared, when it
shows a GPU the build does not have (an 8-GPU nvbandwidth run against a 2-GPU build would otherwise
lose six GPUs without a word), or when an all-GPU figure ran over another number of GPUs than the build
has (an all-reduce over 6 ranks is not the prediction over 2), or does not say over how many.

A file that shows fewer GPUs than the build, with no all-GPU figure (bandwidthTest on device 0, a
`nvidia-smi -q` of one GPU, a p2pBandwidthLatencyTest run on two of four) is compared as the build's
first GPUs, and the comparison says so: the file cannot tell which GPUs a CUDA_VISIBLE_DEVICES run saw.
Except where the tool lists every GPU of the machine whatever the run was given (`nvidia-smi topo -m`
and `topo -p2p`, NVML's probe): fewer GPUs there is another machine.

`--gpus` is the user's explicit answer: for each of the build's GPUs, in order, the measured GPU it
is, or '-' for one the files did not measure. Figures of GPUs outside the map are left out, and so are
all-GPU figures unless the map takes every GPU of the file and the build; what is left out is said.
"""

from __future__ import annotations

from advisor.base.errors import Problem, UserError
from advisor.i18n import N_, _, ngettext
from advisor.measure.models import Measurement, Result

# figures of every GPU at once: comparable only over as many GPUs as the build has
# tools that list every GPU of the machine (nvidia-smi and NVML ignore CUDA_VISIBLE_DEVICES)
WHOLE_MACHINE_TOOLS = {"topo", "topo-p2p", "nvml"}
_WHOLE_LABEL = {
    "topo": "`nvidia-smi topo -m`",
    "topo-p2p": "`nvidia-smi topo -p2p`",
    "nvml": N_("NVML (the probe)"),
}
ALL_GPU_METRICS = {"busbw_gbps", "h2d_all_gbps", "d2h_all_gbps"}
_WHAT = {
    "busbw_gbps": N_("all-reduce"),
    "h2d_all_gbps": N_("host-to-GPU copies with every GPU copying at once"),
    "d2h_all_gbps": N_("GPU-to-host copies with every GPU copying at once"),
}


def shown(meas: Measurement) -> set[int]:
    """The GPU indices a file shows: the GPUs it lists and those its figures are about."""
    out = {g.index for g in meas.machine.gpus}
    for r in meas.results:
        out.update(x for x in (r.gpu, r.a, r.b) if x is not None)
    return out


def _span(indices: set[int]) -> str:
    items = sorted(indices)
    if len(items) > 2 and items == list(range(items[0], items[-1] + 1)):
        return f"GPU{items[0]}-GPU{items[-1]}"
    return ", ".join(f"GPU{i}" for i in items)


def _check_nodes(meas: Measurement, n: int, nodes: int, name: str) -> list[str]:
    """A multi-node build against a run across nodes: the collective's ranks must be the build's nodes x
    GPUs, and the file's hosts (where it names them) its nodes."""
    want = n * nodes
    seen_nodes = meas.machine.nodes or 1
    build = (
        _("{ranks} ({nodes} nodes of {gpus})").format(ranks=want, nodes=nodes, gpus=_gpus(n))
        if nodes > 1
        else str(n)
    )
    for r in meas.results:
        if r.metric not in ALL_GPU_METRICS:
            continue
        ran = r.gpus
        if ran != want or (meas.machine.nodes is not None and seen_nodes != nodes):
            where = _("{n} nodes").format(n=seen_nodes) if seen_nodes > 1 else _("one node")
            raise UserError(
                problems=[
                    Problem(
                        _(
                            "the measurement has {gpus} (its {what} ran over {ranks} ranks on {where}), the "
                            "build has {build}"
                        ).format(
                            gpus=_gpus(ran) if ran else _("an unstated number of GPUs"),
                            what=_(_WHAT[r.metric]),
                            ranks=ran or "?",
                            where=where,
                            build=build,
                        ),
                        file=name,
                        hint=_(
                            "compare it with a build of `nodes: {nodes}` and its GPUs per node, or run it over "
                            "the build's {ranks} ranks"
                        ).format(nodes=seen_nodes, ranks=want),
                    )
                ]
            )
    return [
        _("{file}: a run across {seen} nodes, {ranks} ranks, set against the build's {nodes} nodes").format(
            file=name, seen=seen_nodes, ranks=want, nodes=nodes
        )
    ]


def _gpus(n: int) -> str:
    return ngettext("{n} GPU", "{n} GPUs", n).format(n=n)


def _ranks(r: Result, count: int) -> int | None:
    """How many GPUs an all-GPU figure ran over: the rank count a collective states, else the file's GPUs."""
    if r.metric == "busbw_gbps":
        return r.gpus
    return r.gpus or count or None


def check(meas: Measurement, build: list[int], name: str, mapped: bool = False, nodes: int = 1) -> list[str]:
    """Refuse (UserError, exit 2) a file of another shape than the build (GPU indices `build`); return
    notes on how it was matched where it shows fewer GPUs than the build. `mapped`: the file was matched
    to the build by the user's --gpus (apply_map), so the GPUs it lacks are the user's statement. A
    build of several `nodes` has that many times its GPUs as ranks of a collective across them."""
    n = len(build)
    if nodes > 1 or (meas.machine.nodes or 1) > 1:
        return _check_nodes(meas, n, nodes, name)
    seen = shown(meas)
    count = max(seen) + 1 if seen else 0
    extra = seen - set(build)
    per_gpu = any(r.gpu is not None or r.a is not None for r in meas.results)
    example = [str(i) for i in sorted(seen)[:n]] + ["-"] * max(0, n - len(seen))
    map_hint = _(
        "compare it with a build of {count}, or say which measured GPU each of the build's {n} is with "
        "`advisor compare --gpus` (e.g. --gpus {example})"
    ).format(count=_gpus(count), n=_gpus(n), example=",".join(example))
    off = [(r, _ranks(r, count)) for r in meas.results if r.metric in ALL_GPU_METRICS]
    off = [(r, ran) for r, ran in off if ran != n]
    unsaid = next((r for r, ran in off if ran is None), None)
    if unsaid is not None:
        raise UserError(
            problems=[
                Problem(
                    _(
                        "the measurement does not say over how many GPUs its {what} ran, so it cannot be set "
                        "against the build's {n}"
                    ).format(what=_(_WHAT[unsaid.metric]), n=_gpus(n)),
                    file=name,
                    hint=_(
                        "save the tool's whole output: nccl-tests prints '# nThread 1 nGpus N' and a "
                        "'#  Rank' line per GPU above its table"
                    ),
                )
            ]
        )
    if off and not per_gpu:
        r, ran = off[0]
        hint = (
            _(
                "compare it with a build of {ran}, or run it over the build's {n} (all_reduce_perf -g N, or "
                "CUDA_VISIBLE_DEVICES)"
            )
            if r.metric == "busbw_gbps"
            else _("compare it with a build of {ran}, or run it over the build's {n}")
        )
        raise UserError(
            problems=[
                Problem(
                    _(
                        "the measurement has {gpus} (its {what} ran over {ran}), the build has {n}: a {ran}-GPU "
                        "figure is not the {n}-GPU prediction"
                    ).format(gpus=_gpus(ran), what=_(_WHAT[r.metric]), ran=ran, n=n),
                    file=name,
                    hint=hint.format(ran=_gpus(ran), n=_gpus(n)),
                )
            ]
        )
    if extra:
        raise UserError(
            problems=[
                Problem(
                    _(
                        "the measurement has {gpus} ({span}), the build has {n}: comparing {kept} alone would "
                        "leave out {extra}"
                    ).format(
                        gpus=_gpus(count),
                        span=_span(seen),
                        n=n,
                        kept=_span(seen & set(build)) or _("none of them"),
                        extra=_span(extra),
                    ),
                    file=name,
                    hint=map_hint,
                )
            ]
        )
    if seen and len(seen) < n and meas.source.tool in WHOLE_MACHINE_TOOLS and not mapped:
        raise UserError(
            problems=[
                Problem(
                    _(
                        "the measurement has {gpus} ({span}), the build has {n}: {tool} lists every GPU of the "
                        "machine it ran on"
                    ).format(
                        gpus=_gpus(len(seen)),
                        span=_span(seen),
                        n=n,
                        tool=_(_WHOLE_LABEL.get(meas.source.tool, meas.source.tool)),
                    ),
                    file=name,
                    hint=map_hint,
                )
            ]
        )
    if off:
        r, ran = off[0]
        raise UserError(
            problems=[
                Problem(
                    _(
                        "the measurement has {gpus} ({span}), the build has {n}: its {what} ran over {ran}, not "
                        "the build's {n}"
                    ).format(gpus=_gpus(count), span=_span(seen), n=n, what=_(_WHAT[r.metric]), ran=ran),
                    file=name,
                    hint=map_hint,
                )
            ]
        )
    if seen and len(seen) < n and not mapped:
        return [
            _(
                "{file}: the file shows {gpus} ({span}) of the build's {n}: compared as the build's {span}; if "
                "the run saw other GPUs (CUDA_VISIBLE_DEVICES), say which with --gpus"
            ).format(file=name, gpus=_gpus(len(seen)), span=_span(seen), n=n)
        ]
    return []


def parse_map(text: str, n: int) -> list[int | None]:
    """--gpus '4,5' or '-,-,0,1': for each of the build's n GPUs, the measured GPU it is ('-': none)."""
    items = [t.strip() for t in text.split(",")]
    out: list[int | None] = []
    for t in items:
        if t == "-":
            out.append(None)
        elif t.isdigit() and len(t) <= 4:
            out.append(int(t))
        else:
            raise UserError(
                _("--gpus {text}: {item} is not a GPU number or '-'").format(text=repr(text), item=repr(t)),
                hint=_("one entry per GPU of the build, e.g. --gpus {example}").format(
                    example=",".join(map(str, range(n)))
                ),
            )
    if len(out) != n:
        raise UserError(
            _("--gpus {text} names {count} GPU(s), the build has {n}").format(
                text=repr(text), count=len(out), n=n
            ),
            hint=_(
                "one entry per GPU of the build, in its order: the measured GPU it is, or '-' if the files "
                "did not measure it"
            ),
        )
    given = [m for m in out if m is not None]
    if not given:
        raise UserError(
            _("--gpus {text} maps no GPU").format(text=repr(text)), hint=_("name at least one measured GPU")
        )
    if len(set(given)) != len(given):
        twice = next(m for m in given if given.count(m) > 1)
        raise UserError(
            _("--gpus {text} names measured GPU{index} twice").format(text=repr(text), index=twice),
            hint=_("each measured GPU once"),
        )
    return out


def apply_map(
    meas: Measurement, mapping: list[int | None], build: list[int], name: str
) -> tuple[Measurement, list[str]]:
    """The measurement renumbered to the build's GPUs by `mapping` (parse_map), with notes saying what
    was matched and what was left out; a UserError when nothing of the file is left."""
    to_build = {m: b for b, m in zip(build, mapping, strict=True) if m is not None}
    seen = shown(meas)
    whole = bool(seen) and set(to_build) == seen and len(to_build) == len(build)
    kept: list[Result] = []
    left: list[str] = []
    for r in meas.results:
        if r.metric in ALL_GPU_METRICS or r.gpus is not None:
            if whole:
                kept.append(r)
            elif r.metric in ALL_GPU_METRICS:
                what = _("the {what} over {gpus}").format(
                    what=_(_WHAT[r.metric]), gpus=_gpus(_ranks(r, len(seen)) or len(seen))
                )
                if what not in left:
                    left.append(what)
            continue
        idx = [x for x in (r.gpu, r.a, r.b) if x is not None]
        if not idx:
            kept.append(r)  # about the machine, not a GPU: the kernel's IOMMU mode, ACS on the bridges
        elif all(x in to_build for x in idx):
            update = {k: to_build[getattr(r, k)] for k in ("gpu", "a", "b") if getattr(r, k) is not None}
            kept.append(r.model_copy(update=update))
    if meas.results and not kept:
        raise UserError(
            problems=[
                Problem(
                    _(
                        "nothing in the measurement is about the GPUs --gpus names ({span}): {left} cannot be "
                        "set against the build's {gpus}"
                    ).format(span=_span(set(to_build)), left=_("; ").join(left), gpus=_gpus(len(build)))
                    if left
                    else _("nothing in the measurement is about the GPUs --gpus names ({span})").format(
                        span=_span(set(to_build))
                    ),
                    file=name,
                    hint=_("the file shows {span}").format(span=_span(seen))
                    if seen
                    else _("the file shows no GPU"),
                )
            ]
        )
    gpus = sorted(
        (g.model_copy(update={"index": to_build[g.index]}) for g in meas.machine.gpus if g.index in to_build),
        key=lambda g: g.index,
    )
    out = meas.model_copy(update={"machine": meas.machine.model_copy(update={"gpus": gpus}), "results": kept})
    notes = []
    matched = [(m, b) for m, b in sorted(to_build.items(), key=lambda x: x[1]) if m in seen]
    if matched:
        notes.append(
            _("{file}: {matched}").format(
                file=name,
                matched=_(", ").join(
                    _("measured GPU{measured} compared as the build's GPU{build}").format(measured=m, build=b)
                    for m, b in matched
                ),
            )
        )
    if seen - set(to_build):
        left.insert(0, _("{span} (not in --gpus)").format(span=_span(seen - set(to_build))))
    if left:
        notes.append(_("{file}: left out {what}").format(file=name, what=_("; ").join(left)))
    return out, notes
