"""Reading a scenario's raw data from a file, a YAML string or a mapping."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from airtcp.errors import ScenarioError

__all__ = ["read_source", "parse_yaml"]

_SCENARIO_SUFFIXES = (".yaml", ".yml", ".json")


def read_source(source: Mapping[str, Any] | str | Path) -> dict[str, Any]:
    """The scenario's raw data as a fresh dict the caller may modify.

    A `str` is taken as a file name when it is a single line that names an existing file or ends
    in .yaml/.yml/.json; otherwise it is YAML text. A scenario read from a file without a `name`
    is named after the file.
    """
    if isinstance(source, Mapping):
        return _require_mapping(copy.deepcopy(dict(source)), "<scenario>")
    if isinstance(source, Path) or _looks_like_path(source):
        path = Path(source)
        raw = _require_mapping(parse_yaml(_read_text(path), str(path)), str(path))
        raw.setdefault("name", path.stem)
        return raw
    if isinstance(source, str):
        return _require_mapping(parse_yaml(source, "<scenario>"), "<scenario>")
    raise ScenarioError(
        "<scenario>", f"expected a file name, YAML text or a mapping, got {type(source).__name__}"
    )


def _looks_like_path(source: object) -> bool:
    if not isinstance(source, str) or "\n" in source or not source.strip():
        return False
    return source.endswith(_SCENARIO_SUFFIXES) or Path(source).is_file()


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ScenarioError(str(path), "no such file") from None
    except IsADirectoryError:
        raise ScenarioError(str(path), "is a directory, not a scenario file") from None
    except UnicodeDecodeError:
        raise ScenarioError(str(path), "is not a text file (expected YAML)") from None
    except OSError as error:
        raise ScenarioError(str(path), f"cannot read: {error.strerror or error}") from None


class _StrictLoader(yaml.SafeLoader):
    """YAML's safe loader, except that a key given twice in one mapping is an error.

    Plain YAML keeps the last value silently, which hides mistakes such as two `loss:` lines.
    """

    def construct_mapping(self, node: yaml.Node, deep: bool = False) -> Any:
        if isinstance(node, yaml.MappingNode):
            seen: set[str] = set()
            for key_node, _ in node.value:
                # Only plain scalar keys; merge keys (`<<: *anchor`) may legitimately repeat.
                if not isinstance(key_node, yaml.ScalarNode) or key_node.tag.endswith(":merge"):
                    continue
                if key_node.value in seen:
                    raise yaml.constructor.ConstructorError(
                        None, None, f"duplicate key {key_node.value!r}", key_node.start_mark
                    )
                seen.add(key_node.value)
        return super().construct_mapping(node, deep=deep)  # type: ignore[arg-type]


def parse_yaml(text: str, origin: str) -> Any:
    """Parses YAML text; errors become `ScenarioError(origin, ...)` with line and column."""
    try:
        return yaml.load(text, Loader=_StrictLoader)  # noqa: S506 - a SafeLoader subclass
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        raise ScenarioError(origin, f"not valid YAML{where}: {error.problem}") from None
    except yaml.YAMLError as error:
        raise ScenarioError(origin, f"not valid YAML: {error}") from None


def _require_mapping(data: Any, origin: str) -> dict[str, Any]:
    if not isinstance(data, dict):
        got = "nothing" if data is None else f"a {type(data).__name__}"
        raise ScenarioError(origin, f"expected a mapping of scenario fields at the top level, got {got}")
    for key in data:
        if not isinstance(key, str):
            raise ScenarioError(origin, f"field names must be strings, got {key!r}")
    return data
