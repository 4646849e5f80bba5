"""Pydantic models of catalog parts. Unknown keys are rejected; unknown values stay null.

Every part names its `sources` (URLs) and whether its key values were `verified` in a vendor
page, manual, datasheet or a reputable spec database; `unverified_fields` lists what still needs
a check inside an otherwise verified entry.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from advisor.base.text import clip, has_hidden, long_name, visible

ID_PATTERN = r"^[a-z0-9][a-z0-9.+\-]*$"
BIFURCATION_PATTERN = re.compile(r"^(x(?:1|2|4|8|16))+$")
PART_NUMBER = re.compile(r"[A-Za-z0-9][A-Za-z0-9 ._/+()#-]*")

# Sane ranges of a part's numbers: each numeric field below names its range; a value
# outside it is refused at its file:line with the range, never carried into the model.
MAX_LANES = 256  # PCIe lanes of one socket, lane group or switch (the largest sockets have 128-160)
MAX_WATTS = 5000  # a CPU's or GPU's power
MAX_PRICE = 10_000_000  # US dollars
MAX_TEXT = 4096  # characters of one text (a name, a note, a rule's message); the longest written is 1,600


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=False, str_strip_whitespace=True, defer_build=True)

    @field_validator("*", mode="after")
    @classmethod
    def _no_control_characters(cls, value):
        """Text in a part, a build or a rule is printed: a terminal escape or other control character
        in it would reach the user's terminal, so it is refused where it is written."""
        for text in value if isinstance(value, list) else [value]:
            if isinstance(text, str) and len(text) > MAX_TEXT:
                # every text here is printed, wrapped and matched: one this long is no name or note
                raise ValueError(f"{len(text):,} characters long, more than {MAX_TEXT:,}: {clip(text)!r}")
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


class ValueBasis(Strict):
    """Where one value of an entry rests, when not on a primary page among the entry's `sources`:
    `secondary`, a named reputable review or article (rules/sources.yaml `reputable`), or a vendor's
    press material quoted there; `inferred`, reasoned from a primary source of the same platform, the
    reasoning written in `says`. Figures that use such a value are shown at lower confidence."""

    basis: Literal["primary", "secondary", "inferred"]
    source: str | None = Field(default=None, description="The URL the value rests on")
    says: str = Field(
        min_length=10,
        description="What the source states, quoted or close to it; for `inferred`, the reasoning from it",
    )
    applies_to: list[str] | None = Field(
        default=None,
        description="For a list value, the items this basis covers (the others rest on the entry's sources), "
        "e.g. the CPU families of a board's `cpu_families` that are inferred; None: the whole value",
    )

    @model_validator(mode="after")
    def _sourced(self) -> ValueBasis:
        if self.basis in ("primary", "secondary") and not self.source:
            raise ValueError(f"a {self.basis} value needs its `source` URL")
        if self.source:
            _check_urls([self.source])
        if self.basis == "secondary" and self.source:
            from advisor.model.catalog.sources import is_primary, is_reputable

            if not (is_reputable(self.source) or is_primary(self.source)):
                raise ValueError(
                    f"{self.source!r} is not on the list of reputable reviewers (rules/sources.yaml "
                    "`reputable`): a secondary value rests on a named reputable review or article"
                )
        return self


DATE_PATTERN = r"^\d{4}-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01]))?$"
CURRENCIES = ("USD", "CNY")


