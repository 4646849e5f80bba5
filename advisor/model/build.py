"""The build file schema (YAML) and its quick CLI form.

A build is either catalog-based (cpu, board, gpus with optional slots, NVMe drives, NICs) or an
explicit PCIe tree (`topology:`) for a machine whose board is not in the catalog.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from advisor.model.catalog.models import Strict


class GpuSpec(Strict):
    model: str = Field(description="Catalog id or name, e.g. 'RTX 4090'")
    count: int = Field(default=1, ge=1, le=16)
    slot: str | None = Field(default=None, description="Slot name; null = automatic placement")


class NvmeSpec(Strict):
    socket: str = Field(description="M.2 socket name on the board")
    gen: int = Field(default=4, ge=1, le=6)
    width: int = Field(default=4, ge=1, le=4)


class NicSpec(Strict):
    name: str = "NIC"
    slot: str | None = None
    gen: int = Field(default=4, ge=1, le=6)
    width: int = Field(default=16, ge=1, le=16)


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


# ---------------------------------------------------------------- explicit PCIe tree


class TreeDevice(Strict):
    gpu: str | None = Field(default=None, description="Catalog GPU id or name")
    nvme: bool = False
    nic: str | None = None
    gen: int | None = Field(
        default=None, ge=1, le=6, description="Link generation as trained (default: device max)"
    )
    width: int | None = Field(default=None, ge=1, le=16)
    name: str | None = Field(default=None, description="Label, e.g. the bus id")


class TreeSwitch(Strict):
    switch: str = Field(description="Switch label")
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
    root_ports: list[TreeRootPort] = Field(default_factory=list)


class TreeChipset(Strict):
    socket: int = 0
    gen: int = Field(ge=1, le=6)
    width: int = Field(ge=1, le=16)
    children: list[TreeNode] = Field(default_factory=list)


class Topology(Strict):
    sockets: list[TreeSocket] = Field(min_length=1)
    inter_socket: Literal["UPI", "xGMI", "QPI"] | None = None
    chipset: TreeChipset | None = None


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
    nvlink: list[list[int]] = Field(default_factory=list, description="NVLink bridges as GPU index pairs")
    topology: Topology | None = None
    software: Software = Field(default_factory=Software)
    psu_w: int | None = Field(default=None, ge=100)
    psu_12v_2x6: int | None = Field(
        default=None, ge=0, description="Native 12VHPWR / 12V-2x6 cables the PSU has"
    )
    ram_gb: int | None = Field(default=None, ge=1)
    dimms: int | None = Field(default=None, ge=1, description="DIMMs installed (memory channels populated)")

    @model_validator(mode="after")
    def _one_kind(self) -> Build:
        if self.topology is None:
            if not self.cpu or not self.board:
                raise ValueError(
                    "a build needs `cpu` and `board` from the catalog, or an explicit `topology`"
                )
        for pair in self.nvlink:
            if len(pair) != 2 or pair[0] == pair[1]:
                raise ValueError(f"an NVLink bridge joins two different GPUs, e.g. [0, 1]; got {pair}")
        return self
