"""`advisor validate`: reading vendor quotes (text, CSV, YAML), matching parts, checking claims."""

from __future__ import annotations

import io
import json
import re
from functools import lru_cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from advisor.base.errors import UserError
from advisor.model.catalog.store import load_catalog
from advisor.quote.check import evaluate_quote
from advisor.quote.reader import read_quote
from tests.conftest import ROOT

QUOTES = ROOT / "examples" / "quotes"


@lru_cache(maxsize=1)
def catalog():
    return load_catalog()


def quote(name: str):
    path = QUOTES / name
    return read_quote(path.read_text(), str(path), catalog())


def parts(q) -> dict[str, int]:
    out: dict[str, int] = {}
    for x in q.lines:
        if x.status == "part":
            for p in x.parts:
                if p.part_id:
                    out[p.part_id] = out.get(p.part_id, 0) + x.qty
    return out


def kinds(x) -> set[str]:
    return {p.kind for p in x.parts}


def validate_json(cli, *args):
    code, out, err = cli("validate", *args, "--json")
    return code, (json.loads(out) if out else None), err


# ---------------------------------------------------------------- the examples


def test_clean_quote_passes(cli):
    q = quote("clean-2x6000ada-wrx90.txt")
    assert q.format == "text"
    assert parts(q) == {
        "amd-ryzen-threadripper-pro-7965wx": 1,
        "asus-pro-ws-wrx90e-sage-se": 1,
        "nvidia-rtx-6000-ada": 2,
    }
    assert q.build_data["psu_w"] == 1600 and q.build_data["ram_gb"] == 256
    prices = {p.part_id: x.price for x in q.lines if x.status == "part" for p in x.parts}
    assert prices["nvidia-rtx-6000-ada"] == 6799.0
    unmatched = [x.text for x in q.lines if x.status in ("other", "total")]
    assert any(t.startswith("Total:") for t in unmatched) and any("Meshify" in t for t in unmatched)
    code, r, _ = validate_json(cli, str(QUOTES / "clean-2x6000ada-wrx90.txt"))
    assert code == 0 and r["verdict"] == "PASS"
    assert {c["about"]: c["verdict"] for c in r["claims"]} == {"pcie": True, "p2p": True}
    assert [g["link"]["width"] for g in r["plan"]["gpus"]] == [16, 16]


def test_4090_hero_email_false_claims(cli):
    q = quote("2x4090-z790-hero-email.txt")
    # "ASUS TUF Gaming GeForce RTX 4090 OC": the partner card, with its own size (3.65 slots)
    assert parts(q) == {
        "intel-core-i9-14900k": 1,
        "asus-rog-maximus-z790-hero": 1,
        "asus-tuf-gaming-rtx-4090": 2,
    }
    assert q.build_data["nvlink"] == [[0, 1]] and q.build_data["ram_gb"] == 96
    nvme = [x for x in q.lines if "nvme" in kinds(x)]
    assert len(nvme) == 1 and nvme[0].qty == 2 and "nvme" not in q.build_data and q.unplaced_nvme == 2
    abouts = {c.about for c in q.claims}
    # "with the NVLink bridge they pool their memory": one claim, pooled memory, the bridge its means
    assert {"pcie", "pooled_memory"} <= abouts
    code, r, _ = validate_json(cli, str(QUOTES / "2x4090-z790-hero-email.txt"))
    assert code == 1 and r["verdict"] == "PROBLEMS"
    false = {c["about"] for c in r["false_claims"]}
    assert {"pcie", "pooled_memory"} <= false
    pcie = next(c for c in r["false_claims"] if c["about"] == "pcie")
    assert pcie["line"] == 15 and "x8" in pcie["why"]
    pooled = next(c for c in r["false_claims"] if c["about"] == "pooled_memory")
    assert "does not add up into one space" in pooled["why"] and "no NVLink connector" in pooled["why"]


