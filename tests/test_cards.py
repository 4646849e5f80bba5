"""Partner cards: a board partner's model of a GPU, written as `kind: card`, becomes a
GPU entry with the card's own size, cooler, connectors and power, so the fit and power rules judge the
card in the box, not the reference design. Also the fit finding that says what it could not check
and the SXM module that has no slot."""

from __future__ import annotations

import json

import pytest

from advisor.model.build import Build
from advisor.model.catalog.store import load_catalog, load_catalog_checked

TUF = """\
kind: card
id: my-tuf-rtx-5090
name: ASUS TUF Gaming GeForce RTX 5090 32GB GDDR7
aliases: ["TUF RTX 5090", "ASUS TUF RTX 5090"]
part_numbers: ["TUF-RTX5090-32G-GAMING"]
vendor: ASUS
gpu: nvidia-rtx-5090
slot_width: 3.6
length_mm: 348
power_connector: {type: "12V-2x6", count: 1}
cooler: open-air
sources: ["https://www.asus.com/motherboards-components/graphics-cards/tuf-gaming/tuf-rtx5090-32g-gaming/"]
verified: true
"""

THIN = """\
kind: card
id: my-thin-rtx-5090
name: Example Turbo RTX 5090 32GB
aliases: ["Example Turbo RTX 5090"]
vendor: Example
gpu: nvidia-rtx-5090
board_power_w: 600
cooler: blower
sources: ["https://example.com/turbo-5090"]
verified: false
unverified_fields: [slot_width]
"""


@pytest.fixture
def cards(tmp_path, monkeypatch):
    folder = tmp_path / "cards"
    folder.mkdir()
    (folder / "tuf.yaml").write_text(TUF)
    (folder / "thin.yaml").write_text(THIN)
    monkeypatch.setenv("ADVISOR_CATALOG", str(folder))
    return folder


def test_a_card_is_its_gpu_with_its_own_size_and_sources(cards):
    catalog = load_catalog()
    ref, tuf, thin = (catalog.get(i) for i in ("nvidia-rtx-5090", "my-tuf-rtx-5090", "my-thin-rtx-5090"))
    assert tuf.kind == "gpu" and tuf.card_of == "nvidia-rtx-5090"
    # the card's own values
    assert (
        (tuf.slot_width, tuf.length_mm, tuf.cooler) == (3.6, 348, "open-air") != (ref.slot_width, None, None)
    )
    assert tuf.sources[0].startswith("https://www.asus.com/") and set(ref.sources) <= set(tuf.sources)
    # the chip's values are the reference entry's
    assert (tuf.vram_gb, tuf.pcie, tuf.p2p, tuf.bf16_tflops_dense) == (ref.vram_gb, ref.pcie, ref.p2p, 209.5)
    # power falls back to the reference and says so; size never does
    assert tuf.board_power_w == ref.board_power_w == 575 and tuf.inherited_fields == ["board_power_w"]
    assert "reference 575 W" in tuf.notes
    assert thin.board_power_w == 600 and thin.inherited_fields == [] and thin.slot_width is None


def test_cards_are_listed_resolved_and_counted(cards, cli, monkeypatch):
    monkeypatch.delenv("ADVISOR_CATALOG")
    bundled = [g for g in load_catalog().gpus if g.card_of]
    monkeypatch.setenv("ADVISOR_CATALOG", str(cards))
    mine = {"my-tuf-rtx-5090", "my-thin-rtx-5090"}
    code, out, _ = cli("catalog", "list", "--kind", "card", "--json")
    rows = json.loads(out)
    assert code == 0 and {r["id"] for r in rows} == mine | {g.id for g in bundled}
    assert all(r["kind"] == "card" and r["card_of"] for r in rows)
    assert {r["card_of"] for r in rows if r["id"] in mine} == {"nvidia-rtx-5090"}
    code, out, _ = cli("catalog", "list", "--kind", "gpu", "--json")
    assert not mine & {r["id"] for r in json.loads(out)}
    code, out, _ = cli("catalog", "validate")
    assert code == 0 and f"{len(bundled) + 2} partner cards" in out
    # a name as people write it finds the card, the bare model the reference entry
    catalog = load_catalog()
    assert catalog.resolve("Example Turbo RTX 5090", "gpu").id == "my-thin-rtx-5090"
    assert catalog.resolve("RTX 5090", "gpu").id == "nvidia-rtx-5090"
    code, out, _ = cli("catalog", "audit", "--json")
    kinds = {k["kind"]: k for k in json.loads(out)["kinds"]}
    assert kinds["card"]["parts"] == len(bundled) + 2
    assert kinds["card"]["verified"] == sum(1 for g in bundled if g.verified) + 1
    assert kinds["gpu"]["parts"] == len([g for g in catalog.gpus if not g.card_of])


