"""Damage to documents and to their YAML text.

Document mutations pick a place in the data and delete it, give it a value of the wrong type, an
extreme number, a garbled quantity, odd text, an unknown key, data nested too deeply, data that
contains itself, a raw YAML snippet (tags, aliases, an alias bomb), or the value of another place
(shared, so that YAML writes an anchor and an alias). Text mutations then play with the YAML
itself: several documents, no document, a byte-order mark, CRLF, tabs, control characters,
directives, a cut-off end.

Data too deep for PyYAML's recursive writer and data that contains itself are markers (`Deep`,
`SelfContaining`, `RawYaml`), written out as text by `render` and built by `materialize` where a
mapping is handed to the API.
"""

from __future__ import annotations

import copy
import datetime
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import yaml
from hypothesis import strategies as st

Path = tuple[Any, ...]


# --- Markers ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Deep:
    """Data nested `depth` levels: lists (`[[[...]]]`) or mappings (`{a: {a: ...}}`)."""

    depth: int
    lists: bool = True

    def text(self) -> str:
        if self.lists:
            return "[" * self.depth + "1" + "]" * self.depth
        return "{a: " * self.depth + "1" + "}" * self.depth

    def build(self) -> Any:
        value: Any = 1
        for _ in range(self.depth):
            value = [value] if self.lists else {"a": value}
        return value


@dataclass(frozen=True)
class RawYaml:
    """A flow-style YAML snippet written as it is; `ANCHOR` becomes a name unique in the text."""

    text: str

    def build(self) -> Any:
        try:
            return yaml.safe_load(self.text.replace("ANCHOR", "a"))
        except (yaml.YAMLError, ValueError):  # ValueError: an integer longer than Python reads
            return self.text


@dataclass(frozen=True)
class SelfContaining:
    """A list that contains itself: infinitely deep (`&x [*x]` in YAML)."""

    def text(self, anchor: str) -> str:
        return f"&{anchor} [*{anchor}]"

    def build(self) -> Any:
        loop: list[Any] = []
        loop.append(loop)
        return loop


MARKERS = (Deep, RawYaml, SelfContaining)


def rebuilt(data: Any, marker: Callable[[Any], Any]) -> Any:
    """A copy of `data` with each marker replaced by `marker(it)`; shared containers stay shared."""
    memo: dict[int, Any] = {}

    def build(value: Any) -> Any:
        if isinstance(value, MARKERS):
            return marker(value)
        if id(value) in memo:
            return memo[id(value)]
        if isinstance(value, dict):
            copied: dict[Any, Any] = {}
            memo[id(value)] = copied
            for key, item in value.items():
                copied[key] = build(item)
            return copied
        if isinstance(value, list):
            items: list[Any] = []
            memo[id(value)] = items
            items.extend(build(item) for item in value)
            return items
        return value

    return build(data)


def materialize(data: Any) -> Any:
    """`data` with its markers replaced by the data they stand for."""
    return rebuilt(data, lambda marker: marker.build())


# --- Places in a document --------------------------------------------------------------------


def places(doc: Any) -> list[Path]:
    """Every path to a value in `doc`, the root `()` first; each shared container once."""
    found: list[Path] = []
    seen: set[int] = set()
    pending: list[tuple[Path, Any]] = [((), doc)]
    while pending:
        path, value = pending.pop()
        found.append(path)
        if isinstance(value, (dict, list)):
            if id(value) in seen:
                continue
            seen.add(id(value))
            items = value.items() if isinstance(value, dict) else enumerate(value)
            pending.extend(((*path, key), item) for key, item in items)
    return sorted(found, key=len)


def value_at(doc: Any, path: Path) -> Any:
    for part in path:
        doc = doc[part]
    return doc


def replace_at(doc: Any, path: Path, value: Any) -> Any:
    """Puts `value` at `path`; returns the new root (changed when `path` is the root)."""
    if not path:
        return value
    value_at(doc, path[:-1])[path[-1]] = value
    return doc


def delete_at(doc: Any, path: Path) -> Any:
    if path:
        del value_at(doc, path[:-1])[path[-1]]
    return doc


# --- Odd values ------------------------------------------------------------------------------

