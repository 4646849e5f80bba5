"""P2P readiness: for each GPU pair, the layers that decide whether peer-to-peer is really used,
in order, each PASS, FAIL or UNKNOWN with the reason, the fix, the command that settles it on the real
machine, and the sources it rests on.

hardware  the PCIe (or NVLink) path and its class, as `nvidia-smi topo -m` prints it
driver    stock or patched driver, and the patched driver's prerequisites (large BAR, BAR1 >= VRAM, MMIO
          above 4G, IOMMU passthrough or off, no display on a patched 5090, one GPU generation)
acs       ACS on the bridges of the path (switch ports, root ports)
nccl      the transport NCCL picks for the pair, from its P2P level
engine    the serving engine's own gate (vLLM / SGLang custom all-reduce), when the build names one

A value the build does not state stays UNKNOWN: the predictions assume the common setting (large BAR on,
IOMMU passthrough, ACS off) and say so, and readiness says what to run to know.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from advisor.i18n import N_, _
from advisor.model.machine import Machine, Node
from advisor.model.p2p_sources import AIKITORIA, NCCL_ACS, TINYGRAD, VM_HANG, VM_P2P
from advisor.model.predict import PairPrediction, Prediction

Verdict = Literal["PASS", "FAIL", "UNKNOWN"]

AIKITORIA_DISPLAY = "https://github.com/aikitoria/open-gpu-kernel-modules/issues/11"
NCCL_PATHS = "https://github.com/NVIDIA/nccl/blob/master/src/graph/paths.cc"
NCCL_ENV = "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-p2p-level"
SMI = "https://docs.nvidia.com/deploy/nvidia-smi/index.html"
FABRIC_MANAGER = "https://docs.nvidia.com/datacenter/tesla/fabric-manager-user-guide"
WDDM = "https://github.com/ikawrakow/ik_llama.cpp/issues/629"
VM_CLIQUE = "https://github.com/cloud-hypervisor/cloud-hypervisor/pull/6235"
VLLM_CAR = (
    "https://github.com/vllm-project/vllm/blob/00d618aab60448acdf3fac3e9c4e2e22d0c6c753/"
    "vllm/distributed/device_communicators/custom_all_reduce.py"
)
SGLANG_CAR = (
    "https://github.com/sgl-project/sglang/blob/004e6561cb8ae26d62166c15782955f99f058274/"
    "python/sglang/srt/distributed/device_communicators/custom_all_reduce.py"
)
NVIDIA_ARCHS = ("turing", "ampere", "ada", "hopper", "blackwell")
# vLLM and SGLang: CustomAllreduce._SUPPORTED_WORLD_SIZES and max_size=8192 * 1024 (bytes)
ENGINE_WORLD_SIZES = (2, 4, 6, 8)
ENGINE_MAX_BYTES = 8192 * 1024


def custom_all_reduce_runs(n: int, all_nvlink: bool, cuda_p2p: bool) -> bool:
    """vLLM's and SGLang's gates for their custom all-reduce (custom_all_reduce.py): CUDA P2P by their
    own check, 2, 4, 6 or 8 GPUs, and NVLink between all of them beyond 2. The engine layer below
    says which gate fails; the workload model predicts with the kernel where all pass."""
    return cuda_p2p and n in ENGINE_WORLD_SIZES and (n == 2 or all_nvlink)


CHECK_TOPO = "nvidia-smi topo -m"
CHECK_P2P = "nvidia-smi topo -p2p r"
CHECK_BAR1 = "nvidia-smi -q -d MEMORY | grep -A3 BAR1"
CHECK_CMDLINE = "cat /proc/cmdline; sudo dmesg | grep -i -e iommu -e DMAR -e AMD-Vi"
CHECK_ACS = "sudo lspci -vvv | grep -E '^[0-9a-f]|ACSCtl'"
CHECK_DISPLAY = "nvidia-smi --query-gpu=index,display_active --format=csv"
CHECK_NCCL = "NCCL_DEBUG=INFO <your job> 2>&1 | grep -E 'via (P2P|SHM|NET)'"


# each layer's name as a reader sees it (the JSON keeps the layer's id)
LAYER_NAMES = {
    "hardware": N_("hardware"),
    "driver": N_("driver"),
    "acs": N_("ACS"),
    "nccl": N_("NCCL"),
    "engine": N_("serving engine"),
}


def layer_name(layer: str) -> str:
    """A layer's name in the current language: 'hardware', 'driver', 'ACS', 'NCCL'."""
    from advisor.i18n import language

    if language() == "en" or layer not in LAYER_NAMES:
        return layer  # English shows the id itself, as it always did
    return _(LAYER_NAMES[layer])


