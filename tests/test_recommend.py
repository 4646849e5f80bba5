"""advisor recommend: the front of price against the job's speed, checked on a small catalog where it can
be worked out by hand, its bounds against a search without them, and its answers to questions people
published, each front build planned again by `advisor plan`."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
import yaml

from advisor.base.resources import bundled
from advisor.recommend.question import parse_budget

ROOT = Path(__file__).resolve().parent.parent
AS_OF = "2026-01-01"
QUESTIONS = yaml.safe_load((ROOT / "tests" / "fixtures" / "recommend" / "questions.yaml").read_text())

# the hand catalog: two platforms and two cards, each a copy of a catalog part with a round price
HAND = {
    "hc-desktop-cpu": ("cpus/intel-core-i9-14900k.yaml", 500),
    "hc-desktop-board": ("boards/asus-rog-maximus-z790-hero.yaml", 500),
    "hc-ws-cpu": ("cpus/amd-ryzen-threadripper-7960x.yaml", 1500),
    "hc-ws-board": ("boards/asus-pro-ws-trx50-sage-wifi.yaml", 1000),
    "hc-gpu-a": ("gpus/nvidia-rtx-4090.yaml", 1000),
    "hc-gpu-b": ("gpus/nvidia-rtx-5090.yaml", 2000),
}
PLATFORMS = (("hc-desktop-cpu", "hc-desktop-board"), ("hc-ws-cpu", "hc-ws-board"))
JOB = ["--train", "8b", "--lora", "16"]


@pytest.fixture
def hand(tmp_path) -> Path:
    folder = tmp_path / "hand"
    folder.mkdir()
    for pid, (src, price) in HAND.items():
        data = yaml.safe_load((bundled("catalog") / src).read_text())
        data.update(id=pid, name=f"HandCheck {pid}", aliases=[], part_numbers=[], price_usd=None)
        data["prices"] = [
            {
                "amount": price,
                "currency": "USD",
                "date": "2025-12-01",
                "kind": "list",
                "source": "https://example.com/hand-check",
                "says": "a round price for a test that works the front out by hand",
            }
        ]
        (folder / f"{pid}.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    return folder


def _hand_catalog(folder: Path):
    from advisor.model.catalog.store import Catalog, expand_cards, load_folder

    catalog, problems = Catalog(), []
    load_folder(folder, catalog, problems)
    expand_cards(catalog, problems)
    assert not problems
    return catalog


def _recommend(folder: Path, budget: float, bounds: bool = True, **kw):
    from advisor.cli.parser import parser
    from advisor.cli.plan import workload_from_args
    from advisor.model.prices import PriceBook
    from advisor.recommend import Constraints, recommend

    catalog = _hand_catalog(folder)
    w = workload_from_args(parser().parse_args(["recommend", *JOB]))
    book = PriceBook(catalog, "USD", dt.date.fromisoformat(AS_OF))
    return recommend(w, catalog, book, Constraints(budget=budget, **kw), bounds=bounds)


def _key(c) -> tuple:
    return (c.cpu.id, c.board.id, c.gpu.id, c.count)


def test_the_front_on_a_hand_catalog_is_the_one_worked_out_by_hand(hand, cli):
    """Every build of the hand catalog within the budget, priced by adding its parts' round prices and run
    through `advisor workload` and `advisor plan` one by one; the front worked out from those numbers is
    the recommender's, cheapest first."""
    budget = 6000
    answer = _recommend(hand, budget)
    by_hand = []
    for cpu, board in PLATFORMS:
        slots = 2 if board == "hc-desktop-board" else 4
        for gpu in ("hc-gpu-a", "hc-gpu-b"):
            for k in range(1, slots + 1):
                price = HAND[cpu][1] + HAND[board][1] + k * HAND[gpu][1]
                if price > budget:
                    continue
                flags = ["--cpu", cpu, "--board", board, "--gpu", f"{gpu}:{k}", "--catalog", str(hand)]
                code, out, err = cli("plan", *flags, "--json")
                if code != 0 or any(f["severity"] == "error" for f in json.loads(out)["findings"]):
                    continue
                code, out, err = cli("workload", *flags, *JOB, "--json")
                assert code == 0, err
                many = json.loads(out)["configurations"][-1]
                assert many["gpus"] == k
                if many["fits"]:
                    by_hand.append((price, many["samples_per_s"], (cpu, board, gpu, k)))
    by_hand.sort(key=lambda x: (x[0], -x[1]))
    front = []
    for price, speed, key in by_hand:
        if not front or speed > front[-1][1]:
            front.append((price, speed, key))
    assert [_key(c) for c in answer.front] == [k for _, _, k in front]
    assert [round(c.price) for c in answer.front] == [p for p, _, _ in front]
    # what a person sees at once: the cheapest build is the desktop with one card (2,000); the workstation
    # with one card costs 1,500 more for the same one-GPU speed, so it is never on the front
    assert _key(answer.front[0]) == ("hc-desktop-cpu", "hc-desktop-board", "hc-gpu-a", 1)
    assert ("hc-ws-cpu", "hc-ws-board", "hc-gpu-a", 1) not in [_key(c) for c in answer.front]
    assert all(c.price <= budget for c in answer.front)
    speeds = [c.speed for c in answer.front]
    assert speeds == sorted(speeds) and len(set(speeds)) == len(speeds)


