"""The quote reader stage by stage: each line's shape and label, THE parts list among the mentions, the
counts in every written form, the claims judged without a board, the checks made from the parts alone,
and what `validate --explain` says of each line."""

from __future__ import annotations

from functools import lru_cache

import pytest

from advisor.model.catalog.store import load_catalog
from advisor.quote.check import evaluate_quote
from advisor.quote.reader import read_quote
from advisor.quote.segment import label_kind, sentences, shape_of


@lru_cache(maxsize=1)
def catalog():
    return load_catalog()


def read(text: str):
    q = read_quote(text, "q.txt", catalog())
    return q, evaluate_quote(q, catalog())


def gpus(q) -> dict[str, int]:
    return {g["model"]: g["count"] for g in q.build_data.get("gpus", [])}


# ---------------------------------------------------------------- shapes and labels


@pytest.mark.parametrize(
    ("label", "kind"),
    [
        ("显卡", "gpu"),
        ("🎮 GPU", "gpu"),
        ("GPU 2", "gpu"),
        ("GPU Primary", "gpu"),
        ("Video Card", "gpu"),
        ("主板", "board"),
        ("System Model", "board"),
        ("PSU Secondary", "psu"),
        ("电源", "psu"),
        ("Storage (Models)", "nvme"),
        ("GPU内存", "none"),
        ("CPU Cooler", "none"),
        ("Case", "none"),
        ("Power limit", "none"),
        ("Shipping", None),
    ],
)
def test_a_label_says_what_kind_of_part_its_line_names(label, kind):
    assert label_kind(label) == kind


@pytest.mark.parametrize(
    ("text", "table", "shape", "kind"),
    [
        ("| **CPU** | AMD Threadripper PRO 7975WX | 1 | $3,899 |", True, "row", "cpu"),
        ("| PCIE1 | RTX 4090 #1 | x16 | PCIe 5.0 |", True, "row", None),  # a slot's name is no label
        ("  • 显卡:双路RTX 4090(需支持NVLink)", False, "label", "gpu"),
        ("- GPU 1 - RTX 3090", False, "label", "gpu"),
        ("    `Y$$                        GPU: NVIDIA GeForce RTX 4090 ", False, "label", "gpu"),
        (
            "Video Card NVIDIA GeForce GTX 1080 8GB Founders Edition Video Card $699.99 @ Best Buy",
            False,
            "label",
            "gpu",
        ),
        ("CPU Cooler Cooler Master Hyper 212 EVO $24.88 @ OutletPC", False, "label", "none"),
        ("4× RTX 3090 24GB · NVLink bridges · WRX80 board · 1600W PSU · 128GB DDR5", False, "inline", None),
        ("## GPUs (x7)", False, "heading", None),
        ("---", False, "rule", None),
        ("Intel Core i9-12900K (boxed) ........................ $379", False, "short", None),
        (
            "He notes that consumer RTX 3090 cards were tried and rejected, as the cooler heats the upper card.",
            False,
            "prose",
            None,
        ),
        ("为了充分发挥八卡整机的算力,需要构建一个合理的系统架构。", False, "prose", None),
    ],
)
def test_each_line_has_a_shape(text, table, shape, kind):
    sh = shape_of(text, table, False)
    assert sh.kind == shape
    assert sh.label_kind == kind


def test_a_heading_names_the_kind_of_the_items_under_it():
    assert shape_of("## GPUs (x7)", False, False).heading_kind == "gpu"
    assert shape_of("GPUS", False, False).heading_kind == "gpu"


def test_prose_is_cut_into_sentences_not_at_a_version_number():
    assert sentences("It runs PCIe 4.0 x16. Each card has 24GB! 价格合理。含税") == [
        "It runs PCIe 4.0 x16.",
        "Each card has 24GB!",
        "价格合理。",
        "含税",
    ]


# ---------------------------------------------------------------- THE parts list and its mentions


