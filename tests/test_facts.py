"""Rule facts are typed and documented; a user rule naming an unknown fact is refused where it is written;
the compare causes are rules like the others; each job evaluates the rules of its scopes, the user's too."""

from __future__ import annotations

import json
import re

import pytest

from tests.conftest import ROOT

ONE_4090 = ("--cpu", "i9-14900K", "--board", "ROG Maximus Z790 Hero", "--gpu", "RTX 4090")
TWO_4090 = ("--cpu", "i9-14900K", "--board", "ROG Maximus Z790 Hero", "--gpu", "RTX 4090:2")


def _rule(rule_id: str, scope: str, when: str, message: str = "hit", category: str = "workload") -> str:
    return (
        f"kind: rules\nrules:\n  - id: {rule_id}\n    category: {category}\n    severity: info\n"
        f'    scope: {scope}\n    title: A user\'s rule\n    when: "{when}"\n    message: "{message}"\n'
        "    why: because\n    fix: nothing\n    sources: ['https://example.com']\n"
    )


def test_rules_facts_lists_every_fact_with_type_unit_description_and_source(cli):
    code, out, _ = cli("rules", "facts", "--json")
    assert code == 0
    facts = {f["fact"]: f for f in json.loads(out)}
    assert facts["gpu.width"]["unit"] == "lanes" and facts["gpu.width"]["type"] == "int"
    assert facts["build.system_power_w"]["source"].startswith("constant rest_of_system_w")
    assert facts["row.ratio"]["scopes"] == "compare"
    assert all(f["description"] and f["source"] for f in facts.values()), "a fact without its documentation"
    # every fact any bundled rule names is listed (the loader refuses the others; this reads the rules' text)
    import yaml

    files = [yaml.safe_load(p.read_text()) for p in (ROOT / "rules").glob("*.yaml")]
    rules_text = " ".join(
        r[k] for d in files if d["kind"] == "rules" for r in d["rules"] for k in ("when", "message", "fix")
    )
    named = set(re.findall(r"\b(build|gpu|pair|workload|row)\.([a-z_0-9]+)", rules_text))
    assert {f"{a}.{b}" for a, b in named} <= set(facts)
    code, out, _ = cli("rules", "facts", "--scope", "gpu")
    assert code == 0 and "gpu.max_width" in out and "build.cpu_lanes" in out and "pair.uni" not in out


def test_an_unknown_fact_in_a_condition_is_refused_with_file_line_and_near_names(cli, tmp_path):
    (tmp_path / "mine.yaml").write_text(_rule("MY001", "gpu", "gpu.vram >= 24"))
    code, _, err = cli("plan", *ONE_4090, "--rules", str(tmp_path))
    assert code == 2
    assert f"{tmp_path / 'mine.yaml'}:8: when: unknown fact 'gpu.vram' (did you mean gpu.vram_gb" in err
    assert "advisor rules facts" in err and "Traceback" not in err


def test_a_scope_name_the_rule_cannot_see_is_refused(cli, tmp_path):
    (tmp_path / "mine.yaml").write_text(_rule("MY002", "build", "pair.p2p and build.gpus > 1"))
    code, _, err = cli("plan", *ONE_4090, "--rules", str(tmp_path))
    assert code == 2 and "mine.yaml:8: when: unknown fact 'pair': a rule of scope build can name build" in err


def test_a_message_naming_an_unknown_fact_or_an_attribute_walk_is_refused(cli, tmp_path):
    (tmp_path / "mine.yaml").write_text(
        _rule("MY003", "gpu", "gpu.width < 16", "GPU{gpu.index} in {gpu.slots}")
    )
    code, _, err = cli("plan", *ONE_4090, "--rules", str(tmp_path))
    assert code == 2 and "mine.yaml:9: message: unknown fact 'gpu.slots' (did you mean gpu.slot" in err
    (tmp_path / "mine.yaml").write_text(
        _rule("MY004", "build", "build.gpus > 0", "{build.__class__.__mro__}")
    )
    code, _, err = cli("plan", *ONE_4090, "--rules", str(tmp_path))
    assert (
        code == 2
        and "mine.yaml:9: message: template field {build.__class__.__mro__} must name one fact" in err
    )