class RefPrice(Strict):
    """A reference price of a part: what it cost, in which currency, when, new or used, and where that was
    read. `list` is a vendor's list or launch price; `market` a dated survey of shops or second-hand
    listings. A price is a fact of one market at one date: never converted here, never undated."""

    amount: float = Field(gt=0, le=MAX_PRICE, description=f"The price, above 0 and up to {MAX_PRICE:,}")
    currency: Literal["USD", "CNY"]
    date: str = Field(pattern=DATE_PATTERN, description="When the price held: YYYY-MM or YYYY-MM-DD")
    condition: Literal["new", "used"] = "new"
    kind: Literal["list", "market"] = Field(
        description="list: the vendor's list or launch price; market: a dated survey of shop or second-hand "
        "prices"
    )
    source: str = Field(description="The URL the price was read at")
    says: str = Field(min_length=10, description="What the source states, quoted or close to it")

    @field_validator("source")
    @classmethod
    def _url(cls, v: str) -> str:
        return _check_urls([v])[0]


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
    price_usd: float | None = Field(
        default=None, ge=0, le=MAX_PRICE, description=f"Launch/MSRP price where known, 0 to {MAX_PRICE:,}"
    )
    prices: list[RefPrice] = Field(
        default_factory=list,
        description="Reference prices with currency, date, condition (new/used) and source; `price_usd` stays "
        "the undated launch price the entry's sources give",
    )
    basis: dict[str, ValueBasis] = Field(
        default_factory=dict,
        description="Per value (its dotted field path, e.g. 'pcie.usable_lanes'): the basis of a value that "
        "does not rest on a primary page among `sources` (secondary or inferred, with its source and "
        "reasoning). A value not named here rests on the entry's sources, primary where they are.",
    )

    @field_validator("name", "aliases", "part_numbers")
    @classmethod
    def _name_sized(cls, value):
        """A part's names are matched against every name a user writes: one longer than any real part
        name is a mistake (or a file made to slow every lookup down), refused at its line."""
        for text in value if isinstance(value, list) else [value]:
            if too_long := long_name(text):
                raise ValueError(too_long)
        return value

    @field_validator("part_numbers")
    @classmethod
    def _part_numbers_are_codes(cls, value: list[str]) -> list[str]:
        """A part number matches its part exactly wherever a quote writes it, ahead of every name: a name
        put here by mistake ("技嘉 RTX 4090 魔鹰", read as RTX4090) would claim every line that names the
        model. A vendor's code is Latin letters, digits and a little punctuation, with a digit."""
        for pn in value:
            if not PART_NUMBER.fullmatch(pn) or not re.search(r"\d", pn):
                raise ValueError(
                    f"{visible(pn)!r} is not a part number (Latin letters, digits and - . / + ( ) # _ or spaces, "
                    "with a digit): a name people write belongs in `aliases`"
                )
        return value

    @model_validator(mode="after")
    def _basis_names_fields(self) -> Part:
        data = self.model_dump()
        for path in self.basis:
            at = data
            for key in path.split("."):
                if not isinstance(at, dict) or key not in at:
                    raise ValueError(f"basis names {path!r}, which is not a field of this entry")
                at = at[key]
            if at is None:
                raise ValueError(f"basis gives a basis for {path!r}, which is null: give the value too")
            covered = self.basis[path].applies_to
            if covered is not None and not (isinstance(at, list) and set(covered) <= set(at)):
                raise ValueError(
                    f"the basis of {path!r} applies to {covered}, which are not all items of its value {at}"
                )
        return self

    @field_validator("sources")
    @classmethod
    def _sources_are_urls(cls, v: list[str]) -> list[str]:
        return _check_urls(v)


# --------------------------------------------------------------------------- CPUs


class CpuPcie(Strict):
    max_gen: int = Field(ge=1, le=6, description="Highest PCIe generation of the CPU's lanes")
    total_lanes: int | None = Field(
        default=None, ge=0, le=MAX_LANES, description="All CPU PCIe lanes per socket, uplink included (0-256)"
    )
    usable_lanes: int | None = Field(
        default=None,
        ge=0,
        le=MAX_LANES,
        description="Lanes per socket for slots and M.2 (excludes the chipset uplink; 0-256)",
    )
    lanes_by_gen: (
        dict[Annotated[int, Field(ge=1, le=6)], Annotated[int, Field(ge=0, le=MAX_LANES)]] | None
    ) = Field(default=None, description="Usable lanes per PCIe generation (1-6: 0-256), e.g. {5: 16, 4: 4}")
    slot_lanes: int | None = Field(
        default=None, ge=0, le=MAX_LANES, description="Lanes meant for graphics/expansion slots (0-256)"
    )
    m2_lanes: int | None = Field(
        default=None, ge=0, le=MAX_LANES, description="Lanes meant for CPU-attached M.2 (0-256)"
    )
    configurations: list[str] | None = Field(
        default=None, description="Vendor's lane configurations, e.g. '2x8+4'"
    )


class Uplink(Strict):
    type: str = Field(description="e.g. 'DMI 4.0' or 'PCIe 4.0'")
    gen: int = Field(ge=1, le=6)
    width: int = Field(ge=1, le=32)