QUICKREF = """## 4x RTX 4090 AI Workstation Build

| Component | Model | Qty | Price |
| --- | --- | --- | --- |
| **CPU** | AMD Threadripper PRO 7975WX | 1 | $3,899 |
| **Motherboard** | ASUS Pro WS WRX90E-SAGE SE | 1 | $1,299 |
| **GPU** | PNY RTX 4090 24GB XLR8 | 4 | $7,200 |
| **PSU** | Seasonic PRIME TX-1600 | 1 | $529 |

- four RTX 4090s, each on x16
- GPUs: 1800W (4x 450W)

| Slot | Device | Lanes |
| --- | --- | --- |
| PCIE1 | RTX 4090 #1 | x16 |
| PCIE2 | RTX 4090 #2 | x16 |
| PCIE3 | RTX 4090 #3 | x16 |
| PCIE4 | RTX 4090 #4 | x16 |

Host: gpu-node-4090, the 3090 box is another machine.
"""


def test_the_list_is_counted_and_every_other_mention_is_not():
    q, r = read(QUICKREF)
    assert gpus(q) == {"nvidia-rtx-4090": 4}  # not 4 + 4 + 4 + 4x1 + a host name
    status = {x.line: x.status for x in q.lines}
    assert status[7] == "part"
    assert status[1] == "title"
    assert [status[n] for n in (15, 16, 17, 18)] == ["mention"] * 4  # the lane table, one row per card
    line = next(x for x in r.quote.lines if x.line == 15)
    assert "outside the parts list (lines 5-8)" in line.read_as and "not counted" in line.read_as


def test_a_table_row_never_matches_twice():
    q, _ = read("| GPU | NVIDIA RTX 4090 24GB (RTX 4090 D not offered) | 2 |\nCPU: i9-14900K\n")
    row = q.lines[0]
    assert [p.kind for p in row.parts] == ["gpu"] and gpus(q) == {"nvidia-rtx-4090": 2}


def test_candidates_after_the_list_are_mentions():
    text = (
        "* 显卡: MSI RTX 4090 -- 15999 元\n* CPU: i9-14900K -- 4299 元\n* 主板: ROG Maximus Z790 Hero -- 4999 元\n"
        "* 电源: 1600W -- 1999 元\n\n---\n\n## 比较过的\n\n亞馬遜, GIGABYTE GeForce RTX 4090 Gaming OC 24G 顯卡, 3X WINDFORCE 風扇, 很安静\n\n"
        "亞馬遜, ASUS TUF Gaming GeForce RTX 4090 OC Edition 24GB 顯卡, 三風扇設計, 也不錯\n"
    )
    q, _ = read(text)
    assert gpus(q) == {"nvidia-rtx-4090": 1}
    assert {x.status for x in q.lines if x.line >= 9 and x.parts} == {"mention"}


def test_a_one_line_config_gives_each_part_its_own_count():
    q, r = read("2024配置 CPU:2× AMD EPYC 9654(96核)显卡:4× RTX 4080(配NVLink桥接器)内存:768GB DDR5\n")
    assert q.build_data["cpu"] == "amd-epyc-9654" and q.build_data["cpu_count"] == 2
    assert gpus(q) == {"nvidia-rtx-4080": 4}
    assert r.missing == ["board"]
    nvlink = [c for c in r.claims if c.about == "nvlink"]
    assert nvlink and all(
        c.verdict is False for c in nvlink
    )  # an RTX 4080 has no NVLink connector: the bridge says it does


def test_a_build_written_as_a_sentence_is_read_and_the_rejected_cards_are_not():
    q, r = read(
        "Dennis's build centers on an ASUS ROG Strix TRX40-E Gaming motherboard paired with an AMD Ryzen "
        "Threadripper 3960X and a pair of RTX A4500 workstation GPUs. He notes that consumer RTX 3090 cards "
        "were tried and rejected.\n"
    )
    assert gpus(q) == {"nvidia-rtx-a4500": 2}
    assert r.verdict == "INCOMPLETE"
    assert {p.kind for x in r.not_in_catalog for p in x.parts if not p.in_catalog} == {"board", "cpu"}


