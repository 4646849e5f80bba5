"""The build file schema (YAML) and its quick CLI form.

A build is either catalog-based (cpu, board, gpus with optional slots, NVMe drives, NICs) or an
explicit PCIe tree (`topology:`) for a machine whose board is not in the catalog.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, PrivateAttr, field_validator, model_validator

from advisor.base.text import long_name, lookalikes
from advisor.model.catalog.models import Strict

# Sane ranges of a build's numbers: a number outside them is a typo or a hostile
# file, refused at its line with the range, never carried into the model.
MAX_GPUS_PER_ENTRY = 16  # one `gpus` entry (the largest boards have 8-10 x16 slots)
MAX_DEVICES = 64  # NVMe drives or NICs in one build
MAX_DEVICES_PER_ENTRY = 16  # one `nics` entry
MAX_NODES = 1024  # identical nodes of a multi-node build
MAX_GPUS = 64  # the whole build, every entry and tree device together
# an explicit tree: the largest machines have 8 sockets, a few dozen root ports a socket (128-160 lanes),
# and a dozen PCIe switches (an 8-GPU server has 4 to 8; two levels of them, 12)
MAX_SOCKETS = 8
MAX_ROOT_PORTS = 64
MAX_SWITCHES = 64
PSU_W = (100, 20000)  # a PSU's (or redundant PSUs' usable) watts
RAM_GB = (1, 65536)  # system memory: 64 TB is beyond any one machine
DIMMS = (1, 128)
PSU_CABLES = (0, 16)  # native 12V-2x6 cables
GEN = (1, 6)  # PCIe generation as trained


def _latin_name(cls, value: str | None) -> str | None:
    """A part name that mixes Latin with Cyrillic or Greek lookalikes ("RТX 4090" with a Cyrillic Т)
    would match the Latin part only by chance: refused at its line, with the Latin spelling."""
    if isinstance(value, str):
        if too_long := long_name(value):
            raise ValueError(too_long)
        found = lookalikes(value)
        if found:
            raise ValueError(found.sentence(value))
    return value


class GpuSpec(Strict):
    model: str = Field(description="Catalog id or name, e.g. 'RTX 4090'")
    count: int = Field(
        default=1, ge=1, le=MAX_GPUS_PER_ENTRY, description=f"Cards of this model, 1 to {MAX_GPUS_PER_ENTRY}"
    )
    slot: str | None = Field(default=None, description="Slot name; null = automatic placement")

    _latin = field_validator("model")(_latin_name)


class NvmeSpec(Strict):
    socket: str = Field(description="M.2 socket name on the board")
    gen: int = Field(default=4, ge=1, le=6, description="PCIe generation, 1 to 6")
    width: int = Field(default=4, ge=1, le=4, description="Lanes, 1 to 4")


NIC_GBPS = (1, 3200)  # a NIC's line rate in Gb/s (800 Gb/s ConnectX-8 is today's largest single port)
Fabric = Literal["infiniband", "roce", "ethernet"]


class NicSpec(Strict):
    name: str = "NIC"
    slot: str | None = None
    gen: int = Field(default=4, ge=1, le=6, description="PCIe generation, 1 to 6")
    width: int = Field(default=16, ge=1, le=16, description="Lanes, 1 to 16")
    gbps: int | None = Field(
        default=None,
        ge=NIC_GBPS[0],
        le=NIC_GBPS[1],
        description=f"Network line rate per NIC in Gb/s ({NIC_GBPS[0]} to {NIC_GBPS[1]}: 200 for HDR, 400 for "
        "NDR); null: not a network the model uses across nodes",
    )
    fabric: Fabric | None = Field(
        default=None, description="infiniband, roce (RDMA over Ethernet) or ethernet (TCP sockets, no RDMA)"
    )
    count: int = Field(
        default=1,
        ge=1,
        le=MAX_DEVICES_PER_ENTRY,
        description=f"NICs of this kind, 1 to {MAX_DEVICES_PER_ENTRY} (on a system: they fill its NIC positions "
        "in order, one per PCIe switch first)",
    )


class Software(Strict):
    driver: Literal["stock", "patched-p2p"] = Field(
        default="stock", description="NVIDIA stock driver, or a patched open module enabling GeForce BAR1 P2P"
    )
    iommu: Literal["on", "off", "passthrough"] = "passthrough"
    acs: Literal["on", "off"] = Field(default="off", description="PCIe ACS redirect on switch/root ports")
    large_bar: bool = Field(default=True, description="Resizable/large BAR enabled in the BIOS")
    nccl_p2p_level: Literal["LOC", "NVL", "PIX", "PXB", "PHB", "SYS"] | None = None
    nccl_p2p_disable: bool = False
    cuda_p2p: bool = Field(
        default=True,
        description="false = peer access not enabled by the program (p2pBandwidthLatencyTest's P2P=Disabled rows)",
    )
    framework: Literal["ddp", "dataparallel", "fsdp", "deepspeed"] | None = None
    os: Literal["linux", "windows"] = Field(
        default="linux",
        description="The operating system the GPUs run under: windows means the WDDM driver model, where "
        "the driver grants no peer access and staged copies take ~40 us",
    )
    host_memory: Literal["local", "remote"] = Field(
        default="local",
        description="where the pinned host buffers of host<->GPU copies live: on the GPU's own socket "
        "(local, as nvbandwidth binds them) or the other one (remote, e.g. numactl --membind to the far node)",
    )
    virtualization: Literal["none", "vm", "vm-clique"] = Field(
        default="none",
        description="none: bare metal; vm: the GPUs passed through to a virtual machine (QEMU/KVM, "
        "Proxmox, cloud guests), where the guest's emulated host bridge makes the driver refuse P2P; "
        "vm-clique: the same with x-nv-gpudirect-clique set on every GPU, so the driver grants it",
    )
    engine: Literal["vllm", "sglang", "tensorrt-llm"] | None = Field(
        default=None,
        description="The serving engine: vLLM and SGLang for their own P2P gate (custom all-reduce) and CPU "
        "time, TensorRT-LLM for its time per tensor-parallel decode step; null: not named",
    )
    gpudirect_rdma: bool | None = Field(
        default=None,
        description="GPUDirect RDMA between GPUs and NICs (nvidia-peermem loaded, NIC and GPU close enough): "
        "true, false, or null when not known (NCCL then uses it where a NIC is within PXB of the GPU, as on "
        "NVIDIA's own systems, and the plan says it assumed so)",
    )
    nccl_algo: Literal["ring", "tree"] | None = Field(
        default=None,
        description="NCCL_ALGO for the all-reduce across nodes: ring or tree; null: NCCL's choice (tree on "
        "two nodes, ring beyond)",
    )
    nccl_nvls_enable: bool | None = Field(
        default=None,
        description="NCCL_NVLS_ENABLE: NVLink SHARP all-reduce in the NVSwitch (H100 and later); null: NCCL's "
        "default, on where the system has it",
    )
    display_gpus: list[Annotated[int, Field(ge=0, lt=64)]] | None = Field(
        default=None,
        description="GPU indices with a monitor attached ([] for none; null: not known). The patched P2P "
        "driver fails between RTX 5090s when one drives a display",
    )

    def known(self, name: str) -> bool:
        """Whether the build says this setting (in `software:`, or through `bios:` / `kernel:`), rather than
        leaving the default the predictions assume."""
        return name in self.model_fields_set


class Bios(Strict):
    """What the BIOS is set to, where the build knows it; null stays unknown."""

    rebar: bool | None = Field(default=None, description="Resizable BAR (large BAR) on")
    above_4g: bool | None = Field(default=None, description="Above 4G Decoding (64-bit MMIO above 4 GB) on")
    iommu: Literal["on", "off"] | None = Field(default=None, description="IOMMU (AMD-Vi / VT-d) in the BIOS")
    acs: Literal["on", "off"] | None = Field(default=None, description="PCIe ACS on root and switch ports")
    nps: Literal[1, 2, 4] | None = Field(
        default=None,
        description="AMD EPYC/Threadripper PRO NUMA nodes per socket (NPS1/2/4). NPS4 puts each quadrant's "
        "root complexes in a NUMA node of its own, so nvidia-smi and NCCL call GPUs on two root complexes "
        "of one socket SYS; NPS2's split of the quadrants is board-specific and not modelled",
    )


class Kernel(Strict):
    """The kernel command line's IOMMU mode, where the build knows it (`cat /proc/cmdline`)."""

    iommu: Literal["pt", "on", "off"] | None = Field(
        default=None,
        description="pt: iommu=pt (passthrough); on: translating (intel_iommu=on / amd_iommu=on without "
        "iommu=pt); off: iommu=off or intel_iommu=off",
    )


