"""A build as a file: the YAML a save writes, and the comments a save keeps (nothing the user wrote
is lost)."""

from __future__ import annotations

import re
from pathlib import Path

from advisor.base.yamlio import dumps
from advisor.model.build import Build, GpuSpec


def cards_of(build: Build) -> list[GpuSpec]:
    """The build's GPUs one card per entry, in index order."""
    return [GpuSpec(model=g.model, slot=g.slot) for g in build.gpus for _ in range(g.count)]


def compact_gpus(cards: list[GpuSpec]) -> list[dict]:
    """Cards back to the file form: runs of the same model with automatic placement become one count."""
    out: list[dict] = []
    for c in cards:
        if c.slot is None and out and out[-1]["model"] == c.model and "slot" not in out[-1]:
            out[-1]["count"] += 1
        else:
            out.append({"model": c.model, "count": 1} | ({"slot": c.slot} if c.slot else {}))
    for g in out:
        if g["count"] == 1:
            del g["count"]
    return out


HEADER = "# advisor build file: `advisor plan FILE` predicts it, `advisor tui FILE` edits it\n"


def leading_comments(path: Path) -> str | None:
    """The comment lines at the top of an existing file (kept when the build is saved over it)."""
    return file_comments(path)[0]


BODY_COMMENTS = "# comments that were among the build's lines (advisor rewrites those lines when it saves):\n"


def _comment_of(line: str) -> str | None:
    """The comment on a YAML line ("# ..."), outside any quoted text; None when it has none."""
    quote = None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1] in " \t"):
            return line[i:].rstrip("\n")
    return None


def file_comments(path: Path) -> tuple[str | None, list[str]]:
    """An existing file's comments: the lines at its top, and the comments further down (whole lines,
    and the ends of lines), each as "# ..."."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    except (OSError, UnicodeDecodeError):
        return None, []
    head = []
    for line in lines:
        if not line.startswith("#"):
            break
        head.append(line)
    body = [c for c in map(_comment_of, lines[len(head) :]) if c is not None and c.strip("# ")]
    return "".join(head) or None, body


def build_yaml(build: Build, header: str = HEADER) -> str:
    """The build as a YAML file: only what differs from the defaults, GPUs compacted; and every software
    setting the build states, a default value too (`acs: off` said is known, left out it is not), except
    those its `bios:` and `kernel:` sections already state."""
    data = build.model_dump(mode="json", exclude_defaults=True)
    sw = build.software
    stated = sw.model_fields_set - set(build.said_elsewhere())
    software = sw.model_dump(mode="json", include=stated)
    if software:
        data["software"] = software
    else:
        data.pop("software", None)
    if build.gpus:
        data["gpus"] = compact_gpus(cards_of(build))
    order = [
        "name",
        "cpu",
        "cpu_count",
        "board",
        "gpus",
        "nvme",
        "nics",
        "nvlink",
        "topology",
        "software",
        "bios",
        "kernel",
        "psu_w",
        "psu_12v_2x6",
        "ram_gb",
        "dimms",
    ]
    # every field the build has, in this order first: a field left out of the list is still saved
    data = {k: data[k] for k in [*order, *(k for k in data if k not in order)] if k in data}
    return header + dumps(data)


def file_name_for(name: str, limit: int = 60) -> str:
    """A file name made from a build's name: lowercase letters, digits and single dashes, `.yaml`
    ("2x RTX 4090, Z790 Hero" -> "2x-rtx-4090-z790-hero.yaml")."""
    slug = re.sub(r"[^a-z0-9]+", "-", name.casefold()).strip("-")
    if len(slug) > limit:
        slug = slug[:limit].rsplit("-", 1)[0]
    return (slug or "build") + ".yaml"
