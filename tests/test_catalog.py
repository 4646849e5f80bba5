"""The catalog as a user sees it: list, show, validate, schema, and their own parts layered on top."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from advisor.base.resources import bundled
from advisor.base.yamlio import load_file, to_plain
from advisor.model.catalog.store import load_catalog_checked
from advisor.outputs.schema import schemas


def test_bundled_catalog_validates_and_every_file_is_one_part(cli, monkeypatch):
    monkeypatch.delenv("ADVISOR_CATALOG", raising=False)  # the bundled catalog alone
    code, out, err = cli("catalog", "validate")
    assert code == 0, err
    catalog, problems = load_catalog_checked()
    assert not problems
    # read independently: each file under catalog/<kind>s/ is exactly one part of that kind
    import yaml

    for kind in ("cpu", "board", "gpu", "card"):
        files = sorted((bundled("catalog") / f"{kind}s").glob("*.y*ml"))
        ids = sorted(yaml.safe_load(f.read_text())["id"] for f in files)
        # a partner card (catalog/cards/) is a GPU entry the catalog makes from the card file
        parts = [
            p
            for p in catalog.of_kind("gpu" if kind == "card" else kind)
            if (kind == "card") == bool(getattr(p, "card_of", None))
        ]
        assert files and sorted(p.id for p in parts) == ids, kind
        if kind == "card":
            assert all(yaml.safe_load(f.read_text())["kind"] == "card" for f in files)
        assert sorted(Path(catalog.origin[p.id][0]) for p in parts) == files, kind
    assert len(catalog.parts) == len([p for p in bundled("catalog").rglob("*.y*ml") if p.is_file()])


def test_every_part_has_sources_and_says_if_verified():
    catalog, _ = load_catalog_checked()
    for part in catalog.parts.values():
        assert part.sources and all(s.startswith("http") for s in part.sources), part.id


def test_list_json_has_the_documented_keys(cli):
    code, out, _ = cli("catalog", "list", "--kind", "gpu", "--json")
    assert code == 0
    rows = json.loads(out)
    assert rows and all(r["kind"] == "gpu" for r in rows)
    for key in ("id", "kind", "name", "socket", "verified", "sources"):
        assert key in rows[0]
    code, out, _ = cli("catalog", "list", "--kind", "cpu", "--json")
    assert all(r["socket"] for r in json.loads(out))


def test_show_by_name(cli):
    code, out, _ = cli("catalog", "show", "RTX 4090", "--json")
    assert code == 0 and json.loads(out)["id"] == "nvidia-rtx-4090"


def test_validate_reports_file_line_field(cli, tmp_path):
    (tmp_path / "gpu.yaml").write_text(
        "kind: gpu\nid: my-gpu\nname: My GPU\nvendor: X\nsegment: geforce\narchitecture: ada\n"
        "compute_capability: '8.9'\nvram_gb: -3\npcie: {gen: 4, width: 16}\nnvlink: {supported: false}\n"
        "p2p: {stock_linux: false}\nsources: ['https://example.com']\nverified: false\ncolour: red\n"
    )
    code, _, err = cli("catalog", "validate", "--catalog", str(tmp_path))
    assert code == 1
    assert f"{tmp_path / 'gpu.yaml'}:8: vram_gb:" in err
    assert f"{tmp_path / 'gpu.yaml'}:14: colour: is not a known key" in err


def test_user_parts_layer_over_the_bundled_catalog(cli, tmp_path):
    src = load_file(bundled("catalog") / "gpus" / "nvidia-rtx-4090.yaml")
    data = to_plain(src)
    data.update(id="my-4090-custom", name="My Custom 4090", aliases=["Custom 4090X"])
    import yaml

    (tmp_path / "mine.yaml").write_text(yaml.safe_dump(data))
    code, out, _ = cli("catalog", "show", "Custom 4090X", "--json", "--catalog", str(tmp_path))
    assert code == 0 and json.loads(out)["id"] == "my-4090-custom"


def test_exported_schema_accepts_every_bundled_file():
    sch = schemas()
    for path in sorted(bundled("catalog").rglob("*.yaml")):
        data = to_plain(load_file(path))
        jsonschema.validate(data, sch[data["kind"]])


def test_yaml_does_not_turn_ids_into_other_types():
    from advisor.base.yamlio import loads

    assert loads("a: no\nb: 0x16\nc: 2024-01-01\nd: 08") == {
        "a": "no",
        "b": "0x16",
        "c": "2024-01-01",
        "d": "08",
    }


def test_the_parsed_catalog_cache_gives_the_same_parts_and_a_damaged_one_is_ignored(tmp_path, monkeypatch):
    from advisor.base.resources import bundled
    from advisor.model.catalog.store import Catalog, load_folder

    monkeypatch.setenv("ADVISOR_CACHE_DIR", str(tmp_path))

    def load() -> Catalog:
        c, problems = Catalog(), []
        load_folder(bundled("catalog"), c, problems, cache=True)
        assert problems == []
        return c

    first = load()  # reads the YAML, writes the cache
    (cached,) = tmp_path.glob("catalog-*.json")
    second = load()  # reads the cache
    assert {k: v.model_dump() for k, v in second.parts.items()} == {
        k: v.model_dump() for k, v in first.parts.items()
    }
    assert second.origin == first.origin
    cached.write_text('[{"file": "x", "line": 1, "data": {"kind": "gpu", "id": "not a part"}}]')
    third = load()  # damaged: the YAML again, same parts
    assert set(third.parts) == set(first.parts)


# --------------------------------------------------------------------------- sources, audit, every part plans

SMALL_CPU = """kind: cpu
id: my-cpu-a
name: My CPU A
vendor: Intel
family: my-family
cpu_vendor: intel
segment: workstation
socket: LGA9999
max_sockets: 1
pcie: {max_gen: 5, total_lanes: 64, usable_lanes: 64, lanes_by_gen: {5: 64}}
memory: {channels: 4}
tdp_w: 200
sources:
  - "https://ark.intel.com/content/www/us/en/ark/products/1/my-cpu-a.html"