# ---------------------------------------------------------------- explicit PCIe tree


class TreeDevice(Strict):
    gpu: str | None = Field(default=None, description="Catalog GPU id or name")
    nvme: bool = False
    nic: str | None = Field(default=None, description="A network card's name, e.g. 'ConnectX-7'")
    gbps: int | None = Field(
        default=None,
        ge=NIC_GBPS[0],
        le=NIC_GBPS[1],
        description=f"A NIC's network line rate in Gb/s ({NIC_GBPS[0]} to {NIC_GBPS[1]})",
    )
    fabric: Fabric | None = Field(default=None, description="A NIC's network: infiniband, roce or ethernet")
    gen: int | None = Field(
        default=None, ge=1, le=6, description="Link generation as trained (default: device max)"
    )
    width: int | None = Field(default=None, ge=1, le=16)
    name: str | None = Field(default=None, description="Label, e.g. the bus id")

    _latin = field_validator("gpu")(_latin_name)


class TreeSwitch(Strict):
    switch: str = Field(description="Switch label")
    chip: str | None = Field(
        default=None,
        description="The switch chip as its vendor names it (e.g. 'Broadcom PEX89104', 'Microchip Switchtec "
        "PM50100'): a switch adds its own latency, by vendor and generation",
    )
    gen: int = Field(ge=1, le=6, description="Uplink generation")
    width: int = Field(ge=1, le=16, description="Uplink width")
    children: list[TreeNode] = Field(default_factory=list)


