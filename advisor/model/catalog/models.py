"""Pydantic models of catalog parts. Unknown keys are rejected; unknown values stay null.

Every part names its `sources` (URLs) and whether its key values were `verified` in a vendor
page, manual, datasheet or a reputable spec database; `unverified_fields` lists what still needs
a check inside an otherwise verified entry.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from advisor.base.text import has_hidden, visible

ID_PATTERN = r"^[a-z0-9][a-z0-9.+\-]*$"
BIFURCATION_PATTERN = re.compile(r"^(x(?:1|2|4|8|16))+$")


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=False, str_strip_whitespace=True, defer_build=True)

    @field_validator("*", mode="after")
    @classmethod
    def _no_control_characters(cls, value):
        """Text in a part, a build or a rule is printed: a terminal escape or other control character
        in it would reach the user's terminal (issue 18), so it is refused where it is written."""
        for text in value if isinstance(value, list) else [value]:
            if isinstance(text, str) and has_hidden(text):
                shown = visible(text)
                raise ValueError(
                    f'"{shown}" holds a control character (written out here as \\x..): remove it'
                )
        return value


def _check_urls(sources: list[str]) -> list[str]:
    for s in sources:
        if not re.match(r"^https?://\S+$", s):
            raise ValueError(f"{s!r} is not a URL; every source must be an http(s) address")
    return sources


class Part(Strict):
    id: Annotated[str, Field(pattern=ID_PATTERN, description="Stable lower-case id, e.g. 'nvidia-rtx-4090'")]
    name: str = Field(description="The name as the vendor writes it")
    aliases: list[str] = Field(default_factory=list, description="Other ways people write it, for matching")
    part_numbers: list[str] = Field(
        default_factory=list,
        description="Vendor part numbers / SKUs / MPNs (e.g. AMD 100-100000454WOF), each found in a page listed "
        "in `sources`; a quote line that names one matches this part exactly",
    )
    vendor: str
    sources: list[str] = Field(min_length=1, description="URLs the values came from, vendor pages first")
    verified: bool = Field(
        description="True when the key values were read in a vendor page, manual or datasheet"
    )
    unverified_fields: list[str] = Field(default_factory=list)
    evidence: str | None = Field(default=None, description="How the values reached us")
    notes: str | None = None
    price_usd: float | None = Field(default=None, description="Launch/MSRP price where known")

    @field_validator("sources")
    @classmethod
    def _sources_are_urls(cls, v: list[str]) -> list[str]:
        return _check_urls(v)


# --------------------------------------------------------------------------- CPUs


class CpuPcie(Strict):
    max_gen: int = Field(ge=1, le=6, description="Highest PCIe generation of the CPU's lanes")
    total_lanes: int | None = Field(
        default=None, ge=0, description="All CPU PCIe lanes per socket, uplink included"
    )
    usable_lanes: int | None = Field(
        default=None, ge=0, description="Lanes per socket for slots and M.2 (excludes the chipset uplink)"
    )
    lanes_by_gen: dict[int, int] | None = Field(
        default=None, description="Usable lanes per PCIe generation, e.g. {5: 16, 4: 4}"
    )
    slot_lanes: int | None = Field(default=None, ge=0, description="Lanes meant for graphics/expansion slots")
    m2_lanes: int | None = Field(default=None, ge=0, description="Lanes meant for CPU-attached M.2")
    configurations: list[str] | None = Field(
        default=None, description="Vendor's lane configurations, e.g. '2x8+4'"
    )


class Uplink(Strict):
    type: str = Field(description="e.g. 'DMI 4.0' or 'PCIe 4.0'")
    gen: int = Field(ge=1, le=6)
    width: int = Field(ge=1, le=32)


class InterSocket(Strict):
    type: Literal["UPI", "xGMI", "QPI"]
    links: int | None = Field(default=None, ge=0)
    gt_s: float | None = Field(default=None, gt=0)


class Memory(Strict):
    type: str | None = None
    channels: int | None = Field(default=None, ge=1, description="Memory channels per socket")
    max_speed_mts: int | None = Field(default=None, ge=1)
    max_capacity_gb: int | None = Field(default=None, ge=1)


class Cpu(Part):
    kind: Literal["cpu"] = "cpu"
    family: Annotated[str, Field(pattern=ID_PATTERN, description="Family id boards list in cpu_families")]
    cpu_vendor: Literal["intel", "amd"]
    segment: Literal["desktop", "hedt", "workstation", "server"]
    socket: str
    max_sockets: int = Field(ge=1, le=8)
    cores: int | None = Field(default=None, ge=1)
    pcie: CpuPcie
    chipset_uplink: Uplink | None = None
    inter_socket: InterSocket | None = None
    memory: Memory = Field(default_factory=Memory)
    tdp_w: int | None = Field(default=None, ge=1)
    max_power_w: int | None = Field(default=None, ge=1, description="Max turbo / PPT power")