verified: true
"""
SMALL_CPU_B = """kind: cpu
id: my-cpu-b
name: My CPU B
vendor: Intel
family: my-family
cpu_vendor: intel
segment: workstation
socket: LGA9999
max_sockets: 1
pcie: {max_gen: 5}
memory: {channels: 4}
tdp_w: 200
sources:
  - "https://www.techpowerup.com/cpu-specs/my-cpu-b.c1"
  - "https://cputronic.com/cpu/my-cpu-b"
verified: false
"""
SMALL_BOARD = """kind: board
id: my-board
name: My Board
vendor: ASUS
socket: LGA9999
segment: workstation
cpu_families: [my-family]
lane_groups:
  - {id: a, source: cpu, host_bridge: "15", lanes: 16, gen: 5}
  - {id: b, source: cpu, lanes: 16, gen: 5}
slots:
  - {name: SLOT1, group: a, width: 16, position: 1}
  - {name: SLOT2, group: b, width: 16}
sources:
  - "https://github.com/linuxhw/DMI/blob/master/Desktop/My/Board/0001"
verified: true
"""
SMALL_GPU = """kind: gpu
id: my-gpu
name: My GPU
vendor: NVIDIA
segment: workstation
architecture: ada
compute_capability: '8.9'
vram_gb: 48
pcie: {gen: 4, width: 16}
nvlink: {supported: false}
p2p: {stock_linux: true}
slot_width: 2
cooler: blower
sources:
  - "https://www.techpowerup.com/gpu-specs/my-gpu.c1"
