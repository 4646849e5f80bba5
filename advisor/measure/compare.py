"""Predicted vs measured, side by side, with the likely causes of every gap."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field

from advisor.measure.models import Measurement
from advisor.model.predict import Prediction

TOLERANCE = 0.15  # a figure more than 15% off the prediction is flagged


@dataclass
class Row:
    metric: str
    where: str
    predicted: float | str | None
    measured: float | str
    ratio: float | None
    flagged: bool
    causes: list[dict] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"metric": self.metric, "where": self.where, "predicted": self.predicted, "measured": self.measured,
                "ratio": None if self.ratio is None else round(self.ratio, 3), "flagged": self.flagged,
                "causes": self.causes}


def _cause(cid: str, message: str, check: str) -> dict:
    return {"id": cid, "category": "measurement", "severity": "warning", "message": message, "fix": check}


def _gpu_causes(metric: str, ratio: float, gpu) -> list[dict]:
    link = gpu.node.link
    if ratio < 1:
        return [
            _cause("CMP001", f"GPU{gpu.node.index} moves {ratio:.0%} of the predicted host bandwidth: the predicted "
                   f"{link.label} link is the first suspect (trained narrower or at a lower generation, a riser, "
                   "a chipset slot).",
                   "Read `nvidia-smi -q` Link Width / Gen under load (an idle link reads low) or `lspci -vv` LnkSta."),
            _cause("CMP002", "Pinned buffers on the other socket's memory add a hop (NUMA-remote).",
                   "Run the test bound to the GPU's NUMA node (numactl --cpunodebind/--membind)."),
        ]
    return [_cause("CMP003", f"GPU{gpu.node.index} beats the prediction by {ratio - 1:.0%}: the link is better than the "
                   "build says (another slot, or the catalog entry is conservative).",
                   "Check the slot the card is really in; correct the build or the catalog.")]


def _pair_causes(metric: str, ratio: float, pair, measured_p2p: bool | None) -> list[dict]:
    out = []
    if ratio < 1 and pair.p2p:
        out.append(_cause("CMP010", f"GPU{pair.a}-GPU{pair.b}: P2P was predicted but the copy is {ratio:.0%} of it: P2P "
                          "may not be active (ACS redirect, IOMMU translating, driver).",
                          "Check `nvidia-smi topo -p2p r`, ACS (lspci -vvv | grep ACSCtl) and boot with iommu=pt."))
    if ratio > 1 and not pair.p2p:
        out.append(_cause("CMP014", f"GPU{pair.a}-GPU{pair.b}: faster than the predicted staged copy: the GPUs' links to "
                          "host may be wider or newer than the build says (e.g. x16 where x8 was predicted).",
                          "Check each GPU's link (`nvidia-smi -q` under load) against the build's slots."))
        out.append(_cause("CMP011", f"GPU{pair.a}-GPU{pair.b}: faster than a staged copy: P2P seems active (a patched "
                          "driver, or a card the catalog marks without P2P).",
                          "Set `software.driver: patched-p2p` in the build, or check the card's catalog entry."))
    if ratio < 1 and not pair.p2p:
        out.append(_cause("CMP012", f"GPU{pair.a}-GPU{pair.b}: the staged copy is slower than predicted: the links to "
                          "host are narrower than the build says, or other traffic shares them.",
                          "Compare each GPU's H2D with `advisor compare` rows above; check the link widths."))
    if measured_p2p is not None and measured_p2p != pair.p2p:
        out.append(_cause("CMP013", f"The tool says P2P was {'on' if measured_p2p else 'off'} for GPU{pair.a}-GPU{pair.b}; "
                          f"the prediction has it {'on' if pair.p2p else 'off'}.",
                          "Match the build's software settings (driver, IOMMU, ACS) to the machine."))
    return out


def compare(pred: Prediction, meas: Measurement, tolerance: float = TOLERANCE) -> list[Row]:
    rows: list[Row] = []
    gpus = {g.node.index: g for g in pred.gpus}
    for metric, attr in (("h2d_gbps", "h2d"), ("d2h_gbps", "d2h"), ("h2d_all_gbps", "h2d_all"),
                         ("d2h_all_gbps", "d2h_all")):
        by_gpu: dict[int, list[float]] = {}
        for r in meas.find(metric):
            if r.gpu is not None and not (r.note and "pageable" in r.note):  # compare pinned with pinned
                by_gpu.setdefault(r.gpu, []).append(float(r.value))
        for i, values in sorted(by_gpu.items()):
            if i not in gpus:
                continue
            p = getattr(gpus[i], attr).value
            m = round(statistics.median(values), 3)
            ratio = m / p if p else None
            flagged = ratio is not None and abs(ratio - 1) > tolerance
            rows.append(Row(metric, f"GPU{i}", round(p, 2), m, ratio, flagged,
                            _gpu_causes(metric, ratio, gpus[i]) if flagged else []))
    for r in meas.find("link_width") + meas.find("link_gen"):
        if r.gpu in gpus:
            link = gpus[r.gpu].node.link
            p = link.width if r.metric == "link_width" else link.gen
            flagged = int(r.value) < p
            causes = [_cause("CMP004", f"GPU{r.gpu} reports {r.metric.split('_')[1]} {r.value}, predicted {p} "
                             "(an idle link reads low: measure under load).",
                             "Re-read under load; reseat the card; check the slot's sharing footnotes.")] if flagged else []
            rows.append(Row(r.metric, f"GPU{r.gpu}", p, r.value, None, flagged, causes))
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
            m = round(statistics.median(float(r.value) for r in same_mode), 3)
            p = getattr(pair, attr).value
            ratio = m / p if p else None
            flagged = ratio is not None and abs(ratio - 1) > tolerance
            if metric == "latency_us" and ratio is not None:
                ratio = 1 / ratio if ratio else None  # higher latency is worse: keep "below 1 = worse"
            tool_p2p = next((r.p2p for r in same_mode if r.p2p is not None), None)
            causes = _pair_causes(metric, ratio, pair, tool_p2p) if flagged and ratio else []
            rows.append(Row(metric, f"GPU{pair.a}-GPU{pair.b}", round(p, 2) if p else None, m,
                            None if ratio is None else (m / p if p else None), flagged, causes))
    for r in meas.find("path"):
        pair = pairs.get(frozenset((r.a, r.b)))
        if pair is None or (r.a, r.b) != (min(r.a, r.b), max(r.a, r.b)):
            continue
        flagged = str(r.value) != pair.path
        causes = [_cause("CMP020", f"nvidia-smi shows {r.value} for GPU{pair.a}-GPU{pair.b}, predicted {pair.path}: "
                         "the cards are not where the build puts them, or the board is wired differently.",
                         "Describe the machine from `nvidia-smi topo -m` as an explicit topology.")] if flagged else []
        rows.append(Row("path", f"GPU{pair.a}-GPU{pair.b}", pair.path, str(r.value), None, flagged, causes))
    busbw = meas.find("busbw_gbps")
    if busbw and pred.allreduce:
        best = max(busbw, key=lambda r: (r.gpus or 0, float(r.value)))
        p = pred.allreduce.value
        m = float(best.value)
        ratio = m / p if p else None
        flagged = ratio is not None and abs(ratio - 1) > tolerance
        causes = [_cause("CMP030", f"all-reduce at {ratio:.0%} of the prediction: NCCL may use another transport than "
                         f"predicted ({pred.allreduce.inputs.get('transport')} on the slowest hop).",
                         "Run with NCCL_DEBUG=INFO and look for 'via SHM' vs 'via P2P'; try NCCL_P2P_LEVEL=SYS.")] \
            if flagged else []
        rows.append(Row("busbw_gbps", f"{best.gpus or '?'} GPUs", round(p, 2), m, ratio, flagged, causes))
    return rows
