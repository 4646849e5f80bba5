"""A hypothesis strategy shared by the readers' property tests: real tool outputs, damaged."""

from __future__ import annotations

from hypothesis import strategies as st


def mutated(texts: list[str], nasty: list[str]) -> st.SearchStrategy[str]:
    """One of `texts` with 1-4 lines dropped, duplicated, cut short, or with a token replaced."""

    @st.composite
    def _mutated(draw: st.DrawFn) -> str:
        lines = draw(st.sampled_from(texts)).split("\n")
        for _ in range(draw(st.integers(1, 4))):
            if not lines:
                break
            k = draw(st.integers(0, len(lines) - 1))
            op = draw(st.sampled_from(["drop", "dup", "cut", "token"]))
            if op == "drop":
                del lines[k]
            elif op == "dup":
                lines.insert(k, lines[k])
            elif op == "cut":
                lines = lines[:k] + [lines[k][: draw(st.integers(0, len(lines[k])))]]
            else:
                tokens = lines[k].split(" ")
                tokens[draw(st.integers(0, len(tokens) - 1))] = draw(
                    st.sampled_from(nasty) | st.text(max_size=5)
                )
                lines[k] = " ".join(tokens)
        return "\n".join(lines)

    return _mutated()