EXTREME_NUMBERS: list[Any] = [
    0, -1, 1, -0.0, 0.5, 0.1, 2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**53 + 1, 2**63 - 1, 2**63, 2**64 - 1,
    2**64, -(2**63) - 1, 10**30, 10**4000, 1e308, -1e308, 1e-308, 5e-324, 1e16,
    float("nan"), float("inf"), float("-inf"),
]

GARBLED_QUANTITIES = [
    # durations
    "1ns", "0s", "-1s", "-0s", "1e9s", "1e-9s", "0.5ns", "1.5ns", "18446744073709551615ns",
    "18446744073709551616ns", "99999999999999999999s", "1e400s", "1e40s", "1 s", " 1s ", "1S", "1sec", "1 ms",
    "\u0661s", "1_000ms", "0x10s", "\u221es", "nan s", "inf s", ".5s", "5.s", "+1s", "1e+2s", "ms", "s",
    "1e-400s", "0.0000000001s", "584y",
    # rates, sizes, distances, powers, ratios
    "2 Mbs", "2mbps", "0bps", "1e12Gbps", "-1Mbps", "2Mbit/s", "2 MBps", "1e30bps", "5.5Mbps", "3Mbps",
    "0B", "1.5B", "1e20B", "16EiB", "1 kB", "1KIB", "18446744073709551616B",
    "5 parsecs", "-1m", "1e400m", "0m", "1e-400m", "2 km", "1mi",
    "0W", "-1mW", "1dB", "10dBm", "1e400dBm", "-1e400dBm", "0 dBm", "dBm",
    "150%", "-1%", "1e-400%", "%", "nan%",
]

STRANGE_TEXTS = [
    "", " ", "\t", "\x00", "\udc80", "\ud800", "\ud83d\ude00", "a\nb", "\r", "\u202e", "\U0001f600",
    "\u00df", "\u0130", "\ufeff", "\ufffe", "\x85", "\u2028", "\x1b[31m", "null", "~", "-", "?", ":", "#",
    "&a", "*a", "!!str", "%", "@", "`", "yes", "no", "on", "off", "0x1F", "1:30", "2024-01-01",
    "x" * 100_000, "n" + "9" * 50, "n0 ", " n0", "N0", "n00", "n-1", "../../etc/passwd", "{a: 1}",
]

WRONG_TYPES: list[Any] = [
    None, True, False, [], {}, [1, 2], {"kind": "bogus"}, {"kind": None}, "text", 12, -3, 1.5,
    b"\x00\xff binary", {1, 2}, datetime.date(2024, 1, 1), datetime.datetime(2024, 1, 1, 12, 30),
    [[]], [{}], {"": ""},
]

ODD_KEYS: list[Any] = [
    "lossy", "flow", "Duration", "kind", "", " ", "duration ", "\udc80", "\U0001f600", "a.b", "links[0]",
    "__class__", "<<", 1, None, True, 1.5, "x" * 10_000,
]

# Flow-style YAML that only text can hold: tags, aliases, merge keys, complex keys, escapes.
RAW_SNIPPETS = [
    "!!binary AAEC", "!!timestamp 2024-01-01", "!!set {a, b}", "!!omap [{a: 1}]", "!!pairs [{a: 1}]",
    "!!python/object/apply:os.system [echo]", "!!python/name:os.system", "!foo bar", "!<tag:x,2000:y> 1",
    "!!int 0x1F", "!!int 0o17", "!!float .nan", "!!float .inf", "!!float -.inf", "!!str 5", "!!null ''",
    "!!bool yes", "!!int '99999999999999999999999999'", "!!float 1e999", "*undefined", "&ANCHOR 1",
    "{<<: {kind: bulk}}", "{<<: [*undefined]}", "{? [1, 2] : x}", "{? {a: 1} : x}", "2024-01-01",
    "2001-12-14t21:59:43.10-05:00", "12:30:00", "0x10", "0o10", "0b1010", "1_000", "1:30", "+.inf",
    ".NaN", "-.inf", '"\\udc80"', '"\\ud800\\udc00"', '"\\x00"', '"\\U0010FFFF"', '"\\uFFFE"', '"\\N"',
    '"\\e"', "'it''s'", "[1, 2", "{a: 1", "[a, *ANCHOR]", "&ANCHOR [*ANCHOR]",
    # Numbers longer than Python turns into integers from text (4300 digits), or floats at all.
    "1" + "0" * 5000, "-" + "9" * 5000, "0x" + "f" * 5000, "1" + "0" * 5000 + ".5", "1e" + "9" * 50,
    # An alias bomb: nine levels of ten aliases each, a billion leaves if expanded.
    "[&ANCHOR0 [x, x, x, x, x, x, x, x, x, x], "
    + ", ".join(f"&ANCHOR{k} [{', '.join([f'*ANCHOR{k - 1}'] * 10)}]" for k in range(1, 9))
    + "]",
]


