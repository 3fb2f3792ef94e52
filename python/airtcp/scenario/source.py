"""Reading a scenario's raw data from a file, a YAML string or a mapping.

Whatever the input, the answer is data or a `ScenarioError`: a file is read only if it is a
regular file of at most `MAX_SOURCE_BYTES`, and data nested more than `MAX_NESTING` levels, or
holding more than `MAX_VALUES` values once YAML aliases are expanded, is refused before anything
recursive (the YAML composer, copying, validation) walks it.
"""

from __future__ import annotations

import copy
import json
import os
import re
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from airtcp.errors import ScenarioError

__all__ = ["MAX_NESTING", "MAX_SOURCE_BYTES", "MAX_VALUES", "SCENARIO_SUFFIXES", "check_expanded_size", "check_nesting", "read_source", "parse_yaml"]

SCENARIO_SUFFIXES = (".yaml", ".yml", ".json")

# Scenario files are a few kilobytes. The limit keeps a wrong path (a device, a log) from
# exhausting memory; it applies to YAML text given directly too.
MAX_SOURCE_BYTES = 16 * 2**20
# Scenarios nest fewer than ten levels. Deeper data is refused at this depth, well before
# Python's recursion limit.
MAX_NESTING = 64
_TOO_DEEP = f"nested too deeply (more than {MAX_NESTING} levels)"
# Values a scenario may hold with its YAML aliases expanded: as many as 16 MiB of text can write
# without aliases (two characters each, `1,`). Validation walks data that way, so an alias bomb
# (ten aliases of ten aliases of ... a billion values) would otherwise take hours and all memory.
MAX_VALUES = MAX_SOURCE_BYTES // 2


def read_source(source: Mapping[str, Any] | str | Path) -> dict[str, Any]:
    """The scenario's raw data as a fresh dict the caller may modify.

    A `str` is taken as a file name when it is a single line that names an existing file (or
    directory, device...) or ends in .yaml/.yml/.json, as a bundled scenario's name
    (`examples/p2p_lossy`, as the command line takes it) when no such file exists; otherwise it
    is YAML text. A scenario read from a file without a `name` is named after the file.
    """
    if isinstance(source, Mapping):
        check_nesting(source, "<scenario>")
        check_expanded_size(source, "<scenario>")
        return _require_mapping(copy.deepcopy(dict(source)), "<scenario>")
    if isinstance(source, Path) or _looks_like_path(source) or _names_bundled(source):
        path = Path(source)
        if not _exists(path):
            # A bundled scenario's name (as the command line takes it), or the error for a
            # missing file, pointing at the bundled scenario a checkout's path stands for.
            from airtcp.scenario import bundled  # here: bundled reads files through this module

            return bundled.file_or_bundled(path)  # type: ignore[return-value]  # a dict, or it raises
        raw = _require_mapping(parse_yaml(_read_text(path), str(path)), str(path))
        raw.setdefault("name", _name_from_file(path))
        _resolve_relative_files(raw, path.parent)
        return raw
    if isinstance(source, str):
        data = parse_yaml(source, "<scenario>")
        word = source.strip()
        if isinstance(data, str) and len(word) <= 255 and not any(c.isspace() for c in word):
            # One word that could name a file, and none does: a misspelt file or bundled name
            # rather than YAML text.
            from airtcp.scenario import bundled

            raise bundled.unknown(word, "no such file or bundled scenario")
        return _require_mapping(data, "<scenario>")
    raise ScenarioError(
        "scenario", f"expected a file name, YAML text or a mapping, got {type(source).__name__}"
    )


def _resolve_relative_files(raw: dict[str, Any], base: Path) -> None:
    """Files a scenario names (mobility's movement files) are relative to the scenario's own file,
    as a reader of the file expects; the core reads them relative to the working directory."""
    entries = raw.get("mobility")
    if not isinstance(entries, list):
        return
    for entry in entries:
        if isinstance(entry, dict) and isinstance(entry.get("file"), str) and entry["file"]:
            file = Path(entry["file"])
            if not file.is_absolute():
                entry["file"] = str(base / file)


def _looks_like_path(source: object) -> bool:
    if not isinstance(source, str) or "\n" in source or not source.strip():
        return False
    if source.endswith(SCENARIO_SUFFIXES):
        return True
    try:
        # Anything that exists, so that a directory or a device is refused as such.
        return Path(source).exists()
    except (OSError, ValueError):  # too long for a file name, or a NUL in it: YAML text then
        return False