verified: false
"""


def _small_catalog(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in (
        ("a.yaml", SMALL_CPU),
        ("b.yaml", SMALL_CPU_B),
        ("board.yaml", SMALL_BOARD),
        ("gpu.yaml", SMALL_GPU),
    ):
        (folder / name).write_text(text)
    return folder


def _only(monkeypatch, folder: Path) -> None:
    """The catalog is `folder` alone: the bundled one is swapped out, so counts are known."""
    import advisor.model.catalog.store as store

    monkeypatch.setattr(store, "bundled", lambda name: folder if name == "catalog" else bundled(name))
    monkeypatch.delenv("ADVISOR_CATALOG", raising=False)


def test_validate_rejects_an_entry_that_cites_a_refused_domain(cli, tmp_path, monkeypatch):
    folder = _small_catalog(tmp_path / "parts")
    _only(monkeypatch, folder)
    code, out, err = cli("catalog", "validate")
    assert code == 2, err
    # file:line of the source, which source and why, what to do
    line = SMALL_CPU_B.splitlines().index('  - "https://cputronic.com/cpu/my-cpu-b"') + 1
    assert (
        f"{folder / 'b.yaml'}:{line}: sources[1]: https://cputronic.com/cpu/my-cpu-b: cputronic.com is a refused source"
        in err
    )
    assert "cite a primary source instead" in err and "rules/sources.yaml" in err
    assert "1 of them sources on refused domains" in out
    assert "a.yaml" not in err  # the clean entries are not named
    # a subdomain of a refused domain is refused too; the entry cleaned up validates
    (folder / "b.yaml").write_text(
        SMALL_CPU_B.replace("https://cputronic.com/", "https://www.cputronic.com/")
    )
    assert cli("catalog", "validate")[0] == 2
    (folder / "b.yaml").write_text(SMALL_CPU_B.replace('  - "https://cputronic.com/cpu/my-cpu-b"\n', ""))
    code, out, err = cli("catalog", "validate")
    assert code == 0 and err == "" and "4 parts (2 CPUs, 1 boards, 1 GPUs); 0 problem(s)" in out


def test_every_refused_domain_of_issue_13_is_on_the_kept_list():
    from advisor.model.catalog.sources import refused_domain, source_lists

    for domain in (
        "aetherfluxnode5.lol",
        "cputronic.com",
        "relationship-nepal.org",
        "grokipedia.com",
        "nowhyderabad.com",
        "techopse.com",
        "smbom.com",
        "sysrqmts.com",
        "technologistmag.com",
    ):
        hit = refused_domain(f"https://www.{domain}/some/page")
        assert hit is not None and hit.note, domain  # each with its reason
    assert refused_domain("https://ark.intel.com/content/x") is None
    assert refused_domain("https://notcputronic.com/x") is None  # a suffix of the name is not the domain
    assert len({d.domain for d in source_lists().refused}) == len(source_lists().refused)


def _cells(line: str) -> list[str]:
    """A table row's cells, boxed (│) or stacked (two spaces or more apart)."""
    import re

    return [c for c in re.split(r"\s*[│┃]\s*|\s{2,}", line.strip()) if c]