def test_strix_csv_chipset_slot(cli):
    q = quote("strix-z790e-chipset-slot.csv")
    assert q.format == "csv"
    assert parts(q) == {
        "intel-core-i9-14900k": 1,
        "asus-rog-strix-z790-e-gaming-wifi": 1,
        "nvidia-rtx-4090": 2,
    }
    gpu = next(x for x in q.lines if any(p.part_id == "nvidia-rtx-4090" for p in x.parts))
    assert gpu.line == 4 and gpu.price == 1599.0 and "NVIDIA GeForce RTX 4090 Founders Edition" in gpu.text
    code, r, _ = validate_json(cli, str(QUOTES / "strix-z790e-chipset-slot.csv"))
    assert code == 1
    assert "LANE002" in {f["id"] for f in r["plan"]["findings"]}
    assert [c["line"] for c in r["false_claims"]] == [9]


def test_undersized_psu_yaml(cli):
    q = quote("undersized-psu.yaml")
    assert q.format == "yaml"
    assert parts(q) == {
        "amd-ryzen-threadripper-7970x": 1,
        "asus-pro-ws-trx50-sage-wifi": 1,
        "nvidia-rtx-5090": 2,
    }
    assert q.build_data["psu_w"] == 1000
    code, r, _ = validate_json(cli, str(QUOTES / "undersized-psu.yaml"))
    assert code == 1
    verdicts = {c["about"]: c["verdict"] for c in r["claims"]}
    assert verdicts == {"psu": False, "pcie": True}
    assert r["false_claims"][0]["line"] == 11


def test_missing_part_and_noise(cli):
    q = quote("missing-part-noise.txt")
    assert parts(q) == {"amd-epyc-9554": 1, "supermicro-h13ssl-n": 1}
    nic = [x for x in q.lines if x.status == "not_in_catalog"]
    assert [(x.line, x.parts[0].kind, x.qty) for x in nic] == [(7, "gpu", 4)]
    assert q.build_data["ram_gb"] == 12 * 64 and q.build_data["psu_w"] == 2000
    assert any("Payment terms" in x.text for x in q.lines if x.status == "other")
    code, out, _ = cli("validate", str(QUOTES / "missing-part-noise.txt"))
    assert code == 1 and out.startswith("INCOMPLETE") and "RTX 7000 Ultra" in out


def test_markdown_report(cli):
    code, out, _ = cli("validate", str(QUOTES / "2x4090-z790-hero-email.txt"), "--format", "markdown")
    assert code == 1
    assert out.startswith("# Quote review: PROBLEMS")
    assert "## Claims in the quote that do not hold" in out and "| Line |" in out


def test_every_example_resolves():
    for path in QUOTES.iterdir():
        q = read_quote(path.read_text(), str(path), catalog())
        assert q.build is not None, path


# ---------------------------------------------------------------- forms and inputs


def test_quantity_and_price_forms():
    text = (
        "2 x NVIDIA RTX 4090 24GB $1,599.00\nIntel Core i9-14900K Qty: 1 USD 549.00\n"
        "ASUS ROG Maximus Z790 Hero (x1) 629.99 USD\nRTX 4090 x3\n"
    )
    q = read_quote(text, "q.txt", catalog())
    gpus = [x for x in q.lines if "gpu" in kinds(x)]
    assert [x.qty for x in gpus] == [2, 3] and gpus[0].price == 1599.0
    assert q.build_data["gpus"] == [{"model": "nvidia-rtx-4090", "count": 5}]
    assert [x.price for x in q.lines if kinds(x) & {"cpu", "board"}] == [549.0, 629.99]


def test_incomplete_without_board(cli, write):
    p = write("q.txt", "2x RTX 4090 $1,599.00\nIntel Core i9-14900K $549\n")
    code, r, _ = validate_json(cli, str(p))
    assert code == 1 and r["verdict"] == "INCOMPLETE" and r["missing"] == ["board"]
    assert len([x for x in r["quote"]["lines"] if x["status"] == "part"]) == 2


