"""Where catalog values come from: the kept lists of refused and primary source domains (rules/sources.yaml).

A catalog entry that cites a refused domain (a content farm, a spam site) is rejected by `advisor catalog
validate`; `advisor catalog audit` counts sources by domain and tells primary ones (the vendors' own pages,
probe dumps) from secondary ones (reviews, spec databases, forums).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import urlsplit

from advisor.base.errors import Problem
from advisor.base.resources import bundled


@dataclass(frozen=True)
class Domain:
    domain: str  # "example.com" or "github.com/owner"
    note: str  # why it is refused, or what it holds

    def matches(self, url: str) -> bool:
        host, path = _host_path(url)
        name, _, prefix = self.domain.partition("/")
        if host != name and not host.endswith("." + name):
            return False
        return not prefix or path.lower().strip("/").startswith(prefix.lower())


@dataclass(frozen=True)
class SourceLists:
    refused: tuple[Domain, ...]
    primary: tuple[Domain, ...]
    not_primary: tuple[Domain, ...] = ()
    # named reviewers whose articles a `basis: secondary` value may rest on
    reputable: tuple[Domain, ...] = ()


def _host_path(url: str) -> tuple[str, str]:
    try:
        parts = urlsplit(url.strip())
        host = (parts.hostname or "").lower()
    except ValueError:  # "https://[not an address" : no host to count it under
        return "", ""
    return host.removeprefix("www."), parts.path


def domain_of(url: str) -> str:
    """The domain a source is counted under: the host without `www.`; on github.com, the owner too
    (github.com/linuxhw and a personal repository are different sources)."""
    host, path = _host_path(url)
    if host == "github.com":
        owner = path.strip("/").split("/")[0]
        return f"github.com/{owner}" if owner else host
    return host


@lru_cache(maxsize=1)
def source_lists() -> SourceLists:
    from advisor.base.yamlio import load_bundled

    data = load_bundled(bundled("rules") / "sources.yaml")
    return SourceLists(
        refused=tuple(Domain(str(e["domain"]).lower(), str(e["reason"])) for e in data["refused"]),
        primary=tuple(Domain(str(e["domain"]).lower(), str(e.get("what", ""))) for e in data["primary"]),
        not_primary=tuple(
            Domain(str(e["domain"]).lower(), str(e.get("what", ""))) for e in data.get("not_primary") or []
        ),
        reputable=tuple(
            Domain(str(e["domain"]).lower(), str(e.get("what", ""))) for e in data.get("reputable") or []
        ),
    )


def refused_domain(url: str) -> Domain | None:
    return next((d for d in source_lists().refused if d.matches(url)), None)


def is_primary(url: str) -> bool:
    lists = source_lists()
    return any(d.matches(url) for d in lists.primary) and not any(d.matches(url) for d in lists.not_primary)


def is_reputable(url: str) -> bool:
    """A named reputable reviewer's address (rules/sources.yaml `reputable`)."""
    return any(d.matches(url) for d in source_lists().reputable)


def best_source(sources: list[str]) -> str:
    """The source to cite for a part's values: its first primary one, else its first."""
    return next((s for s in sources if is_primary(s)), sources[0] if sources else "(no source)")


def refused_citations(catalog) -> list[Problem]:
    """A problem for every source of a catalog entry on a refused domain, at the line that cites it."""
    problems = []
    for part in sorted(catalog.parts.values(), key=lambda p: catalog.origin[p.id]):
        bad = [(i, s, d) for i, s in enumerate(part.sources) if (d := refused_domain(s)) is not None]
        if not bad:
            continue
        file, line = catalog.origin[part.id]
        lines = _source_lines(file)
        for i, url, dom in bad:
            problems.append(
                Problem(
                    f"{url}: {dom.domain} is a refused source ({dom.note})",
                    file=file,
                    line=lines[i] if i < len(lines) else line,
                    field=f"sources[{i}]",
                    hint="cite a primary source instead (vendor page, ARK, datasheet, manual, a github.com/"
                    "linuxhw dump) or a named review, and recheck the values it was cited for; the list is "
                    "rules/sources.yaml",
                )
            )
    return problems


def _source_lines(file: str) -> list[int]:
    from advisor.base.yamlio import LineDict, LineList, load_file

    try:
        data = load_file(file)
    except Exception:  # a file that moved or no longer parses: the part's own line is used
        return []
    if not isinstance(data, LineDict):
        return []
    sources = data.get("sources")
    if isinstance(sources, LineList) and getattr(sources, "item_lines", None):
        return list(sources.item_lines)
    line = data.key_lines.get("sources")
    return [line] * len(sources) if line and isinstance(sources, list) else []