def test_the_bounds_drop_no_build_of_the_front(hand):
    """The search with its bounds (price, memory, dominated CPUs, k x one GPU) gives the front the search
    without them gives, having assessed fewer builds."""
    with_bounds = _recommend(hand, 9000)
    without = _recommend(hand, 9000, bounds=False)
    assert [_key(c) for c in with_bounds.front] == [_key(c) for c in without.front if c.price <= 9000]
    assert with_bounds.counts.evaluated < without.counts.evaluated
    assert sum(with_bounds.counts.pruned.values()) > 0


def test_a_part_without_a_price_is_left_out_and_named(hand):
    (hand / "hc-gpu-b.yaml").write_text(
        (hand / "hc-gpu-b.yaml").read_text().split("prices:")[0]
        + "prices: []\n"
        + "sources:"
        + (hand / "hc-gpu-b.yaml").read_text().split("sources:", 1)[1]
    )
    answer = _recommend(hand, 9000)
    assert ("gpu", "hc-gpu-b", "HandCheck hc-gpu-b") in answer.unpriced
    assert all(c.gpu.id != "hc-gpu-b" for c in answer.front + answer.others)
    assert answer.counts.pruned["no price known"] > 0


def test_owned_cards_cost_nothing_and_every_build_uses_them(hand):
    answer = _recommend(hand, 9000, own=(("hc-gpu-a", 2),))
    assert answer.front
    for c in answer.front:
        assert c.gpu.id == "hc-gpu-a" and c.count >= 2
        gpu_line = next(ln for ln in c.lines if ln.kind == "gpu")
        assert gpu_line.owned == 2 and gpu_line.total == 1000 * (c.count - 2)


def test_a_circuit_keeps_builds_under_its_continuous_watts(hand):
    answer = _recommend(hand, 20000, circuit=(120.0, 15.0))
    assert answer.front and all(c.power_w <= 1440 for c in answer.front)
    assert answer.counts.pruned.get("over the circuit's power", 0) > 0


# ------------------------------------------------------------------ questions people published


def _front_plans_clean(cli, tmp_path, out: dict) -> None:
    """Every front build, written as a build file, plans with no finding of severity error."""
    for b in out["front"]:
        path = tmp_path / f"front-{b['rank']}.yaml"
        path.write_text(yaml.safe_dump(b["build"], sort_keys=False))
        code, text, err = cli("plan", str(path), "--json")
        assert code in (0, 1), err
        errors = [f["id"] for f in json.loads(text)["findings"] if f["severity"] == "error"]
        assert not errors, (b["rank"], errors)