def test_yaml_list_of_items_and_sockets():
    text = (
        "- {description: Intel Core i9-14900K, qty: 1, price: 549}\n"
        "- {description: ASUS ROG Strix Z790-E Gaming WiFi, price: '$449.99'}\n"
        "- {description: RTX 4090, qty: 1}\n"
        "- Samsung 990 PRO 2TB NVMe in M.2_1\n"
    )
    q = read_quote(text, "q.yaml", catalog())
    assert q.build_data["nvme"] == [{"socket": "M.2_1"}]
    assert q.build is not None and q.build.nvme[0].socket == "M.2_1"


def test_csv_without_suffix_is_detected():
    text = "Description;Qty;Price\nIntel Core i9-14900K;1;549\nASUS ROG Maximus Z790 Hero;1;629\nRTX 4090;2;1599\n"
    q = read_quote(text, "<stdin>", catalog())
    assert q.format == "csv" and q.build_data["gpus"] == [{"model": "nvidia-rtx-4090", "count": 2}]


def test_stdin(cli, monkeypatch):
    data = (QUOTES / "clean-2x6000ada-wrx90.txt").read_bytes()
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data)))
    code, r, _ = validate_json(cli, "-")
    assert code == 0 and r["quote"]["file"] == "<stdin>"


@pytest.mark.parametrize(
    "name,text,where",
    [
        ("q.txt", "", "q.txt"),
        ("q.txt", "   \n\n", "q.txt"),
        ("q.yaml", "cpu: [1, 2\n", "q.yaml:"),
        ("q.yaml", "just a string\n", "q.yaml:1"),
        ("q.yaml", "cpu: i9-14900K\npsu_w: [1, 2]\n", "q.yaml:2"),
        ("q.yaml", "cpu: i9-14900K\ngpus: {model: RTX 4090, count: zero}\n", "q.yaml:2"),
        ("q.txt", "hello\nthanks, bye\n", "q.txt"),
        ("q.csv", "a,b\n1,2\n", "q.csv:1"),
        ("q.txt", "RTX 4090\x00\x01", "q.txt"),
    ],
)
def test_unusable_input_is_a_user_error(name, text, where):
    with pytest.raises(UserError) as exc:
        read_quote(text, name, catalog())
    assert where in exc.value.render()


def test_binary_file_exit_2(cli, write, tmp_path):
    p = tmp_path / "q.pdf"
    p.write_bytes(b"%PDF-1.7\n\xff\xfe\x00\x01binary")
    code, out, err = cli("validate", str(p))
    assert code == 2 and "q.pdf" in err
    code, out, err = cli("validate", str(tmp_path / "nope.txt"))
    assert code == 2 and "nope.txt" in err


# ---------------------------------------------------------------- robustness

_yamlish = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-5, 5000),
        st.text(max_size=30),
        st.sampled_from(["RTX 4090", "i9-14900K", "Maximus Z790 Hero", "1600W PSU", "2x 32GB DDR5"]),
    ),
    lambda c: st.one_of(
        st.lists(c, max_size=4),
        st.dictionaries(
            st.sampled_from(
                [
                    "cpu",
                    "board",
                    "gpus",
                    "psu_w",
                    "ram_gb",
                    "claims",
                    "items",
                    "nvme",
                    "nvlink",
                    "model",
                    "count",
                    "qty",
                    "price",
                    "description",
                    "x",
                ]
            ),
            c,
            max_size=5,
        ),
    ),
    max_leaves=10,
)


def _ok_or_user_error(text: str, name: str) -> None:
    try:
        q = read_quote(text, name, catalog())
    except UserError:
        return
    if q.build is not None:
        try:
            evaluate_quote(q, catalog())
        except UserError:
            pass


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=300), st.sampled_from(["q.txt", "q.yaml", "q.csv", "<stdin>"]))
def test_arbitrary_text_only_user_errors(text, name):
    _ok_or_user_error(text, name)


@settings(max_examples=100, deadline=None)
@given(_yamlish)
def test_arbitrary_yaml_only_user_errors(data):
    import yaml

    _ok_or_user_error(yaml.safe_dump(data), "q.yaml")