def test_audit_shows_counts_nulls_and_sources_of_a_small_catalog(cli, tmp_path, monkeypatch):
    _only(monkeypatch, _small_catalog(tmp_path / "parts"))
    monkeypatch.setenv("COLUMNS", "80")
    code, out, err = cli("catalog", "audit")
    assert code == 0, err
    assert max(len(line) for line in out.splitlines()) <= 80
    flat = " ".join(out.split())  # the text as read, whatever the line breaks
    assert "4 parts (2 CPUs, 1 board, 1 GPU), 2 verified (50%); 5 source citations, 40% primary." in flat
    rows = {c[1]: c for c in map(_cells, out.splitlines()) if len(c) > 2 and c[0] in ("cpu", "board", "gpu")}
    assert rows["pcie.usable_lanes"][2:5] == ["1/2", "lane budget, '? lanes'", "my-cpu-b"]
    assert rows["slots[].position"][2] == "1/2" and rows["slots[].position"][4] == "my-board"
    assert rows["lane_groups[].host_bridge"][2] == "1/2"
    assert rows["board_power_w"][2] == "1/1" and rows["board_power_w"][4] == "my-gpu"
    assert rows["nvlink.links"][2] == "0/0"  # no NVLink card: nothing to check
    domains = {c[0]: c[1:] for c in map(_cells, out.splitlines()) if len(c) == 4 and c[3].isdigit()}
    assert domains["techpowerup.com"] == ["secondary", "2", "2"]
    assert domains["github.com/linuxhw"] == domains["ark.intel.com"] == ["primary", "1", "1"]
    assert domains["cputronic.com"] == ["refused", "1", "1"]
    assert "Citing refused domains (1): my-cpu-b (cputronic.com)" in flat
    assert "Secondary sources only (2): my-cpu-b, my-gpu" in flat
    assert "Goal >= 95% of entries with every model-relevant value sourced: 100%, met" in flat
    assert "cpu pcie.usable_lanes 1" in flat
    assert (
        "(4 of 4, 100%): 2 on primary pages only, 2 with a value from a reputable review, 0 with an " in flat
    )

    code, out, _ = cli("catalog", "audit", "--json")
    report = json.loads(out)
    assert (report["parts"], report["verified"], report["verified_share"]) == (4, 2, 0.5)
    assert [(k["kind"], k["parts"], k["verified"]) for k in report["kinds"]] == [
        ("cpu", 2, 1),
        ("board", 1, 1),
        ("gpu", 1, 0),
        ("card", 0, 0),
        ("system", 0, 0),
    ]
    nulls = {(n["kind"], n["field"]): n for n in report["nulls"]}
    assert nulls[("cpu", "pcie.usable_lanes")]["parts"] == ["my-cpu-b"]
    assert nulls[("board", "slots")]["missing"] == 0
    by_domain = {d["domain"]: d for d in report["sources"]["domains"]}
    assert by_domain["cputronic.com"]["class"] == "refused"
    assert report["refused"] == [
        {
            "id": "my-cpu-b",
            "file": str(tmp_path / "parts" / "b.yaml"),
            "sources": ["https://cputronic.com/cpu/my-cpu-b"],
        }
    ]
    assert report["secondary_only"] == ["my-cpu-b", "my-gpu"]
    assert report["goal"]["nulls"]["cpu pcie.usable_lanes"] == 1 and not report["goal"]["nulls_met"]


def test_the_audit_counts_an_entry_sourced_only_when_each_value_the_model_reads_rests_on_a_source(
    cli, tmp_path, monkeypatch
):
    """A value its entry marks unverified rests on nothing until a basis names its source: the entry is
    not sourced, and the value is named; with a documented inference it counts, apart from primary ones.
    A value left null is unknown, not unsourced."""
    folder = _small_catalog(tmp_path / "parts")
    (folder / "b.yaml").write_text(SMALL_CPU_B.replace('  - "https://cputronic.com/cpu/my-cpu-b"\n', ""))
    (folder / "board.yaml").write_text(SMALL_BOARD + "unverified_fields: [slots, slots.position]\n")
    (folder / "gpu.yaml").write_text(SMALL_GPU + "unverified_fields: [power_connector]\n")
    _only(monkeypatch, folder)
    report = json.loads(cli("catalog", "audit", "--json")[1])
    assert report["sourcing"]["unsourced"] == {"my-board": ["slots"]}  # the GPU's connector is null
    assert report["sourcing"]["sourced"] == 3 and not report["goal"]["sourced_met"]
    assert report["sourcing"]["weakest_basis"] == {"primary": 1, "secondary": 2, "inferred": 0, "none": 0}

    reasoned = (
        "basis:\n  slots:\n    basis: inferred\n"
        '    source: "https://github.com/linuxhw/DMI/blob/master/Desktop/My/Board/0001"\n'
        '    says: "SLOT2 is on the CPU: the dump lists it under the CPU\'s root port, as SLOT1"\n'
    )
    (folder / "board.yaml").write_text(SMALL_BOARD + "unverified_fields: [slots]\n" + reasoned)
    report = json.loads(cli("catalog", "audit", "--json")[1])
    assert report["sourcing"]["unsourced"] == {} and report["goal"]["sourced_met"]
    assert report["sourcing"]["weakest_basis"] == {"primary": 1, "secondary": 2, "inferred": 1, "none": 0}
    flat = " ".join(cli("catalog", "audit")[1].split())
    assert "1 with an inferred value, 0 with none of these values known. Not yet: none" in flat

    # a partner card that knows none of its own size, cooler, cable or power: nothing to source, counted apart
    (folder / "card.yaml").write_text(
        "kind: card\nid: my-bare-card\nname: My Bare Card\nvendor: ASUS\ngpu: my-gpu\n"
        "sources: ['https://www.techpowerup.com/review/my-bare-card/']\nverified: false\n"
    )
    report = json.loads(cli("catalog", "audit", "--json")[1])
    assert (
        report["sourcing"]["weakest_basis"]["none"] == 1
        and "my-bare-card" not in report["sourcing"]["unsourced"]
    )