def odd_texts() -> st.SearchStrategy[str]:
    """Text with anything in it: surrogates, control characters, right-to-left marks."""
    return st.one_of(st.sampled_from(STRANGE_TEXTS), st.text(st.characters(exclude_categories=()), max_size=12))


def odd_values() -> st.SearchStrategy[Any]:
    return st.one_of(
        st.sampled_from(WRONG_TYPES),
        st.sampled_from(EXTREME_NUMBERS),
        st.sampled_from(GARBLED_QUANTITIES),
        odd_texts(),
    )


# --- Mutations -------------------------------------------------------------------------------

Mutation = Callable[[st.DrawFn, Any, Path], Any]  # (draw, doc, path) -> the new root


def _delete(draw: st.DrawFn, doc: Any, path: Path) -> Any:
    return delete_at(doc, path) if path else draw(st.sampled_from([None, {}, [], ""]))


def _wrong_type(draw: st.DrawFn, doc: Any, path: Path) -> Any:
    return replace_at(doc, path, copy.deepcopy(draw(st.sampled_from(WRONG_TYPES))))


def _extreme_number(draw: st.DrawFn, doc: Any, path: Path) -> Any:
    return replace_at(doc, path, draw(st.sampled_from(EXTREME_NUMBERS)))


def _garbled_quantity(draw: st.DrawFn, doc: Any, path: Path) -> Any:
    return replace_at(doc, path, draw(st.sampled_from(GARBLED_QUANTITIES)))


def _odd_text(draw: st.DrawFn, doc: Any, path: Path) -> Any:
    return replace_at(doc, path, draw(odd_texts()))


def _unknown_key(draw: st.DrawFn, doc: Any, path: Path) -> Any:
    target = value_at(doc, path)
    if isinstance(target, dict):
        target[draw(st.sampled_from(ODD_KEYS))] = draw(odd_values())
        return doc
    return replace_at(doc, path, {draw(st.sampled_from(ODD_KEYS)): target})


def _too_deep(draw: st.DrawFn, doc: Any, path: Path) -> Any:
    depth = draw(st.sampled_from([10, 62, 63, 64, 65, 66, 200, 5000]))
    return replace_at(doc, path, Deep(depth, lists=draw(st.booleans())))


def _self_containing(draw: st.DrawFn, doc: Any, path: Path) -> Any:
    return replace_at(doc, path, SelfContaining())


def _raw_yaml(draw: st.DrawFn, doc: Any, path: Path) -> Any:
    return replace_at(doc, path, RawYaml(draw(st.sampled_from(RAW_SNIPPETS))))


def _shared(draw: st.DrawFn, doc: Any, path: Path) -> Any:
    """The value of another place, the same object: YAML writes it as an anchor and an alias."""
    donor = draw(st.sampled_from(places(doc)))
    if donor[: len(path)] == path or path[: len(donor)] == donor:  # one inside the other: a loop
        return doc
    return replace_at(doc, path, value_at(doc, donor))


def _copied(draw: st.DrawFn, doc: Any, path: Path) -> Any:
    """A realistic value from the wrong place (a rate where a duration goes, a flow as a link)."""
    donor = value_at(doc, draw(st.sampled_from(places(doc))))
    return replace_at(doc, path, copy.deepcopy(donor))