@pytest.mark.parametrize("q", QUESTIONS, ids=[q["id"] for q in QUESTIONS])
def test_a_published_question_is_answered_with_a_front_plan_accepts(cli, tmp_path, q):
    assert q["source"].startswith("https://") and q["asked"]
    code, out, err = cli("recommend", *q["args"], "--as-of", AS_OF, "--json")
    assert code == (0 if q["expect"].get("front", True) else 1), err
    data = json.loads(out)
    expect = q["expect"]
    assert data["currency"] == expect.get("currency", "USD")
    front = data["front"]
    if not expect.get("front", True):
        assert front == [] and data["no_price_known"], "an empty answer says which parts have no price"
        return
    assert front
    _front_plans_clean(cli, tmp_path, data)
    prices = [b["price"] for b in front]
    speeds = [b["speed"] for b in front]
    assert prices == sorted(prices) and speeds == sorted(speeds)
    assert front[0]["why"] and all("the speed of #" in b["why"] for b in front[1:]), "each step up explained"
    if "budget" in expect:
        assert all(b["price"] <= expect["budget"] for b in front)
    if "max_power_w" in expect:
        assert all(b["power_w"] <= expect["max_power_w"] for b in front)
    if "own" in expect:
        gpu, count = expect["own"]
        for b in front:
            assert b["gpu"] == gpu and b["gpus"] >= count
            assert next(ln for ln in b["lines"] if ln["kind"] == "gpu")["owned"] == count
    if "min_gpus" in expect:
        assert all(b["gpus"] >= expect["min_gpus"] for b in front)
    c = data["counts"]
    assert c["enumerated"] >= c["evaluated"] + sum(x["count"] for x in c["pruned"])


def test_a_bare_budget_is_read_as_dollars_and_says_so(capsys):
    """'--budget 50000' is dollars to one buyer and yuan to another: the reading is said (stderr, in the
    run's language) with how to write yuan."""
    from advisor.base.notices import to
    from advisor.i18n import set_language

    said: list[str] = []
    with to(said.append):
        assert parse_budget("50000", None) == (50000.0, "USD")
        assert parse_budget("¥50,000", None) == (50000.0, "CNY") and parse_budget("8000", "USD")[1] == "USD"
        set_language("zh")
        try:
            parse_budget("60000", None)
        finally:
            set_language("en")
    assert said == [
        "--budget 50000: no currency written, read as USD (for yuan: --currency CNY, or ¥50000)",
        "--budget 60000：没写货币，按美元计（人民币请加 --currency CNY，或写成 ¥60000）",
    ]


def test_the_seed_question_shows_what_each_step_up_buys(cli):
    """Fine-tune an 8B model with LoRA for 40,000 CNY: the 2x RTX 4090 build on the Z790 board is on the
    front only as far as its speed over the single cards pays for its price, with its x8/x8 lanes and its
    copies staged through host memory named, and what it buys over the next cheaper build in numbers."""
    code, out, err = cli(
        "recommend",
        "--train",
        "8b",
        "--lora",
        "16",
        "--budget",
        "40000",
        "--currency",
        "CNY",
        "--as-of",
        AS_OF,
    )
    assert code == 0, err
    assert "Cheapest that runs the job" in out and "Fastest within the budget" in out
    assert "no currency written" not in err
    code, out, err = cli(
        "recommend", "--train", "8b", "--lora", "16", "--budget", "4万", "--as-of", AS_OF, "--json"
    )
    assert "no currency written" not in err  # 万 is yuan
    data = json.loads(out)
    two = next(b for b in data["front"] + data["others"] if b["gpu"] == "nvidia-rtx-4090" and b["gpus"] == 2)
    assert "lanes x8/x8" in two["limits"] and "no P2P: staged through host memory" in two["limits"]
    assert two["speed_low"] < two["speed"] < two["speed_high"]  # the speed-up class's range
    one = next(b for b in data["front"] if b["gpu"] == "nvidia-rtx-4090" and b["gpus"] == 1)
    assert two["speed"] < 2 * one["speed"]  # two cards on x8 without P2P: less than twice one
    assert one["speed_low"] is None  # one GPU: no speed-up class, no range claimed


