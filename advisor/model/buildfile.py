"""Build files and flags read into a Build: a file (YAML with file:line errors), parsed data, or the
CLI's --cpu/--board/--gpu flags layered over a file. Reading a build is not evaluating it: the faces read
builds here and hand them to `advisor.assess`."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from advisor.base.errors import Problem, UserError
from advisor.base.notices import note
from advisor.base.text import plain
from advisor.base.validation import validate
from advisor.base.yamlio import LineDict, line_of, load_file
from advisor.i18n import _
from advisor.model.build import MAX_GPUS_PER_ENTRY, Build


def load_build(path: str | Path) -> Build:
    data = load_file(path)
    return build_from_data(data, str(path))


def build_from_data(data, filename: str = "<build>") -> Build:
    if not isinstance(data, LineDict):
        raise UserError(
            _("{file}: a build file must be a mapping with keys like cpu, board, gpus").format(file=filename),
            hint=_("see examples/ for build files"),
        )
    build, problems = validate(Build, data, filename)
    if build is not None:  # a bridge to a GPU the build does not have, at its line
        problems = [
            Problem(message, file=filename, line=line_of(data, ("nvlink", i)), field=f"nvlink[{i}]")
            for i, message in build.nvlink_problems()
        ]
    if problems:
        raise UserError(problems=problems)
    assert build is not None
    build._where = _part_lines(data, filename)
    return build


# the keys of a build file that name a catalog part, by the kind of part (gpus[].model, tree devices' gpu)
_PART_KEYS = {"cpu": "cpu", "board": "board", "model": "gpu", "gpu": "gpu", "system": "system"}


def _part_lines(data, filename: str) -> dict:
    """(kind, name) -> (file, line, field) for every part name the file writes: its first place wins
    (a name names one part wherever it is written)."""
    from advisor.base.yamlio import LineList

    out: dict = {}

    def walk(node, path: str) -> None:
        if isinstance(node, LineDict):
            for key, value in node.items():
                here = f"{path}.{key}" if path else key
                kind = _PART_KEYS.get(key)
                if kind and isinstance(value, str) and (path.startswith("gpus") or key != "model"):
                    out.setdefault((kind, value.strip()), (filename, node.key_lines.get(key), here))
                walk(value, here)
        elif isinstance(node, LineList):
            for i, item in enumerate(node):
                walk(item, f"{path}[{i}]")

    walk(data, "")
    return out


# "2x RTX 4090", "2 × 4090", "RTX 3090 x2", "4090*2": a count of at most two digits before or after the name,
# joined by x, X, × or *; no GPU's name starts with a number and an x, or ends with an x and a number
_COUNT_WRITTEN = re.compile(
    r"(?P<n_a>[0-9]{1,2})\s*[xX×*]\s*(?P<name_a>[^\s:@].*)|(?P<name_b>.*[^\s:@])\s*[xX×*]\s*(?P<n_b>[0-9]{1,2})"
)


def count_as_written(text: str, flag: str, whole: str | None = None) -> str:
    """`text` ("2x RTX 4090", "RTX 3090 ×2": the count as people write it in a listing) as NAME:COUNT,
    said on stderr with the flag as written (`whole`, where `text` is its part before '@SLOT'); `text`
    itself where it has a ':' or no count written so."""
    if ":" in text or not (m := _COUNT_WRITTEN.fullmatch(text.strip())):
        return text
    name, n = (m.group("name_a") or m.group("name_b")).strip(), m.group("n_a") or m.group("n_b")
    whole = whole or text
    rest = whole[len(text) :] if whole.startswith(text) else ""  # "@PCIEX16_1" after the count
    note(
        _("read {flag} {text} as {n} x {name} ({flag} {written})").format(
            flag=flag,
            text=repr(plain(whole)),
            n=int(n),
            name=repr(plain(name)),
            written=repr(plain(f"{name}:{n}{rest}")),
        )
    )
    return f"{name}:{n}"


def build_from_flags(
    cpu: str | None,
    board: str | None,
    gpus: Iterable[str],
    nvme: Iterable[str] = (),
    base: Build | None = None,
    settings: dict[str, dict] | None = None,
) -> Build:
    """`--gpu "RTX 4090:2"` means two RTX 4090s; `--gpu "RTX 4090@PCIEX16(G5)"` places one in a slot.
    `settings` ({"software": {...}, "bios": {...}, "kernel": {...}}) are flags over the file's sections."""
    specs: list[dict] = []
    flags: list[str] = []  # the flag each gpus entry came from, for its messages
    for g in gpus:
        model, slot, count = g, None, 1
        if "@" in model:
            model, slot = model.split("@", 1)
        model = count_as_written(model, "--gpu", g)
        if ":" in model:
            model, n = model.rsplit(":", 1)
            n = n.strip()
            if not (n.isascii() and n.isdigit()) or len(n) > 6 or int(n) < 1:
                raise UserError(
                    _("--gpu {flag}: the count after ':' must be a whole number from 1 to {most}").format(
                        flag=repr(g), most=MAX_GPUS_PER_ENTRY
                    )
                )
            count = int(n)
        # a dict, validated with the build below: a count or name the model refuses is a message that
        # names the flag, never a pydantic traceback
        specs.append({"model": model.strip(), "count": count, "slot": slot.strip() if slot else None})
        flags.append(f"--gpu {g!r}")
    # only what the file said: a default written back would read as a setting the user stated
    data = base.model_dump(exclude_unset=True) if base else {}
    for section, values in (settings or {}).items():
        data[section] = {**data.get(section, {}), **values}
    if cpu:
        data["cpu"] = cpu
    if board:
        data["board"] = board
    if specs:
        data["gpus"] = specs
    if nvme:
        data["nvme"] = [{"socket": s} for s in nvme]
    build, problems = validate(Build, data, None)
    if problems:
        for p in problems:
            m = re.match(r"(gpus|nvme)\[(\d+)\](?:\.(\w+))?$", p.field or "")
            if m and m.group(1) == "gpus" and specs and int(m.group(2)) < len(flags):
                p.field = flags[int(m.group(2))] + (f": {m.group(3)}" if m.group(3) else "")
            elif m and m.group(1) == "nvme" and nvme and int(m.group(2)) < len(list(nvme)):
                p.field = f"--nvme {list(nvme)[int(m.group(2))]!r}" + (
                    f": {m.group(3)}" if m.group(3) else ""
                )
        if not any(p.field for p in problems):
            problems[-1].hint = problems[-1].hint or "give --cpu and --board (and --gpu), or a build file"
        raise UserError(problems=problems)
    assert build is not None
    where = dict(base._where) if base is not None else {}
    if cpu:
        where[("cpu", cpu.strip())] = (None, None, "--cpu")
    if board:
        where[("board", board.strip())] = (None, None, "--board")
    for spec, flag in zip(specs, flags, strict=True):
        where[("gpu", spec["model"])] = (None, None, flag)
    build._where = where
    return build
