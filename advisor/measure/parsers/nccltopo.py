"""Reader of NCCL's topology XML (`NCCL_TOPO_DUMP_FILE=system.xml`, or a file for `NCCL_TOPO_FILE`).

Each GPU pair becomes a `path` result with NCCL's class for it (NVL, PIX, PXB, PHB, SYS; see
advisor/measure/parsers/ncclxml.py), both directions; each GPU's bus id, NUMA node and the link NCCL read
(`link_speed`/`link_width`, the maximum the device and its port support) fill the machine. `advisor
compare` then says where NCCL's view of the machine and the plan's differ.
"""

from __future__ import annotations

from advisor.measure.models import GpuInfo, Machine, Measurement, Result, Source
from advisor.measure.parsers._common import MAX_GPUS, check_not_empty, fail
from advisor.measure.parsers.ncclxml import paths, read

TOOL = "nccl-topo"


def parse(text: str, filename: str) -> Measurement:
    check_not_empty(text, filename, "an NCCL topology XML")
    topo = read(text, filename)
    if len(topo.gpus) > MAX_GPUS:
        raise fail(filename, f"the topology has {len(topo.gpus)} GPUs; more than {MAX_GPUS} is not supported")
    devs = [g.dev for g in topo.gpus]
    if sorted(devs) != list(range(len(devs))):
        raise fail(filename, f"the GPUs' dev numbers should be 0, 1, ... {len(devs) - 1}; found {devs}")
    gpus = [
        GpuInfo(
            index=g.dev,
            bus_id=g.busid or None,
            pcie_gen_max=g.gen,
            pcie_width_max=g.width if g.width and g.width <= 32 else None,
            numa_node=g.numa if 0 <= g.numa <= 1023 else None,
        )
        for g in topo.gpus
    ]
    results = []
    for (a, b), p in sorted(paths(topo).items()):
        for x, y in ((a, b), (b, a)):
            results.append(Result(metric="path", a=x, b=y, value=p, tool=TOOL, note="NCCL's path class"))
    return Measurement(source=Source(tool=TOOL, file=filename), machine=Machine(gpus=gpus), results=results)