def test_a_basis_for_some_items_of_a_list_must_name_items_of_that_list(cli, tmp_path, monkeypatch):
    """`applies_to` says which items of a list value a basis covers (a board's inferred CPU families); an
    item the list does not hold is refused at its file, so the basis cannot claim a family the board
    does not list."""
    folder = _small_catalog(tmp_path / "parts")
    (folder / "b.yaml").write_text(SMALL_CPU_B.replace('  - "https://cputronic.com/cpu/my-cpu-b"\n', ""))
    basis = (
        "basis:\n  cpu_families:\n    basis: inferred\n    applies_to: [{fam}]\n"
        '    source: "https://github.com/linuxhw/DMI/blob/master/Desktop/My/Board/0001"\n'
        '    says: "the family shares the socket of the probed CPUs"\n'
    )
    (folder / "board.yaml").write_text(SMALL_BOARD + basis.format(fam="other-family"))
    _only(monkeypatch, folder)
    code, _out, err = cli("catalog", "validate")
    assert code == 1 and "board.yaml" in err and "applies to ['other-family']" in err
    (folder / "board.yaml").write_text(SMALL_BOARD + basis.format(fam="my-family"))
    assert cli("catalog", "validate")[0] == 0


def test_the_audit_names_a_cpu_no_board_takes_and_counts_it_against_the_goal(cli, tmp_path, monkeypatch):
    """A CPU of a family no board lists, and one whose only board has no slot table, cannot be planned:
    the audit lists both under 'a board that takes it' and the goal is not met until a board takes them."""
    folder = _small_catalog(tmp_path / "parts")
    other_family = SMALL_CPU.replace("my-cpu-a", "my-cpu-c").replace("my-family", "new-family")
    (folder / "c.yaml").write_text(other_family)
    (folder / "d.yaml").write_text(SMALL_CPU.replace("my-cpu-a", "my-cpu-d").replace("LGA9999", "LGA8888"))
    empty = SMALL_BOARD.replace("my-board", "empty-board").replace("LGA9999", "LGA8888")
    (folder / "e.yaml").write_text(empty.split("slots:")[0] + "sources:" + empty.split("sources:")[1])
    _only(monkeypatch, folder)
    code, out, _ = cli("catalog", "audit", "--json")
    assert code == 0
    report = json.loads(out)
    row = {(n["kind"], n["field"]): n for n in report["nulls"]}[("cpu", "a board that takes it")]
    assert (row["missing"], row["of"], row["parts"], row["goal"]) == (2, 4, ["my-cpu-c", "my-cpu-d"], True)
    assert report["goal"]["nulls"]["cpu a board that takes it"] == 2 and not report["goal"]["nulls_met"]
    monkeypatch.setenv("COLUMNS", "200")
    code, out, _ = cli("catalog", "audit")
    rows = {c[1]: c for c in map(_cells, out.splitlines()) if len(c) > 2 and c[0] == "cpu"}
    assert rows["a board that takes it"][2:] == ["2/4", "plan has no board for it", "my-cpu-c, my-cpu-d"]
    flat = " ".join(out.split())
    assert "a board for every CPU: not met" in flat and "cpu a board that takes it 2" in flat