def _list_abuse(draw: st.DrawFn, doc: Any, path: Path) -> Any:
    target = value_at(doc, path)
    if not isinstance(target, list) or not target:
        return replace_at(doc, path, [target])
    how = draw(st.sampled_from(["empty", "repeat", "many", "reverse"]))
    if how == "empty":
        target.clear()
    elif how == "repeat":
        target.append(copy.deepcopy(target[0]))
    elif how == "many":  # the same object many times: aliases, and as many checks
        target.extend([target[0]] * draw(st.sampled_from([10, 1000])))
    else:
        target.reverse()
    return doc


# Extremes that stay well-formed, by quantity: these pass validation and reach the core.
EXTREMES_OF: dict[str, list[Any]] = {
    "duration": ["0s", "1ns", "1us", "999999s", "18446744073709551615ns"],
    "rate": ["1bps", "1kbps", "1000Gbps", "18446744073709551615bps"],
    "size": ["0B", "1B", "4GiB", "18446744073709551615B"],
    "distance": ["0m", "1e-9m", "1e9m", "1e300m", "-1e300m"],
    "frequency": ["1Hz", "1e-9Hz", "1e300Hz"],
    "power": ["-1000dBm", "1000dBm", "1e-300mW"],
    "ratio": ["-1000dB", "0dB", "1000dB"],
}
EXTREME_COUNTS = [0, 1, 2, 2**16, 2**31 - 1, 2**32 - 1, 2**32, 2**63, 2**64 - 1]
EXTREME_REALS = [0.0, 1.0, 1e-300, 5e-324, 1e300, 0.999999999]


def quantity_of(value: str) -> str | None:
    """Which quantity a text value is written as (`20ms` a duration), None if none."""
    from airtcp.scenario import units

    parsers = [("duration", units.parse_duration), ("rate", units.parse_rate), ("distance", units.parse_distance),
               ("frequency", units.parse_frequency), ("power", units.parse_power), ("ratio", units.parse_ratio),
               ("size", units.parse_size)]
    for name, parse in parsers:
        try:
            parse(value)
        except Exception:  # noqa: BLE001 - not this quantity
            continue
        return name
    return None


def _extreme_of_its_kind(draw: st.DrawFn, doc: Any, path: Path) -> Any:
    """The value at `path` replaced by an extreme of the same quantity (a duration by 1 ns or
    584 years, a count by 2^32), so that validation lets it through to the core."""
    value = value_at(doc, path)
    if isinstance(value, bool):
        return replace_at(doc, path, not value)
    if isinstance(value, int):
        return replace_at(doc, path, draw(st.sampled_from(EXTREME_COUNTS)))
    if isinstance(value, float):
        return replace_at(doc, path, draw(st.sampled_from(EXTREME_REALS)))
    quantity = quantity_of(value) if isinstance(value, str) else None
    if quantity is None:
        return doc
    return replace_at(doc, path, draw(st.sampled_from(EXTREMES_OF[quantity])))


@st.composite
def stretched(draw: st.DrawFn, doc: Any, most: int = 3) -> Any:
    """`doc` (left untouched) with one to `most` of its numbers and quantities at an extreme."""
    doc = copy.deepcopy(doc)
    leaves = [path for path in places(doc) if path and not isinstance(value_at(doc, path), (dict, list))]
    for path in draw(st.lists(st.sampled_from(leaves), min_size=1, max_size=most)) if leaves else []:
        doc = _extreme_of_its_kind(draw, doc, path)
    return doc


MUTATIONS: list[Mutation] = [_extreme_of_its_kind, 
    _delete, _delete, _wrong_type, _wrong_type, _extreme_number, _extreme_number, _garbled_quantity,
    _garbled_quantity, _odd_text, _unknown_key, _too_deep, _self_containing, _raw_yaml, _raw_yaml, _shared,
    _copied, _list_abuse,
]


@st.composite
def mutated(draw: st.DrawFn, doc: Any, most: int = 3) -> Any:
    """`doc` (left untouched) with one to `most` mutations."""
    doc = copy.deepcopy(doc)
    for _ in range(draw(st.integers(1, most))):
        candidates = places(doc)
        # Mostly the leaves and small mappings, where a typo happens; the root now and then.
        path = draw(st.sampled_from(candidates[1:] if len(candidates) > 1 and draw(st.integers(1, 30)) > 1 else candidates))
        doc = draw(st.sampled_from(MUTATIONS))(draw, doc, path)
    return doc


# --- YAML text -------------------------------------------------------------------------------