@dataclass
class Layer:
    layer: str
    verdict: Verdict
    why: str
    fix: str | None = None
    check: str | None = None  # the command that settles it on the real machine
    sources: list[str] = field(default_factory=list)
    generic: str | None = None  # `why` without the pair's own names, for pairs shown together


@dataclass
class PairReadiness:
    a: int
    b: int
    path: str
    layers: list[Layer]

    @property
    def verdict(self) -> Verdict:
        verdicts = [x.verdict for x in self.layers]
        return "FAIL" if "FAIL" in verdicts else "UNKNOWN" if "UNKNOWN" in verdicts else "PASS"

    @property
    def summary(self) -> str:
        fails = [x.layer for x in self.layers if x.verdict == "FAIL"]
        unknown = [x.layer for x in self.layers if x.verdict == "UNKNOWN"]
        if fails:
            return _("P2P not used: stopped at {layer}").format(layer=layer_name(fails[0]))
        if unknown:
            return _("P2P likely, not yet settled: {layers}").format(
                layers=", ".join(layer_name(x) for x in unknown)
            )
        return _("P2P is used end to end")


def _combine(layer: str, items: list[Layer]) -> Layer:
    """One layer from its checks: the first FAIL, else the UNKNOWNs, else the PASSes; fixes and checks kept."""
    for verdict in ("FAIL", "UNKNOWN", "PASS"):
        chosen = [i for i in items if i.verdict == verdict]
        if chosen:
            break
    fixes = list(dict.fromkeys(i.fix for i in chosen if i.fix))
    checks = list(dict.fromkeys(i.check for i in chosen if i.check))
    sources = list(dict.fromkeys(s for i in chosen for s in i.sources))
    return Layer(
        layer,
        verdict,  # type: ignore[arg-type]
        "; ".join(i.why for i in chosen),
        " ".join(fixes) or None,
        "; ".join(checks) or None,
        sources,
        "; ".join(dict.fromkeys(i.generic or i.why for i in chosen)),
    )


def _is_nvidia(n: Node) -> bool:
    return n.gpu is not None and n.gpu.architecture in NVIDIA_ARCHS


def _bridges(pred: Prediction, pair: PairPrediction) -> tuple[list[str], bool]:
    """The bridges on the pair's PCIe path (switches and root ports / host bridges) and whether a switch
    is among them."""
    from advisor.model.graph import pcie_path

    g, m = pred.graph, pred.machine
    a, b = (next(n for n in m.gpus if n.index == i) for i in (pair.a, pair.b))
    route = pcie_path(g, a.id, b.id)
    kinds = [(g.nodes[n]["kind"], g.nodes[n]["label"]) for n in route[1:-1]]
    switches = [label for kind, label in kinds if kind == "switch"]
    rooted = [label for kind, label in kinds if kind == "root_port"]
    names = switches or rooted or [label for kind, label in kinds if kind == "host_bridge"]
    return list(dict.fromkeys(names)), bool(switches)


