"""The catalog as a user sees it: list, show, validate, schema, and their own parts layered on top."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

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

    for kind in ("cpu", "board", "gpu"):
        files = sorted((bundled("catalog") / f"{kind}s").glob("*.y*ml"))
        ids = sorted(yaml.safe_load(f.read_text())["id"] for f in files)
        parts = catalog.of_kind(kind)
        assert files and sorted(p.id for p in parts) == ids, kind
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