def test_a_quote_line_naming_the_card_is_matched_to_it(cards):
    from advisor.quote.match import Matcher

    m = Matcher.of(load_catalog())
    (found,) = m.parts("ASUS TUF Gaming GeForce RTX 5090 32GB GDDR7 OC", "gpu")
    assert found.part_id == "my-tuf-rtx-5090"
    (found,) = m.parts("TUF-RTX5090-32G-GAMING x2", "gpu")
    assert found.part_id == "my-tuf-rtx-5090" and "part number" in found.how
    (found,) = m.parts("NVIDIA GeForce RTX 5090 Founders Edition", "gpu")
    assert found.part_id == "nvidia-rtx-5090"


BLOWER_5090D = """\
kind: card
id: my-blower-rtx-5090d
name: Example Blower RTX 5090 D
aliases: ["Example Blower RTX 5090 D"]
vendor: Example
gpu: nvidia-rtx-5090-d
cooler: blower
sources: ["https://www.techpowerup.com/review/example-blower-5090d/"]
verified: false
basis:
  cooler:
    basis: secondary
    source: "https://www.techpowerup.com/review/example-blower-5090d/"
    says: "TechPowerUp: a single radial fan exhausting through the bracket"
"""


def test_a_card_keeps_its_own_basis_and_never_borrows_the_reference_boards(tmp_path, monkeypatch):
    """The RTX 5090 D's slot width rests on TechPowerUp's record of the reference board; a partner card of
    unknown thickness must not show that basis (its slot width is unknown), while the chip's values and
    the board power it inherits keep theirs, and the card's own basis for its cooler is carried."""
    (tmp_path / "blower.yaml").write_text(BLOWER_5090D)
    monkeypatch.setenv("ADVISOR_CATALOG", str(tmp_path))
    catalog, problems = load_catalog_checked()
    assert not problems
    ref, card = catalog.get("nvidia-rtx-5090-d"), catalog.get("my-blower-rtx-5090d")
    assert {"slot_width", "length_mm", "vram_gb", "board_power_w"} <= set(ref.basis)
    assert card.slot_width is None and card.length_mm is None
    assert "slot_width" not in card.basis and "length_mm" not in card.basis
    assert card.basis["vram_gb"] == ref.basis["vram_gb"]
    assert (
        card.inherited_fields == ["board_power_w"]
        and card.basis["board_power_w"] == ref.basis["board_power_w"]
    )
    assert card.basis["cooler"].basis == "secondary" and "radial fan" in card.basis["cooler"].says


def test_a_card_of_a_gpu_the_catalog_lacks_is_refused_at_its_line(tmp_path, cli, monkeypatch):
    (tmp_path / "bad.yaml").write_text(TUF.replace("gpu: nvidia-rtx-5090", "gpu: nvidia-rtx-5099"))
    monkeypatch.setenv("ADVISOR_CATALOG", str(tmp_path))
    _, problems = load_catalog_checked()
    (p,) = problems
    assert p.file.endswith("bad.yaml") and p.line == 1 and p.field == "gpu"
    assert "'nvidia-rtx-5099', which is not a GPU entry" in p.message
    code, _, err = cli("catalog", "validate")
    assert code == 1 and "bad.yaml:1" in err and "advisor catalog list --kind gpu" in err