def _hardware(pred: Prediction, pair: PairPrediction, a: Node, b: Node) -> Layer:
    if not (_is_nvidia(a) and _is_nvidia(b)):
        other = a if not _is_nvidia(a) else b
        return Layer(
            "hardware",
            "UNKNOWN",
            _("{gpu} is not an NVIDIA card: advisor models peer-to-peer for NVIDIA GPUs only").format(
                gpu=other.gpu.name if other.gpu else _("an unknown GPU")
            ),
            check=CHECK_TOPO,
        )
    p = pair.path
    generic = None
    if p.startswith("NV"):
        why = (
            _("the baseboard's NVSwitch joins them ({path}, every GPU to every other)")
            if pred.machine.nvswitch
            else _("an NVLink bridge joins them ({path})")
        ).format(path=p)
    elif p in ("PIX", "PXB"):
        names, _switched = _bridges(pred, pair)
        shown = ", ".join(n if n.lower().startswith("switch") else f"switch {n}" for n in names) or "?"
        why = _("{path}: through PCIe {switches}, below the CPU").format(path=p, switches=shown)
        generic = (
            _("{path}: through PCIe switches, below the CPU")
            if p == "PXB"
            else _("{path}: through a PCIe switch, below the CPU")
        ).format(path=p)
    elif p == "PHB":
        why = _("PHB: through the CPU's host bridge (the root complex)")
    elif p == "NODE":
        why = _("NODE: through the CPU, between two of its root complexes")
        if pair.nvml_path == "SYS":
            why = (
                _(
                    "NODE: through the CPU, between two of its root complexes (nvidia-smi prints SYS: NPS4 puts them in two NUMA nodes)"
                )
                if "NPS4" in pair.nccl_reason
                else _(
                    "NODE: through the CPU, between two of its root complexes (nvidia-smi prints SYS: a single-socket workstation reports no NUMA affinity)"
                )
            )
    else:
        link = pred.machine.inter_socket or _("inter-socket link")
        why = _("SYS: across the sockets over {link}").format(link=link)
    return Layer("hardware", "PASS", why, check=CHECK_TOPO, sources=[SMI], generic=generic)


def _prereqs(m: Machine, n: Node, other: Node) -> list[Layer]:
    """The patched driver's prerequisites for one GPU of the pair."""
    sw, bios = m.software, m.build.bios if m.build else None
    gpu = n.gpu
    assert gpu is not None
    out: list[Layer] = []
    vram = f"{gpu.vram_gb:g} GB"
    if sw.known("large_bar") and not sw.large_bar:
        out.append(
            Layer(
                "driver",
                "FAIL",
                _(
                    "the patched driver maps GPU memory through BAR1, which needs large (Resizable) BAR; "
                    "it is off, so BAR1 is 256 MB, not the {vram} the card has"
                ).format(vram=vram),
                _("Turn on Resizable BAR (and Above 4G Decoding) in the BIOS."),
                CHECK_BAR1,
                [TINYGRAD],
            )
        )
    elif not sw.known("large_bar"):
        out.append(
            Layer(
                "driver",
                "UNKNOWN",
                _(
                    "the patched driver needs large (Resizable) BAR, with BAR1 at least the {vram} of VRAM; "
                    "the build does not say whether it is on"
                ).format(vram=vram),
                _("Say it in the build ({setting}) once you know.").format(setting="bios: {rebar: true}"),
                _("{command}   (Total should read at least {mib} MiB)").format(
                    command=CHECK_BAR1, mib=f"{gpu.vram_gb * 1024:.0f}"
                ),
                [TINYGRAD],
            )
        )
    if bios is not None and bios.above_4g is False:
        out.append(
            Layer(
                "driver",
                "FAIL",
                _(
                    "Above 4G Decoding is off: a {vram} BAR1 cannot be placed below 4 GB of address space"
                ).format(vram=vram),
                _("Turn on Above 4G Decoding (often named 'Above 4G' or 'MMIO above 4G') in the BIOS."),
                CHECK_BAR1,
                [TINYGRAD],
            )
        )
    if sw.known("iommu") and sw.iommu == "on":
        out.append(
            Layer(
                "driver",
                "FAIL",
                _(
                    "the IOMMU translates DMA: the patched driver's P2P writes go through its page tables and fail"
                ),
                _(
                    "Add iommu=pt to the kernel command line (amd_iommu=on iommu=pt, or intel_iommu=on iommu=pt), "
                    "or turn the IOMMU off in the BIOS."
                ),
                CHECK_CMDLINE,
                [AIKITORIA],
            )
        )
    elif not sw.known("iommu"):
        out.append(
            Layer(
                "driver",
                "UNKNOWN",
                _(
                    "the patched driver needs the IOMMU in passthrough (iommu=pt) or off; the build does not say"
                ),
                _("Say it in the build ({setting}) once you know.").format(setting="kernel: {iommu: pt}"),
                CHECK_CMDLINE,
                [AIKITORIA],
            )
        )
    if other.gpu is not None and other.gpu.architecture != gpu.architecture:
        out.append(
            Layer(
                "driver",
                "FAIL",
                _(
                    "{gpu} and {other} are of different generations: the patched driver gives P2P "
                    "only within one generation"
                ).format(gpu=gpu.name, other=other.gpu.name),
                _("Pair cards of the same generation."),
                CHECK_P2P,
                [AIKITORIA],
            )
        )
    if not out or all(x.verdict == "PASS" for x in out):
        out.append(
            Layer(
                "driver",
                "PASS",
                _("patched driver on {gpu}: large BAR on and the IOMMU out of the way").format(gpu=gpu.name),
                sources=[AIKITORIA],
            )
        )
    return out