def test_a_kind_the_list_lacks_is_taken_from_the_only_line_naming_it():
    q, r = read(
        "# [bench] dual.yml on Z77 + i7-3770K\n\n- **GPU 0:** NVIDIA GeForce RTX 3090\n- **GPU 1:** NVIDIA GeForce RTX 3090\n"
    )
    assert gpus(q) == {"nvidia-rtx-3090": 2}
    assert {p.kind for x in r.not_in_catalog for p in x.parts} == {"cpu", "board"}
    assert any("names no cpu" in n for n in r.quote.notes)


def test_a_count_the_list_leaves_unwritten_comes_from_the_summary():
    q, r = read(
        "简简单单的一台具备 4 张 2080Ti 显卡的小电脑。\n\n- **Motherboard**：Gigabyte X299-WU8\n- **GPU**：ASUS TURBO-RTX 2080Ti-11G\n"
    )
    gpu = next(x for x in q.lines if x.line == 4)
    assert gpu.status == "part" and gpu.qty == 4 and "line 1" in gpu.qty_source
    # an 11 GB 2080 Ti is the stock card, never the catalog's modified 22 GB one
    assert gpus(q) == {"nvidia-rtx-2080-ti": 4}


def test_a_heading_count_belongs_to_the_one_part_under_it():
    q, _ = read("## CPUs (x2)\n- **AMD EPYC 9554** (SP5)\n\n## GPUs (x4)\n- 4x **NVIDIA L40S**\n")
    assert q.build_data["cpu_count"] == 2 and gpus(q) == {"nvidia-l40s": 4}


def test_a_hypothetical_never_counts_nor_stops_the_reading():
    q, r = read(
        "CPU: Intel Core i9-14900K\nMotherboard: ASUS ROG Maximus Z790 Hero\nGPU: 2x RTX 4090\n"
        "Even with 64 cards and a 99999W supply you would need more lanes than any desktop has.\n"
    )
    assert gpus(q) == {"nvidia-rtx-4090": 2} and r.verdict in ("WARN", "PROBLEMS")


def test_a_count_read_into_a_wattage_is_left_out_not_an_exit():
    q, r = read("i9-14900K + ROG Maximus Z790 Hero + 双4090 + 1600W 电源 ×16\n")
    assert "psu_w" not in q.build_data or q.build_data["psu_w"] <= 20000
    assert r.verdict in ("WARN", "PROBLEMS", "INCOMPLETE")


# ---------------------------------------------------------------- quantities in every written form


@pytest.mark.parametrize(
    ("line", "count"),
    [
        ("GPU: 2 x [Asus Strix RTX 4090 24GB OC](https://shop.example/strix)", 2),
        ("显卡：3090 24G*4", 4),
        ("NVIDIA RTX 4090 4 pcs", 4),
        ("RTX 4090 x4", 4),
        ("RTX 4090 ×2", 2),
        ("显卡：双路RTX 4090", 2),
        ("双卡4090", 2),
        ("显卡：四张4090", 4),
        ("4090 8卡", 8),
        ("RTX 4090 2块", 2),
        ("RTX 4090 (2)", 2),
        ("| GPU | RTX 4090 | 2 |", 2),
        ("RTX 4090 ¥12,999 x2 = ¥25,998", 2),
        ("2x **NVIDIA L4**", 2),
        ("a pair of RTX A4500 cards", 2),
    ],
)
def test_a_count_in_every_written_form(line, count):
    q, _ = read(f"CPU: AMD Ryzen Threadripper PRO 7975WX\nMotherboard: ASUS Pro WS WRX90E-SAGE SE\n{line}\n")
    assert sum(gpus(q).values()) == count


