"""The facts a rule's condition and message can name, as typed, documented models.

A rule of scope `gpu` sees `build` and `gpu`; `pair` sees `build` and `pair`; `workload` sees
`build` and `workload`; `compare` sees `build`, `row` and the `gpu` or `pair` the row is about.
Every fact has a name, a type, a unit, a description and where its value comes from:

- `catalog: FIELD`: a field of the part's catalog entry (`advisor catalog show ID`);
- `build: FIELD`: what the build file (or the quote) says;
- `prediction`: computed by the lane allocation and the bandwidth model (`advisor plan --explain`);
- `workload model`: computed by `advisor workload`;
- `measurement`: read from a measurement file;
- `constant NAME (FILE)`: a constant in rules/FILE, with its sources there.

`advisor rules facts` prints this list; a user rule that names a fact not listed here is refused
when it is loaded, with its file:line.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from pydantic.fields import FieldInfo

from advisor.i18n import N_

PREDICTION = "prediction"
WORKLOAD_MODEL = "workload model"
MEASUREMENT = "measurement"
# the words of the sources below, said in the run's language by `advisor rules facts` (catalog and
# build field names stay as they are); the facts' descriptions are in the catalog too (babel.cfg)
SOURCE_WORDS = (
    N_("{first}, {rest}"),
    N_("{first}; {rest}"),
    N_("constant {name} ({file})"),
    N_("prediction"),
    N_("workload model"),
    N_("measurement"),
    N_("catalog"),
    N_("workload preset"),
    N_("workload preset or --params"),
    N_("or automatic placement"),
    N_("build: slots in use"),
    N_("catalog: board slots and lane groups"),
)


def fact(description: str, unit: str = "", source: str = PREDICTION) -> Any:
    return Field(description=description, json_schema_extra={"unit": unit, "source": source})


class Facts(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class GpuFacts(Facts):
    """One GPU of the build (`gpu.` in rules of scope gpu)."""

    index: int = fact("CUDA index of the GPU in the build", source="build: gpus")
    model: str = fact("GPU model name ('?' when unknown)", source="catalog: name")
    id: str | None = fact("catalog id of the GPU", source="catalog: id")
    slot: str = fact(
        "slot the card sits in ('?' when unknown)", source="build: gpus[].slot, or automatic placement"
    )
    gen: int = fact("PCIe generation the link trains at")
    width: int = fact("PCIe lanes the link trains at", "lanes")
    max_gen: int = fact("the card's own maximum PCIe generation", source="catalog: pcie.gen")
    max_width: int = fact("the card's own maximum PCIe width", "lanes", "catalog: pcie.width")
    limited_by: str = fact("why the link is below the card's maximum, '-' when it is not")
    lane_fix: str = fact(
        "what on this board gives the card more lanes, from the cause of its narrow link "
        "(the SSD socket to empty, a free CPU slot, or nothing: then only another platform)",
        source="build: slots in use, catalog: board slots and lane groups",
    )
    on_chipset: bool = fact("the GPU hangs off the chipset, not the CPU's lanes")
    behind_switch: bool = fact("a PCIe switch sits between the GPU and the CPU")
    socket: int = fact("CPU socket the GPU's lanes come from")
    h2d: float = fact("predicted pinned host-to-device copy, this GPU alone", "GB/s")
    h2d_all: float = fact("predicted pinned host-to-device copy with every GPU copying at once", "GB/s")
    segment: str = fact("geforce, workstation or datacenter ('?' when unknown)", source="catalog: segment")
    geforce: bool = fact("a GeForce card", source="catalog: segment")
    p2p_stock: bool = fact("CUDA P2P works with the stock Linux driver", source="catalog: p2p.stock_linux")
    nvlink_capable: bool = fact("the card has an NVLink connector", source="catalog: nvlink.supported")
    slot_width: float = fact("slots the cooler covers (0 when unknown)", "slots", "catalog: slot_width")
    power_w: int | None = fact("board power (None when the catalog has none)", "W", "catalog: board_power_w")
    vram_gb: float = fact("memory on the card", "GB", "catalog: vram_gb")
    physical: int = fact(
        "physical size of the slot's connector (0 when unknown)", "lanes", "catalog: board slots[].physical"
    )
    cooler: str = fact("open-air, blower, passive or liquid ('?' when unknown)", source="catalog: cooler")
    form_factor: str = fact(
        "pcie (an add-in card) or sxm (a module for an HGX/DGX baseboard)", source="catalog: form_factor"
    )
    on_baseboard: bool = fact(
        "the GPU sits in an SXM socket of an HGX baseboard (a build on a catalog system, or a tree with "
        "nvswitch: true), not in a PCIe slot",
        source="build: system / nvswitch",
    )
    position: int = fact(
        "slot position from the CPU side (0 when unknown)", "slot", "catalog: board slots[].position"
    )


class PairFacts(Facts):
    """One GPU pair (`pair.` in rules of scope pair)."""

    a: int = fact("index of the first GPU", source="build: gpus")
    b: int = fact("index of the second GPU", source="build: gpus")
    model_a: str = fact("model of the first GPU", source="catalog: name")
    model_b: str = fact("model of the second GPU", source="catalog: name")
    path: str = fact("path class as nvidia-smi topo -m prints it: NV#, PIX, PXB, PHB, NODE, SYS")
    p2p: bool = fact("CUDA peer-to-peer is available between the two")
    via: str = fact("how a copy travels: nvlink, p2p or staged (through host memory)")
    nccl_transport: str = fact("what NCCL uses between the two: NVL, P2P or SHM")
    nccl_p2p: bool = fact("NCCL uses P2P (or NVLink) for the pair at its P2P level")
    p2p_reason: str = fact("why P2P is or is not available")
    nccl_reason: str = fact("why NCCL uses that transport")
    uni: float | None = fact(
        "predicted one-way copy bandwidth (None: unknown, a catalog value is null)", "GB/s"
    )
    bidi: float | None = fact("predicted copy bandwidth both ways at once (None: unknown)", "GB/s")
    latency: float | None = fact("predicted copy latency (None: unknown)", "us")
    geforce: bool = fact("either card is a GeForce card", source="catalog: segment")
    nvlink_capable: bool = fact("both cards have NVLink connectors", source="catalog: nvlink.supported")
    bridged: bool = fact("an NVLink bridge joins the two", source="build: nvlink")
    nvswitch: bool = fact(
        "the two reach each other through an HGX baseboard's NVSwitch (every pair does)",
        source="build: system / nvswitch",
    )


class BuildFacts(Facts):
    """The whole build (`build.` in rules of every scope)."""

    cpu: str = fact("CPU name ('unknown CPU' when there is none)", source="catalog: name")
    nvswitch: bool = fact(
        "the GPUs sit on an HGX baseboard whose NVSwitch joins every pair", source="build: system / nvswitch"
    )
    cpu_vendor: str = fact("intel, amd or unknown", source="catalog: vendor")
    cpu_segment: str = fact("desktop, workstation or server ('?' when unknown)", source="catalog: segment")
    cpu_lanes: int | None = fact(
        "PCIe lanes the CPU gives the board (None when the catalog has none)",
        "lanes",
        "catalog: pcie.usable_lanes",
    )
    cpu_lanes_drawn: int = fact(
        "CPU lanes the links of the devices on CPU lane groups take (slots, M.2, switch uplinks), on the "
        "socket that draws most",
        "lanes",
        "prediction, catalog: board lane_groups",
    )
    cpu_lanes_over: int = fact(
        "lanes drawn beyond the CPU's usable lanes on that socket (0 within them or when they are unknown)",
        "lanes",
        "prediction, catalog: pcie.usable_lanes",
    )
    cpu_lane_takers: str = fact(
        "the devices that draw those lanes, with their connectors and widths ('-' when none)"
    )
    cpu_lane_rule: str = fact(
        "what the board's catalog entry says loses lanes when the CPU has too few (its requires_cpu_lanes "
        "groups), or that it gives no rule",
        source="catalog: board lane_groups[].requires_cpu_lanes",
    )
    cpu_lane_fix: str = fact(
        "a CPU from the catalog that fits the board and has the lanes drawn ('' when none)", source="catalog"
    )
    cpu_lane_sources: str = fact(
        "where the CPU's lane count and the board's lane groups come from", source="catalog: sources"
    )
    cpu_lanes_unchecked: bool = fact(
        "devices draw CPU lanes but the CPU's usable lanes are not in the catalog, so the budget is not "
        "checked",
        source="catalog: pcie.usable_lanes",
    )
    board: str = fact(
        "board name, 'explicit tree' for a build described by its PCIe tree", source="catalog: name"
    )
    board_segment: str = fact("desktop, workstation or server ('?' when unknown)", source="catalog: segment")
    gpus: int = fact("GPUs in the build that got lanes", "GPUs")
    geforce_gpus: int = fact("GeForce cards among them", "GPUs", "catalog: segment")
    gpus_on_chipset: int = fact("GPUs on chipset lanes", "GPUs")
    gpus_below_x16: int = fact("GPUs whose link is narrower than the card's maximum", "GPUs")
    sockets: int = fact("CPU sockets", "sockets", "build: cpu, catalog: board sockets")
    gpu_sockets: int = fact("sockets that have GPUs", "sockets")
    total_vram_gb: float = fact("memory on all GPUs together", "GB", "catalog: vram_gb")
    ram_gb: int = fact("system RAM (0 when the build does not say)", "GB", "build: ram_gb")
    psu_w: int = fact("PSU rating (0 when the build does not say)", "W", "build: psu_w")
    gpu_power_w: int | None = fact(
        "board power of all GPUs (None when a GPU's is not in the catalog)", "W", "catalog: board_power_w"
    )
    cpu_power_w: int | None = fact(
        "CPU maximum power, else TDP (None when the catalog has neither)", "W", "catalog: max_power_w, tdp_w"
    )
    system_power_w: int | None = fact(
        "GPUs + CPU + the rest of the system (None when a part's power is unknown)",
        "W",
        "constant rest_of_system_w (facts.yaml)",
    )
    known_power_w: int = fact(
        "the board power of the parts whose power is known, plus the rest of the system: a floor of the "
        "sustained load when some part's power is unknown",
        "W",
        "catalog: board_power_w, max_power_w, tdp_w",
    )
    power_unknown: str = fact(
        "the parts whose power the catalog does not hold, comma-separated ('' when none)",
        source="catalog: board_power_w, max_power_w, tdp_w",
    )
    psu_headroom: float = fact(
        "PSU watts needed per watt of board power", "x", "constant psu_headroom (facts.yaml)"
    )
    psu_needed_w: int | None = fact(
        "the PSU rating the board power needs with that headroom", "W", "constant psu_headroom (facts.yaml)"
    )
    psu_margin_w: int | None = fact(
        "PSU rating minus the system's board power (negative: the PSU cannot carry the sustained load)",
        "W",
        "build: psu_w, constant rest_of_system_w (facts.yaml)",
    )
    driver: str = fact("NVIDIA driver: stock or patched-p2p", source="build: software.driver")
    iommu: str = fact("IOMMU mode", source="build: software.iommu")
    acs: str = fact("PCIe ACS setting", source="build: software.acs")
    large_bar: bool | None = fact(
        "Resizable BAR / large BAR on (None when unknown)", source="build: software.large_bar"
    )
    nccl_p2p_disable: bool = fact("NCCL_P2P_DISABLE=1 is set", source="build: software.nccl_p2p_disable")
    nccl_p2p_level: str = fact(
        "NCCL_P2P_LEVEL ('default' when unset)", source="build: software.nccl_p2p_level"
    )
    framework: str = fact("training framework ('unknown' when unset)", source="build: software.framework")
    staged_pairs: int = fact("GPU pairs whose copies are staged through host memory", "pairs")
    p2p_not_used_by_nccl: int = fact("pairs with CUDA P2P that NCCL does not use at its P2P level", "pairs")
    unbridged_nvlink_pairs: int = fact("pairs of NVLink-capable cards with no bridge", "pairs")
    switched_pairs: int = fact("pairs that meet at a PCIe switch (PIX or PXB)", "pairs")
    busbw: float | None = fact(
        "predicted all-reduce bus bandwidth over all GPUs (0 with fewer than two; None when a hop's rate is "
        "not in the catalog)",
        "GB/s",
    )
    unlinked: int = fact("devices placed where no lanes reach them", "devices")
    unlinked_list: str = fact("those devices, comma-separated ('-' when none)")
    dimms: int = fact("DIMMs installed (0 when the build does not say)", "DIMMs", "build: dimms")
    mem_channels: int = fact(
        "memory channels of all sockets (0 when unknown)", "channels", "catalog: memory.channels"
    )
    unverified_parts: str = fact(
        "parts whose catalog entry is not verified, comma-separated", source="catalog: verified"
    )
    lower_confidence_values: str = fact(
        "the values of this build's parts that rest on a reputable review (secondary) or on reasoning from "
        "a primary source (inferred) rather than a primary page, as 'part: field (basis)', '; '-separated",
        source="catalog: basis",
    )
    alternative: str = fact(
        "a workstation platform from the catalog that gives every GPU x16 from the CPU "
        "(only for desktop CPUs with two or more GPUs, else '')",
        source="catalog",
    )
    p2p_cards: str = fact(
        "catalog cards with P2P on the stock Linux driver that plan cleanly in place of the build's GPUs, "
        "comma-separated (only where a GeForce pair stages its copies, else '')",
        source="catalog",
    )
    slot_overlaps: int = fact(
        "cards whose coolers overlap the next card's slot",
        "cards",
        "catalog: slot_width, board slots[].position",
    )
    open_air_neighbours: int = fact(
        "open-air cards with no free slot between them",
        "cards",
        "catalog: cooler, slot_width, board slots[].position",
    )
    fit_unchecked: int = fact(
        "cards (in builds of two or more) whose fit was not checked: no slot position or no slot width",
        "cards",
        "catalog: slot_width, board slots[].position",
    )
    fit_unchecked_list: str = fact(
        "each such card and what the catalog lacks for it, '; '-separated ('-' when none)",
        source="catalog: slot_width, board slots[].position",
    )
    nvlink_bridges: int = fact("NVLink bridges in the build", "bridges", "build: nvlink")
    nvlink_invalid: str = fact(
        "bridges that join a card without an NVLink connector, comma-separated",
        source="build: nvlink, catalog: nvlink.supported",
    )
    chipset_nvme: int = fact("NVMe drives on chipset lanes", "drives")
    hpwr_needed: int = fact(
        "12VHPWR / 12V-2x6 connectors the GPUs need", "connectors", "catalog: power_connector"
    )
    psu_12v_2x6: int = fact(
        "12V-2x6 cables the PSU has (-1 when the build does not say)", "cables", "build: psu_12v_2x6"
    )
    p2p_pairs: int = fact("pairs with CUDA P2P over PCIe", "pairs")
    assumed_job: str = fact(
        "the training job WL001 assumes when no workload is asked: advisor.workload.defaults' "
        "(`advisor workload`'s and the Job view's default), '-' with fewer than two GPUs",
        source=WORKLOAD_MODEL,
    )
    grad_gb: float = fact(
        "gradients of the assumed job: params x bytes per gradient (0 with fewer than two GPUs)",
        "GB",
        "workload model; constant grad_bytes (workload.yaml)",
    )
    grad_derivation: str = fact(
        "how big the assumed job's gradients are and what a ring all-reduce moves of them per GPU",
        source="workload model; constant grad_bytes (workload.yaml)",
    )
    grad_seconds_1b3: float | None = fact(
        "all-reduce time per step for the assumed job's gradients on this build's predicted bus bandwidth, "
        "NCCL latency included (the default model is 1.3B parameters; 0 with fewer than two GPUs)",
        "s",
        WORKLOAD_MODEL,
    )
    assumed_backward_s: float | None = fact(
        "the assumed job's backward pass on one GPU, which the all-reduce can hide behind",
        "s",
        WORKLOAD_MODEL,
    )
    assumed_outcome: str = fact(
        "the assumed job's predicted speed-up over one GPU, or why there is none", source=WORKLOAD_MODEL
    )
    unjudged: str = Field(
        default="",
        description=N_(
            "the rules not judged because a fact their condition needs is unknown (a catalog value "
            "is null), each with those facts; '' when every rule was judged"
        ),
        json_schema_extra={"unit": "", "source": "prediction"},
    )
    workload_asked: bool = Field(
        default=False,
        description=N_("a workload was asked (--train / --infer): rules about an assumed job stay quiet"),
        json_schema_extra={"unit": "", "source": "build: --train / --infer"},
    )
    min_h2d: float = fact("slowest GPU's predicted host-to-device copy, alone", "GB/s")
    max_h2d: float = fact("fastest GPU's predicted host-to-device copy, alone", "GB/s")


class WorkloadFacts(Facts):
    """The workload of `advisor workload` or `plan --train/--infer` (`workload.` in rules of scope workload)."""

    task: str = fact("train or infer", source="build: --train / --infer")
    strategy: str = fact(
        "ddp, dataparallel, zero2, zero3, fsdp, tp, pp or replicas", source="build: --strategy"
    )
    strategy_name: str = fact("the strategy's name in words", source="build: --strategy")
    model: str = fact("model name", source="workload preset or --params")
    model_key: str = fact("preset key of the model", source="workload preset")
    params_b: float = fact("parameters", "billions", "workload preset or --params")
    precision: str = fact("bf16, fp16 or fp32", source="build: --precision")
    batch: int = fact(
        "micro-batch per GPU (training) or concurrent sequences (inference)", source="build: --batch"
    )
    seq: int = fact("sequence length", "tokens", "build: --seq")
    accum: int = fact("gradient accumulation micro-steps", source="build: --accum")
    gpus: int = fact("GPUs the job uses", "GPUs", "build: --gpus")
    gpu_model: str = fact("GPU models used, comma-separated", source="catalog: name")
    links: str = fact("the GPUs' links, e.g. 'Gen4 x8/x8'")
    transport: str = fact("how the all-reduce travels (NCCL transport)")
    busbw: float | None = fact("all-reduce bus bandwidth the job sees (None: unknown)", "GB/s")
    speedup: float = fact("throughput on N GPUs / on one GPU (-1 when there is none)", "x", WORKLOAD_MODEL)
    has_speedup: bool = fact("a speed-up could be computed (both fit)", source=WORKLOAD_MODEL)
    efficiency: float = fact("speed-up / GPUs (-1 when there is none)", "fraction", WORKLOAD_MODEL)
    comm_pct: int | None = fact(
        "share of a step in exposed communication (None: unknown)", "%", WORKLOAD_MODEL
    )
    bubble_pct: int | None = fact("share of a step in pipeline bubbles (None: unknown)", "%", WORKLOAD_MODEL)
    compute_pct: int | None = fact("share of a step in compute (None: unknown)", "%", WORKLOAD_MODEL)
    fits: bool = fact("the job fits in the memory of N GPUs", source=WORKLOAD_MODEL)
    fits_one: bool = fact("the job fits in the memory of one GPU", source=WORKLOAD_MODEL)
    mem_gb: float = fact("memory per GPU on N GPUs", "GB", WORKLOAD_MODEL)
    mem_one_gb: float = fact("memory on one GPU", "GB", WORKLOAD_MODEL)
    usable_gb: float = fact("usable memory per GPU", "GB", WORKLOAD_MODEL)
    per_micro_step: bool = fact(
        "the strategy reduces every micro-step (ZeRO-2/3, FSDP, DataParallel)", source=WORKLOAD_MODEL
    )
    reductions_per_step: int = fact("gradient reductions per optimizer step", source=WORKLOAD_MODEL)
    comm_gb_per_step: float = fact("bytes communicated per optimizer step", "GB", WORKLOAD_MODEL)
    ddp_comm_gb_per_step: float = fact(
        "what DDP would communicate per optimizer step", "GB", "constant grad_bytes (workload.yaml)"
    )
    decode_comm_pct: int | None = fact(
        "share of a decode step in communication (None: unknown)", "%", WORKLOAD_MODEL
    )
    replicas_speedup: float | None = fact(
        "speed-up of independent replicas (-1 when they do not fit, None when unknown)", "x", WORKLOAD_MODEL
    )
    tp_speedup: float | None = fact(
        "speed-up of tensor parallelism (-1 when it does not fit, None when unknown)", "x", WORKLOAD_MODEL
    )
    pp_speedup: float | None = fact(
        "speed-up of pipeline parallelism (-1 when it does not fit, None when unknown)", "x", WORKLOAD_MODEL
    )
    best_strategy: str = fact("the fastest strategy that fits ('-' when none)", source=WORKLOAD_MODEL)
    best_tokens_per_s: float = fact("its throughput", "tokens/s", WORKLOAD_MODEL)
    bottleneck: str = fact("what limits the job, in words", source=WORKLOAD_MODEL)
    fit_fix: str = fact(
        "when the job does not fit: the predicted changes that make it fit, with their memory per GPU, or "
        "what hardware it would take ('' when it fits)",
        source=WORKLOAD_MODEL,
    )


class RowFacts(Facts):
    """One compared figure of `advisor compare` that is off by more than the tolerance (`row.`, scope compare)."""

    metric: str = fact(
        "the metric: h2d_gbps, uni_gbps, latency_us, link_width, path, busbw_gbps, ...", source=MEASUREMENT
    )
    kind: str = fact("host (H2D/D2H), link (width/gen), pair (uni/bidi/latency), path or allreduce")
    quantity: str = fact(
        "what is measured, in short: h2d, d2h, h2d_all, d2h_all, uni, bidi, latency, width, gen, path, busbw"
    )
    where: str = fact("GPU0, GPU0-GPU1 or 'N GPUs'")
    predicted: str = fact("the predicted value as shown")
    measured: str = fact("the measured value as shown", source=MEASUREMENT)
    ratio: float = fact(
        "measured / predicted, turned so that below 1 is worse (latency inverted); 0 for labels", "x"
    )
    pct: int = fact("ratio as a percentage", "%")
    off_pct: int = fact("how far off, |ratio - 1|", "%")
    slower: bool = fact("the measurement is worse than the prediction")
    faster: bool = fact("the measurement is better than the prediction")
    tool_p2p: str = fact(
        "'on' or 'off' where the files say whether P2P carried this figure: the tool's own mode for it, "
        "and 'off' wherever a file says the pair cannot access its peer (p2pBandwidthLatencyTest's CANNOT "
        "Access Peer, a waived nvbandwidth test, `nvidia-smi topo -p2p`, the probe); else 'unknown'",
        source=MEASUREMENT,
    )
    link_read: str = fact(
        "what the files read of the PCIe link of the figure's GPU (both GPUs for a pair) against the "
        "predicted one: 'as predicted', 'above', 'below', 'not below' (it reads at least the predicted now; "
        "an idle link reads low, never high), 'not above' (its maximum is at most the predicted) or 'unknown'",
        source=MEASUREMENT,
    )
    nvlink_read: str = fact(
        "pair and path figures: 'as predicted', 'extra' (a file shows NVLink where the build has none), "
        "'missing' (the build has NVLink a file does not show) or 'unknown' (no `nvidia-smi topo -m` or "
        "NCCL topology among the files)",
        source=MEASUREMENT,
    )
    predicted_p2p: str = fact(
        "'on' or 'off': whether the prediction has P2P for the pair ('unknown' for other rows)"
    )
    transport: str = fact("the predicted transport on the slowest all-reduce hop (allreduce rows)")
    copy_kind: str = fact(
        "host rows: 'ce' (copy engines: cudaMemcpy, nvbandwidth *_ce) or 'sm' (nvbandwidth's SM copy "
        "kernels, compared only where no copy-engine figure was measured); 'unknown' for other rows",
        source=MEASUREMENT,
    )


# What a cause (a rule of scope compare) may suppose about the measured machine, and when the files say
# otherwise. A rule declares its suppositions (`supposes: {p2p: on}`); evaluate_compare never offers a
# cause whose supposition the files contradict, so no rule has to repeat the guard in its condition.
SUPPOSITIONS: dict[str, dict[str, Any]] = {
    "p2p": {  # whether P2P carried the figure
        "on": lambda row: row.tool_p2p == "off",
        "off": lambda row: row.tool_p2p == "on",
    },
    "link": {  # the PCIe link of the figure's GPU(s) against the predicted one
        "below": lambda row: row.link_read in ("as predicted", "above", "not below"),
        "above": lambda row: row.link_read in ("as predicted", "below", "not above"),
    },
    "nvlink": {  # NVLink between the pair, as the build has it
        "as predicted": lambda row: row.nvlink_read in ("extra", "missing"),
    },
}


def contradicted(supposes: dict[str, str], row: RowFacts) -> str | None:
    """The first supposition the row's measured facts contradict, as 'p2p: on', or None."""
    for key, value in supposes.items():
        if SUPPOSITIONS[key][value](row):
            return f"{key}: {value}"
    return None