def _display(m: Machine, a: Node, b: Node) -> list[Layer]:
    """P2P between patched RTX 5090s fails when one of them drives a display
    (aikitoria/open-gpu-kernel-modules#11)."""
    fives = [n for n in (a, b) if n.gpu and n.gpu.architecture == "blackwell" and n.gpu.segment == "geforce"]
    if len(fives) < 2:
        return []
    shown = m.software.display_gpus
    names = " or ".join(f"GPU{n.index}" for n in fives)
    if shown is None:
        return [
            Layer(
                "driver",
                "UNKNOWN",
                _(
                    "whether {gpus} drives a display is not known: P2P between patched 5090s fails when one "
                    "has a monitor"
                ).format(gpus=names),
                _("Say it in the build ({setting}) once you know.").format(
                    setting="software: {display_gpus: []}"
                ),
                CHECK_DISPLAY,
                [AIKITORIA_DISPLAY],
                _(
                    "whether either GPU drives a display is not known: P2P between patched 5090s fails when one "
                    "has a monitor"
                ),
            )
        ]
    on = [n for n in fives if n.index in shown]
    if on:
        return [
            Layer(
                "driver",
                "FAIL",
                _(
                    "GPU{index} drives a display: P2P between patched 5090s fails when one has a monitor"
                ).format(index=on[0].index),
                _("Drive the display from another GPU (or the CPU's graphics), not a P2P card."),
                CHECK_DISPLAY,
                [AIKITORIA_DISPLAY],
            )
        ]
    return []


