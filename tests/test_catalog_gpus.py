"""GPUs sold and rented in China (L20, H20, A800, H800, H200 SXM, the stock RTX 2080 Ti): each is found by
the names sellers write, plans in a multi-GPU build where it is a PCIe card, and gives workload figures,
or says which catalog value it lacks. The A800 and H800 exist because their NVLink is cut, so the tests
check that the cut reaches the predicted links."""

from __future__ import annotations

import json

import pytest

CPU, BOARD = "amd-epyc-7763", "asrock-rack-romed8-2t"


def _show(cli, name: str) -> dict:
    code, out, err = cli("catalog", "show", name, "--json")
    assert code == 0, err
    return json.loads(out)


@pytest.mark.parametrize(
    "written, part",
    [
        ("L20", "nvidia-l20"),
        ("L20 48G", "nvidia-l20"),
        ("L20 48GB", "nvidia-l20"),
        ("NVIDIA L20", "nvidia-l20"),
        ("H20", "nvidia-h20"),
        ("H20 96G", "nvidia-h20"),
        ("HGX H20", "nvidia-h20"),
        ("A800 80G PCIe", "nvidia-a800-pcie-80gb"),
        ("A800 PCIe", "nvidia-a800-pcie-80gb"),
        ("NVIDIA A800 80GB PCIe", "nvidia-a800-pcie-80gb"),
        ("A800 SXM", "nvidia-a800-sxm4-80gb"),
        ("NVIDIA A800-SXM4-80GB", "nvidia-a800-sxm4-80gb"),
        ("H800 PCIe", "nvidia-h800-pcie"),
        ("H800 80G PCIe", "nvidia-h800-pcie"),
        # nvidia-smi calls the SXM module "NVIDIA H800" and the card "NVIDIA H800 PCIe"
        ("NVIDIA H800", "nvidia-h800-sxm5"),
        ("H800 80G", "nvidia-h800-sxm5"),
        ("H800 SXM", "nvidia-h800-sxm5"),
        ("H200 SXM", "nvidia-h200-sxm"),
        ("NVIDIA H200", "nvidia-h200-sxm"),
        ("H200 141G", "nvidia-h200-sxm"),
        ("H200 NVL", "nvidia-h200-nvl"),
        ("2080Ti 11G", "nvidia-rtx-2080-ti"),
        ("RTX 2080 Ti", "nvidia-rtx-2080-ti"),
        ("2080ti 22g", "nvidia-rtx-2080-ti-22gb"),
        ("4090D", "nvidia-rtx-4090d"),
        ("4090 48G", "nvidia-rtx-4090-48gb"),
        ("4090D 48G", "nvidia-rtx-4090-48gb"),
    ],
)
def test_a_china_market_gpu_is_found_by_the_name_a_seller_writes(cli, written, part):
    assert _show(cli, written)["id"] == part


def test_a_quote_in_sellers_words_finds_each_gpu_and_never_the_wrong_memory_size(cli, write):
    lines = {
        "L20 48G x4": "nvidia-l20",
        "英伟达 H20 96G 8卡": "nvidia-h20",
        "A800 80G PCIe x2": "nvidia-a800-pcie-80gb",
        "H800 80G PCIe x2": "nvidia-h800-pcie",
        "2080Ti 11G x4": "nvidia-rtx-2080-ti",
        "2080ti 22g x4": "nvidia-rtx-2080-ti-22gb",
        "4090 48G x2": "nvidia-rtx-4090-48gb",
    }
    for text, part in lines.items():
        quote = write("quote.txt", f"GPU: {text}\nCPU: EPYC 7763\n主板: ROMED8-2T\n")
        code, out, err = cli("validate", str(quote), "--json")
        found = [
            p["part_id"]
            for line in json.loads(out)["quote"]["lines"]
            for p in line["parts"]
            if p["kind"] == "gpu"
        ]
        assert found == [part], (text, found, err)