_words = st.sampled_from(
    [
        "2x",
        "Qty: 3",
        "(x2)",
        "$1,599.00",
        "RTX 4090",
        "i9-14900K",
        "WRX90E-SAGE",
        "1600W",
        "PSU",
        "4x 32GB DDR5",
        "NVLink bridge",
        "NVMe M.2_1",
        "PCIe 5.0 x16",
        "P2P",
        "is enough",
        "Total:",
        "Hello",
        "GPU",
        ",",
        ";",
        "\t",
        "-",
        ":",
        "RTX 6000 Ada",
        "Threadripper PRO 7965WX",
    ]
)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.lists(_words, max_size=8).map(" ".join), max_size=8).map("\n".join),
    st.sampled_from(["q.txt", "q.csv", "<stdin>"]),
)
def test_quote_like_text_only_user_errors(text, name):
    _ok_or_user_error(text, name)


def test_stdin_yaml_is_detected(cli, monkeypatch):
    data = (QUOTES / "undersized-psu.yaml").read_bytes()
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data)))
    code, r, _ = validate_json(cli, "-")
    assert code == 1 and r["quote"]["format"] == "yaml"
    assert [c["about"] for c in r["false_claims"]] == ["psu"]


def test_a_gpu_the_catalog_lacks_makes_the_quote_incomplete_and_goes_on_the_ask_list(cli, write):
    quote = write(
        "w7800.txt",
        "CPU: AMD Ryzen Threadripper PRO 7965WX\nMainboard: ASUS Pro WS WRX90E-SAGE SE\n"
        "GPU: 2x AMD Radeon PRO W7800 32GB\nPSU: 1600W\n",
    )
    code, out, err = cli("validate", str(quote))
    assert code == 1, err
    assert out.startswith("INCOMPLETE: Not in the catalog: GPU: 2x AMD Radeon PRO W7800 32GB.")
    assert "the exact model of the gpu on line 3" in out


# ---------------------------------------------------------------- server quotes, PSU claims, price breakdowns


def test_a_nic_the_boards_slot_table_has_no_room_for_is_left_out_not_the_whole_prediction(cli, write):
    """A GPU server's catalog table lists only its GPU slots: the eight GPUs are still predicted, the NIC
    is named as left out, and the vendor is asked where it goes."""
    quote = write(
        "esc.txt",
        "ASUS ESC8000A-E13P\n2x AMD EPYC 9575F\n8x NVIDIA RTX PRO 6000 Blackwell Server Edition\n"
        "NVIDIA ConnectX-7 NIC\n4x 3200W PSU 3+1 redundant\n",
    )
    code, out, _ = validate_json(cli, str(quote))
    assert out["plan"] is not None and len(out["plan"]["gpus"]) == 8
    assert not out["build_problems"]
    assert any("NIC (line 4) is left out of the prediction" in n for n in out["quote"]["notes"])
    assert any(a.startswith("which slot the NIC (line 4) goes in") for a in out["ask_vendor"])


def test_the_cpu_power_a_quote_states_judges_its_psu_claim_when_the_catalog_lacks_it(
    cli, write, tmp_path, monkeypatch
):
    # a catalog whose EPYC 9575F has no power figure (the bundled one has AMD's 400 W)
    from advisor.model.catalog.store import load_catalog

    src = load_catalog().origin["amd-epyc-9575f"][0]
    text = re.sub(r"(?m)^(tdp_w|max_power_w):.*$", r"\1: null", open(src).read())
    (tmp_path / "cat").mkdir()
    (tmp_path / "cat" / "epyc.yaml").write_text(text)
    monkeypatch.setenv("ADVISOR_CATALOG", str(tmp_path / "cat"))
    body = (
        "ASUS ESC8000A-E13P\n2x AMD EPYC 9575F 64C {w}W\n8x NVIDIA RTX PRO 6000 Blackwell Server Edition\n"
        "PSU: 4x 3200W, 3+1 redundant\nThe power supplies are sufficient for all GPUs at full load.\n"
    )
    _, out, _ = validate_json(cli, str(write("a.txt", body.format(w=400))))
    claim = next(c for c in out["claims"] if c["about"] == "psu")
    assert claim["verdict"] is True
    assert "counting the CPUs at the 800 W the quote states" in claim["why"]
    # without a stated power the margin cannot be told
    _, out, _ = validate_json(cli, str(write("b.txt", body.replace(" 64C {w}W", ""))))
    assert next(c for c in out["claims"] if c["about"] == "psu")["verdict"] == "unknown"