def test_a_gpu_file_cannot_claim_to_be_a_card(tmp_path, monkeypatch):
    src = (load_catalog().origin["nvidia-rtx-5090"][0],)
    text = open(src[0]).read().replace("id: nvidia-rtx-5090", "id: my-5090") + "card_of: nvidia-rtx-5090\n"
    (tmp_path / "g.yaml").write_text(text)
    monkeypatch.setenv("ADVISOR_CATALOG", str(tmp_path))
    _, problems = load_catalog_checked()
    assert [p.field for p in problems] == ["card_of"] and "kind: card" in problems[0].message


def _findings(build: Build) -> dict[str, list]:
    from advisor.findings.evaluate import evaluate_rules
    from advisor.model.engine import evaluate

    catalog = load_catalog()
    found: dict[str, list] = {}
    for f in evaluate_rules(evaluate(build, catalog), catalog=catalog):
        found.setdefault(f.id, []).append(f)
    return found


W790E = dict(cpu="intel-xeon-w9-3495x", board="asus-pro-ws-w790e-sage-se")  # slots at positions 1-7


def test_the_real_card_decides_whether_neighbouring_slots_fit(cards):
    slots = [{"slot": "PCIEx16(G5)_1"}, {"slot": "PCIEx16(G5)_3"}]
    ref = _findings(Build(**W790E, gpus=[{"model": "nvidia-rtx-5090", **s} for s in slots]))
    assert "FIT001" not in ref  # two 2-slot Founders Editions two positions apart fit
    tuf = _findings(Build(**W790E, gpus=[{"model": "my-tuf-rtx-5090", **s} for s in slots]))
    (fit,) = tuf["FIT001"]
    assert fit.message.startswith("1 card(s) cover the next populated slot")
    assert "FIT003" not in tuf


def test_a_card_of_unknown_thickness_is_said_to_be_unchecked_not_passed(cards):
    slots = [{"slot": "PCIEx16(G5)_1"}, {"slot": "PCIEx16(G5)_3"}]
    found = _findings(Build(**W790E, gpus=[{"model": "my-thin-rtx-5090", **s} for s in slots]))
    assert "FIT001" not in found and "FIT002" not in found
    (f,) = found["FIT003"]
    assert "for 2 card(s)" in f.message
    assert "GPU0: Example Turbo RTX 5090 32GB has no slot width in the catalog" in f.message
    # a single card has no neighbour: nothing to check
    assert "FIT003" not in _findings(Build(**W790E, gpus=[{"model": "my-thin-rtx-5090"}]))


def test_an_sxm_module_is_refused_a_slot(tmp_path, monkeypatch):
    src = load_catalog().origin["nvidia-h100-pcie"][0]
    text = open(src).read().replace("id: nvidia-h100-pcie", "id: my-h100-sxm")
    (tmp_path / "sxm.yaml").write_text(text + "form_factor: sxm\n")
    monkeypatch.setenv("ADVISOR_CATALOG", str(tmp_path))
    found = _findings(Build(**W790E, gpus=[{"model": "my-h100-sxm", "count": 2}]))
    (f, _) = found["FIT004"]
    assert f.severity == "error" and "is an SXM module, not a PCIe card" in f.message
    assert "HGX" in f.fix
    assert "FIT004" not in _findings(Build(**W790E, gpus=[{"model": "nvidia-h100-pcie", "count": 2}]))


def test_a_name_written_as_a_part_number_is_refused_at_its_line(cli, tmp_path):
    """A part number matches ahead of every name, so a seller's name put there by mistake would claim every
    line naming the model ("技嘉 RTX 4090 魔鹰" reads as RTX4090): validate refuses it at its line."""
    (tmp_path / "card.yaml").write_text(
        "kind: card\nid: my-gaming-oc-4090\nname: My Gaming OC 4090\nvendor: GIGABYTE\ngpu: nvidia-rtx-4090\n"
        'part_numbers: ["GV-N4090GAMING-OC-24GD", "技嘉 RTX 4090 魔鹰"]\n'
        "sources: ['https://example.com']\nverified: false\n"
    )
    code, _, err = cli("catalog", "validate", "--catalog", str(tmp_path))
    assert code == 1
    assert f"{tmp_path / 'card.yaml'}:6: part_numbers:" in err and "belongs in `aliases`" in err