def _names_bundled(source: object) -> bool:
    """Whether `source` is a bundled scenario's name (`examples/p2p_lossy`) rather than YAML text."""
    if not isinstance(source, str) or "\n" in source or ":" in source:
        return False
    from airtcp.scenario import bundled

    return bundled.is_bundled(source)


def _exists(path: Path) -> bool:
    try:
        return path.exists()
    except (OSError, ValueError):  # a name too long, or with a NUL: reading it says why
        return True


def _name_from_file(path: Path) -> str:
    """The file's stem; bytes that are not UTF-8 (kept as lone surrogates by Python) become
    U+FFFD, so an odd file name does not make an invalid scenario name."""
    return path.stem.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _read_text(path: Path) -> str:
    """The text of a regular file of at most MAX_SOURCE_BYTES.

    Opened without blocking and checked before reading: a FIFO would wait for a writer forever and
    /dev/zero never ends.
    """
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise ScenarioError(str(path), "no such file") from None
    except IsADirectoryError:
        raise ScenarioError(str(path), _DIRECTORY) from None
    except (OSError, ValueError) as error:  # ValueError: a NUL in the name
        raise ScenarioError(str(path), f"cannot read: {_reason(error)}") from None
    try:
        mode = os.fstat(descriptor).st_mode
        if stat.S_ISDIR(mode):
            raise ScenarioError(str(path), _DIRECTORY)
        if not stat.S_ISREG(mode):
            raise ScenarioError(str(path), "is not a regular file (a device, pipe or socket); give a scenario file")
        with os.fdopen(descriptor, "rb", closefd=False) as file:
            data = file.read(MAX_SOURCE_BYTES + 1)
    except OSError as error:
        raise ScenarioError(str(path), f"cannot read: {_reason(error)}") from None
    finally:
        os.close(descriptor)
    if len(data) > MAX_SOURCE_BYTES:
        raise ScenarioError(str(path), _too_large())
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ScenarioError(str(path), "is not a text file (expected YAML)") from None


_DIRECTORY = "is a directory, not a scenario file"


def _reason(error: Exception) -> str:
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return str(error)


def _too_large() -> str:
    return f"is larger than {MAX_SOURCE_BYTES // 2**20} MiB, the limit for a scenario"


class _StrictLoader(yaml.SafeLoader):
    """YAML's safe loader, except that a key given twice in one mapping is an error and nesting is
    limited.

    Plain YAML keeps the last value silently, which hides mistakes such as two `loss:` lines.
    """

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node:
        # The composer recurses once per level of nesting: stop before Python's stack does.
        self._depth += 1
        try:
            if self._depth > MAX_NESTING:
                raise _TooDeep(self.peek_event().start_mark)
            return super().compose_node(parent, index)  # type: ignore[no-any-return]
        finally:
            self._depth -= 1

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

    def construct_long_int(self, node: yaml.ScalarNode) -> Any:
        # Python turns at most 4300 decimal digits into an integer (sys.get_int_max_str_digits)
        # and raises a ValueError beyond, which is none of YAML's errors.
        try:
            return self.construct_yaml_int(node)
        except ValueError:
            raise _NumberTooLong(node) from None


_StrictLoader.add_constructor("tag:yaml.org,2002:int", _StrictLoader.construct_long_int)


class _NumberTooLong(Exception):
    """Raised by the loader at an integer too long for Python to read."""

    def __init__(self, node: yaml.ScalarNode) -> None:
        super().__init__(node.start_mark)
        self.mark = node.start_mark
        self.digits = sum(c.isalnum() for c in node.value)


class _TooDeep(Exception):
    """Raised by the loader at the first node nested more than MAX_NESTING levels."""

    def __init__(self, mark: yaml.Mark) -> None:
        super().__init__(mark)
        self.mark = mark


def parse_yaml(text: str, origin: str) -> Any:
    """Parses YAML text; errors become `ScenarioError(origin, ...)` with line and column.

    Text that is a JSON object is read by the `json` module when that provably gives the data
    YAML would (`_json_as_yaml`): a large generated scenario then takes half a second rather
    than 20 s. Anything else, bad input included, goes through the YAML
    loader below, so values and error messages are the same either way.
    """
    if len(text) > MAX_SOURCE_BYTES:
        raise ScenarioError(origin, _too_large())
    data = _json_as_yaml(text)
    if data is _NOT_JSON:
        data = _load_yaml(text, origin)
        # Aliases nest without nesting the text (`b: &b [*a]`), and may even contain themselves.
        check_nesting(data, origin)
    check_expanded_size(data, origin)
    return data