# --------------------------------------------------------------------------- boards


class LaneGroup(Strict):
    """A source of lanes: a CPU root-port group, the chipset, or a switch's downstream side."""

    id: str
    source: Literal["cpu", "chipset", "switch"]
    socket: int = Field(default=0, ge=0, description="CPU socket index (for source cpu and chipset)")
    switch: str | None = Field(default=None, description="Switch id, for source switch")
    host_bridge: str | None = Field(
        default=None,
        description="Root complex / host bridge within the socket (two GPUs on different ones are NODE)",
    )
    lanes: int | None = Field(
        default=None, ge=1, description="Lanes in the group; null for independent ports"
    )
    gen: int = Field(ge=1, le=6)
    bifurcation: list[str] | None = Field(
        default=None, description="Supported splits, e.g. ['x16', 'x8x8', 'x8x4x4']; default the whole group"
    )
    independent: bool = Field(
        default=False,
        description="Each connector is its own port (chipset, switch downstream): no lane contention",
    )
    root_port: str | None = None
    requires_cpu_lanes: int | None = Field(
        default=None, ge=1, description="Wired only when the CPU has at least this many usable lanes"
    )
    notes: str | None = None

    @field_validator("bifurcation")
    @classmethod
    def _bif(cls, v: list[str] | None) -> list[str] | None:
        for mode in v or []:
            if not BIFURCATION_PATTERN.match(mode):
                raise ValueError(f"bifurcation mode {mode!r} is not like 'x16', 'x8x8' or 'x8x4x4'")
        return v

    @model_validator(mode="after")
    def _consistent(self) -> LaneGroup:
        if self.source == "switch" and not self.switch:
            raise ValueError("a lane group with source 'switch' must name its switch")
        if not self.independent and self.lanes is None:
            raise ValueError("a shared lane group needs 'lanes' (or set independent: true)")
        if self.lanes is not None:
            for mode in self.bifurcation or []:
                total = sum(int(x) for x in mode.split("x") if x)
                if total > self.lanes:
                    raise ValueError(
                        f"bifurcation mode {mode!r} needs {total} lanes but the group has {self.lanes}"
                    )
        return self


class Connector(Strict):
    """A slot or an M.2 socket, wired to a range of a lane group's lanes."""

    name: str
    group: str = Field(description="Lane group id it hangs off")
    first_lane: int = Field(default=0, ge=0, description="First lane of its range within the group")
    width: int = Field(ge=1, le=16, description="Electrical width when nothing shares its lanes")
    physical: int | None = Field(default=None, ge=1, le=16, description="Connector size in lanes (slots)")
    gen: int | None = Field(default=None, ge=1, le=6, description="Connector's own generation cap")
    position: int | None = Field(
        default=None, ge=1, description="Slot position from the top (1 = nearest the CPU)"
    )
    notes: str | None = None


class SharingRule(Strict):
    """A manual footnote that lane ranges cannot express: 'M.2_3 populated disables PCIEX16_3'."""

    when: list[str] = Field(min_length=1, description="Connectors that, all populated, trigger the rule")
    effect: dict[str, Literal["disabled"] | int] = Field(
        description="Connector -> 'disabled' or its reduced width"
    )
    source: str | None = None
    verified: bool = False
    note: str | None = None


class Switch(Strict):
    id: str
    chip: str | None = None
    gen: int = Field(ge=1, le=6)
    lanes: int | None = Field(default=None, ge=1)
    uplink_group: str = Field(description="Lane group the switch's upstream port hangs off")
    uplink_first_lane: int = Field(default=0, ge=0)
    uplink_width: int = Field(ge=1, le=16)
    notes: str | None = None