def _driver(m: Machine, pair: PairPrediction, a: Node, b: Node) -> Layer:
    if not (_is_nvidia(a) and _is_nvidia(b)):
        return Layer("driver", "UNKNOWN", _("not an NVIDIA pair: no driver model"))
    if pair.path.startswith("NV") and m.software.cuda_p2p and m.nvswitch:
        return Layer(
            "driver",
            "PASS",
            _(
                "NVLink peer access through the NVSwitch is granted by the stock driver with NVIDIA Fabric Manager "
                "running (an NVSwitch system needs it before CUDA can use the GPUs)"
            ),
            _("Install and start nvidia-fabricmanager, of the driver's own version."),
            "systemctl status nvidia-fabricmanager",
            [FABRIC_MANAGER],
        )
    if pair.path.startswith("NV") and m.software.cuda_p2p:
        return Layer("driver", "PASS", _("NVLink peer access is granted by the stock driver"), sources=[SMI])
    sw = m.software
    if not sw.cuda_p2p:
        return Layer(
            "driver",
            "FAIL",
            _("the program does not enable peer access (P2P=Disabled)"),
            _("Enable peer access (cudaDeviceEnablePeerAccess; frameworks do it themselves)."),
        )
    if sw.os == "windows":
        return Layer(
            "driver",
            "FAIL",
            _(
                "Windows runs the GPUs under the WDDM driver model, where the driver grants no peer access "
                "('CANNOT Access Peer'): every copy is staged through host memory, ~40 us a hop"
            ),
            _("Run the machine on Linux for multi-GPU work."),
            CHECK_P2P,
            [WDDM],
        )
    if sw.virtualization == "vm":
        return Layer(
            "driver",
            "FAIL",
            _(
                "in a virtual machine the guest's emulated host bridge is not on the driver's chipset list, so "
                "it refuses peer access (nvidia-smi topo -p2p r reads CNS)"
            ),
            _(
                "Pass the GPUs through with x-nv-gpudirect-clique=0 on every one (QEMU's vfio-pci option; "
                "Proxmox: args:), then check that topo -p2p r reads OK; or run on bare metal."
            ),
            CHECK_P2P,
            [VM_P2P, VM_CLIQUE],
        )
    items: list[Layer] = []
    if sw.virtualization == "vm-clique":
        geforce = [n.gpu.name for n in (a, b) if n.gpu is not None and not n.gpu.p2p.stock_linux]
        if geforce:
            return Layer(
                "driver",
                "FAIL",
                _(
                    "in the VM the clique makes the driver grant P2P between {gpu}s, but the copies do "
                    "not arrive (the peer mapping is a private mirror) and NCCL's first collective hangs"
                ).format(gpu=geforce[0]),
                _("Set NCCL_P2P_DISABLE=1 in the guest, or run the GeForce cards on bare metal."),
                CHECK_P2P,
                [VM_HANG, VM_P2P],
            )
        items.append(
            Layer(
                "driver",
                "PASS",
                _("x-nv-gpudirect-clique tells the driver in the VM that the GPUs can reach each other"),
                check=CHECK_P2P,
                sources=[VM_CLIQUE],
            )
        )
    seen = set()
    for n, other in ((a, b), (b, a)):
        gpu = n.gpu
        assert gpu is not None
        if gpu.p2p.stock_linux:
            if gpu.id not in seen:
                items.append(
                    Layer(
                        "driver",
                        "PASS",
                        _("the stock driver grants PCIe peer access on {gpu}").format(gpu=gpu.name),
                        check=CHECK_P2P,
                        sources=[s for s in gpu.sources if "nvidia" in s][:1],
                    )
                )
        elif sw.driver == "patched-p2p" and gpu.p2p.patched_driver:
            items.extend(_prereqs(m, n, other))
        elif sw.driver == "patched-p2p":
            items.append(
                Layer(
                    "driver",
                    "FAIL",
                    _("no patched driver is known to enable P2P on {gpu}").format(gpu=gpu.name),
                    _(
                        "Use cards the stock or patched driver supports (the patched module: RTX 3090/4090/5090)."
                    ),
                    CHECK_P2P,
                    [AIKITORIA],
                )
            )
        else:
            fix = (
                _(
                    "Workstation cards have P2P on the stock driver (P2P001 names catalog cards that plan on this "
                    "build); on this card only the patched open kernel module enables it (Resizable BAR on, IOMMU "
                    "passthrough), at your own risk."
                )
                if gpu.p2p.patched_driver
                else _(
                    "Workstation cards have P2P on the stock driver (P2P001 names catalog cards that plan on "
                    "this build)."
                )
            )
            if gpu.id not in seen:
                items.append(
                    Layer(
                        "driver",
                        "FAIL",
                        _("the stock Linux driver never grants PCIe P2P on {gpu}").format(gpu=gpu.name),
                        fix,
                        CHECK_P2P,
                        [AIKITORIA] if gpu.p2p.patched_driver else [],
                    )
                )
        seen.add(gpu.id)
    if sw.driver == "patched-p2p":
        items.extend(_display(m, a, b))
    # the same prerequisite for both GPUs reads once
    unique: list[Layer] = []
    for i in items:
        if not any(u.why == i.why for u in unique):
            unique.append(i)
    return _combine("driver", unique)


