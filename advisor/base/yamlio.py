"""YAML in and out: safe loading that remembers the line of every value, and atomic saves.

Loading uses a SafeLoader subclass with a reduced set of implicit types (YAML 1.2-like): only
`true`/`false` are booleans, only plain decimal numbers are numbers, and nothing becomes a date,
so `no`, `0x16`, `08` or `2024-01-01` stay strings as written.
"""

from __future__ import annotations

import os
import re
import stat
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Any

from advisor.base.errors import Problem, UserError


class LineDict(dict):
    """A mapping that knows the line of itself and of each of its keys (1-based)."""

    line: int = 0
    key_lines: dict


class LineList(list):
    line: int = 0
    item_lines: list


@lru_cache(maxsize=1)
def _loader() -> type:
    """The safe loader, built on first use: a command that reads no YAML (bundled files come from their
    JSON copies) does not import PyYAML at all."""
    import yaml

    class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # the C parser where libyaml is present
        pass

    # Start from an empty resolver table and add only the types we want.
    _Loader.yaml_implicit_resolvers = {}
    _Loader.add_implicit_resolver(
        "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
    )
    _Loader.add_implicit_resolver(
        "tag:yaml.org,2002:int", re.compile(r"^[-+]?(?:0|[1-9][0-9_]*)$"), list("-+0123456789")
    )
    _Loader.add_implicit_resolver(
        "tag:yaml.org,2002:float",
        re.compile(
            r"^[-+]?(?:(?:0|[1-9][0-9]*)\.[0-9]*(?:[eE][-+]?[0-9]+)?|\.[0-9]+(?:[eE][-+]?[0-9]+)?|[0-9]+[eE][-+]?[0-9]+)$"
        ),
        list("-+0123456789."),
    )
    _Loader.add_implicit_resolver(
        "tag:yaml.org,2002:null", re.compile(r"^(?:~|null|Null|NULL|)$"), ["~", "n", "N", ""]
    )

    def _construct_mapping(loader, node) -> LineDict:
        loader.flatten_mapping(node)
        result = LineDict()
        result.line = node.start_mark.line + 1
        result.key_lines = {}
        for key_node, value_node in node.value:
            key = loader.construct_object(key_node, deep=True)
            if not isinstance(key, (str, int, float, bool)) or key is None:
                raise yaml.constructor.ConstructorError(
                    None, None, "a mapping key must be a plain value", key_node.start_mark
                )
            key = str(key) if not isinstance(key, str) else key
            if key in result:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key!r}", key_node.start_mark
                )
            result[key] = loader.construct_object(value_node, deep=True)
            result.key_lines[key] = value_node.start_mark.line + 1
        return result

    def _construct_sequence(loader, node) -> LineList:
        result = LineList(loader.construct_object(child, deep=True) for child in node.value)
        result.line = node.start_mark.line + 1
        result.item_lines = [child.start_mark.line + 1 for child in node.value]
        return result

    _Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
    _Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _construct_sequence)
    return _Loader


def loads(text: str, filename: str = "<string>") -> Any:
    """Parse YAML text safely; a syntax error becomes a UserError naming file:line."""
    import yaml

    loader = _loader()(text)  # derives from SafeLoader
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_expansion(node, filename)
        return loader.construct_document(node)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else None
        what = exc.problem or str(exc)
        raise UserError(
            problems=[
                Problem(
                    f"this is not valid YAML: {what}",
                    file=filename,
                    line=line,
                    hint="check the indentation and quoting on that line",
                )
            ]
        ) from None
    except yaml.YAMLError as exc:
        raise UserError(problems=[Problem(f"this is not valid YAML: {exc}", file=filename)]) from None
    finally:
        loader.dispose()


# What a YAML file may expand to through its aliases (&a ... *a): a real build, quote or catalog
# file has a few thousand values; a 600-byte "billion laughs" file expands to billions, and printing
# or walking it would never end.
MAX_EXPANDED_VALUES = 200_000


def _check_expansion(root: Any, filename: str) -> None:
    """Refuse a document whose aliases make it expand far beyond its own size (an alias bomb) or refer
    to themselves, before anything is built from it. Counted on the node graph, each node once."""
    import yaml

    sizes: dict[int, int] = {}
    stack: list[tuple[Any, bool]] = [(root, False)]
    open_nodes: set[int] = set()
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            open_nodes.discard(key)
            children = _children(node)
            sizes[key] = 1 + sum(sizes[id(c)] for c in children)
            if sizes[key] > MAX_EXPANDED_VALUES and sizes[key] > 2 * len(sizes):
                _refuse(
                    node, filename, f"it expands to more than {MAX_EXPANDED_VALUES:,} values through aliases"
                )
            continue
        if key in sizes:
            continue
        if key in open_nodes:
            _refuse(node, filename, "an alias refers to the value that contains it")
        open_nodes.add(key)
        stack.append((node, True))
        stack.extend((c, False) for c in _children(node) if id(c) not in sizes)
    del yaml