@pytest.mark.parametrize(
    "text, asked",
    [
        ("H800 80G x8", "NVIDIA H800 PCIe"),  # read as the SXM5 module: the card is 80 GB too
        ("NVIDIA H200 141G x8", "NVIDIA H200 NVL"),
        ("H800 80G PCIe x2", None),  # the line says which
        ("HGX H800 8-GPU", None),
        ("RTX 4090 x2", None),  # one form only
    ],
)
def test_a_datacenter_gpu_named_without_its_form_is_asked_about(cli, write, text, asked):
    """A seller's "H800 80G" names the model and its memory but not whether it is the SXM module or the PCIe
    card, which differ in NVLink, power and the machine they need: the reading is kept and the vendor is
    asked which, naming the other form."""
    quote = write("quote.txt", f"GPU: {text}\nCPU: EPYC 7763\n主板: ROMED8-2T\n")
    code, out, err = cli("validate", str(quote), "--json")
    assert code in (0, 1), err
    questions = [a for a in json.loads(out)["ask_vendor"] if a.startswith("whether the GPU on line 1")]
    if asked is None:
        assert questions == []
    else:
        assert len(questions) == 1 and f"or the {asked}:" in questions[0]


@pytest.mark.parametrize("gpu", ["L20:4", "A800 80G PCIe:2", "H800 PCIe:2", "2080Ti 11G:4"])
def test_each_china_market_pcie_card_plans_in_a_multi_gpu_build(plan_json, gpu):
    plan = plan_json("--cpu", CPU, "--board", BOARD, "--gpu", gpu)
    count = int(gpu.rsplit(":", 1)[1])
    assert len(plan["gpus"]) == count
    assert not [f for f in plan["findings"] if f["severity"] == "error"]
    assert all(p["uni_gbps"] for p in plan["pairs"])


def test_a800_bridge_carries_the_cut_nvlink_not_the_a100s(cli, plan_json, write):
    """The A800's 400 GB/s (8 links) against the A100's 600 (12): a bridged pair is predicted slower in
    proportion, and topo -m prints NV8, not NV12."""
    pair = {}
    for name in ("A800 80G PCIe", "A100 80GB PCIe"):
        build = write(
            "b.yaml",
            f'cpu: {CPU}\nboard: {BOARD}\ngpus:\n  - {{model: "{name}", count: 2}}\nnvlink: [[0, 1]]\n',
        )
        plan = plan_json(str(build))
        pair[name] = plan["pairs"][0]
    a800, a100 = _show(cli, "A800 80G PCIe")["nvlink"], _show(cli, "A100 80GB PCIe")["nvlink"]
    assert pair["A800 80G PCIe"]["path"] == f"NV{a800['links']}" != pair["A100 80GB PCIe"]["path"]
    ratio = pair["A800 80G PCIe"]["uni_gbps"] / pair["A100 80GB PCIe"]["uni_gbps"]
    assert ratio == pytest.approx(a800["gbps_per_direction"] / a100["gbps_per_direction"], rel=0.05)


def test_h800_pcie_bridge_bandwidth_is_shown_unknown_not_guessed(cli, write):
    build = write(
        "b.yaml",
        f'cpu: {CPU}\nboard: {BOARD}\ngpus:\n  - {{model: "H800 PCIe", count: 2}}\nnvlink: [[0, 1]]\n',
    )
    code, out, err = cli("plan", str(build), "--json")
    assert code == 0, err
    pair = json.loads(out)["pairs"][0]
    assert pair["uni_gbps"] is None
    assert "nvlink.gbps_per_direction" in " ".join(pair["unknown"])


def _workload(cli, gpu: str, *extra: str) -> tuple[int, dict | None, str]:
    code, out, err = cli(
        "workload", "--cpu", CPU, "--board", BOARD, "--gpu", gpu, "--infer", "llama-3-8b", "--json", *extra
    )
    return code, (json.loads(out) if code == 0 else None), err


@pytest.mark.parametrize("gpu", ["L20:2", "A800 80G PCIe:2", "H800 PCIe:2"])
def test_workload_gives_figures_for_each_china_market_card(cli, gpu):
    code, w, err = _workload(cli, gpu)
    assert code == 0, err
    one, two = w["configurations"][0], w["configurations"][1]
    assert one["tokens_per_s"] > 0 and two["tokens_per_s"] > one["tokens_per_s"]


def test_a800_infers_as_fast_as_the_a100_it_is_cut_from(cli):
    """One GPU has no NVLink to cut: the A800 PCIe decodes at the A100 80GB PCIe's speed."""
    _, a800, _ = _workload(cli, "A800 80G PCIe:2")
    _, a100, _ = _workload(cli, "A100 80GB PCIe:2")
    assert (
        a800["configurations"][0]["decode_ms_per_token"] == a100["configurations"][0]["decode_ms_per_token"]
    )


