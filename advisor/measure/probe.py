"""The machine as NVML sees it (nvidia-ml-py): GPUs, PCIe links, P2P status and topology levels.

Works with or without torch. An idle link often reads Gen1: the current generation is recorded
with a note, and the maximum beside it.
"""

from __future__ import annotations

from advisor.base.errors import UserError
from advisor.measure.models import GpuInfo, Machine, Measurement, Result, Source

# nvmlGpuTopologyLevel_t -> nvidia-smi topo -m labels
_LEVELS = {0: "X", 10: "PIX", 20: "PXB", 30: "PHB", 40: "NODE", 50: "SYS"}


def probe() -> Measurement:
    try:
        import pynvml
    except ImportError:
        raise UserError("the NVML probe needs nvidia-ml-py", hint="pip install 'advisor[probe]'") from None
    try:
        pynvml.nvmlInit()
    except pynvml.NVMLError as exc:
        raise UserError(
            f"NVML is not available here ({exc}): no NVIDIA driver or GPU",
            hint="run the probe on the GPU machine, or `advisor import` its nvidia-smi output",
        ) from None
    try:
        return _read(pynvml)
    finally:
        pynvml.nvmlShutdown()


def _read(nv) -> Measurement:
    count = nv.nvmlDeviceGetCount()
    handles = [nv.nvmlDeviceGetHandleByIndex(i) for i in range(count)]
    gpus, results = [], []
    for i, h in enumerate(handles):
        name = nv.nvmlDeviceGetName(h)
        name = name.decode() if isinstance(name, bytes) else name
        bus = nv.nvmlDeviceGetPciInfo(h).busId
        bus = bus.decode() if isinstance(bus, bytes) else bus
        info = dict(
            gen_cur=nv.nvmlDeviceGetCurrPcieLinkGeneration(h),
            width_cur=nv.nvmlDeviceGetCurrPcieLinkWidth(h),
            gen_max=nv.nvmlDeviceGetMaxPcieLinkGeneration(h),
            width_max=nv.nvmlDeviceGetMaxPcieLinkWidth(h),
        )
        numa = None
        try:
            numa = nv.nvmlDeviceGetNumaNodeId(h)
        except (nv.NVMLError, AttributeError):
            pass
        gpus.append(
            GpuInfo(
                index=i,
                name=name,
                bus_id=bus,
                pcie_gen_current=info["gen_cur"],
                pcie_width_current=info["width_cur"],
                pcie_gen_max=info["gen_max"],
                pcie_width_max=info["width_max"],
                numa_node=numa if numa is not None and numa >= 0 else None,
            )
        )
        idle = "current link; an idle GPU may read a lower generation than under load"
        results += [
            Result(metric="link_gen", gpu=i, value=info["gen_cur"], tool="nvml", note=idle),
            Result(metric="link_width", gpu=i, value=info["width_cur"], tool="nvml"),
            Result(metric="link_gen_max", gpu=i, value=info["gen_max"], tool="nvml"),
            Result(metric="link_width_max", gpu=i, value=info["width_max"], tool="nvml"),
        ]
    for i, a in enumerate(handles):
        for j, b in enumerate(handles):
            if i == j:
                continue
            ok = [
                nv.nvmlDeviceGetP2PStatus(a, b, idx) == nv.NVML_P2P_STATUS_OK
                for idx in (nv.NVML_P2P_CAPS_INDEX_READ, nv.NVML_P2P_CAPS_INDEX_WRITE)
            ]
            results.append(
                Result(
                    metric="p2p", a=i, b=j, value=all(ok), tool="nvml", note="NVML P2P read and write status"
                )
            )
            level = nv.nvmlDeviceGetTopologyCommonAncestor(a, b)
            if level in _LEVELS and level:
                results.append(Result(metric="path", a=i, b=j, value=_LEVELS[level], tool="nvml"))
    driver = nv.nvmlSystemGetDriverVersion()
    driver = driver.decode() if isinstance(driver, bytes) else driver
    return Measurement(
        source=Source(tool="nvml", file="-"), machine=Machine(gpus=gpus, driver=driver), results=results
    )