def test_compare_causes_are_documented_rules(cli):
    code, out, _ = cli("rules", "explain", "CMP001")
    assert code == 0
    for section in ("What it checks", "Why it matters", "Fix", "Sources", "compared figure"):
        assert section in out
    code, out, _ = cli("rules", "list", "--scope", "compare", "--json")
    ids = [r["id"] for r in json.loads(out)]
    assert code == 0 and "CMP014" in ids and all(i.startswith("CMP") for i in ids)


def test_workload_shows_the_users_workload_rules_and_no_plan_rules(cli, tmp_path):
    (tmp_path / "mine.yaml").write_text(
        _rule("MYWL001", "workload", "workload.gpus >= 2", "{workload.gpus} GPUs at {workload.busbw} GB/s")
        + _rule("MYGPU001", "gpu", "gpu.width < 16").replace("kind: rules\nrules:\n", "")
    )
    code, out, err = cli("workload", *TWO_4090, "--train", "1.3b", "--rules", str(tmp_path), "--json")
    assert code == 0, err
    ids = [f["id"] for f in json.loads(out)["findings"]]
    assert "MYWL001" in ids and "MYGPU001" not in ids and "LANE001" not in ids
    code, out, _ = cli("workload", *TWO_4090, "--train", "1.3b", "--rules", str(tmp_path))
    assert code == 0 and "MYWL001: 2 GPUs at 7.6 GB/s" in out
    code, out, _ = cli("plan", *TWO_4090, "--train", "1.3b", "--rules", str(tmp_path), "--json")
    ids = [f["id"] for f in json.loads(out)["findings"]]
    assert "MYWL001" in ids and "MYGPU001" in ids and "LANE001" in ids


def test_a_user_compare_rule_explains_a_gap(cli, tmp_path):
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "mine.yaml").write_text(
        _rule(
            "MYCMP001",
            "compare",
            "row.kind == 'host' and row.slower",
            "{row.where} at {row.pct}% of {row.predicted}",
            "measurement",
        )
    )
    meas = tmp_path / "m.json"
    meas.write_text(
        json.dumps(
            {
                "schema_version": 1,
                "source": {"tool": "t", "file": "f"},
                "results": [
                    {"metric": "h2d_gbps", "gpu": 0, "value": 6.6, "unit": "GB/s", "tool": "nvbandwidth"}
                ],
            }
        )
    )
    code, out, _ = cli(
        "compare",
        str(ROOT / "examples" / "2x4090-z790-hero.yaml"),
        str(meas),
        "--rules",
        str(rules),
        "--json",
    )
    row = json.loads(out)["rows"][0]
    assert code == 1 and {"CMP001", "MYCMP001"} <= {c["id"] for c in row["causes"]}
    pct = round(100 * row["measured"] / row["predicted"])
    mine = next(c for c in row["causes"] if c["id"] == "MYCMP001")
    assert mine["message"] == f"GPU0 at {pct}% of {row['predicted']}" and mine["subject"] == "GPU0"