def test_l20_decodes_like_an_l40s_but_prefills_slower(cli):
    """Same 864 GB/s memory, a third of the tensor rate: decode (memory-bound) is the L40S's, the time to
    first token (compute-bound) is longer."""
    _, l20, _ = _workload(cli, "L20:2")
    _, l40s, _ = _workload(cli, "L40S:2")
    a, b = l20["configurations"][0], l40s["configurations"][0]
    assert a["decode_ms_per_token"] == pytest.approx(b["decode_ms_per_token"], rel=0.02)
    assert a["ttft_s"] > b["ttft_s"]


def test_2080_ti_in_bf16_says_the_tensor_rate_is_not_in_the_catalog(cli):
    """Turing has no BF16: the catalog leaves it null and the workload says so instead of using 0."""
    code, _, err = _workload(cli, "2080Ti 11G:2")
    assert code == 2
    assert "unknown (not in the catalog" in err and "bf16_tflops_dense" in err
    code, w, err = _workload(cli, "2080Ti 11G:2", "--precision", "fp16")
    assert code == 0, err
    assert w["configurations"][1]["tokens_per_s"] > 0


@pytest.mark.parametrize("gpu", ["H20", "A800 SXM", "H800 SXM", "H200 SXM"])
def test_an_sxm_module_is_refused_from_a_pcie_slot(plan_json, gpu):
    plan = plan_json("--cpu", CPU, "--board", BOARD, "--gpu", f"{gpu}:2")
    assert {f["id"] for f in plan["findings"] if f["severity"] == "error"} == {"FIT004"}


def _gpu_parts(cli, write, line: str) -> list[str]:
    quote = write("quote.txt", f"显卡: {line}\nCPU: EPYC 7763\n主板: ROMED8-2T\n")
    code, out, err = cli("validate", str(quote), "--json")
    assert out, err
    return [
        p["part_id"] for ln in json.loads(out)["quote"]["lines"] for p in ln["parts"] if p["kind"] == "gpu"
    ]


@pytest.mark.parametrize(
    "line, part",
    [
        ("4090 24G 涡轮版 x4", "unbranded-turbo-rtx-4090"),
        ("RTX 4090 涡轮 x4", "unbranded-turbo-rtx-4090"),
        ("万丽 RTX 4090 涡轮 x4", "manli-blower-rtx-4090"),
        # a named partner with no turbo card in the catalog is that partner's card, not the unbranded rework
        ("技嘉 RTX 4090 24G 涡轮版 x4", "nvidia-rtx-4090"),
        ("4090 48G 涡轮 x4", "nvidia-rtx-4090-48gb"),
        ("索泰 RTX 4090 AMP Extreme AIRO x4", "zotac-amp-extreme-airo-rtx-4090"),
        ("影驰 RTX 4090 SG x4", "galax-sg-rtx-4090"),
    ],
)
def test_a_quote_line_finds_the_card_a_chinese_seller_means(cli, write, line, part):
    assert _gpu_parts(cli, write, line) == [part]


def _fit(plan_json, gpu: str) -> set[str]:
    plan = plan_json("--cpu", CPU, "--board", BOARD, "--gpu", gpu)
    return {f["id"] for f in plan["findings"] if f["id"].startswith("FIT")}


def test_four_blower_4090s_fit_where_four_reference_cards_do_not(plan_json):
    """The 涡轮 (blower) rework is 2 slots: four of them sit in adjacent slots, four 3-slot cards cannot."""
    assert "FIT001" in _fit(plan_json, "RTX 4090:4")
    assert not _fit(plan_json, "RTX 4090 blower rework:4") & {"FIT001", "FIT002"}


def test_a_card_of_unknown_thickness_is_not_checked_rather_than_taken_as_the_reference(plan_json):
    """The GALAX SG's slot width is not sourced: the plan says the fit was not checked, and never judges it
    with the Founders Edition's 3 slots."""
    found = _fit(plan_json, "Galax 4090 SG:4")
    assert "FIT003" in found and "FIT001" not in found
    assert "FIT001" in _fit(plan_json, "Zotac 4090 AMP Extreme:4")  # 3.5 slots: a sourced thickness is judged