class Board(Part):
    kind: Literal["board"] = "board"
    socket: str
    sockets: int = Field(default=1, ge=1, le=8)
    chipset: str | None = None
    form_factor: str | None = None
    segment: Literal["consumer", "workstation", "server", "gpu-server"]
    cpu_families: list[str] | None = Field(
        default=None, description="CPU families the board takes; null = any CPU with this socket"
    )
    chipset_uplink: Uplink | None = None
    lane_groups: list[LaneGroup] = Field(min_length=1)
    switches: list[Switch] = Field(default_factory=list)
    slots: list[Connector] = Field(default_factory=list)
    m2: list[Connector] = Field(default_factory=list)
    sharing: list[SharingRule] = Field(default_factory=list)
    slot_positions: int | None = Field(
        default=None, ge=1, description="Expansion slot positions on the board"
    )
    max_gpus: int | None = Field(default=None, ge=1, description="Vendor-stated maximum GPU count")
    memory_slots: int | None = Field(default=None, ge=1)

    @model_validator(mode="after")
    def _references(self) -> Board:
        groups = {g.id: g for g in self.lane_groups}
        if len(groups) != len(self.lane_groups):
            raise ValueError("lane group ids must be unique")
        switch_ids = {s.id for s in self.switches}
        names = [c.name for c in self.slots + self.m2]
        dup = {n for n in names if names.count(n) > 1}
        if dup:
            raise ValueError(f"connector names must be unique; repeated: {sorted(dup)}")
        for g in self.lane_groups:
            if g.switch and g.switch not in switch_ids:
                raise ValueError(
                    f"lane group {g.id!r} names switch {g.switch!r}, which the board does not list"
                )
            if g.socket >= self.sockets:
                raise ValueError(
                    f"lane group {g.id!r} is on socket {g.socket} but the board has {self.sockets}"
                )
        for c in self.slots + self.m2:
            g = groups.get(c.group)
            if g is None:
                raise ValueError(
                    f"connector {c.name!r} names lane group {c.group!r}, which the board does not list"
                )
            if g.lanes is not None and c.first_lane + c.width > g.lanes:
                raise ValueError(
                    f"connector {c.name!r} takes lanes {c.first_lane}-{c.first_lane + c.width - 1} "
                    f"but group {g.id!r} has only {g.lanes}"
                )
        for s in self.switches:
            if s.uplink_group not in groups:
                raise ValueError(
                    f"switch {s.id!r} hangs off lane group {s.uplink_group!r}, which the board does not list"
                )
        for rule in self.sharing:
            for n in list(rule.when) + list(rule.effect):
                if n not in names:
                    raise ValueError(f"sharing rule names connector {n!r}, which the board does not list")
        return self

    def connector(self, name: str) -> Connector | None:
        for c in self.slots + self.m2:
            if c.name == name:
                return c
        return None

    def group(self, gid: str) -> LaneGroup:
        for g in self.lane_groups:
            if g.id == gid:
                return g
        raise KeyError(gid)


# --------------------------------------------------------------------------- GPUs


class GpuPcie(Strict):
    gen: int = Field(ge=1, le=6)
    width: int = Field(ge=1, le=16)


class NvLink(Strict):
    supported: bool
    links: int | None = Field(
        default=None, ge=1, description="Links per GPU over the bridge (NV# in topo -m)"
    )
    gbps_per_direction: float | None = Field(
        default=None, gt=0, description="Total over all links, one direction"
    )
    bridge: str | None = None


class P2p(Strict):
    stock_linux: bool | None = Field(description="CUDA P2P over PCIe with NVIDIA's stock Linux driver")
    patched_driver: bool | None = Field(
        default=None, description="P2P with a known patched open kernel module"
    )
    patched_driver_url: str | None = None
    evidence: str | None = None


class PowerConnector(Strict):
    type: Literal["12VHPWR", "12V-2x6", "8-pin PCIe", "8-pin EPS", "12-pin"]
    count: int = Field(ge=1)


class Gpu(Part):
    kind: Literal["gpu"] = "gpu"
    segment: Literal["geforce", "workstation", "datacenter"]
    architecture: Literal["turing", "ampere", "ada", "hopper", "blackwell"]
    compute_capability: str = Field(pattern=r"^\d+\.\d+$")
    vram_gb: float = Field(gt=0)
    memory_type: str | None = None
    memory_bandwidth_gbps: float | None = Field(default=None, gt=0)
    pcie: GpuPcie
    nvlink: NvLink
    p2p: P2p
    board_power_w: int | None = Field(default=None, ge=1)
    power_connector: PowerConnector | None = None
    slot_width: float | None = Field(
        default=None, gt=0, description="Thickness in slots of the reference card"
    )
    length_mm: int | None = Field(default=None, ge=1)
    cooler: Literal["blower", "open-air", "passive"] | None = None
    bf16_tflops_dense: float | None = Field(default=None, gt=0)
    fp16_tflops_dense: float | None = Field(default=None, gt=0)


PART_TYPES = {"cpu": Cpu, "board": Board, "gpu": Gpu}