# ------------------------------------------------------------------ prices


def test_a_price_list_overrides_the_catalog_and_is_read_as_csv_or_yaml(cli, tmp_path):
    csv = tmp_path / "mine.csv"
    csv.write_text("part,price,currency,date,where\nRTX 4090,9999,CNY,2025-12-20,a shop in Shenzhen\n")
    code, out, err = cli(
        "recommend",
        *JOB,
        "--max-gpus",
        "1",
        "--currency",
        "CNY",
        "--prices",
        str(csv),
        "--as-of",
        AS_OF,
        "--json",
    )
    assert code == 0, err
    data = json.loads(out)
    line = next(ln for b in data["front"] for ln in b["lines"] if ln["part"] == "nvidia-rtx-4090")
    price = line["unit_price"]
    assert price["kind"] == "yours" and price["amount"] == 9999 and price["source"].endswith("mine.csv:2")
    assert price["converted"] is False and price["stale"] is False
    cpu = next(ln for b in data["front"] for ln in b["lines"] if ln["kind"] == "cpu")["unit_price"]
    assert cpu["converted"] is True and data["rate"].startswith("7.2014 CNY per USD (2025-04-30")


@pytest.mark.parametrize(
    "text, where, says",
    [
        (
            "prices:\n  - {part: RTX 4090, price: 1000, currency: EUR, date: 2025-01-01}\n",
            ":2: currency",
            "USD or CNY",
        ),
        (
            "prices:\n  - {part: RTX 4090, price: 1000, currency: USD, date: 2025-13-01}\n",
            ":2: date",
            "not a date",
        ),
        (
            "prices:\n  - {part: RTX 9999, price: 1000, currency: USD, date: 2025-01-01}\n",
            ":2: part",
            "names no CPU",
        ),
        (
            "prices:\n  - {part: RTX 4090, price: -5, currency: USD, date: 2025-01-01}\n",
            ":2: price",
            "outside 0",
        ),
        (
            "prices:\n  - {part: RTX 4090, price: 5, currency: USD, date: 2025-01-01, shop: x}\n",
            ":2",
            "unknown field",
        ),
    ],
)
def test_a_wrong_price_list_is_refused_at_its_line(cli, tmp_path, text, where, says):
    path = tmp_path / "p.yaml"
    path.write_text(text)
    code, _, err = cli("recommend", *JOB, "--prices", str(path), "--as-of", AS_OF)
    assert code == 2 and f"{path}{where}" in err and says in err and "Traceback" not in err


def test_an_old_price_is_flagged_stale_and_an_unpriced_part_listed_apart(cli):
    code, out, _ = cli("recommend", *JOB, "--max-gpus", "1", "--as-of", "2027-01-01", "--json")
    data = json.loads(out)
    assert all(b["stale_prices"] for b in data["front"])
    code, text, _ = cli("recommend", *JOB, "--max-gpus", "1", "--as-of", "2027-01-01")
    flat = " ".join(text.split())  # the list of unpriced parts wraps where the terminal does
    assert "STALE" in flat and "No price known" in flat and "ASUS Pro WS TRX50-SAGE WIFI" in flat


@pytest.mark.parametrize(
    "args, says",
    [
        (["--budget", "lots"], "is not an amount"),
        (["--budget", "$8000", "--currency", "CNY"], "name two currencies"),
        (["--circuit", "220"], "VOLTS x AMPS"),
        (["--own", "RTX 4090:x"], "PART or PART:COUNT"),
        (["--gpus", "2"], "--min-gpus and --max-gpus"),
        (["--as-of", "soon"], "is not a date"),
    ],
)
def test_wrong_recommend_flags_are_clear_errors(cli, args, says):
    code, _, err = cli("recommend", *JOB, *args)
    assert code == 2 and says in err and "Traceback" not in err


