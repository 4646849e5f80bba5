"""The validate report's plain-text wrap (layout.plain_hang_lines, a fast path for printable ASCII) lays
lines out exactly as rich's wrap does, so a report reads the same whichever path a line took."""

from __future__ import annotations

import io

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.markup import escape

from advisor.render.layout import hang_lines, plain_hang_lines

WORDS = st.text(alphabet="abcXYZ0189.,-/()$[]:", min_size=1, max_size=40)
BODY = st.lists(st.tuples(WORDS, st.sampled_from([" ", "  ", "   ", ""])), max_size=30).map(
    lambda ws: "".join(w + s for w, s in ws)
)
HEAD = st.sampled_from(
    ["", "  ", "note: ", "  warning ", "  1234  not a part        1        $9.99  "]
) | st.text(alphabet=" ab", max_size=70)


def _rich(head: str, body: str, width: int, indent: int | None) -> list[str]:
    con = Console(width=width, file=io.StringIO(), color_system=None, highlight=False, emoji=False)
    return [t.plain for t in hang_lines(con, escape(head), escape(body), indent)]


@settings(max_examples=400, deadline=None)
@given(HEAD, BODY, st.integers(20, 140), st.sampled_from([None, 2, 4, 10, 19, 70]))
def test_plain_wrap_is_rich_wrap(head, body, width, indent):
    assert plain_hang_lines(head, body, width, indent) == _rich(head, body, width, indent)


def test_long_words_fold_like_rich():
    body = "see " + "x" * 250 + " and https://example.com/" + "y" * 90
    for width in (20, 33, 80, 121):
        assert plain_hang_lines("  note: ", body, width) == _rich("  note: ", body, width, None)


def test_other_text_takes_rich():
    """Chinese (two cells a character), tabs and line breaks are left to rich."""
    assert plain_hang_lines("", "双卡 4090 满速", 80) is None
    assert plain_hang_lines("", "a\tb", 80) is None
    assert plain_hang_lines("x\n", "a", 80) is None