def _load_yaml(text: str, origin: str) -> Any:
    """The strict YAML loader's reading of `text` (pure Python: the reference for every value
    and every error message)."""
    try:
        data = yaml.load(text, Loader=_StrictLoader)  # noqa: S506 - a SafeLoader subclass
    except _TooDeep as error:
        raise ScenarioError(origin, f"{_TOO_DEEP}{_where(error.mark)}") from None
    except _NumberTooLong as error:
        raise ScenarioError(origin, f"a whole number of {error.digits} digits{_where(error.mark)}, beyond the range of any field") from None
    except yaml.MarkedYAMLError as error:
        raise ScenarioError(origin, f"not valid YAML{_where(error.problem_mark)}: {error.problem}") from None
    except yaml.reader.ReaderError as error:
        # Its text spans two lines; the position is a character offset.
        where = _where(_mark_at(text, error.position))
        problem = f"character U+{error.character:04X} is not allowed"
        raise ScenarioError(origin, f"not valid YAML{where}: {problem}") from None
    except yaml.YAMLError as error:
        raise ScenarioError(origin, f"not valid YAML: {error}") from None
    return data


# --- JSON read as YAML reads it ------------------------------------------------------------------
#
# A scenario written by a program is usually JSON (`json.dump`), and JSON is YAML's flow style,
# so the YAML loader reads it, at about 3 us a character in pure Python (19 s for the 6 MB of a
# 100,000-node mesh). libyaml's loader (yaml.CSafeLoader) is no cure: it still constructs the
# values in Python (6.7 s for that mesh written as YAML), composes by C recursion without a depth
# limit (hostile nesting would crash the process; a Python composer over its events to guard it
# takes 8.3 s) and words its errors differently. The `json` module reads the text in 0.2 s. The rule: a JSON
# object is read as JSON whenever the result is provably the YAML loader's; the format stays
# YAML 1.1, so `1e5` is still the string YAML 1.1 makes of it, not a number. Where the two could
# differ, or the text is not valid JSON at all, it goes to the YAML loader, which then gives
# exactly the value or the error message it always gave. Where JSON and YAML 1.1 part:
#
# - numbers with an exponent: YAML 1.1 reads `1.5e+5` as a float but `1e5`, `1e-05` (what
#   `json.dump` writes for 0.00001) and `1.5e5` as strings; `NaN`, `Infinity` are strings.
#   The hooks below give what YAML's resolver gives for each literal (`_yaml_number`).
# - a key given twice: JSON keeps the last, the strict loader refuses it (with its position,
#   which only the loader knows): handed to the loader.
# - characters: YAML refuses tabs between tokens (JSON's strings cannot hold raw ones, so any tab
#   is between tokens), and non-printable characters anywhere (DEL, C1 controls); it folds NEL,
#   U+2028 and U+2029 in a quoted string as line breaks; it reads an escaped surrogate pair
#   (`\ud83d\ude00`) as two lone surrogates where JSON joins them: all handed to the loader.
# - keys: YAML takes `"key":` as a key only when the colon is on the key's line and within 1024
#   characters of its quote: a key longer than `_LONGEST_KEY` characters, or a colon on another
#   line or after many spaces, is handed to the loader.
# - nesting: deeper than MAX_NESTING (or than Python's recursion limit, which the C decoder
#   honours) is handed to the loader, which refuses it with its position.

_NOT_JSON: Any = object()
# Text the JSON reading could read differently from YAML, or YAML refuses (see above).
_JSON_DIFFERS = re.compile(
    r"[\t\x85\u2028\u2029]"  # a tab between tokens; line breaks YAML folds inside strings
    r"|\\u[dD][89abAB]"  # an escaped surrogate (maybe half of a pair)
    r'|"[ \r\n]*[\r\n][ \r\n]*:|"[ ]{64,}:'  # a key's colon on another line, or far from it
    r"|" + yaml.reader.Reader.NON_PRINTABLE.pattern  # what YAML's reader refuses
)
# Keys up to this long span at most 6 * 128 + 2 characters with their escapes (`\u00e9`; pairs
# are handed over) and 63 spaces before the colon: within YAML's 1024.
_LONGEST_KEY = 128


class _Differs(Exception):
    """Raised by the JSON hooks where YAML could read the text differently."""