class InterSocket(Strict):
    type: Literal["UPI", "xGMI", "QPI"]
    links: int | None = Field(default=None, ge=0, le=16, description="Links between two sockets, 0 to 16")
    gt_s: float | None = Field(default=None, gt=0, le=1000, description="Link rate in GT/s, up to 1000")


class Memory(Strict):
    type: str | None = None
    channels: int | None = Field(default=None, ge=1, le=32, description="Memory channels per socket, 1 to 32")
    max_speed_mts: int | None = Field(default=None, ge=1, le=100_000, description="MT/s, up to 100,000")
    max_capacity_gb: int | None = Field(default=None, ge=1, le=65536, description="GB, up to 65,536")


class Cpu(Part):
    kind: Literal["cpu"] = "cpu"
    family: Annotated[str, Field(pattern=ID_PATTERN, description="Family id boards list in cpu_families")]
    cpu_vendor: Literal["intel", "amd"]
    segment: Literal["desktop", "hedt", "workstation", "server"]
    socket: str
    max_sockets: int = Field(ge=1, le=8, description="Sockets a board may hold of this CPU, 1 to 8")
    cores: int | None = Field(default=None, ge=1, le=1024, description="Cores, 1 to 1024")
    pcie: CpuPcie
    chipset_uplink: Uplink | None = None
    inter_socket: InterSocket | None = None
    memory: Memory = Field(default_factory=Memory)
    tdp_w: int | None = Field(default=None, ge=1, le=MAX_WATTS, description="TDP in W, 1 to 5000")
    max_power_w: int | None = Field(
        default=None, ge=1, le=MAX_WATTS, description="Max turbo / PPT power in W, 1 to 5000"
    )


# --------------------------------------------------------------------------- boards