def _children(node: Any) -> list:
    import yaml

    if isinstance(node, yaml.MappingNode):
        return [x for pair in node.value for x in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _refuse(node: Any, filename: str, what: str) -> None:
    raise UserError(
        problems=[
            Problem(
                f"this YAML cannot be read: {what} (&name ... *name)",
                file=filename,
                line=node.start_mark.line + 1,
                hint="write the values out instead of repeating them through aliases",
            )
        ]
    )


def read_text(path: str | Path) -> str:
    """A user's text file; what goes wrong reading it becomes a UserError naming the file."""
    path = Path(path)
    try:
        return path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise UserError(f"{path}: no such file", hint="check the path") from None
    except IsADirectoryError:
        raise UserError(f"{path}: is a folder, not a file") from None
    except UnicodeDecodeError:
        raise UserError(f"{path}: is not UTF-8 text") from None
    except OSError as exc:
        raise UserError(f"{path}: cannot be read ({exc.strerror})") from None


def load_file(path: str | Path) -> Any:
    return loads(read_text(path), str(path))


def load_bundled(path: str | Path) -> Any:
    """A file shipped with advisor (rules, constants, quote vocabulary), read through a parsed JSON copy
    in the cache folder (advisor/base/cache.py) with its lines kept: parsing the bundled YAML is about
    a tenth of a short command's run time."""
    from advisor.base.cache import cache_path, read_cached, write_cached

    path = Path(path)
    prefix = f"yaml-{path.parent.name}-{path.stem}"
    try:
        where = cache_path(prefix, [path, Path(__file__)])
    except OSError:
        return load_file(path)
    cached = read_cached(where)
    if cached is not None:
        try:
            return _decode(cached)
        except (KeyError, TypeError, ValueError, IndexError):
            pass  # a damaged copy: parse the YAML again
    data = load_file(path)
    write_cached(where, _encode(data), prefix)
    return data


def _encode(x: Any) -> Any:
    if isinstance(x, LineDict):
        return {"d": [[k, _encode(v), x.key_lines.get(k)] for k, v in x.items()], "l": x.line}
    if isinstance(x, LineList):
        return {"a": [_encode(v) for v in x], "l": x.line, "i": x.item_lines}
    return x  # a scalar: never a dict, so every dict in the copy is a node


def _decode(x: Any) -> Any:
    if isinstance(x, dict):
        if "d" in x:
            out = LineDict()
            out.line, out.key_lines = x["l"], {}
            for k, v, line in x["d"]:
                out[k] = _decode(v)
                out.key_lines[k] = line
            return out
        out = LineList(_decode(v) for v in x["a"])
        out.line, out.item_lines = x["l"], list(x["i"])
        return out
    if isinstance(x, list):
        raise ValueError("a list outside a node")
    return x


def line_of(data: Any, loc: tuple | list) -> int | None:
    """The line of the value at `loc` (a pydantic error location) inside loaded YAML data.

    Walks as deep as the location exists; for a missing key, the line of the parent mapping.
    """
    node = data
    line = getattr(data, "line", None)
    for part in loc:
        if isinstance(node, LineDict) and isinstance(part, str) and part in node:
            line = node.key_lines.get(part, line)
            node = node[part]
        elif isinstance(node, LineList) and isinstance(part, int) and 0 <= part < len(node):
            line = node.item_lines[part]
            node = node[part]
        else:
            break
        if getattr(node, "line", None):
            line = line or node.line
    return line


def to_plain(data: Any) -> Any:
    """Strip the line-tracking containers (for dumping)."""
    if isinstance(data, dict):
        return {k: to_plain(v) for k, v in data.items()}
    if isinstance(data, list):
        return [to_plain(v) for v in data]
    return data


def dumps(data: Any) -> str:
    import yaml

    return yaml.safe_dump(to_plain(data), sort_keys=False, allow_unicode=True, default_flow_style=False)


def default_mode() -> int:
    """The mode a new file gets from the user's umask (0666 & ~umask), as `open()` would make it."""
    try:  # Linux: the umask without changing it (os.umask would, for a moment, for every thread)
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return 0o666 & ~int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


def atomic_write(path: str | Path, text: str, mode: int | None = None) -> None:
    """Write a file so that a crash never leaves it half-written: temp file in the same folder, fsync,
    rename over the target.

    The file gets `mode`, or else the mode it had (overwriting keeps it), or else the user's usual mode
    for a new file (0666 & ~umask); never the 0600 of the temp file (tempfile.mkstemp's). Pass
    mode=0o600 for files only this program reads (the autosave)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if mode is None:
        try:
            mode = stat.S_IMODE(path.stat().st_mode)
        except OSError:  # no file there yet
            mode = default_mode()
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            if hasattr(os, "fchmod"):
                os.fchmod(fh.fileno(), mode)
            else:  # Windows: only the read-only bit means anything
                os.chmod(tmp, mode)
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