def test_a_user_compare_rule_states_what_it_supposes_and_is_held_to_it(cli, tmp_path):
    """A user's cause that supposes P2P was on (YAML's unquoted `on` read as the word) is not offered
    where the file says the pair CANNOT Access Peer; a supposition the loader does not know, or one on
    a rule of another scope, is refused at its line."""
    rules = tmp_path / "rules"
    rules.mkdir()
    rule = _rule("MYCMP002", "compare", "row.kind == 'pair' and row.faster", "P2P ran", "measurement")
    (rules / "mine.yaml").write_text(rule + "    supposes: {p2p: on}\n")
    hero = str(ROOT / "examples" / "2x4090-z790-hero.yaml")
    cannot = str(
        ROOT / "tests" / "fixtures" / "tools" / "p2p" / "kinghorn_2x4090_driver525_cannot_access.txt"
    )
    code, out, err = cli("compare", hero, cannot, "--rules", str(rules), "--json")
    assert code == 1, err
    assert not any(c["id"] == "MYCMP002" for r in json.loads(out)["rows"] for c in r["causes"])
    (rules / "mine.yaml").write_text(rule)  # the same rule supposing nothing fires on the same figures
    code, out, err = cli("compare", hero, cannot, "--rules", str(rules), "--json")
    assert any(c["id"] == "MYCMP002" for r in json.loads(out)["rows"] for c in r["causes"])
    for extra, message in (
        ("    supposes: {p2p: maybe}\n", "supposes: p2p: 'maybe' is not a value it can take"),
        ("    supposes: {driver: patched}\n", "supposes: unknown supposition 'driver'"),
    ):
        (rules / "mine.yaml").write_text(rule + extra)
        code, _, err = cli("compare", hero, cannot, "--rules", str(rules))
        assert code == 2 and "mine.yaml:13: " + message in err, err
    (rules / "mine.yaml").write_text(
        _rule("MYGPU002", "gpu", "gpu.width < 16") + "    supposes: {link: below}\n"
    )
    code, _, err = cli("plan", hero, "--rules", str(rules))
    assert code == 2 and "only a rule of scope compare can suppose" in err
    code, out, _ = cli("rules", "explain", "CMP011")  # the bundled one, documented
    assert code == 0 and "What it supposes\n  p2p: on, nvlink: as predicted" in out


def test_the_platform_alternative_comes_from_the_catalog_the_build_uses(cli, tmp_path):
    """PLAT001 names a workstation platform; with --catalog, one from the user's parts can be it, once
    its CPU plans cleanly: a cheap board whose only CPU has no lane count is never suggested, and the
    user's entry that gives the lanes makes it the suggestion."""
    import yaml

    def part(path: str, **changes) -> dict:
        data = yaml.safe_load((ROOT / "catalog" / path).read_text())
        data.update(changes)
        return data

    board = part(
        "boards/asus-pro-ws-trx50-sage-wifi.yaml",
        id="my-cheap-trx50",
        name="My Cheap TRX50 Board",
        aliases=[],
        price_usd=1,
        verified=True,
        cpu_families=["my-threadripper"],  # takes only the user's CPU below
    )
    board.get("basis", {}).pop("cpu_families", None)  # the bundled board's inferred families are not these
    cpu = part(
        "cpus/amd-ryzen-threadripper-7960x.yaml",
        id="my-7960x",
        name="My Threadripper",
        aliases=[],
        part_numbers=[],
        family="my-threadripper",
        verified=True,
        basis={},
    )
    cpu["pcie"] = {**cpu["pcie"], "usable_lanes": None, "total_lanes": None, "lanes_by_gen": None}
    code, out, _ = cli("plan", *TWO_4090, "--json")
    fix = next(f["fix"] for f in json.loads(out)["findings"] if f["id"] == "PLAT001")
    assert "My Cheap TRX50 Board" not in fix
    without = tmp_path / "without-lanes"  # a folder each: a catalog folder is read once per process
    without.mkdir()
    (without / "board.yaml").write_text(yaml.safe_dump(board))
    (without / "cpu.yaml").write_text(yaml.safe_dump(cpu))
    code, out, err = cli("plan", *TWO_4090, "--catalog", str(without), "--json")
    assert code == 0, err
    fix = next(f["fix"] for f in json.loads(out)["findings"] if f["id"] == "PLAT001")
    assert "My Cheap TRX50 Board" not in fix and "My Threadripper" not in fix  # no lane count: not offered
    cpu["pcie"] = {**cpu["pcie"], "usable_lanes": 76, "total_lanes": 80}
    both = tmp_path / "with-lanes"
    both.mkdir()
    (both / "board.yaml").write_text(yaml.safe_dump(board))
    (both / "cpu.yaml").write_text(yaml.safe_dump(cpu))
    code, out, err = cli("plan", *TWO_4090, "--catalog", str(both), "--json")
    assert code == 0, err
    fix = next(f["fix"] for f in json.loads(out)["findings"] if f["id"] == "PLAT001")
    assert "My Threadripper on My Cheap TRX50 Board (" in fix