PSU_QUOTE = (
    "CPU: AMD Ryzen 9 9950X\nBoard: ASUS ProArt X870E-Creator WiFi\nGPU: 2x NVIDIA GeForce RTX 5090\n"
    "PSU: Corsair HX1500i\n{claim}\n"
)


@pytest.mark.parametrize(
    ("claim", "verdict"),
    [
        ("The PSU is enough for both cards.", "unknown"),  # above the sustained load: depends on ATX 3.x
        ("The HX1500i has plenty of headroom for both 5090s.", False),  # headroom promised, not there
        ("电源充足，满载无压力", False),
    ],
)
def test_a_psu_claim_that_promises_headroom_is_held_to_the_headroom(cli, write, claim, verdict):
    _, out, _ = validate_json(cli, str(write("p.txt", PSU_QUOTE.format(claim=claim))))
    assert any(f["id"] == "PWR004" for f in out["plan"]["findings"])  # between the load and 1.3x it
    assert next(c for c in out["claims"] if c["about"] == "psu")["verdict"] == verdict


def test_a_claim_whose_truth_turns_on_an_unclear_gpu_count_cannot_be_told(cli, write):
    body = (
        "CPU: AMD Ryzen Threadripper PRO 7975WX\nBoard: ASUS Pro WS WRX90E-SAGE SE\n"
        "GPU: NVIDIA GeForce RTX 4090 x2 ... Qty: 4\nPSU: 2000W\nThe 2000W PSU is plenty for this config.\n"
    )
    _, out, _ = validate_json(cli, str(write("u.txt", body)))
    claim = next(c for c in out["claims"] if c["about"] == "psu")
    assert claim["verdict"] == "unknown"
    assert claim["why"].startswith("false with 4 GPUs, true with 2 (line 3 writes both)")


def test_a_summary_cut_short_ends_at_a_word(cli, write):
    names = " ".join(f"a-very-long-board-name-{i}" for i in range(12))
    quote = write(
        "s.txt", "CPU: Intel Core i9-14900K\nBoard: ASUS ROG Strix Z790-E Gaming WiFi\nGPU: 5x RTX 4090\n"
    )
    code, out, _ = cli("validate", str(quote), "--json")
    summary = json.loads(out)["summary"]
    assert summary.startswith("The build cannot be evaluated: 5 cards (GPUs and NICs)")
    from advisor.quote.check import _clip

    clipped = _clip(names, 60)
    assert clipped.endswith(" ...") and names.startswith(clipped[:-4]) and names[len(clipped) - 4] == " "


def test_a_price_breakdown_repeats_the_items_but_two_drives_stay_two(cli, write):
    """'显卡 ¥21,500 ×6 = ¥129,000' under a list with '*8' makes the GPU count unclear, '硬盘+网卡 ¥18,400'
    adds no drive; two NVMe lines with their own sizes are two drives."""
    breakdown = write(
        "b.txt",
        "CPU：AMD EPYC 9554 ×2\n主板：超微 H13SSL-N\n显卡：RTX 4090 *8\n系统盘：三星 PM9A3 3.84T ×2\n"
        "价格明细：\n显卡 ¥21,500 ×6 = ¥129,000\n硬盘+网卡 ¥18,400\n",
    )
    _, out, _ = validate_json(cli, str(breakdown))
    lines = {x["line"]: x for x in out["quote"]["lines"]}
    assert lines[3]["qty_unclear"] and "vs 6 (line 6)" in lines[3]["qty_source"]
    assert lines[7]["status"] == "other"
    assert any("a price line of parts listed above" in n for n in out["quote"]["notes"])
    drives = write(
        "d.txt",
        "CPU: Intel Core i9-14900K\nBoard: ASUS ROG Maximus Z790 Hero\nGPU: 2x RTX 4090 $3,198\n"
        "NVMe SSD 1TB $99\nNVMe SSD 4TB $299\n",
    )
    _, out, _ = validate_json(cli, str(drives))
    assert [x["status"] for x in out["quote"]["lines"]][3:5] == ["recognized", "recognized"]