def test_a_line_total_at_the_unit_price_is_a_count():
    q, _ = read(
        "| Item | Unit Price | Total |\n|---|---|---|\n| AMD Ryzen Threadripper PRO 7975WX | $3,899 | $3,899 |\n"
        "| RTX 4090 | $1,799 | $7,196 |\n| RTX 4090 (spare) | $1,799 | $1,899 |\n"
    )
    assert [x.qty for x in q.lines if x.line in (4, 5)] == [4, 1]  # not a whole number of them: none read


def test_two_supplies_add_up():
    q, _ = read(
        "PSU Primary: EVGA SuperNOVA 1600 T2\nPSU Secondary: EVGA SuperNOVA 1000 T2\nGPU: 4x RTX 4090\n"
    )
    assert q.build_data["psu_w"] == 2600
    q, _ = read("2 x PSU 1600 W\nGPU: 4x RTX 4090\n")
    assert q.build_data["psu_w"] == 3200


def test_a_ram_line_keeps_its_modules():
    q, _ = read("内存 32G*8\nGPU: RTX 4090\n")
    assert q.build_data["ram_gb"] == 256


# ---------------------------------------------------------------- claims, and checks from the parts alone


UNKNOWN_BOARD = "CPU: Intel Core i9-14900K\n主板: 某品牌 Z790 工作站主板\n显卡: RTX 4090 ×4\n电源: 1000W\n"


@pytest.mark.parametrize(
    ("claim", "about", "verdict"),
    [
        ("支持NVLink", "nvlink", False),
        ("NVLink桥接，NVLink不降速", "nvlink", False),
        ("可惜不支持NVLink", "nvlink", True),
        ("内存四通道", "memory_channels", False),
        ("显存叠加96G", "pooled_memory", False),
        ("满血", "full_speed", False),
        ("支持多卡并行训练无损", "scaling", "unknown"),
        ("四张卡之间能P2P吗？", None, None),
    ],
)
def test_claims_are_judged_without_the_board(claim, about, verdict):
    _, r = read(UNKNOWN_BOARD + claim + "\n")
    got = {c.about: c.verdict for c in r.claims if c.line == 5}
    assert got == ({} if about is None else {about: verdict})


def test_a_problem_found_without_the_board_is_said():
    _, r = read(UNKNOWN_BOARD)
    assert r.verdict == "PROBLEMS"
    checks = {c.id: c for c in r.part_checks}
    assert checks["QTE001"].severity == "error" and "whatever the board" in checks["QTE001"].message
    assert "4 GPUs cannot each get x16 on any board" in checks["QTE002"].message
    assert "not in the catalog" in r.summary  # and what is unknown is said beside it


def test_pcie5_on_a_gen4_card_is_false_whatever_the_board():
    _, r = read(
        UNKNOWN_BOARD.replace("×4", "×2").replace("1000W", "2000W") + "Both cards run at PCIe 5.0 x16\n"
    )
    c = next(c for c in r.claims if c.about == "pcie")
    assert c.verdict is False and "Gen5" in c.why


def test_p2p_through_a_patched_driver_is_left_open():
    _, r = read(
        "# 2x 3090, aikitoria P2P enabled\n\n- **CPU:** AMD Ryzen 5 5600\n- **GPU 0:** RTX 3090\n- **GPU 1:** RTX 3090\n"
    )
    c = next(c for c in r.claims if c.about == "p2p")
    assert c.verdict == "unknown" and "patched" in c.why


def test_cards_on_risers_leave_slot_spacing_unjudged():
    text = (
        "| Motherboard | ASRock Rack ROMED8-2T |\n| CPU | AMD EPYC 7532 |\n| GPU | 4 x RTX 3090 Founders Edition |\n"
        "| PCIe Riser cables | Cooler Master Riser Cable PCIe 4.0 x16 |\n| Power Supply | 2000W + 850W |\n"
    )
    _, r = read(text)
    assert not [f for f in r.plan.findings if f.id in ("FIT001", "FIT002")]
    assert any("risers" in n for n in r.quote.notes)


