"""YAML in and out: safe loading that remembers the line of every value, and writing YAML text.

Loading uses a SafeLoader subclass with a reduced set of implicit types (YAML 1.2-like): only
`true`/`false` are booleans, only plain decimal numbers are numbers, and nothing becomes a date,
so `no`, `0x16`, `08` or `2024-01-01` stay strings as written.
"""

from __future__ import annotations

import re
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

    def _construct_number(loader, node):
        # a 5000-digit integer (Python's int() refuses it with a ValueError) or 1e400 (infinity): refused
        # at its line, never a traceback or an infinite value (base/numbers.py)
        from advisor.base.numbers import refused_number

        why = refused_number(str(node.value))
        if why:
            where = getattr(loader, "advisor_file", None)
            raise UserError(problems=[Problem(why, file=where, line=node.start_mark.line + 1)])
        if node.tag.endswith(":int"):
            return yaml.constructor.SafeConstructor.construct_yaml_int(loader, node)
        return yaml.constructor.SafeConstructor.construct_yaml_float(loader, node)

    _Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
    _Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _construct_sequence)
    _Loader.add_constructor("tag:yaml.org,2002:int", _construct_number)
    _Loader.add_constructor("tag:yaml.org,2002:float", _construct_number)
    return _Loader


def loads(text: str, filename: str = "<string>") -> Any:
    """Parse YAML text safely; a syntax error becomes a UserError naming file:line."""
    import yaml

    loader = _loader()(text)  # derives from SafeLoader
    loader.advisor_file = filename  # for a refused number's file:line (_construct_number)
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
    except RecursionError:
        raise UserError(problems=[Problem("this YAML is nested too deeply to read", file=filename)]) from None
    finally:
        loader.dispose()


# What a YAML file may expand to through its aliases (&a ... *a): a real build, quote or catalog
# file has a few thousand values; a 600-byte "billion laughs" file expands to billions, and printing
# or walking it would never end.
MAX_EXPANDED_VALUES = 200_000
# and how many values it may hold written out: the largest bundled file (a rules file) holds under 2,000;
# a file of 150,000 repeated rules took 20 s and 2 GB to check, one problem per rule
MAX_VALUES = 100_000
# and how deep it may nest: the one limit of every document (advisor.base.inputs.MAX_DEPTH)
from advisor.base.inputs import MAX_DEPTH  # noqa: E402


def _check_expansion(root: Any, filename: str) -> None:
    """Refuse a document whose aliases make it expand far beyond its own size (an alias bomb) or refer
    to themselves, before anything is built from it. Counted on the node graph, each node once."""
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
        if len(sizes) + len(open_nodes) > MAX_VALUES:
            _refuse(
                node,
                filename,
                f"it holds more than {MAX_VALUES:,} values",
                aliases=False,
                hint="a build, quote, catalog or rules file holds a few thousand; split it or cut what repeats",
            )
        if key in open_nodes:
            _refuse(node, filename, "an alias refers to the value that contains it")
        open_nodes.add(key)
        if len(open_nodes) > MAX_DEPTH:  # the open nodes are this one's ancestors
            _refuse(node, filename, f"it is nested more than {MAX_DEPTH} levels deep", aliases=False)
        stack.append((node, True))
        stack.extend((c, False) for c in _children(node) if id(c) not in sizes)


def _children(node: Any) -> list:
    import yaml

    if isinstance(node, yaml.MappingNode):
        return [x for pair in node.value for x in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _refuse(node: Any, filename: str, what: str, aliases: bool = True, hint: str | None = None) -> None:
    if hint is None:
        hint = (
            "write the values out instead of repeating them through aliases"
            if aliases
            else "a build, quote or catalog file nests a few levels; check the indentation and brackets"
        )
    raise UserError(
        problems=[
            Problem(
                f"this YAML cannot be read: {what}" + (" (&name ... *name)" if aliases else ""),
                file=filename,
                line=node.start_mark.line + 1,
                hint=hint,
            )
        ]
    )


def read_text(path: str | Path) -> str:
    """A user's text file, bounded and checked (advisor.base.inputs.read_input); what goes wrong reading
    it becomes a UserError naming the file."""
    from advisor.base.inputs import read_input

    return read_input(path)


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