TreeNode = TreeSwitch | TreeDevice


class TreeRootPort(Strict):
    id: str
    host_bridge: str | None = None
    children: list[TreeNode] = Field(default_factory=list)


class TreeSocket(Strict):
    cpu: str | None = Field(default=None, description="Catalog CPU id or name (for vendor and lanes)")
    vendor: Literal["intel", "amd"] | None = None
    platform: Literal["desktop", "workstation", "server"] | None = Field(
        default=None,
        description="The CPU's segment where `cpu` names none in the catalog (a single-socket workstation's "
        "nvidia-smi labels pairs across root complexes SYS)",
    )
    family: str | None = Field(
        default=None,
        pattern=r"^[a-z0-9][a-z0-9.+\-]*$",
        description="The CPU family id (as the catalog writes it, e.g. 'amd-threadripper-pro-7000wx') where "
        "`cpu` names no catalog part: platform constants (root complex latency, nvidia-smi's labels) are "
        "keyed by it",
    )
    root_ports: list[TreeRootPort] = Field(default_factory=list)

    _latin = field_validator("cpu")(_latin_name)


class TreeChipset(Strict):
    socket: int = Field(default=0, ge=0, le=7, description="The socket the chipset hangs off, 0 to 7")
    gen: int = Field(ge=1, le=6)
    width: int = Field(ge=1, le=16)
    children: list[TreeNode] = Field(default_factory=list)


class Topology(Strict):
    sockets: list[TreeSocket] = Field(min_length=1)
    inter_socket: Literal["UPI", "xGMI", "QPI"] | None = None
    chipset: TreeChipset | None = None

    @model_validator(mode="after")
    def _machine_sized(self) -> Topology:
        """An explicit tree is bounded to what one machine has, before any work is done on it: a tree of
        300 GPUs on 100 sockets took a minute and printed 160,000 lines. Counted without recursion (the
        file's nesting is bounded where it is read)."""
        if len(self.sockets) > MAX_SOCKETS:
            raise ValueError(
                f"the topology has {len(self.sockets)} sockets; a machine has at most {MAX_SOCKETS}: "
                "split a cluster into its machines"
            )
        counts = {"root ports": 0, "switches": 0, "GPUs": 0, "NICs": 0, "NVMe drives": 0}
        stack: list[TreeNode] = []
        for sock in self.sockets:
            if len(sock.root_ports) > MAX_ROOT_PORTS:
                raise ValueError(
                    f"a socket of the topology has {len(sock.root_ports)} root ports; a CPU has at most "
                    f"{MAX_ROOT_PORTS}"
                )
            counts["root ports"] += len(sock.root_ports)
            for rp in sock.root_ports:
                stack += rp.children
        if self.chipset is not None:
            stack += self.chipset.children
        while stack:
            node = stack.pop()
            if isinstance(node, TreeSwitch):
                counts["switches"] += 1
                stack += node.children
            elif node.gpu:
                counts["GPUs"] += 1
            elif node.nvme:
                counts["NVMe drives"] += 1
            else:
                counts["NICs"] += 1
        most = {
            "root ports": MAX_SOCKETS * MAX_ROOT_PORTS,
            "switches": MAX_SWITCHES,
            "GPUs": MAX_GPUS,
            "NICs": MAX_DEVICES,
            "NVMe drives": MAX_DEVICES,
        }
        for what, n in counts.items():
            if n > most[what]:
                raise ValueError(
                    f"the topology has {n} {what}; advisor plans machines of up to {most[what]} {what} "
                    "(one box or chassis): split a cluster into its machines"
                )
        return self