def test_a_quotes_prices_saved_as_a_list_feed_recommend(cli, tmp_path):
    quote = tmp_path / "quote.txt"
    quote.write_text(
        "Intel Core i9-14900K  ¥4,299\nASUS ROG Maximus Z790 Hero  ¥3,999\n2x RTX 4090  ¥25,998\n1600W PSU ¥1,999\n"
    )
    saved = tmp_path / "prices.yaml"
    code, _, err = cli("validate", str(quote), "--save-prices", str(saved), "--quote-date", "2025-12-15")
    assert code in (0, 1), err
    listed = yaml.safe_load(saved.read_text())["prices"]
    assert {(p["part"], p["price"], p["currency"], p["date"]) for p in listed} == {
        ("intel-core-i9-14900k", 4299.0, "CNY", "2025-12-15"),
        ("asus-rog-maximus-z790-hero", 3999.0, "CNY", "2025-12-15"),
    }
    assert "whether that is per unit or for all is not said" in err  # the 2x line is never divided
    code, out, err = cli(
        "recommend", *JOB, "--currency", "CNY", "--prices", str(saved), "--as-of", AS_OF, "--json"
    )
    assert code == 0, err
    mine = [
        ln["unit_price"]
        for b in json.loads(out)["front"]
        for ln in b["lines"]
        if ln["unit_price"] and ln["unit_price"]["kind"] == "yours"
    ]
    assert mine and all(p["source"].startswith(str(saved)) for p in mine)


def test_the_markdown_report_has_the_table_and_the_search(cli):
    code, out, _ = cli("recommend", *JOB, "--budget", "5000", "--as-of", AS_OF, "--format", "markdown")
    assert code == 0
    assert out.startswith("# What to buy: train llama-3.1-8b")
    assert "| # | GPUs (slots) |" in out and "## Search" in out and "## Prices" in out


def test_used_takes_a_used_price_where_one_is_known_and_new_elsewhere(cli):
    prices = str(ROOT / "tests" / "fixtures" / "recommend" / "prices.yaml")
    args = ["recommend", *JOB, "--max-gpus", "1", "--currency", "CNY", "--prices", prices, "--as-of", AS_OF]
    used = json.loads(cli(*args, "--used", "--json")[1])
    new = json.loads(cli(*args, "--json")[1])

    def unit(data, part):
        return next(
            ln["unit_price"]
            for b in data["front"] + data["others"]
            for ln in b["lines"]
            if ln["part"] == part
        )

    assert (
        unit(used, "nvidia-rtx-3090")["condition"] == "used"
        and unit(used, "nvidia-rtx-3090")["amount"] == 5200
    )
    assert unit(new, "nvidia-rtx-3090")["condition"] == "new"
    assert unit(used, "nvidia-rtx-4090")["condition"] == "new"  # no used price known: the new one


def test_two_cards_on_a_desktop_board_are_slower_than_one_for_full_fine_tuning(cli):
    """The lesson behind the question: full fine-tuning reduces every gradient each step, over x8 links
    and host memory the two cards lose to one, and the answer says by how much and why."""
    args = ["--train", "1.3b", "--budget", "40000", "--currency", "CNY", "--as-of", AS_OF, "--json"]
    data = json.loads(cli("recommend", *args)[1])
    two = next(b for b in data["others"] if b["gpu"] == "nvidia-rtx-4090" and b["gpus"] == 2)
    assert all(not (b["gpu"] == "nvidia-rtx-4090" and b["gpus"] == 2) for b in data["front"])
    one = next(b for b in data["front"] if b["gpu"] == "nvidia-rtx-4090" and b["gpus"] == 1)
    assert two["speed"] < one["speed"]
    assert "give 0." in two["why"] and "no P2P: staged through host memory" in two["why"]


def test_an_owned_partner_card_is_the_builds_card(cli):
    code, out, err = cli("recommend", *JOB, "--own", "ASUS TUF Gaming RTX 4090:2", "--as-of", AS_OF, "--json")
    assert code == 0, err
    front = json.loads(out)["front"]
    assert front and all(b["gpu"] == "asus-tuf-gaming-rtx-4090" and b["gpus"] >= 2 for b in front)
