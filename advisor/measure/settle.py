"""Settle P2P readiness on the real machine: what the measurement files show of the BIOS,
the kernel and the driver becomes the build's settings, and the readiness layers are judged again.

bar1_mb (lspci's BAR1 region or `nvidia-smi -q` BAR1 Total): at least the card's VRAM means large BAR is
  on; 256 MiB or less means it is off (tinygrad's README: with large BAR, BAR1 maps all of VRAM).
acs_on (lspci ACSCtl): ReqRedir+ on any bridge means ACS redirects peer requests; all ReqRedir- means off.
iommu (the kernel command line): pt, on or off; "default" says nothing.
p2p (`nvidia-smi topo -p2p r`): the driver's own answer for each pair, which settles the driver layer.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from advisor.i18n import _
from advisor.measure.models import Measurement
from advisor.measure.parsers import note_words
from advisor.model.build import Build
from advisor.model.catalog.store import Catalog
from advisor.model.engine import evaluate
from advisor.model.predict import Prediction
from advisor.model.readiness import CHECK_P2P, Layer, PairReadiness, readiness

SMALL_BAR_MIB = 256


@dataclass
class Settled:
    rows: list[PairReadiness]
    read: list[str] = field(default_factory=list)  # what each file settled, in words
    changed: list[tuple[int, int, str]] = field(default_factory=list)  # (a, b, layer) that the files decided


def settle(
    build: Build, pred: Prediction, measurements: list[tuple[str, Measurement]], catalog: Catalog
) -> Settled:
    """Readiness judged with what the files show; the build's own settings where they show nothing."""
    bios: dict = {}
    kernel: dict = {}
    read: list[str] = []
    gpus = {n.index: n for n in pred.machine.gpus}
    bars = [(f, r) for f, m in measurements for r in m.find("bar1_mb") if r.gpu in gpus]
    if bars:
        small = [(f, r) for f, r in bars if int(r.value) <= SMALL_BAR_MIB]
        full = [
            (f, r)
            for f, r in bars
            if gpus[r.gpu].gpu is not None and int(r.value) >= gpus[r.gpu].gpu.vram_gb * 1024 * 0.9
        ]
        if small:
            f, r = small[0]
            bios["rebar"] = False
            read.append(
                _("{file}: GPU{index}'s BAR1 is {mib} MiB: large BAR is off").format(
                    file=f, index=r.gpu, mib=r.value
                )
            )
        elif len(full) == len(bars):
            f, r = full[0]
            bios["rebar"] = True
            read.append(
                _(
                    "{file}: BAR1 of {count} GPU(s) at least the VRAM ({mib} MiB on GPU{index}): large BAR is on"
                ).format(file=f, count=len(full), mib=r.value, index=r.gpu)
            )
    for f, m in measurements:
        for r in m.find("acs_on"):
            bios["acs"] = "on" if r.value else "off"
            read.append(_("{file}: {note}").format(file=f, note=note_words(r.note or "", r.tool)))
        for r in m.find("iommu"):
            if r.value in ("pt", "on", "off"):
                kernel["iommu"] = r.value
                read.append(_("{file}: {note}").format(file=f, note=note_words(r.note or "", r.tool)))
    data = build.model_dump(exclude_unset=True)
    software = dict(data.get("software", {}))
    # what the machine shows outranks what the build assumed
    for name, key in (("large_bar", "rebar"), ("acs", "acs")):
        if key in bios:
            software.pop(name, None)
    if "iommu" in kernel:
        software.pop("iommu", None)
        data.get("bios", {}).pop("iommu", None)
    data["software"] = software
    data["bios"] = {**data.get("bios", {}), **bios}
    data["kernel"] = {**data.get("kernel", {}), **kernel}
    seen = Build.model_validate(data)
    before = {(r.a, r.b): r for r in readiness(pred)}
    rows = readiness(evaluate(seen, catalog))
    out = Settled(rows, read)
    # the driver's own P2P answer for a pair settles the driver layer
    for f, m in measurements:
        if m.source.tool == "topo-p2p" and m.find("p2p"):
            out.read.append(
                _("{file}: the driver's P2P matrix (nvidia-smi topo -p2p) for each pair").format(file=f)
            )
        for r in m.find("p2p"):
            if m.source.tool != "topo-p2p" or r.a is None or r.b is None or r.a >= r.b:
                continue
            row = next((x for x in rows if (x.a, x.b) == (r.a, r.b)), None)
            if row is None:
                continue
            i = next(k for k, x in enumerate(row.layers) if x.layer == "driver")
            row.layers[i] = Layer(
                "driver",
                "PASS" if r.value else "FAIL",
                (
                    _("measured: {file} says OK for GPU{a}-GPU{b} ({note})")
                    if r.value
                    else _("measured: {file} says no for GPU{a}-GPU{b} ({note})")
                ).format(file=f, a=r.a, b=r.b, note=note_words(r.note or "", r.tool)),
                None if r.value else row.layers[i].fix,
                CHECK_P2P,
                row.layers[i].sources,
            )
    for row in rows:
        old = before.get((row.a, row.b))
        for x in row.layers:
            was = next((y for y in old.layers if y.layer == x.layer), None) if old else None
            if was is None or (was.verdict, was.why) != (x.verdict, x.why):
                out.changed.append((row.a, row.b, x.layer))
    return out
