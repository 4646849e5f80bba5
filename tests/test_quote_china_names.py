"""China-market parts as Taobao and WeChat sellers write them: data-center cards by model and memory
("L20 48G", "A800 80G PCIe", "H20 96G"), the China-only GeForce parts ("4090D", "5090D V2"), the modded
and blower cards ("2080Ti 22G 魔改", "4090 涡轮"), and partner cards under their Chinese brand and series
names, often run together without spaces ("七彩虹火神4090", "影驰4090名人堂"). Each is read as its own
catalog part through `advisor validate`; a near miss (a part the catalog lacks, or a neighbour's memory
size) is never read as the neighbouring part."""

from __future__ import annotations

import json

PRICE_LIST = """\
显卡报价单（含税，2026年3月）
L20 48G  ¥27,500
L40 48G  ¥52,000
A800 80G PCIe  ¥118,000
H800 PCIe 80G  ¥210,000
H20 96G  ¥98,000
4090D 24G  ¥15,999
4090 48G 魔改涡轮  ¥22,800
2080Ti 22G 魔改  ¥2,650
七彩虹 4090 火神  ¥17,999
影驰4090名人堂  ¥19,999
技嘉4090魔鹰  ¥15,999
5090D 32G  ¥18,999
5090D V2 24G  ¥16,499
5090D涡轮  ¥21,500
"""

NEAR_MISSES = """\
显卡报价（现货）
L40 48G  ¥52,000
H20 141G  ¥128,000
A800 40G PCIe  ¥88,000
2080Ti 11G  ¥1,850
2080ti魔改22g  ¥2,650
5090D 32G  ¥18,999
RTX 5090 D V2  ¥16,499
RTX 5090 D  ¥18,999
4090 24G  ¥14,999
L40S 48G  ¥56,000
L2 24G  ¥9,800
"""

BLOWER_SERVER = """\
【八卡4090涡轮服务器】超微4029GP-TRT 准系统 双路至强 大模型训练
【店铺：深圳算力仓】【月销 20+】
价格：¥236,800.00

配置：
CPU：英特尔 至强 银牌 4114 ×2
机箱/主板：超微 SYS-4029GP-TRT
显卡：RTX4090涡轮版 24G ×8
内存：32G DDR4 2666 RECC ×12
电源：2000W×2 冗余
"""

WORKSTATION = """\
七彩虹火神4090 双卡 深度学习主机 线程撕裂者 PRO 7975WX
【店铺：AI工作站】【发货地：深圳】
价格：¥86,999.00

配置清单：
处理器：AMD 线程撕裂者 PRO 7975WX 32核
主板：华硕 Pro WS WRX90E-SAGE SE
显卡：七彩虹火神4090 24G ×2
内存：金士顿 32G DDR5 RECC ×8
电源：长城 2000W 金牌
"""


def _lines(cli, write, name: str, text: str) -> tuple[dict, dict[str, tuple[str, str | None]]]:
    """The validate report and, per quote line, its status and the catalog part it was read as."""
    code, out, err = cli("validate", str(write(name, text)), "--json")
    assert code in (0, 1), err  # read and judged: never a user error or a crash
    report = json.loads(out)
    seen = {}
    for x in report["quote"]["lines"]:
        ids = [p["part_id"] for p in x["parts"] if p["kind"] == "gpu"]
        seen[x["text"].split("  ")[0]] = (x["status"], ids[0] if ids else None)
    return report, seen


def test_a_taobao_price_list_in_sellers_names_reads_each_line_as_its_part(cli, write):
    _, seen = _lines(cli, write, "baojiadan.txt", PRICE_LIST)
    want = {
        "L20 48G": "nvidia-l20",
        "L40 48G": "nvidia-l40",
        "A800 80G PCIe": "nvidia-a800-pcie-80gb",
        "H800 PCIe 80G": "nvidia-h800-pcie",
        "H20 96G": "nvidia-h20",
        "4090D 24G": "nvidia-rtx-4090d",
        "4090 48G 魔改涡轮": "nvidia-rtx-4090-48gb",
        "2080Ti 22G 魔改": "nvidia-rtx-2080-ti-22gb",
        "七彩虹 4090 火神": "colorful-igame-vulcan-oc-v-rtx-4090",
        "影驰4090名人堂": "galax-hof-rtx-4090",
        "技嘉4090魔鹰": "gigabyte-gaming-oc-rtx-4090",
        "5090D 32G": "nvidia-rtx-5090-d",
        "5090D V2 24G": "nvidia-rtx-5090-d-v2",
        "5090D涡轮": "unbranded-turbo-rtx-5090d",
    }
    assert {line: seen[line] for line in want} == {line: ("part", part) for line, part in want.items()}


