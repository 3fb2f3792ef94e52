"""The core's seams stay seams: no system's name in the code outside the system's own modules.

docs/architecture.md: a forwarding scheme lives behind the forwarding seam (`net/forwarding/`), a
layer between TCP and the network behind the shim seam (`transport/shim.rs`), and the network,
the MAC, the world, the packet and the results know only the seams. This reads the core's sources
(code only: comments may cite a paper or point at an example) and fails on a scheme's name
anywhere else than in its own module, the configuration that names it, or the line declaring its
module.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "crates" / "airtcp" / "src"

# Scheme -> (a pattern for its names in code, the places allowed to use them, relative to SRC).
SCHEMES = {
    "backpressure": (
        re.compile(r"backpressure|\bBp[A-Z]\w*|\bbp_\w*|\bbp\b", re.IGNORECASE),
        ("net/backpressure/", "scenario/config.rs", "mac/conflict_graph/"),
    ),
    "NC layer": (
        re.compile(r"nc_layer|\bNc[A-Z]\w*|\bnc\b"),
        # TCP's config names the shim below it (`nc:`); the scenario re-exports the config.
        ("transport/nc_layer/", "transport/tcp/config.rs", "scenario/config.rs"),
    ),
    "Horizon": (
        re.compile(r"horizon|\bHz[A-Z]\w*", re.IGNORECASE),
        ("net/horizon/", "transport/horizon/", "scenario/config.rs"),
    ),
}
# `mac/conflict_graph/` is paper 000's idealised slotted model, whose subject is backpressure
# scheduling on a conflict graph: a model of its own, not a forwarding scheme in the simulator.

MODULE_DECLARATION = re.compile(r"^\s*pub mod \w+;\s*$")


def code_lines(path: Path) -> list[tuple[int, str]]:
    """(line number, code) of a Rust file, comments removed (line comments; the sources use no
    block comments) and string literals kept."""
    lines = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        code = _without_comment(line)
        if code.strip() and not MODULE_DECLARATION.match(code):
            lines.append((number, code))
    return lines


def _without_comment(line: str) -> str:
    """`line` up to a `//` that is not inside a string literal."""
    in_string = False
    escaped = False
    for index, char in enumerate(line):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif line.startswith("//", index):
            return line[:index]
    return line


def test_the_sources_are_there() -> None:
    assert (SRC / "net" / "forwarding").is_dir() and (SRC / "transport" / "shim.rs").is_file()


@pytest.mark.parametrize("scheme", sorted(SCHEMES))
def test_no_scheme_names_outside_their_modules(scheme: str) -> None:
    pattern, allowed = SCHEMES[scheme]
    found = []
    for path in sorted(SRC.rglob("*.rs")):
        relative = path.relative_to(SRC).as_posix()
        if relative.startswith(allowed):
            continue
        found += [f"{relative}:{n}: {code.strip()}" for n, code in code_lines(path) if pattern.search(code)]
    assert not found, f"{scheme} named outside its modules:\n" + "\n".join(found)


def test_comments_are_told_from_code() -> None:
    assert _without_comment('let x = "a // b"; // the NC layer') == 'let x = "a // b"; '
    assert _without_comment("/// Backpressure's report") == ""
    assert _without_comment(r'let s = "\"//"; // x') == r'let s = "\"//"; '


# --- Layering ------------------------------------------------------------------------------------

# The core's top-level modules from the bottom up: a module may use those below it, never one above
# or beside it at its own level. `scenario` composes everything; `world` runs what it builds.
LAYERS = (
    ("error", "quantity"),
    ("sim",),
    ("coding", "queue", "metrics"),
    ("phy", "link"),
    ("mac",),
    ("net",),
    ("transport", "app"),
    ("world",),
    ("scenario",),
)
RANK = {module: rank for rank, modules in enumerate(LAYERS) for module in modules}

# The imports against the layering that the code still has (issue: each layer owns its config
# types, the network raises its own events, packet headers live below the engine). The list only
# shrinks: a new upward import fails, and so does one that is gone but still listed.
KNOWN_UPWARD = {
    ("net", "transport"),
    ("net", "world"),
    ("sim", "net"),
    ("sim", "transport"),
}

CRATE_PATH = re.compile(r"\bcrate::(\w+)")


def upward_imports() -> dict[tuple[str, str], list[str]]:
    """(module, module it uses above or beside it) -> where, outside test code (`tests.rs`
    files, a file's `#[cfg(test)]` module and what follows it)."""
    found: dict[tuple[str, str], list[str]] = {}
    for path in sorted(SRC.rglob("*.rs")):
        relative = path.relative_to(SRC)
        module = relative.parts[0].removesuffix(".rs")
        if module == "lib" or relative.name == "tests.rs" or "tests" in relative.parts[:-1]:
            continue  # test modules (`#[cfg(test)] mod tests;`) may build what they test from anything
        for number, code in code_lines(path):
            if code.strip() == "#[cfg(test)]":
                break
            for target in CRATE_PATH.findall(code):
                if target in RANK and target != module and RANK[target] >= RANK[module]:
                    found.setdefault((module, target), []).append(f"{relative.as_posix()}:{number}")
    return found


def test_every_module_has_a_layer() -> None:
    modules = {p.name.removesuffix(".rs") for p in SRC.iterdir() if p.name != "lib.rs"}
    assert modules == set(RANK), "give each top-level module a place in LAYERS"


def test_no_module_uses_one_above_it_beyond_the_known_ones() -> None:
    found = upward_imports()
    new = {pair: where for pair, where in found.items() if pair not in KNOWN_UPWARD}
    assert not new, "imports against the layering:\n" + "\n".join(f"{a} -> {b}: {', '.join(w[:5])}" for (a, b), w in new.items())
    gone = KNOWN_UPWARD - set(found)
    assert not gone, f"no longer imported, take them out of KNOWN_UPWARD: {sorted(gone)}"