def test_audit_of_the_bundled_catalog_runs_and_adds_up(cli, monkeypatch):
    monkeypatch.delenv("ADVISOR_CATALOG", raising=False)
    monkeypatch.setenv("COLUMNS", "80")
    code, out, err = cli("catalog", "audit")
    assert code == 0, err
    assert max(len(line) for line in out.splitlines()) <= 80
    for heading in ("Entries by kind", "Nulls in fields the model reads", "Sources by domain", "Goal "):
        assert heading in out
    code, out, _ = cli("catalog", "audit", "--json")
    report = json.loads(out)
    catalog, _ = load_catalog_checked()
    assert report["parts"] == len(catalog.parts) == sum(k["parts"] for k in report["kinds"])
    assert report["sources"]["citations"] == sum(len(p.sources) for p in catalog.parts.values())
    assert report["sources"]["citations"] == sum(d["citations"] for d in report["sources"]["domains"])


def test_every_cpu_plans_on_every_board_that_takes_it_with_every_gpu():
    """Each CPU with each board of its socket and families, and each GPU alone, goes through the
    whole plan (allocation, predictions, findings, the --json output) without an error; a board with no
    slot table is refused with a message that says so. Then one GPU in each slot of each pair."""
    from advisor.base.errors import UserError
    from advisor.findings.evaluate import evaluate_rules
    from advisor.model.build import Build
    from advisor.model.engine import evaluate
    from advisor.outputs.plan import plan_output

    catalog, problems = load_catalog_checked()
    assert not [p for p in problems if "catalog" in (p.file or "")]
    refused: dict[str, str] = {}
    dead: set[tuple[str, str, str]] = set()
    pairs = 0
    for cpu in catalog.cpus:
        for board in catalog.boards:
            if cpu.socket.lower() != board.socket.lower():
                continue
            if board.cpu_families is not None and cpu.family not in board.cpu_families:
                continue
            pairs += 1
            gpus = [[{"model": g.id}] for g in catalog.gpus]
            gpus += [
                [{"model": catalog.gpus[i % len(catalog.gpus)].id, "slot": s.name}]
                for i, s in enumerate(board.slots)
            ]
            for spec in gpus:
                build = Build(cpu=cpu.id, board=board.id, gpus=spec)
                try:
                    pred = evaluate(build, catalog)
                except UserError as exc:
                    assert not board.slots, f"{cpu.id} on {board.id} with {spec}: {exc}"
                    assert "has no slot table in the catalog" in str(exc)
                    refused[board.id] = str(exc)
                    continue
                findings = evaluate_rules(pred, catalog=catalog)
                plan_output(pred, findings)
                if pred.gpus:
                    continue
                # only a card put in a slot this CPU does not wire gets no lanes, and the plan says why
                assert spec[0].get("slot"), f"{cpu.id} on {board.id} with {spec}: no GPU linked"
                assert [f for f in findings if f.id == "LANE004"] and pred.machine.notes, (
                    cpu.id,
                    board.id,
                    spec,
                )
                dead.add((cpu.id, board.id, spec[0]["slot"]))
    assert pairs >= 20
    # boards without a slot table, while the catalog still has them
    assert set(refused) == {b.id for b in catalog.boards if not b.slots}