def test_a_near_miss_is_read_as_its_own_part_or_asked_about_never_as_its_neighbour(cli, write):
    report, seen = _lines(cli, write, "xianhuo.txt", NEAR_MISSES)
    # the right neighbour, told apart by a letter or a memory size
    assert seen["L40 48G"] == ("part", "nvidia-l40") and seen["L40S 48G"] == ("part", "nvidia-l40s")
    assert seen["2080Ti 11G"] == ("part", "nvidia-rtx-2080-ti")
    assert seen["2080ti魔改22g"] == ("part", "nvidia-rtx-2080-ti-22gb")  # the size after Chinese text
    assert seen["5090D 32G"] == ("part", "nvidia-rtx-5090-d")
    assert seen["4090 24G"] == ("part", "nvidia-rtx-4090")
    # no size written: "V2" alone tells the 24 GB card from the 32 GB one, both ways
    assert seen["RTX 5090 D V2"] == ("part", "nvidia-rtx-5090-d-v2")
    assert seen["RTX 5090 D"] == ("part", "nvidia-rtx-5090-d")
    # a memory size the catalog's H20 and A800 PCIe do not have: a GPU the catalog lacks, put to the vendor
    assert seen["H20 141G"] == ("not_in_catalog", None) and seen["A800 40G PCIe"] == ("not_in_catalog", None)
    asked = " ".join(report["ask_vendor"])
    assert 'the gpu on line 3 ("H20 141G' in asked and 'the gpu on line 4 ("A800 40G PCIe' in asked
    assert "NVIDIA H20" in asked  # offered as the nearest, not taken
    # an L2 is neither the L20 nor the L4
    assert seen["L2 24G"][1] is None
    assert not any(p == "nvidia-l20" for line, (_, p) in seen.items() if line != "L20 48G")


def test_an_eight_blower_4090_server_listing_plans_its_parts(cli, write):
    report, seen = _lines(cli, write, "8ka.txt", BLOWER_SERVER)
    assert seen["显卡：RTX4090涡轮版 24G ×8"] == ("part", "unbranded-turbo-rtx-4090")
    build = report["quote"]["build"]
    assert build["cpu"] == "intel-xeon-silver-4114" and build["board"] == "supermicro-sys-4029gp-trt"
    assert build["gpus"] == [{"model": "unbranded-turbo-rtx-4090", "count": 8}]
    assert len(report["plan"]["gpus"]) == 8


def test_a_chinese_brand_and_series_run_together_name_the_partner_card(cli, write):
    report, seen = _lines(cli, write, "shuangka.txt", WORKSTATION)
    assert seen["显卡：七彩虹火神4090 24G ×2"] == ("part", "colorful-igame-vulcan-oc-v-rtx-4090")
    build = report["quote"]["build"]
    assert build["board"] == "asus-pro-ws-wrx90e-sage-se"
    assert build["gpus"] == [{"model": "colorful-igame-vulcan-oc-v-rtx-4090", "count": 2}]
    assert [g["link"]["width"] for g in report["plan"]["gpus"]] == [16, 16]


def test_a_short_model_the_catalog_lacks_on_a_labelled_line_is_asked_about(cli, write):
    """ "显卡：L2 24G": NVIDIA's L2 is in no catalog entry and "L2" alone is too short to be a model number
    anywhere; under a GPU label it is a GPU the catalog lacks, so the quote is incomplete and the vendor is
    asked, rather than the line passing as 'not a part' and the build judged without its GPUs."""
    report, seen = _lines(cli, write, "l2.txt", "显卡：L2 24G ×4\nCPU：AMD EPYC 9654\n")
    assert seen["显卡：L2 24G ×4"] == ("not_in_catalog", None)
    assert report["verdict"] == "INCOMPLETE"
    assert any('the gpu on line 1 ("显卡：L2 24G' in a for a in report["ask_vendor"])


def test_a_labelled_line_of_advice_naming_an_i9_is_no_cpu(cli, write):
    """ "CPU：选择高性能的CPU，如Intel Core i9或AMD Ryzen Threadripper系列": the i9 is an example in a piece of
    advice, not this build's CPU; a short model under a label ("显卡：L2 24G") still is one."""
    text = "- cpu:选择高性能的cpu,如intel core i9或amd ryzen threadripper系列。\n显卡：L2 24G ×4\n"
    report, seen = _lines(cli, write, "advice.txt", text)
    assert seen["- cpu:选择高性能的cpu,如intel core i9或amd ryzen threadripper系列。"] == ("other", None)
    assert seen["显卡：L2 24G ×4"] == ("not_in_catalog", None)
    assert "cpu" in report["missing"]