TreeSwitch.model_rebuild()
TreeRootPort.model_rebuild()
TreeChipset.model_rebuild()


class Build(Strict):
    name: str | None = None
    cpu: str | None = None
    cpu_count: int | None = Field(
        default=None, ge=1, le=8, description="Sockets populated (default: board's)"
    )
    board: str | None = None
    gpus: list[GpuSpec] = Field(default_factory=list)
    nvme: list[NvmeSpec] = Field(default_factory=list)
    nics: list[NicSpec] = Field(default_factory=list)
    nvlink: list[list[Annotated[int, Field(ge=0, lt=MAX_GPUS)]]] = Field(
        default_factory=list,
        description="NVLink bridges as GPU index pairs (0 = the first GPU, below the build's GPU count)",
    )
    topology: Topology | None = None
    system: str | None = Field(
        default=None,
        description="A catalog system (an HGX baseboard with its host: GPUs, NVSwitch, PCIe switches and NIC "
        "positions fixed), instead of a board or a tree; `cpu` may name its host CPU, `gpus` one of the SXM "
        "modules it takes, `nics` the NICs fitted",
    )
    nvswitch: bool = Field(
        default=False,
        description="An explicit tree whose GPUs all reach each other through NVSwitch (an HGX baseboard): "
        "every pair is NV<links>",
    )
    nodes: int = Field(
        default=1,
        ge=1,
        le=MAX_NODES,
        description=f"Identical machines joined by their NICs (1 to {MAX_NODES}); the all-reduce is then the "
        "whole job's, across nodes",
    )
    software: Software = Field(default_factory=Software)
    bios: Bios = Field(default_factory=Bios)
    kernel: Kernel = Field(default_factory=Kernel)
    psu_w: int | None = Field(
        default=None, ge=PSU_W[0], le=PSU_W[1], description=f"PSU watts, {PSU_W[0]} to {PSU_W[1]}"
    )
    psu_12v_2x6: int | None = Field(
        default=None,
        ge=PSU_CABLES[0],
        le=PSU_CABLES[1],
        description=f"Native 12VHPWR / 12V-2x6 cables the PSU has, {PSU_CABLES[0]} to {PSU_CABLES[1]}",
    )
    ram_gb: int | None = Field(
        default=None,
        ge=RAM_GB[0],
        le=RAM_GB[1],
        description=f"System memory in GB, {RAM_GB[0]} to {RAM_GB[1]}",
    )
    dimms: int | None = Field(
        default=None,
        ge=DIMMS[0],
        le=DIMMS[1],
        description=f"DIMMs installed (memory channels populated), {DIMMS[0]} to {DIMMS[1]}",
    )

    _latin = field_validator("cpu", "board", "system")(_latin_name)
    # where each part name was written, for the messages about it: (kind, text) -> (file, line, field),
    # kind cpu/board/gpu; a build file's lines (engine.build_from_data) or the flag (build_from_flags)
    _where: dict = PrivateAttr(default_factory=dict)

    def __eq__(self, other: object) -> bool:
        # where the names were written is not part of the build: a build saved and opened again is the
        # same build, at other lines
        if not isinstance(other, Build):
            return NotImplemented
        return type(self) is type(other) and self.__dict__ == other.__dict__

    __hash__ = None  # type: ignore[assignment]  # mutable, as pydantic's own models

    def where(self, kind: str, text: str | None) -> tuple[str | None, int | None, str | None] | None:
        """Where part name `text` of `kind` (cpu, board, gpu) was written, if known."""
        return self._where.get((kind, (text or "").strip()))

    def said_elsewhere(self) -> dict[str, tuple[object, str]]:
        """The software settings that the `bios:` and `kernel:` sections state: name -> (value, where)."""
        bios = self.bios
        said: dict[str, tuple[object, str]] = {}
        if bios.rebar is not None:
            said["large_bar"] = (bios.rebar, f"bios.rebar: {str(bios.rebar).lower()}")
        if bios.acs is not None:
            said["acs"] = (bios.acs, f"bios.acs: {bios.acs}")
        iommu = None
        if bios.iommu == "off" or self.kernel.iommu == "off":
            iommu = ("off", "bios.iommu: off" if bios.iommu == "off" else "kernel.iommu: off")
        elif self.kernel.iommu == "pt":
            iommu = ("passthrough", "kernel.iommu: pt")
        elif self.kernel.iommu == "on":
            iommu = ("on", "kernel.iommu: on")
        if iommu:
            said["iommu"] = iommu
        return said

    @model_validator(mode="after")
    def _settings(self) -> Build:
        """The BIOS and kernel settings a build states become the software settings the predictions use;
        a build that states one thing in two places and means two different things is refused."""
        sw = self.software
        for name, (value, where) in self.said_elsewhere().items():
            if sw.known(name) and getattr(sw, name) != value:
                raise ValueError(
                    f"software.{name}: {getattr(sw, name)} disagrees with {where}: state the setting once"
                )
            setattr(sw, name, value)
        return self

    @model_validator(mode="after")
    def _one_kind(self) -> Build:
        if self.system is not None:
            if self.topology is not None or self.board:
                raise ValueError(
                    "a build on a `system` has its board and topology from the catalog: leave out "
                    "`board` and `topology`"
                )
            if self.nvlink:
                raise ValueError("a system's GPUs are joined by its NVSwitch: leave out `nvlink`")
            if len(self.gpus) > 1 or any(g.slot for g in self.gpus):
                raise ValueError(
                    "a system takes one GPU model in its positions: give one `gpus` entry without a slot"
                )
        elif self.topology is None:
            if not self.cpu or not self.board:
                raise ValueError(
                    "a build needs `cpu` and `board` from the catalog, an explicit `topology`, or a `system`"
                )
        if self.nvswitch and self.topology is None:
            raise ValueError("`nvswitch: true` describes an explicit tree's GPUs: give the `topology`")
        for pair in self.nvlink:
            if len(pair) != 2 or pair[0] == pair[1]:
                raise ValueError(f"an NVLink bridge joins two different GPUs, e.g. [0, 1]; got {pair}")
        # limits on the whole build, checked before any work (counts that multiplied to 1.5 million
        # cards once ran for minutes): far above any machine one box or chassis holds
        total = sum(g.count for g in self.gpus)
        if total > MAX_GPUS:
            raise ValueError(
                f"the `gpus` entries add up to {total} GPUs; advisor plans machines of up to {MAX_GPUS} "
                "(one box or chassis): split a cluster into its machines"
            )
        for what, items, most in (
            ("nvme", self.nvme, MAX_DEVICES),
            ("nics", self.nics, MAX_DEVICES),
            ("nvlink", self.nvlink, MAX_GPUS),
        ):
            if len(items) > most:
                raise ValueError(f"`{what}` lists {len(items)} entries; a machine has at most {most}")
        return self

    @property
    def explicit(self) -> bool:
        """The machine's layout is given (an explicit tree, or a catalog system's fixed one), not allocated
        from a board's slots."""
        return self.topology is not None or self.system is not None

    def gpu_count(self) -> int:
        """The GPUs the build has: every `gpus` entry's count, or every GPU device of the tree (a system
        without `gpus` has all its positions filled: the catalog says how many)."""
        if self.topology is None:
            return sum(g.count for g in self.gpus)

        def walk(nodes) -> int:
            return sum(walk(n.children) if isinstance(n, TreeSwitch) else int(bool(n.gpu)) for n in nodes)

        topo = self.topology
        count = sum(walk(rp.children) for s in topo.sockets for rp in s.root_ports)
        return count + (walk(topo.chipset.children) if topo.chipset else 0)

    def nvlink_problems(self) -> list[tuple[int, str]]:
        """(index in `nvlink`, message) for each bridge naming a GPU the build does not have: GPU
        indices count from 0, so a build of 2 GPUs has GPUs 0 and 1."""
        n = self.gpu_count()
        out = []
        for i, pair in enumerate(self.nvlink):
            bad = [x for x in pair if x >= n]
            if bad:
                have = f"GPUs 0 to {n - 1}" if n > 1 else ("GPU 0" if n == 1 else "no GPU")
                out.append((i, f"bridge {pair} names GPU {bad[0]}, but the build has {n} GPU(s): {have}"))
        return out