# Names a rule of each scope may use, and the model each name has.
SCOPE_NAMES: dict[str, dict[str, type[Facts]]] = {
    "build": {"build": BuildFacts},
    "gpu": {"build": BuildFacts, "gpu": GpuFacts},
    "pair": {"build": BuildFacts, "pair": PairFacts},
    "workload": {"build": BuildFacts, "workload": WorkloadFacts},
    "compare": {"build": BuildFacts, "row": RowFacts, "gpu": GpuFacts, "pair": PairFacts},
}
FACT_MODELS: dict[str, type[Facts]] = {
    "build": BuildFacts,
    "gpu": GpuFacts,
    "pair": PairFacts,
    "workload": WorkloadFacts,
    "row": RowFacts,
}


def describe(name: str, info: FieldInfo) -> dict[str, str]:
    extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
    ann = info.annotation
    type_name = getattr(ann, "__name__", None) or str(ann).replace("typing.", "")
    return {
        "name": name,
        "type": type_name.replace("NoneType", "None"),
        "unit": str(extra.get("unit", "")),
        "description": info.description or "",
        "source": str(extra.get("source", "")),
    }


def fact_table() -> list[dict[str, str]]:
    """Every fact, as `advisor rules facts` lists it: `build.gpus`, its type, unit, description and source."""
    rows = []
    for root, model in FACT_MODELS.items():
        scopes = ", ".join(s for s, names in SCOPE_NAMES.items() if root in names)
        for name, info in model.model_fields.items():
            rows.append({"fact": f"{root}.{name}", "scopes": scopes, **describe(name, info)})
    return rows
