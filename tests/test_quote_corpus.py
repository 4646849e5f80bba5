"""The quote corpus: realistic quotes (Chinese, German, English; emails, listings, chats, tables, CSV,
YAML, JSON) each against what a careful buyer concludes (tests/fixtures/quotes/*.expect.yaml)."""

from __future__ import annotations

import pytest

from advisor.model.catalog.store import load_catalog
from tests.quote_corpus import cases, score

CASES = cases()


def test_the_corpus_covers_the_forms_people_send():
    names = [p.name for p in CASES]
    assert len(names) >= 30
    text = {p.name: p.read_text(encoding="utf-8") for p in CASES}
    assert sum(1 for t in text.values() if any("\u4e00" <= ch <= "\u9fff" for ch in t)) >= 8
    assert (
        sum(1 for t in text.values() if any(w in t for w in ("Menge", "Netzteil", "Grafikkarte", "Anzahl")))
        >= 3
    )
    assert {p.suffix for p in CASES} >= {".txt", ".csv", ".yaml", ".json"}


@pytest.mark.parametrize("path", CASES, ids=[p.name for p in CASES])
def test_each_quote_reads_as_a_buyer_would(path):
    bad = {k: v for k, v in score(path, load_catalog()).items() if not v[0]}
    assert not bad, "\n".join(f"{k}: got {v[1]!r}, want {v[2]!r}" for k, v in bad.items())
