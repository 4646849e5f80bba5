"""Predicted vs measured, side by side, with the likely causes of every gap.

The causes are findings of scope compare (rules/compare.yaml), evaluated on each figure that is off
by more than the tolerance, with the facts of that figure (`row`) and of its GPU or pair. What the
files themselves state about the machine (whether a pair can access its peer, the links the tools read,
NVLink in the topology) is part of the row's facts, so that no cause contradicts them (facts.SUPPOSITIONS).
A file of another shape than the build is refused before anything is compared (advisor.measure.shape).
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field

from advisor.findings.collect import prediction_facts
from advisor.findings.evaluate import compare_rules, evaluate_compare
from advisor.findings.facts import BuildFacts, GpuFacts, PairFacts, RowFacts
from advisor.findings.finding import Finding, Rule
from advisor.measure import shape
from advisor.measure.models import Measurement
from advisor.model.catalog.store import Catalog
from advisor.model.predict import Prediction

TOLERANCE = 0.15  # a figure more than 15% off the prediction is flagged


@dataclass
class Row:
    metric: str
    where: str
    predicted: float | int | str | None
    measured: float | int | str | bool
    ratio: float | None
    flagged: bool
    causes: list[Finding] = field(default_factory=list)


@dataclass
class _Context:
    rules: list[Rule]
    build: BuildFacts
    gpus: dict[int, GpuFacts]
    pairs: dict[frozenset, PairFacts]
    stated: _Stated


# `nvidia-smi topo -p2p` statuses that are about P2P between the two GPUs as a whole, whichever capability
# the matrix was printed for; NS and U may be about one capability (NVLink, atomics) alone
_WHOLE_P2P_STATUS = {"CNS", "GNS", "TNS", "DR"}
_CAPABILITY_P2P = ("P2P read status", "P2P write status", "P2P read and write status", "P2P prop")


@dataclass
class _Stated:
    """What the measurement files state about the machine, whatever figure they are compared on."""

    access: dict[frozenset, set[bool]] = field(default_factory=dict)  # peer access per pair
    now: dict[int, list[tuple[int | None, int | None]]] = field(default_factory=dict)  # link read now
    top: dict[int, list[tuple[int | None, int | None]]] = field(default_factory=dict)  # link maximum
    nvlink: dict[frozenset, set[bool]] = field(default_factory=dict)

    @classmethod
    def of(cls, files: Sequence[Measurement]) -> _Stated:
        out = cls()
        for m in files:
            for g in m.machine.gpus:
                out.now.setdefault(g.index, []).append((g.pcie_gen_current, g.pcie_width_current))
                out.top.setdefault(g.index, []).append((g.pcie_gen_max, g.pcie_width_max))
            for r in m.results:
                if r.metric == "p2p" and r.a is not None and r.b is not None and r.a != r.b:
                    ok = _access(r)
                    if ok is not None:
                        out.access.setdefault(frozenset((r.a, r.b)), set()).add(ok)
                elif (
                    r.metric in ("link_gen", "link_width", "link_gen_max", "link_width_max")
                    and r.gpu is not None
                ):
                    book = out.top if r.metric.endswith("_max") else out.now
                    value = int(r.value)
                    book.setdefault(r.gpu, []).append(
                        (value, None) if r.metric.startswith("link_gen") else (None, value)
                    )
                elif (
                    r.metric == "path"
                    and r.tool in ("topo", "nccl-topo")
                    and r.a is not None
                    and r.b is not None
                ):
                    out.nvlink.setdefault(frozenset((r.a, r.b)), set()).add(str(r.value).startswith("NV"))
        return out

    def peer_access(self, key: frozenset) -> bool | None:
        said = self.access.get(key, set())
        return next(iter(said)) if len(said) == 1 else None  # files that disagree state nothing

    def link(self, gpu: int, gen: int, width: int) -> tuple[bool, bool, bool, bool]:
        """(not below, above, not above, below) for one GPU's link against the predicted gen x width. A
        link reads low at idle and never above what it trained at; its maximum bounds it from above."""
        now = self.now.get(gpu, [])
        top = self.top.get(gpu, [])
        now_gen = max((g for g, _ in now if g is not None), default=None)
        now_width = max((w for _, w in now if w is not None), default=None)
        top_gen = min((g for g, _ in top if g is not None), default=None)
        top_width = min((w for _, w in top if w is not None), default=None)
        not_below = now_gen is not None and now_width is not None and now_gen >= gen and now_width >= width
        above = not_below and (now_gen > gen or now_width > width)  # type: ignore[operator]
        not_above = top_gen is not None and top_width is not None and top_gen <= gen and top_width <= width
        below = (top_gen is not None and top_gen < gen) or (top_width is not None and top_width < width)
        return not_below, above, not_above, below


def _access(r) -> bool | None:
    """Whether a `p2p` result states the pair can (True) or cannot (False) use P2P, or states neither."""
    if r.value:
        return True
    if r.tool != "topo-p2p":  # p2pBandwidthLatencyTest's CANNOT Access Peer, a waived nvbandwidth, NVML
        return False
    note = r.note or ""
    status = re.search(r": ([A-Z]{1,8}) = ", note)
    if note.startswith(_CAPABILITY_P2P) or (status and status.group(1) in _WHOLE_P2P_STATUS):
        return False
    return None


def _link_read(ctx: _Context, gpus: list[int]) -> str:
    reads = []
    for i in gpus:
        g = ctx.gpus.get(i)
        if g is None:
            return "unknown"
        reads.append(ctx.stated.link(i, g.gen, g.width))
    not_below = all(r[0] for r in reads)
    not_above = all(r[2] for r in reads)
    if not_below and not_above:
        return "as predicted"
    if not_below:
        return "above" if any(r[1] for r in reads) else "not below"
    if not_above:
        return "below" if any(r[3] for r in reads) else "not above"
    if len(reads) == 1 and reads[0][3]:
        return "below"
    return "unknown"


def _nvlink_read(ctx: _Context, pair: PairFacts | None) -> str:
    if pair is None:
        return "unknown"
    said = ctx.stated.nvlink.get(frozenset((pair.a, pair.b)), set())
    if len(said) != 1:
        return "unknown"
    measured, predicted = next(iter(said)), pair.path.startswith("NV")
    if measured == predicted:
        return "as predicted"
    return "extra" if measured else "missing"


def _causes(
    ctx: _Context,
    row: Row,
    kind: str,
    oriented: float | None,
    gpu: GpuFacts | None = None,
    pair: PairFacts | None = None,
    tool_p2p: bool | None = None,
    transport: str = "",
    copy: str = "unknown",
) -> list[Finding]:
    if not row.flagged:
        return []
    ratio = oriented or 0.0
    if pair is not None and ctx.stated.peer_access(frozenset((pair.a, pair.b))) is False:
        tool_p2p = False  # a pair that cannot access its peer copied through host memory, whatever the mode
    where = [gpu.index] if gpu is not None else [pair.a, pair.b] if pair is not None else []
    facts = RowFacts(
        metric=row.metric,
        kind=kind,
        quantity=row.metric.removesuffix("_gbps").removesuffix("_us").removeprefix("link_"),
        where=row.where,
        predicted=str(row.predicted),
        measured=str(row.measured),
        ratio=round(ratio, 3),
        pct=round(100 * ratio),
        off_pct=round(100 * abs(ratio - 1)),
        slower=0 < ratio < 1,
        faster=ratio > 1,
        tool_p2p="unknown" if tool_p2p is None else ("on" if tool_p2p else "off"),
        predicted_p2p="unknown" if pair is None else ("on" if pair.p2p else "off"),
        transport=transport,
        copy_kind=copy,
        link_read=_link_read(ctx, where) if where else "unknown",
        nvlink_read=_nvlink_read(ctx, pair),
    )
    return evaluate_compare(ctx.rules, ctx.build, facts, gpu, pair)


def compare(
    pred: Prediction,
    meas: Measurement,
    tolerance: float = TOLERANCE,
    catalog: Catalog | None = None,
    context: Sequence[Measurement] = (),
    mapped: bool = False,
    rule_dirs: tuple[str, ...] = (),
) -> list[Row]:
    """The figures of `meas` set against the prediction. `context`: the other files given with it, whose
    statements about the machine (peer access, links, NVLink) also rule causes out. A file of another
    shape than the build is refused (UserError), never half-compared; `mapped`: it was matched to the
    build by the user's GPU map (shape.apply_map)."""
    shape.check(
        meas, sorted(g.node.index for g in pred.gpus), meas.source.file, mapped, pred.machine.node_count
    )
    build, gpu_facts, pair_facts = prediction_facts(pred, catalog)
    pairs_by_key = {frozenset((p.a, p.b)): p for p in pair_facts}
    stated = _Stated.of([meas, *[m for m in context if m is not meas]])
    ctx = _Context(compare_rules(rule_dirs), build, {g.index: g for g in gpu_facts}, pairs_by_key, stated)
    rows: list[Row] = []
    gpus = {g.node.index: g for g in pred.gpus}
    for metric, attr in (
        ("h2d_gbps", "h2d"),
        ("d2h_gbps", "d2h"),
        ("h2d_all_gbps", "h2d_all"),
        ("d2h_all_gbps", "d2h_all"),
    ):
        # copy engines (cudaMemcpy, nvbandwidth *_ce) are what the prediction models; nvbandwidth's SM copy
        # kernels (*_sm) are compared only where no copy-engine figure was measured, and said so
        by_gpu: dict[int, dict[str, list[float]]] = {}
        for r in meas.find(metric):
            if r.gpu is not None and not (r.note and "pageable" in r.note):  # compare pinned with pinned
                kind = "sm" if r.note and "_memcpy_sm" in r.note else "ce"
                by_gpu.setdefault(r.gpu, {}).setdefault(kind, []).append(float(r.value))
        for i, kinds in sorted(by_gpu.items()):
            if i not in gpus:
                continue
            copy = "ce" if "ce" in kinds else "sm"
            p = getattr(gpus[i], attr).value
            m = round(statistics.median(kinds[copy]), 3)
            ratio = m / p if p else None
            row = Row(
                metric, f"GPU{i}", round(p, 2), m, ratio, ratio is not None and abs(ratio - 1) > tolerance
            )
            row.causes = _causes(ctx, row, "host", ratio, gpu=ctx.gpus[i], copy=copy)
            rows.append(row)
    for r in meas.find("link_width") + meas.find("link_gen"):
        if r.gpu in gpus:
            link = gpus[r.gpu].node.link
            p = link.width if r.metric == "link_width" else link.gen
            row = Row(r.metric, f"GPU{r.gpu}", p, r.value, None, int(r.value) < p)
            row.causes = _causes(ctx, row, "link", None, gpu=ctx.gpus[r.gpu])
            rows.append(row)
    pairs = {frozenset((p.a, p.b)): p for p in pred.pairs}
    for metric, attr in (("uni_gbps", "uni"), ("bidi_gbps", "bidi"), ("latency_us", "latency")):
        grouped: dict[frozenset, list] = {}
        for r in meas.find(metric):
            if r.a is not None and r.b is not None and r.a != r.b:
                grouped.setdefault(frozenset((r.a, r.b)), []).append(r)
        for key, results in sorted(grouped.items(), key=lambda kv: sorted(kv[0])):
            pair = pairs.get(key)
            if pair is None:
                continue
            # compare like with like: the P2P mode the prediction assumes, where the tool gives both
            same_mode = [r for r in results if r.p2p is None or r.p2p == pair.p2p] or results
            if metric == "latency_us":
                # the latency constants are p2pBandwidthLatencyTest's GPU-timed figures; its CPU-timed
                # table (wall clock, another quantity) is compared only where no GPU-timed one exists
                gpu_timed = [r for r in same_mode if not (r.note and "CPU-timed" in r.note)]
                same_mode = gpu_timed or same_mode
            m = round(statistics.median(float(r.value) for r in same_mode), 3)
            p = getattr(pair, attr).value
            ratio = m / p if p else None
            row = Row(
                metric,
                f"GPU{pair.a}-GPU{pair.b}",
                round(p, 2) if p else None,
                m,
                ratio,
                ratio is not None and abs(ratio - 1) > tolerance,
            )
            # higher latency is worse: the causes see the ratio turned so that below 1 is worse
            oriented = (1 / ratio if ratio else None) if metric == "latency_us" else ratio
            tool_p2p = next((r.p2p for r in same_mode if r.p2p is not None), None)
            if oriented:
                row.causes = _causes(ctx, row, "pair", oriented, pair=ctx.pairs[key], tool_p2p=tool_p2p)
            rows.append(row)
    for r in meas.find("path"):
        pair = pairs.get(frozenset((r.a, r.b)))
        if pair is None or (r.a, r.b) != (min(r.a, r.b), max(r.a, r.b)):
            continue
        want = pair.nvml_path  # as nvidia-smi and NVML print it
        if r.tool == "nccl-topo":  # NCCL's classes: NODE is its PHB, NV# its NVL
            from advisor.measure.parsers.ncclxml import nccl_class

            want = nccl_class(pair.nccl_path)
        row = Row("path", f"GPU{pair.a}-GPU{pair.b}", want, str(r.value), None, str(r.value) != want)
        row.causes = _causes(ctx, row, "path", None, pair=ctx.pairs[frozenset((r.a, r.b))])
        rows.append(row)
    for r in meas.find("nccl_transport"):
        pair = pairs.get(frozenset((r.a, r.b)))
        if pair is None or (r.a, r.b) != (min(r.a, r.b), max(r.a, r.b)):
            continue
        want = "P2P" if pair.nccl_transport == "NVLink" else pair.nccl_transport  # NCCL logs NVLink as P2P
        row = Row(
            "nccl_transport", f"GPU{pair.a}-GPU{pair.b}", want, str(r.value), None, str(r.value) != want
        )
        row.causes = _causes(ctx, row, "transport", None, pair=ctx.pairs[frozenset((r.a, r.b))])
        rows.append(row)
    # the prediction is an all-reduce over every GPU of the build: other collectives (all_gather,
    # broadcast, ...) in the same file are other quantities; shape.check has refused other rank counts
    busbw = [r for r in meas.find("busbw_gbps") if _all_reduce(r.note)]
    if busbw and pred.allreduce:
        best = max(busbw, key=lambda r: float(r.value))
        p = pred.allreduce.value
        m = float(best.value)
        ratio = m / p if p else None
        row = Row(
            "busbw_gbps",
            f"{best.gpus or '?'} GPUs",
            None if p is None else round(p, 2),  # a hop's rate may rest on a null catalog value
            m,
            ratio,
            ratio is not None and abs(ratio - 1) > tolerance,
        )
        row.causes = _causes(
            ctx,
            row,
            "allreduce",
            ratio,
            transport=str(pred.allreduce.transport.value if pred.allreduce.transport else None),
        )
        rows.append(row)
    return rows


def _all_reduce(note: str | None) -> bool:
    """Whether a busbw figure is an all-reduce: nccl-tests names its binary first ('all_gather_perf: ...'),
    and a table whose collective the file does not name is taken for the all-reduce it usually is."""
    name = (note or "").split(":", 1)[0]
    return not (name.endswith("_perf") and name != "all_reduce_perf")