def _with_basis(tmp_path, basis: dict, value=64):
    """The i9-14900K copied into a user folder with its usable lanes set to `value` and `basis` given."""
    import yaml

    data = to_plain(load_file(bundled("catalog") / "cpus" / "intel-core-i9-14900k.yaml"))
    data.update(id="my-cpu", name="My CPU", aliases=[], part_numbers=[], basis=basis)
    data["pcie"]["usable_lanes"] = value
    (tmp_path / "cpu.yaml").write_text(yaml.safe_dump(data, allow_unicode=True))


def test_a_value_may_rest_on_a_reputable_review_or_on_reasoning_and_the_audit_counts_it(cli, tmp_path):
    _with_basis(
        tmp_path,
        {
            "pcie.usable_lanes": {
                "basis": "secondary",
                "source": "https://www.anandtech.com/show/21151/amd-threadripper-7000",
                "says": "AnandTech's launch article: 48 PCIe 5.0 lanes for add-in cards plus 24 PCIe 4.0 lanes",
            },
            "pcie.max_gen": {
                "basis": "inferred",
                "says": "every CPU of this socket has PCIe 5.0 lanes, as the platform's primary page states",
            },
        },
    )
    code, out, err = cli("catalog", "validate", "--catalog", str(tmp_path))
    assert code == 0, err
    # the user's folder layers over the bundled catalog, whose own values may rest on a basis too
    code, out, _ = cli("catalog", "audit", "--json")
    before = json.loads(out)["value_basis"]["counts"]
    code, out, _ = cli("catalog", "audit", "--json", "--catalog", str(tmp_path))
    vb = json.loads(out)["value_basis"]
    assert vb["counts"]["secondary"] == before["secondary"] + 1
    assert vb["counts"]["inferred"] == before["inferred"] + 1
    assert vb["parts"]["my-cpu"] == {"pcie.usable_lanes": "secondary", "pcie.max_gen": "inferred"}
    code, out, _ = cli("catalog", "audit", "--catalog", str(tmp_path))
    said = " ".join(out.split())  # the line wraps at the terminal's width
    assert (
        f"Values resting on a reputable review: {before['secondary'] + 1}; inferred from a primary source "
        f"of the same platform: {before['inferred'] + 1}"
    ) in said


@pytest.mark.parametrize(
    "basis, value, says",
    [
        # a secondary value rests on a named reputable reviewer, not on any page
        (
            {
                "basis": "secondary",
                "source": "https://some-blog.example.com/tr",
                "says": "a blog says 88 lanes",
            },
            64,
            "is not on the list of reputable reviewers",
        ),
        ({"basis": "secondary", "says": "a review says 88 lanes, somewhere"}, 64, "needs its `source` URL"),
        ({"basis": "inferred", "says": "short"}, 64, "says"),
        # a basis for a value the entry leaves null: the value must be given too
        (
            {"basis": "inferred", "says": "reasoned from the platform's own page"},
            None,
            "which is null: give the value too",
        ),
    ],
)
def test_a_value_basis_that_does_not_hold_is_refused_at_its_line(cli, tmp_path, basis, value, says):
    _with_basis(tmp_path, {"pcie.usable_lanes": basis}, value)
    code, _, err = cli("catalog", "validate", "--catalog", str(tmp_path))
    assert code == 1 and f"{tmp_path / 'cpu.yaml'}:" in err and says in err, err


def test_the_audit_does_not_ask_an_sxm_module_for_a_cards_size_cable_or_cooler(cli):
    code, out, _ = cli("catalog", "audit", "--json")
    nulls = {n["field"]: n for n in json.loads(out)["nulls"] if n["kind"] == "gpu"}
    sxm = [g.id for g in load_catalog_checked()[0].gpus if g.form_factor == "sxm"]
    assert sxm  # the catalog has modules (A100/H100/H200 SXM) for this to hold on
    for field in ("slot_width", "power_connector", "cooler"):
        assert not set(sxm) & set(nulls[field]["parts"]), field