# ---------------------------------------------------------------- --explain


def test_explain_says_how_each_line_was_read(cli, write):
    code, out, _ = cli("validate", str(write("q.md", QUICKREF)), "--explain")
    assert code == 1
    how = out.split("How each line was read")[1]
    assert "line 7: read as GPU x4 (count from the qty column)" in " ".join(how.split())
    assert "line 1: a title or heading: not counted" in " ".join(how.split())
    assert "line 17: names a part outside the parts list" in " ".join(how.split())


# ---------------------------------------------------------------- bounded work


def _long_quote(n: int) -> str:
    """The parts list, half the quote long (priced lines, the shape each line was once compared with every
    earlier one), then prose, table rows and lines of mentions and claims."""
    head = "CPU: AMD Ryzen Threadripper PRO 7975WX\n主板: ASUS Pro WS WRX90E-SAGE SE\n显卡: RTX 4090 24G ×4\n电源: 1600W\n"
    listed = "".join(f"{i % 4 + 1} x Samsung 990 PRO 2TB NVMe SSD ¥1,299\n" for i in range(n // 2))
    shapes = (
        "这台机器在第{i}次测试里跑满了四张卡, even with four cards the fans stay quiet",
        "| GPU | RTX A6000 48GB | {k} | $4,650 |",
        "- line {i}: the 3090 box gpu-node-a6000 PCIe 4.0 x16 满速 P2P",
    )
    rest = "".join(shapes[i % 3].format(i=i, k=i % 4 + 1) + "\n" for i in range(n - n // 2))
    return head + listed + "\n" + rest


def _calls(n: int) -> int:
    """The function calls reading and checking an n-line quote makes: the work, counted, not timed."""
    import sys

    text = _long_quote(n)
    count = 0

    def tally(frame, event, arg):
        nonlocal count
        if event in ("call", "c_call"):
            count += 1

    sys.setprofile(tally)
    try:
        evaluate_quote(read_quote(text, "long.txt", catalog()), catalog())
    finally:
        sys.setprofile(None)
    return count


def test_every_stage_is_linear_in_the_quote():
    # a price line is compared with the items above it in one pass, a run's list lines are counted as they
    # come: four times the lines is about four times the calls (comparing each line with every earlier
    # one made it sixteen)
    _calls(40)  # the catalog, the rules and the matcher built once
    small, large = _calls(1000), _calls(4000)
    assert large < 4.5 * small, (small, large)


def test_prose_naming_parts_is_explained_as_a_mention_and_a_plural_is_the_model():
    text = "CPU: AMD Threadripper PRO 7975WX\nGPU: 4x RTX 4090\n\nWe chose four RTX 4090s over two RTX 6000 Ada cards.\n"
    q, r = read(text)
    assert gpus(q) == {"nvidia-rtx-4090": 4}  # the sentence compares, it adds no card
    line = next(x for x in r.quote.lines if x.line == 4)
    assert line.read_as.startswith("prose naming NVIDIA GeForce RTX 4090, NVIDIA RTX 6000 Ada Generation")
    assert "a mention, not counted" in line.read_as


# ---------------------------------------------------------------- the stated job against the GPUs' memory


JOB_BUILD = "CPU: Intel Core i9-14900K\n主板: 某品牌 Z790\n显卡: 2x RTX 4090\n电源: 1600W\n"


@pytest.mark.parametrize(
    ("job", "severity", "note"),
    [
        ("用途: 跑 Llama 70B FP16 推理", "error", None),  # 140 GB of weights on 48 GB, whatever the board
        ("For 405B inference", "error", None),  # even at 4 bits: 202.5 GB
        ("用途: 跑 70B 推理", None, "fits only quantized"),  # no precision written: 35 GB at 4 bits
        ("Llama 70B AWQ 4-bit inference", None, None),
        ("Serves Qwen 7B and Llama 70B", None, "several model sizes"),
        ("Even a 405B model would run if we added cards", None, None),  # supposes, states no job
        ("Mixtral 8x22B inference", None, None),  # a mixture's size is not one number
    ],
)
def test_the_stated_job_is_weighed_against_the_gpus_memory(job, severity, note):
    q, r = read(JOB_BUILD + job + "\n")
    checks = [c for c in r.part_checks if c.id == "QTE003"]
    assert [c.severity for c in checks] == ([severity] if severity else [])
    if severity == "error":
        assert r.verdict == "PROBLEMS" and "whatever the board" in checks[0].message
    assert any(note in n for n in q.notes) if note else not any(" model" in n for n in q.notes)


@pytest.mark.parametrize(
    ("board", "verdict"),
    [("ProArt X670E-CREATOR WIFI", True), ("ASUS ROG Strix Z790-E Gaming WiFi", False)],
)
def test_a_note_in_brackets_on_a_board_line_keeps_the_board_and_is_judged(board, verdict):
    cpu = "AMD Ryzen 9 7950X" if "X670E" in board else "Intel Core i9-14900K"
    q, r = read(f"CPU: {cpu}\n主板: {board}(支持双x8直连)\n显卡: 2x RTX 4090\n电源: 1600W\n")
    assert q.build_data["board"] and q.lines[1].status == "part"
    (c,) = [c for c in r.claims if c.line == 2]
    assert c.about == "pcie" and c.verdict is verdict  # the Strix gives the second card x4 from the chipset


# one set of cards written four ways (a title, a list row, a summary, lane lines)
FOUR_WAYS = """# Quad A6000 training box

| Part | Model | Qty |
|---|---|---|
| **CPU** | Intel Core i9-13900K 24C/32T | 1 |
| Motherboard | Supermicro H12SSL-i | 1 |
| GPU | RTX A6000 | 4 |
| PSU | 2 x PSU 1600 W | 1 |

- four A6000s, each on x16
- host: gpu-node-a6000

## The 3090 box

GPU #1 A6000 | x16
GPU #2 A6000 | x16
GPU #3 A6000 | x16
GPU #4 A6000 | x16

Card 2 - RTX A5000
"""


def test_one_set_of_cards_written_four_ways_is_counted_once():
    q, r = read(FOUR_WAYS)
    assert gpus(q) == {"nvidia-rtx-a6000": 4}
    status = {x.line: x.status for x in q.lines}
    assert status[5] == "part" and status[13] == "title"  # "## The 3090 box" is no card
    assert [status[n] for n in (15, 16, 17, 18, 20)] == ["mention"] * 5
    assert not any("16x" in n for n in q.notes)  # "| x16" is each card's link, not sixteen cards
    (c,) = [c for c in r.claims if c.line == 10]
    assert c.verdict is False and "whatever the board" in c.why  # a Core i9 cannot give four cards x16


def test_a_recommendation_in_one_clause_leaves_the_parts_of_the_others():
    q, _ = read(
        "虽然不少显卡都会给出电源的功率建议,不过实测更准,今天我们就用i9 14900K处理器+RTX 4090显卡组成平台。\n"
        "显卡推荐电源功率不低于850W。\n我们选用1200W的额定功率的电源,支持2路600W的12VHPWR显卡电源输出。\n"
    )
    assert gpus(q) == {"nvidia-rtx-4090": 1} and q.build_data["cpu"] == "intel-core-i9-14900k"
    assert q.build_data["psu_w"] == 1200  # a connector's 600 W is not the supply, a recommended 850 W neither


def test_a_marked_list_ends_where_lines_are_written_another_way():
    q, _ = read(
        "Some upgrades:\n\n  • GPU: RTX 4090\n  • CPU: AMD Ryzen Threadripper PRO 5975WX\n  • PSU: 1600W\n"
        "Upgraded motherboard, 4090 and AMD CPU\nUpgraded motherboard, 4090 and AMD CPU\n\nRTX 4090\n\n"
        "The card has no NVLink.\n"
    )
    assert gpus(q) == {"nvidia-rtx-4090": 1}  # captions and a section's name are mentions
    assert {x.line: x.status for x in q.lines}[6] == "mention"


def test_a_supposition_writes_no_count_for_the_list():
    q, _ = read(
        "  • GPU: RTX 4090\n  • CPU: AMD Ryzen Threadripper PRO 5975WX\n  • 电源: 1600W\n\n"
        "5975WX处理器有128个PCIe通道。即使同时使用4块RTX 4090显卡,也还有56个剩余。\n"
    )
    assert gpus(q) == {"nvidia-rtx-4090": 1}


def test_a_files_path_names_no_card():
    q, r = read(
        "## System\n\n- **Motherboard:** ASUS Pro WS WRX80E-SAGE SE WIFI\n- **CPU:** AMD Ryzen Threadripper PRO 5975WX\n\n"
        "## Disk\n\n- **~/club-3090/models-cache:** 1,6T available\n\n## GPU hardware\n\n"
        "- **GPU 0:** NVIDIA GeForce RTX 3090 | 24576 MiB\n- **GPU 1:** NVIDIA GeForce RTX 3090 | 24576 MiB\n"
    )
    assert gpus(q) == {"nvidia-rtx-3090": 2}
    assert not [x for x in q.lines if x.line == 8 and x.parts]


def test_a_gpu_named_by_words_alone_and_a_ram_total():
    q, _ = read(
        "- CPU - AMD Ryzen Threadripper PRO 5975WX\n- Memory - Corsair Vengeance LPX 16GB (2x 2 packs), total 64GB\n"
        "- GPU 1 - TITAN Xp\n- GPU 2 - Titan RTX\n"
    )
    assert gpus(q) == {"nvidia-titan-rtx": 1}  # a TITAN Xp is not a TITAN RTX: a part the catalog lacks
    assert q.build_data["ram_gb"] == 64
    assert {x.line: x.status for x in q.lines}[3] == "not_in_catalog"


def test_nvlink_on_a_card_without_it_is_false_with_one_card_and_in_an_upgrade_table():
    text = (
        "- NVLink support (for pairing two cards)\n\n| Component | Model | Price |\n|---|---|---|\n"
        "| GPU | NVIDIA RTX PRO 6000 Blackwell WS (96 GB) | CHF 7,691 |\n| CPU | AMD Threadripper 7960X | CHF 971 |\n"
        "| Motherboard | ASUS Pro WS TRX50-SAGE WIFI | CHF 648 |\n| PSU | be quiet! Dark Power Pro 13 1600W | CHF 352 |\n\n"
        "Upgrade path:\n\n| Item | Action | Est. Cost |\n|---|---|---|\n| 2nd GPU | Add RTX PRO 6000 Blackwell | ~CHF 7,691 |\n"
        "| NVLink bridge | Optional — enables 112.5 GB/s inter-GPU link | ~CHF 100-200 |\n"
    )
    q, r = read(text)
    assert gpus(q) == {"nvidia-rtx-pro-6000-blackwell": 1} and r.verdict == "PROBLEMS"
    got = {c.line: c.verdict for c in r.claims if c.about == "nvlink"}
    assert got == {1: False, 15: False}  # the card has no NVLink connector; the bridge joins nothing
    bridge = next(x for x in q.lines if x.line == 15)
    assert [p.kind for p in bridge.parts] == ["bridge"]  # "112.5 GB/s", "CHF 100-200" are no model


def test_explain_gives_each_part_of_a_one_line_list_its_own_count():
    _, r = read("i9-14900K + 华硕 Z790 Hero + 双4090 24G + 1600W 电源, 总价 38999 元, 支持双卡P2P满速\n")
    assert r.quote.lines[0].read_as.startswith("read as CPU x1 + board x1 + GPU x2 + PSU x1")