def _acs(pred: Prediction, pair: PairPrediction, a: Node, b: Node) -> Layer:
    if not (_is_nvidia(a) and _is_nvidia(b)):
        return Layer("acs", "UNKNOWN", _("not an NVIDIA pair"), check=CHECK_ACS)
    if pair.path.startswith("NV"):
        return Layer("acs", "PASS", _("NVLink traffic crosses no PCIe bridge"))
    names, switched = _bridges(pred, pair)
    where = ", ".join(names) or _("the root ports")
    sw = pred.machine.software
    if not sw.known("acs"):
        if switched:
            why = _(
                "whether ACS is on at {where} is not known: on a switch it redirects peer traffic up to the "
                "root complex"
            )
            generic = _(
                "whether ACS is on at the switch ports of the path is not known: on a switch it redirects "
                "peer traffic up to the root complex"
            )
        else:
            why = _("whether ACS is on at {where} is not known")
            generic = _("whether ACS is on at the root ports of the path is not known")
        return Layer(
            "acs",
            "UNKNOWN",
            why.format(where=where),
            _("Say it in the build ({setting}) once you know.").format(setting="bios: {acs: off}"),
            _("{command}   ('ReqRedir+' on a bridge of the path means ACS redirects peer requests)").format(
                command=CHECK_ACS
            ),
            [NCCL_ACS, AIKITORIA],
            generic,
        )
    if sw.acs == "off":
        return Layer(
            "acs",
            "PASS",
            _("ACS is off at {where}").format(where=where),
            sources=[NCCL_ACS],
            generic=_("ACS is off at the switch ports") if switched else _("ACS is off at the root ports"),
        )
    if switched:
        return Layer(
            "acs",
            "FAIL",
            _(
                "ACS is on at {where}: peer requests are redirected up to the root complex (about half the "
                "bandwidth), and NCCL can hang when the IOMMU blocks them"
            ).format(where=where),
            _(
                "Turn ACS off in the BIOS, or clear it on each bridge of the path "
                "(sudo setpci -s <bridge> ECAP_ACS+0x6.w=0000; it resets at reboot), on a machine that runs no "
                "untrusted VMs."
            ),
            CHECK_ACS,
            [NCCL_ACS, AIKITORIA],
            _(
                "ACS is on at the switch ports of the path: peer requests are redirected up to the root complex "
                "(about half the bandwidth), and NCCL can hang when the IOMMU blocks them"
            ),
        )
    on = _(
        "ACS is on at {where}; this pair's traffic crosses the root complex anyway, but the patched-driver "
        "authors report ACS on root ports slowing P2P: turn it off if P2P measures slow"
    )
    return Layer(
        "acs",
        "PASS",
        on.format(where=where),
        check=CHECK_ACS,
        sources=[AIKITORIA],
        generic=on.format(where=_("the root ports")),
    )


def _nccl(pair: PairPrediction, a: Node, b: Node) -> Layer:
    if not (_is_nvidia(a) and _is_nvidia(b)):
        return Layer("nccl", "UNKNOWN", _("NCCL runs on NVIDIA GPUs only (RCCL, oneCCL are not modelled)"))
    if pair.nccl_p2p:
        return Layer(
            "nccl",
            "PASS",
            _("NCCL uses {transport}: {reason}").format(
                transport=pair.nccl_transport, reason=pair.nccl_reason
            ),
            check=CHECK_NCCL,
            sources=[NCCL_PATHS, NCCL_ENV],
        )
    if pair.p2p:
        if "NCCL_P2P_DISABLE" in pair.nccl_reason:
            fix = _("Unset NCCL_P2P_DISABLE (it was a workaround for an early GeForce driver bug).")
        else:
            fix = _(
                "Set NCCL_P2P_LEVEL={level} to let NCCL use P2P on this path; measure it with nccl-tests "
                "before and after."
            ).format(level="SYS" if pair.path == "SYS" else _("SYS (or {path})").format(path=pair.path))
    else:
        fix = _("Settle the driver layer first: without CUDA P2P NCCL always stages through host memory.")
    return Layer(
        "nccl",
        "FAIL",
        _("NCCL falls back to SHM (through host memory): {reason}").format(reason=pair.nccl_reason),
        fix,
        CHECK_NCCL,
        [NCCL_PATHS, NCCL_ENV],
    )