def test_a_commands_rules_folder_does_not_outlive_the_command(cli, tmp_path):
    (tmp_path / "mine.yaml").write_text(_rule("MY005", "build", "build.gpus > 0"))
    code, out, _ = cli("plan", *ONE_4090, "--rules", str(tmp_path), "--json")
    assert code == 0 and "MY005" in out
    for command in (("validate", str(ROOT / "examples" / "quotes" / "taobao-14900k-dual-4090.txt")),):
        code, out, _ = cli(*command, "--rules", str(tmp_path), "--json")
        assert "MY005" in out
    # the folders travel with the command's request: the next command in the same process has none
    code, out, _ = cli("plan", *ONE_4090, "--json")
    assert "MY005" not in out


def test_a_comprehension_in_a_condition_binds_its_own_names(cli, tmp_path):
    (tmp_path / "mine.yaml").write_text(
        _rule("MY006", "build", "max([w for w in [build.gpus, build.sockets]]) > 4")
    )
    code, out, err = cli("plan", *ONE_4090, "--rules", str(tmp_path), "--json")
    assert code == 0, err
    (tmp_path / "mine.yaml").write_text(_rule("MY007", "build", "max([w for w in [build.gpus, x]]) > 4"))
    code, _, err = cli("plan", *ONE_4090, "--rules", str(tmp_path))
    assert code == 2 and "unknown fact 'x'" in err


def test_gpus_behind_switches_are_on_the_socket_their_switch_hangs_off(plan_json):
    """ESC8000A-E13P: four GPUs behind switches on each socket; the NUMA facts see both sockets."""
    from advisor.findings.collect import prediction_facts
    from advisor.model.buildfile import load_build
    from advisor.model.catalog.store import load_catalog
    from advisor.model.engine import evaluate

    pred = evaluate(
        load_build(ROOT / "tests" / "fixtures" / "builds" / "8x-rtxpro6000-esc8000a.yaml"), load_catalog()
    )
    build, gpus, pairs = prediction_facts(pred)
    sockets = [g.socket for g in gpus]
    assert sorted(sockets) == [0, 0, 0, 0, 1, 1, 1, 1] and build.gpu_sockets == 2
    # each GPU's socket is the one its path to the host reaches: SYS pairs are exactly the cross-socket ones
    assert all((p.path == "SYS") == (sockets[p.a] != sockets[p.b]) for p in pairs)
    plan = plan_json(str(ROOT / "tests" / "fixtures" / "builds" / "8x-rtxpro6000-esc8000a.yaml"))
    assert "NUMA002" in {f["id"] for f in plan["findings"]}


@pytest.mark.parametrize(
    ("when", "message", "said"),
    [
        ("(10**4000000)*(10**4000000) > 0", "hit", "uses ** or <<"),
        ("len('x'.join(['y'*99999]*99999)) > 0", "hit", "calls a method"),
        ("len('x'.center(3000000000)) > 0", "hit", "calls a method"),
        ("len(['y']*99999) > 0", "hit", "repeats a string or a list with *"),
        ("build.gpus > 100000000000000000000", "hit", "holds the number 10000000000000000000..."),
        ("build.gpus > 0", "{build.gpus:2000000000}", "a width or precision that large is not allowed"),
        ("build.gpus > 0", "{build.gpus.__class__}", "must name one fact"),
        ("build.gpus > 0", "{build.gpus!r}", "no conversions"),
    ],
)
def test_a_rule_that_would_run_unbounded_is_refused_at_its_line(cli, tmp_path, when, message, said):
    (tmp_path / "mine.yaml").write_text(_rule("MY009", "build", when, message))
    code, _, err = cli("plan", *ONE_4090, "--rules", str(tmp_path))
    assert code == 2 and said in err, err
    line = 8 if message == "hit" else 9  # the line of `when:` or of `message:`
    assert f"mine.yaml:{line}:" in err


def test_a_condition_of_100000_terms_is_refused_not_a_recursion_error(cli, tmp_path):
    (tmp_path / "mine.yaml").write_text(_rule("MY010", "build", "+".join(["1"] * 100000) + " > 0"))
    code, _, err = cli("plan", *ONE_4090, "--rules", str(tmp_path))
    assert code == 2 and "Traceback" not in err, err
    # refused at the line of `when:`, saying how long it is and how long a condition may be
    assert "mine.yaml:8:" in err and "when" in err and "characters long, more than" in err, err