class LaneGroup(Strict):
    """A source of lanes: a CPU root-port group, the chipset, or a switch's downstream side."""

    id: str
    source: Literal["cpu", "chipset", "switch"]
    socket: int = Field(
        default=0, ge=0, le=7, description="CPU socket index (for source cpu and chipset), 0 to 7"
    )
    switch: str | None = Field(default=None, description="Switch id, for source switch")
    host_bridge: str | None = Field(
        default=None,
        description="Root complex / host bridge within the socket (two GPUs on different ones are NODE)",
    )
    lanes: int | None = Field(
        default=None, ge=1, le=MAX_LANES, description="Lanes in the group (1-256); null for independent ports"
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
        default=None,
        ge=1,
        le=MAX_LANES,
        description="Wired only when the CPU has at least this many usable lanes (1-256)",
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
    first_lane: int = Field(
        default=0, ge=0, lt=MAX_LANES, description="First lane of its range within the group (0-255)"
    )
    width: int = Field(ge=1, le=16, description="Electrical width when nothing shares its lanes")
    physical: int | None = Field(default=None, ge=1, le=16, description="Connector size in lanes (slots)")
    gen: int | None = Field(default=None, ge=1, le=6, description="Connector's own generation cap")
    position: int | None = Field(
        default=None, ge=1, le=32, description="Slot position from the top (1 = nearest the CPU; up to 32)"
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
    lanes: int | None = Field(default=None, ge=1, le=MAX_LANES, description="Switch lanes, 1 to 256")
    uplink_group: str = Field(description="Lane group the switch's upstream port hangs off")
    uplink_first_lane: int = Field(default=0, ge=0, lt=MAX_LANES, description="0 to 255")
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
        default=None, ge=1, le=32, description="Expansion slot positions on the board, 1 to 32"
    )
    max_gpus: int | None = Field(
        default=None, ge=1, le=64, description="Vendor-stated maximum GPU count, 1 to 64"
    )
    memory_slots: int | None = Field(default=None, ge=1, le=128, description="DIMM slots, 1 to 128")

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
        default=None, ge=1, le=64, description="Links per GPU over the bridge (NV# in topo -m), 1 to 64"
    )
    gbps_per_direction: float | None = Field(
        default=None,
        gt=0,
        le=100_000,
        description="Total over all links, one direction, GB/s (up to 100,000)",
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
    count: int = Field(ge=1, le=8, description="Connectors of this type, 1 to 8")


class Gpu(Part):
    kind: Literal["gpu"] = "gpu"
    segment: Literal["geforce", "workstation", "datacenter"]
    architecture: Literal["turing", "ampere", "ada", "hopper", "blackwell", "rdna3", "rdna4", "xe2"] = Field(
        description="GPU architecture; rdna3/rdna4 (AMD Radeon) and xe2 (Intel Arc) cards are modelled for "
        "lanes, power and fit only: no NVIDIA P2P, NVLink or NCCL figure is claimed for them"
    )
    compute_capability: str | None = Field(
        default=None, pattern=r"^\d+\.\d+$", description="CUDA compute capability; null for non-NVIDIA cards"
    )
    form_factor: Literal["pcie", "sxm"] = Field(
        default="pcie",
        description="pcie: an add-in card for a PCIe slot; sxm: an SXM module that mounts only on an HGX/DGX "
        "baseboard, never in a slot",
    )
    vram_gb: float = Field(gt=0, le=4096, description="GB of memory, up to 4096")
    memory_type: str | None = None
    memory_bandwidth_gbps: float | None = Field(
        default=None, gt=0, le=100_000, description="GB/s, up to 100,000"
    )
    pcie: GpuPcie
    nvlink: NvLink
    p2p: P2p
    board_power_w: int | None = Field(default=None, ge=1, le=MAX_WATTS, description="W, 1 to 5000")
    power_connector: PowerConnector | None = None
    slot_width: float | None = Field(
        default=None, gt=0, le=8, description="Thickness in slots of the reference card, up to 8"
    )
    length_mm: int | None = Field(default=None, ge=1, le=1000, description="mm, 1 to 1000")
    cooler: Literal["blower", "open-air", "passive", "liquid"] | None = None
    bf16_tflops_dense: float | None = Field(default=None, gt=0, le=1_000_000, description="TFLOPS, up to 1e6")
    fp16_tflops_dense: float | None = Field(default=None, gt=0, le=1_000_000, description="TFLOPS, up to 1e6")
    fp32_tflops: float | None = Field(
        default=None,
        gt=0,
        le=1_000_000,
        description="FP32 peak of the CUDA cores (not tensor cores), TFLOPS: what --precision fp32 runs at on "
        "a card without TF32 (Turing)",
    )
    fp8_tflops_dense: float | None = Field(
        default=None,
        gt=0,
        le=1_000_000,
        description="dense FP8 tensor peak with FP32 accumulate, TFLOPS: what the linear layers of an fp8 (W8A8) "
        "model run at (Ada, Hopper, Blackwell)",
    )
    fp4_tflops_dense: float | None = Field(
        default=None,
        gt=0,
        le=1_000_000,
        description="dense FP4 tensor peak with FP32 accumulate, TFLOPS: what the linear layers of an NVFP4 "
        "(W4A4) model run at (Blackwell)",
    )
    card_of: str | None = Field(
        default=None,
        description="Set only on a partner card's entry, which the catalog makes from a `kind: card` file: the "
        "id of the GPU whose reference values it carries. Never written in a GPU file.",
    )
    inherited_fields: list[str] = Field(
        default_factory=list,
        description="A partner card's fields taken from its GPU's reference entry because the card's own "
        "value is not sourced (board power only: a card's size and cooler are never assumed)",
    )


# --------------------------------------------------------------------------- partner cards

# A card's physical fields: what a partner model changes. Null stays unknown on the card (a TUF 5090 is not
# the Founders Edition's 2 slots); only board power falls back to the reference figure, and says so.
CARD_FIELDS = ("slot_width", "length_mm", "power_connector", "cooler", "board_power_w")


class Card(Part):
    """A board partner's card of a catalog GPU (ASUS TUF, MSI Suprim, a blower edition, ...): its own size,
    cooler, power connectors and power limit, with its sources. Everything else is the GPU's."""

    kind: Literal["card"] = "card"
    gpu: str = Field(pattern=ID_PATTERN, description="id of the GPU entry this card is a model of")
    board_power_w: int | None = Field(
        default=None, ge=1, le=MAX_WATTS, description="the card's rated power, W; null: the GPU's reference"
    )
    power_connector: PowerConnector | None = None
    slot_width: float | None = Field(default=None, gt=0, le=8, description="Thickness in slots, up to 8")
    length_mm: int | None = Field(default=None, ge=1, le=1000, description="mm, 1 to 1000")
    cooler: Literal["blower", "open-air", "passive", "liquid"] | None = None


# --------------------------------------------------------------------------- systems (HGX baseboards)


class SystemSwitch(Strict):
    """A PCIe switch of a system: its upstream link and what hangs below it."""

    id: str
    chip: str | None = Field(default=None, description="The switch chip, e.g. 'Broadcom PEX88096'")
    gen: int = Field(ge=1, le=6)
    width: int = Field(ge=1, le=16)
    gpus: list[Annotated[int, Field(ge=0, lt=64)]] = Field(
        default_factory=list, description="GPU positions below it (CUDA order)"
    )
    nics: list[Annotated[int, Field(ge=0, lt=64)]] = Field(
        default_factory=list, description="NIC positions below it"
    )
    switches: list[SystemSwitch] = Field(default_factory=list)


class SystemRootPort(Strict):
    id: str
    host_bridge: str | None = None
    switches: list[SystemSwitch] = Field(default_factory=list)


class SystemSocket(Strict):
    root_ports: list[SystemRootPort] = Field(min_length=1)


class SystemNics(Strict):
    """The NICs a system ships with (its reference configuration)."""

    name: str
    gbps: int = Field(ge=1, le=3200, description="Line rate per NIC in Gb/s")
    fabric: Literal["infiniband", "roce", "ethernet"]
    count: int = Field(ge=1, le=64)
    gen: int = Field(ge=1, le=6)
    width: int = Field(ge=1, le=16)


class System(Part):
    """A GPU baseboard with a fixed topology (HGX A100/H100 8-GPU): SXM modules all joined by NVSwitch,
    PCIe switches that carry each GPU and its NICs to the host's sockets. A build names it instead of a
    board; the host CPU stays the build's to name."""

    kind: Literal["system"] = "system"
    gpus: list[Annotated[str, Field(pattern=ID_PATTERN)]] = Field(
        min_length=1, description="GPU ids of the SXM modules the baseboard takes; the first is the default"
    )
    gpu_positions: int = Field(ge=1, le=64, description="SXM sockets on the baseboard")
    nvswitch_chips: int | None = Field(
        default=None, ge=1, le=64, description="NVSwitch chips on the baseboard"
    )
    nvswitch_generation: int | None = Field(default=None, ge=1, le=9)
    nvls: bool = Field(
        description="The NVSwitch chips reduce in the fabric (NVLink SHARP: third generation on)"
    )
    sockets: int = Field(ge=1, le=8, description="Host CPU sockets")
    cpu_vendor: Literal["intel", "amd"] | None = Field(
        default=None, description="The reference host's CPU vendor; a build's `cpu` replaces it"
    )
    cpu_family: str | None = Field(
        default=None, pattern=ID_PATTERN, description="The reference host's CPU family"
    )
    inter_socket: Literal["UPI", "xGMI", "QPI"] | None = None
    nic_positions: int = Field(default=0, ge=0, le=64, description="NIC positions on the PCIe switches")
    reference_nics: SystemNics | None = Field(
        default=None, description="The NICs the reference system ships with, placed in positions 0, 1, ..."
    )
    topology: list[SystemSocket] = Field(min_length=1, description="Per socket, its root ports and switches")

    @model_validator(mode="after")
    def _positions(self) -> System:
        gpus: list[int] = []
        nics: list[int] = []

        def walk(sw: SystemSwitch) -> None:
            gpus.extend(sw.gpus)
            nics.extend(sw.nics)
            for child in sw.switches:
                walk(child)

        for sock in self.topology:
            for rp in sock.root_ports:
                for sw in rp.switches:
                    walk(sw)
        if sorted(gpus) != list(range(self.gpu_positions)):
            raise ValueError(
                f"the topology places GPU positions {sorted(gpus)}; it must place each of 0 to "
                f"{self.gpu_positions - 1} once"
            )
        if sorted(nics) != list(range(self.nic_positions)):
            raise ValueError(
                f"the topology places NIC positions {sorted(nics)}; it must place each of 0 to "
                f"{self.nic_positions - 1} once"
            )
        if len(self.topology) != self.sockets:
            raise ValueError(
                f"the topology lists {len(self.topology)} sockets; `sockets` says {self.sockets}"
            )
        if self.reference_nics is not None and self.reference_nics.count > self.nic_positions:
            raise ValueError(
                f"{self.reference_nics.count} reference NICs but {self.nic_positions} NIC positions"
            )
        return self


SystemSwitch.model_rebuild()

PART_TYPES = {"cpu": Cpu, "board": Board, "gpu": Gpu, "card": Card, "system": System}