def _engine(pred: Prediction, pair: PairPrediction, driver: Layer) -> Layer | None:
    sw = pred.machine.software
    if sw.engine not in ("vllm", "sglang"):  # TensorRT-LLM's all-reduce plugin has gates of its own
        return None
    name = {"vllm": "vLLM", "sglang": "SGLang"}[sw.engine]
    src = [VLLM_CAR if sw.engine == "vllm" else SGLANG_CAR]
    n = len(pred.machine.gpus)
    flag = "--disable-custom-all-reduce"
    cap = f"{ENGINE_MAX_BYTES // (1024 * 1024)} MiB"
    all_nvlink = all(p.path.startswith("NV") for p in pred.pairs)
    if n not in ENGINE_WORLD_SIZES:
        return Layer(
            "engine",
            "FAIL",
            _(
                "{engine}'s custom all-reduce supports 2, 4, 6 or 8 GPUs, not {n}: every all-reduce goes to NCCL"
            ).format(engine=name, n=n),
            _(
                "Serve with tensor parallel over 2, 4, 6 or 8 GPUs, or pass {flag} to silence the warning."
            ).format(flag=flag),
            sources=src,
        )
    if n > 2 and not all_nvlink:
        return Layer(
            "engine",
            "FAIL",
            _(
                "{engine} turns its custom all-reduce off on more than two PCIe-only GPUs ({n} here): every "
                "all-reduce goes to NCCL, whose transport is the layer above"
            ).format(engine=name, n=n),
            _(
                "Nothing turns it on for {n} PCIe GPUs; tensor parallel over 2 with pipeline or data parallel "
                "across pairs keeps it. Pass {flag} to silence the warning."
            ).format(n=n, flag=flag),
            sources=src,
        )
    if driver.verdict == "FAIL":
        return Layer(
            "engine",
            "FAIL",
            _(
                "{engine}'s custom all-reduce needs P2P, and its P2P check fails here: all-reduces go to NCCL"
            ).format(engine=name),
            _("Settle the driver layer first."),
            check=_(
                "{engine} logs 'Custom allreduce is disabled because your platform lacks GPU P2P capability'"
            ).format(engine=name),
            sources=src,
        )
    verdict: Verdict = "UNKNOWN" if driver.verdict == "UNKNOWN" else "PASS"
    return Layer(
        "engine",
        verdict,
        (
            _(
                "{engine} uses its custom all-reduce (P2P) for all-reduces under {cap} (decode steps); larger "
                "ones (long prefills) go to NCCL; it runs only if the driver layer passes"
            )
            if verdict == "UNKNOWN"
            else _(
                "{engine} uses its custom all-reduce (P2P) for all-reduces under {cap} (decode steps); larger "
                "ones (long prefills) go to NCCL"
            )
        ).format(engine=name, cap=cap),
        None,
        _("{engine}'s log at start-up: no 'Custom allreduce is disabled' warning").format(engine=name),
        src,
    )


def readiness(pred: Prediction) -> list[PairReadiness]:
    """Every GPU pair's P2P layers, in pair order."""
    m = pred.machine
    by_index = {n.index: n for n in m.gpus}
    out = []
    for pair in pred.pairs:
        a, b = by_index[pair.a], by_index[pair.b]
        driver = _driver(m, pair, a, b)
        layers = [_hardware(pred, pair, a, b), driver, _acs(pred, pair, a, b), _nccl(pair, a, b)]
        engine = _engine(pred, pair, driver)
        if engine is not None:
            layers.append(engine)
        out.append(PairReadiness(pair.a, pair.b, pair.path, layers))
    return out


def grouped(rows: list[PairReadiness]) -> list[tuple[list[tuple[int, int]], PairReadiness]]:
    """Pairs whose layers read the same, together (8 GPUs have 28 pairs, most of them alike)."""
    groups: dict[tuple, tuple[list[tuple[int, int]], PairReadiness]] = {}
    for r in rows:
        key = tuple((x.layer, x.verdict, x.generic or x.why, x.fix) for x in r.layers)
        groups.setdefault(key, ([], r))[0].append((r.a, r.b))
    return list(groups.values())