def _json_as_yaml(text: str) -> Any:
    """`text` read by the `json` module if it is a JSON object the strict YAML loader would read
    as the same data, else `_NOT_JSON`."""
    if not text.lstrip(" \r\n").startswith("{") or _JSON_DIFFERS.search(text):
        return _NOT_JSON
    try:
        data = json.loads(
            text, object_pairs_hook=_json_object, parse_float=_yaml_number, parse_constant=_yaml_number
        )
    # ValueError: not JSON (JSONDecodeError), or an integer of more digits than Python reads;
    # RecursionError: nested deeper than the C decoder goes.
    except (_Differs, ValueError, RecursionError):
        return _NOT_JSON
    try:
        # The loader counts the scalars inside the deepest containers as a level too.
        check_nesting(data, "", levels=MAX_NESTING - 1)
    except ScenarioError:
        return _NOT_JSON  # the loader decides, and says where
    return data


def _json_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    mapping = dict(pairs)
    if len(mapping) != len(pairs) or (mapping and max(map(len, mapping)) > _LONGEST_KEY):
        raise _Differs
    return mapping


def _yaml_number(literal: str) -> Any:
    """A JSON number with a fraction or an exponent, or NaN/Infinity/-Infinity, as YAML 1.1's
    resolver reads the same plain scalar: a float if it matches YAML's float pattern (which
    wants a dot, and a sign in an exponent), else the string."""
    for tag, pattern in _StrictLoader.yaml_implicit_resolvers.get(literal[0], ()):
        if pattern.match(literal):
            if tag == _FLOAT_TAG:
                return float(literal)  # what the loader's construct_yaml_float makes of it
            raise _Differs  # another type (no JSON number has one): let the loader decide
    return literal


_FLOAT_TAG = "tag:yaml.org,2002:float"


def _where(mark: yaml.Mark | None) -> str:
    return f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""


def _mark_at(text: str, position: int) -> yaml.Mark:
    line = text.count("\n", 0, position)
    column = position - (text.rfind("\n", 0, position) + 1)
    return yaml.Mark("<text>", position, line, column, None, None)


def check_nesting(data: Any, origin: str, *, levels: int = MAX_NESTING) -> None:
    """Raises `ScenarioError(origin, ...)` if containers in `data` nest more than `levels`
    levels. Data that contains itself nests infinitely deep.

    Iterative, and a container shared by several parents (a YAML alias) is walked again only when
    reached deeper than before, so the walk stays linear in practice.
    """
    deepest: dict[int, int] = {}  # id of a container -> the greatest depth it was walked at
    pending = [(data, 1)]
    while pending:
        value, depth = pending.pop()
        children = _children(value)
        if children is None or deepest.get(id(value), 0) >= depth:
            continue
        if depth > levels:
            raise ScenarioError(origin, _TOO_DEEP)
        deepest[id(value)] = depth
        pending.extend((child, depth + 1) for child in children)


def check_expanded_size(data: Any, origin: str) -> None:
    """Raises `ScenarioError(origin, ...)` if `data` holds more than MAX_VALUES values when every
    container shared through a YAML alias is counted each time it is reached. `data` must have
    passed `check_nesting` (data containing itself never ends)."""
    count = 1
    pending = [data]
    while pending:
        children = _children(pending.pop())
        if children is None:
            continue
        count += len(children)
        if count > MAX_VALUES:
            raise ScenarioError(
                origin,
                f"holds more than {MAX_VALUES:,} values once its YAML aliases are expanded, more than "
                f"{MAX_SOURCE_BYTES // 2**20} MiB of text could write",
            )
        pending.extend(child for child in children if isinstance(child, _CONTAINERS))


_CONTAINERS = (Mapping, list, tuple, set, frozenset)


def _children(value: Any) -> Any:
    """The values inside a container, None for anything else."""
    if isinstance(value, Mapping):
        return value.values()
    if isinstance(value, (list, tuple, set, frozenset)):
        return value
    return None


def _require_mapping(data: Any, origin: str) -> dict[str, Any]:
    if not isinstance(data, dict):
        got = "nothing" if data is None else _a(type(data).__name__)
        raise ScenarioError(origin, f"expected a mapping of scenario fields at the top level, got {got}")
    for key in data:
        if not isinstance(key, str):
            raise ScenarioError(origin, f"field names must be strings, got {key!r}")
    return data


def _a(noun: str) -> str:
    """"a list", "an int"."""
    return f"{'an' if noun[:1] in 'aeiou' else 'a'} {noun}"