def _with_placeholders(doc: Any) -> tuple[Any, dict[str, str]]:
    """A copy of `doc` whose markers are placeholder words, and the text each one stands for."""
    texts: dict[str, str] = {}

    def placeholder(marker: Any) -> str:
        word = f"fuzzmark{len(texts)}x"
        if isinstance(marker, Deep):
            texts[word] = marker.text()
        elif isinstance(marker, SelfContaining):
            texts[word] = marker.text(f"loop{len(texts)}")
        else:
            texts[word] = marker.text.replace("ANCHOR", f"fz{len(texts)}_")
        return word

    return rebuilt(doc, placeholder), texts


def render(doc: Any, flow: bool | None = None, width: int = 80, unicode: bool = False, canonical: bool = False) -> str:
    """`doc` as YAML text, markers written out."""
    plain, texts = _with_placeholders(doc)
    text = yaml.safe_dump(plain, default_flow_style=flow, width=width, allow_unicode=unicode, sort_keys=False, canonical=canonical)
    for word, snippet in texts.items():
        # A placeholder is written plain, or in canonical form as a quoted string with a tag.
        text = re.sub(rf'(!!str\s+)?"?\b{word}\b"?', lambda _: snippet, text)
    return text


TEXT_TRANSFORMS: dict[str, Callable[[str, int], str]] = {
    "byte-order mark": lambda text, _: "\ufeff" + text,
    "two documents": lambda text, _: f"---\n{text}\n---\n{text}",
    "document end then junk": lambda text, _: f"{text}\n...\n]]] junk",
    "CRLF": lambda text, _: text.replace("\n", "\r\n"),
    "tabs": lambda text, _: re.sub(r"^( +)", lambda m: "\t" * len(m[1]), text, flags=re.M),
    "cut off": lambda text, at: text[: at % (len(text) + 1)],
    "YAML 1.1 directive": lambda text, _: "%YAML 1.1\n---\n" + text,
    "YAML 2.0 directive": lambda text, _: "%YAML 2.0\n---\n" + text,
    "TAG directive": lambda text, _: "%TAG ! tag:example.com,2000:\n---\n" + text,
    "duplicated line": lambda text, at: _duplicate_line(text, at),
}
CONTROL_CHARACTERS = ["\x00", "\x07", "\x1b", "\x7f", "\x85", "\u2028", "\ud800", "\udfff", "\ufffe", "\uffff", "\U0010ffff"]
WHOLE_TEXTS = ["", " ", "\n", "---", "--- \n...", "...", "# only a comment\n", "~", "null", "[]", "{}", "42",
               "'text'", "- a\n- b", "\t", "\x00", "\ufeff", "&a [*a]", "a: &a [*a]", "duration: 1s\n---\n"]


def _duplicate_line(text: str, at: int) -> str:
    lines = text.split("\n")
    i = at % len(lines)
    return "\n".join(lines[: i + 1] + lines[i:])


@st.composite
def yaml_texts(draw: st.DrawFn, doc: Any) -> str:
    """`doc` written as YAML in one of several styles, its text sometimes damaged."""
    if draw(st.integers(1, 40)) == 1:
        return draw(st.sampled_from(WHOLE_TEXTS))
    style = draw(st.sampled_from(["block", "block", "flow", "mixed", "json", "canonical", "narrow"]))
    text = None
    if style == "json":
        try:
            text = json.dumps(doc, ensure_ascii=draw(st.booleans()))
        except (TypeError, ValueError):  # markers, bytes, sets, dates, non-text keys
            text = None
    if text is None:
        text = render(
            doc,
            flow={"flow": True, "mixed": None}.get(style, False),
            width=1 if style == "narrow" else 80,
            unicode=draw(st.booleans()),
            canonical=style == "canonical",
        )
    if draw(st.integers(1, 4)) == 1:
        if draw(st.booleans()):
            at = draw(st.integers(0, len(text)))
            text = text[:at] + draw(st.sampled_from(CONTROL_CHARACTERS)) + text[at:]
        else:
            name = draw(st.sampled_from(sorted(TEXT_TRANSFORMS)))
            text = TEXT_TRANSFORMS[name](text, draw(st.integers(0, 10**6)))
    return text