def test_each_kind_of_claim_is_a_registered_check_whose_id_the_verdict_carries(cli):
    """Every kind of claim the reader finds is judged by one check registered beside the rules: the code's
    registry and rules/quote-claims.yaml name the same ids for the same kinds, `rules list --scope quote`
    lists them, and each claim in `validate --json` carries the id of its kind, which `rules explain`
    documents."""
    import yaml

    from advisor.quote.claim_checks import CLAIM_CHECKS
    from advisor.quote.claims import ORDER

    documented = yaml.safe_load((ROOT / "rules" / "quote-claims.yaml").read_text())["checks"]
    assert {c["claim"]: c["id"] for c in documented} == {k: c.id for k, c in CLAIM_CHECKS.items()}
    assert list(CLAIM_CHECKS) == list(ORDER)  # every kind the reader finds has its judge, none more
    code, out, _ = cli("rules", "list", "--scope", "quote")
    assert code == 0
    listed = [line.split()[0] for line in out.splitlines() if line[:1].isalnum()]
    assert {"QTE001", "QTE002", "QTE003"} | {c.id for c in CLAIM_CHECKS.values()} == set(listed)
    code, r, _ = validate_json(cli, str(QUOTES / "2x4090-z790-hero-email.txt"))
    assert code == 1 and r["claims"]
    for claim in r["claims"]:
        assert claim["id"] == CLAIM_CHECKS[claim["about"]].id
    pooled = next(c for c in r["claims"] if c["about"] == "pooled_memory")
    code, out, _ = cli("rules", "explain", pooled["id"])
    assert code == 0 and out.startswith(f"{pooled['id']} (memory, error): Claim: the GPUs' memory is pooled")
    assert "each pooled_memory claim in a quote" in out


QUOTE_CHECKS = ROOT / "tests" / "fixtures" / "quote-checks"
# a check that never calls a claim false, and why: it has a quiet fixture only
NEVER_FIRES = {"CLM010": "a parts list never settles a claim of linear scaling"}


def _quote_check_ids() -> list[str]:
    from advisor.findings.rules import load_checks

    return sorted(c.id for c in load_checks() if c.scope == "quote")


@pytest.mark.parametrize("check", _quote_check_ids())
def test_each_quote_check_fires_on_its_fixture_and_its_twin_stays_quiet(cli, check):
    """A claim check fires when it judges a claim of its kind false; a check of the named parts when it
    reports. The quiet twin has the claim judged (true or cannot tell), or the check made and silent."""

    def fired(path) -> tuple[bool, list]:
        code, r, err = validate_json(cli, str(path))
        assert code in (0, 1), err
        judged = [c for c in r["claims"] if c["id"] == check]
        return any(c["verdict"] is False for c in judged) or any(
            c["id"] == check for c in r["part_checks"]
        ), judged

    if check in NEVER_FIRES:
        assert not (QUOTE_CHECKS / f"{check}-fires.txt").exists()
    else:
        assert fired(QUOTE_CHECKS / f"{check}-fires.txt")[0], f"{check} should fire"
    quiet, judged = fired(QUOTE_CHECKS / f"{check}-quiet.txt")
    assert not quiet, f"{check} must stay quiet"
    assert judged or check.startswith("QTE"), f"{check}-quiet.txt has no claim of its kind"


def test_the_quote_check_fixtures_are_the_registered_checks_and_nothing_else():
    names = {p.name for p in QUOTE_CHECKS.iterdir()} - {"README.md"}
    want = {f"{c}-quiet.txt" for c in _quote_check_ids()}
    want |= {f"{c}-fires.txt" for c in _quote_check_ids() if c not in NEVER_FIRES}
    assert names == want
    readme = (QUOTE_CHECKS / "README.md").read_text()
    assert all(f"`{n}`" in readme for n in names)  # each fixture says what it holds
