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

# Scheme -> (a pattern for its names in code, the places allowed to use them, relative to SRC). A
# protocol's header is data in the bottom-level `sim/header/` (one file each), which every layer
# may carry, registered as a variant of the packet's `Header` (`sim/packet.rs`); the scenario's
# config (`scenario/config.rs` and its parts in `scenario/config/`) composes every scheme's config.
SCHEMES = {
    "backpressure": (
        re.compile(r"backpressure|\bBp[A-Z]\w*|\bbp_\w*|\bbp\b", re.IGNORECASE),
        ("net/backpressure/", "scenario/config", "mac/conflict_graph/"),
    ),
    "NC layer": (
        re.compile(r"nc_layer|\bNc[A-Z]\w*|\bnc\b"),
        # TCP's config names the shim below it (`nc:`).
        ("transport/nc_layer/", "transport/tcp/config.rs", "scenario/config"),
    ),
    "Horizon": (
        re.compile(r"horizon|\bHz[A-Z]\w*", re.IGNORECASE),
        ("net/horizon/", "transport/horizon/", "scenario/config"),
    ),
    # The coding layer (paper 001) is one forwarding layer with two schemes (COPE, BFLY) and two
    # queues (COPE's FIFO, NCAQM's), in `net/forwarding/cope/`; NCAQM's queue is its own folder and
    # the coding rules are in `coding/`.
    "COPE": (
        re.compile(r"\bcope", re.IGNORECASE),
        ("net/forwarding/cope/", "net/forwarding/ncaqm/", "coding/cope_", "scenario/config"),
    ),
    "BFLY": (
        re.compile(r"\bbfly", re.IGNORECASE),
        ("net/forwarding/cope/", "coding/bfly_", "scenario/config"),
    ),
    "NCAQM": (
        re.compile(r"ncaqm", re.IGNORECASE),
        ("net/forwarding/ncaqm/", "net/forwarding/cope/", "scenario/config"),
    ),
    "priority pairs": (
        re.compile(r"priority_pairs|PriorityPairs|PairBuffers|QueuePairs|\bLowOrder\w*|\bLowPolicy\w*"),
        # A router's config has the field that asks for them (`routers[].priority_pairs`).
        ("net/forwarding/priority_pairs/", "scenario/config", "scenario/routers.rs"),
    ),
    "TCP-RLC": (
        re.compile(r"tcp_rlc|TcpRlc|\bRlc[A-Z]\w*|\brlc(_\w+)?\b"),
        ("transport/tcp_rlc/", "sim/header/rlc.rs", "sim/packet.rs", "scenario/config"),
    ),
    "AODV": (
        re.compile(r"aodv", re.IGNORECASE),
        ("net/aodv", "net/on_demand.rs", "sim/header/aodv.rs", "sim/packet.rs", "scenario/config"),
    ),
}
# `mac/conflict_graph/` is paper 000's idealised slotted model, whose subject is backpressure
# scheduling on a conflict graph: a model of its own, not a forwarding scheme in the simulator.

# The files outside its own that still name a scheme (issue: a scheme is its own files plus one
# registration). The list only shrinks: a new file naming a scheme fails, and so does one that no
# longer does but is still listed.
KNOWN_OUTSIDE: dict[str, set[str]] = {}

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


def scheme_names_outside(scheme: str) -> dict[str, list[str]]:
    """File -> the lines of code outside test code (`tests.rs` files, a file's `#[cfg(test)]`
    module: tests build scenarios with any scheme) that name `scheme` where it is not allowed."""
    pattern, allowed = SCHEMES[scheme]
    found: dict[str, list[str]] = {}
    for path in sorted(SRC.rglob("*.rs")):
        relative = path.relative_to(SRC)
        name = relative.as_posix()
        if name.startswith(allowed) or relative.name == "tests.rs" or "tests" in relative.parts[:-1]:
            continue
        for number, code in code_lines(path):
            if code.strip() == "#[cfg(test)]":
                break
            if pattern.search(code):
                found.setdefault(name, []).append(f"{name}:{number}: {code.strip()}")
    return found


@pytest.mark.parametrize("scheme", sorted(SCHEMES))
def test_no_scheme_names_outside_their_modules(scheme: str) -> None:
    found = scheme_names_outside(scheme)
    known = KNOWN_OUTSIDE.get(scheme, set())
    new = [line for name, lines in found.items() if name not in known for line in lines]
    assert not new, f"{scheme} named outside its modules:\n" + "\n".join(new)
    gone = known - set(found)
    assert not gone, f"{scheme} no longer named there, take them out of KNOWN_OUTSIDE: {sorted(gone)}"


def test_known_outside_names_only_schemes() -> None:
    assert set(KNOWN_OUTSIDE) <= set(SCHEMES)


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


def test_no_module_uses_one_above_it() -> None:
    found = upward_imports()
    assert not found, "imports against the layering:\n" + "\n".join(f"{a} -> {b}: {', '.join(w[:5])}" for (a, b), w in found.items())


# --- Folders -------------------------------------------------------------------------------------

# A use of another module's item: `crate::a::b::c` or `super::super::x`.
CRATE_USE = re.compile(r"\bcrate::((?:\w+::)*\w+)")
SUPER_USE = re.compile(r"(?<![\w:])((?:super::)+)((?:\w+::)*\w+)")


def folder_of(segments: list[str]) -> str | None:
    """The folder (relative to SRC) holding the module a path names: `net::forwarding::cope::Cope`
    -> `net/forwarding/cope` (a folder module), `net::wireless::Wireless` -> `net` (a file module
    is in the folder that holds the file, even when the file has parts in a folder of its own),
    `sim::Time` -> `sim`, `world::Event` -> `world` (a top-level file module is its own)."""
    folder = None
    for depth in range(1, len(segments) + 1):
        module = SRC.joinpath(*segments[:depth])
        if (module / "mod.rs").is_file():
            folder = "/".join(segments[:depth])
        elif module.with_suffix(".rs").is_file():
            folder = "/".join(segments[: depth - 1]) or segments[0]
        else:
            break
    return folder


def folder_uses() -> dict[tuple[str, str], list[str]]:
    """(folder, folder it uses) -> where, outside test code, for folders neither of which holds the
    other (a module and its parts use each other by design: `net` declares `net/forwarding` and the
    seam's context is the network)."""
    found: dict[tuple[str, str], list[str]] = {}
    for path in sorted(SRC.rglob("*.rs")):
        relative = path.relative_to(SRC)
        if relative.name in ("lib.rs", "tests.rs") or "tests" in relative.parts[:-1]:
            continue
        here = "/".join(relative.parts[:-1]) or relative.name.removesuffix(".rs")
        module = [part for part in relative.with_suffix("").parts if part != "mod"]
        for number, code in code_lines(path):
            if code.strip() == "#[cfg(test)]":
                break
            targets = [folder_of(used.split("::")) for used in CRATE_USE.findall(code)]
            for ups, used in SUPER_USE.findall(code):
                targets.append(folder_of(module[: len(module) - ups.count("super::")] + used.split("::")))
            for there in targets:
                if there is None or there == here or there.startswith(here + "/") or here.startswith(there + "/"):
                    continue
                found.setdefault((here, there), []).append(f"{relative.as_posix()}:{number}")
    return found


def circles(edges: set[tuple[str, str]]) -> list[list[str]]:
    """The strongly connected components of more than one folder (Tarjan's algorithm)."""
    graph: dict[str, list[str]] = {}
    for a, b in sorted(edges):
        graph.setdefault(a, []).append(b)
        graph.setdefault(b, [])
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    return found


def test_circles_are_found() -> None:
    assert circles({("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")}) == [["a", "b", "c"]]
    assert circles({("a", "b"), ("b", "c")}) == []
    assert folder_of(["net", "forwarding", "cope", "Cope"]) == "net/forwarding/cope"
    assert folder_of(["net", "wireless", "Wireless"]) == "net"
    assert folder_of(["sim", "Time"]) == "sim"
    assert folder_of(["world", "results", "x"]) == "world"
    assert folder_of(["net", "aodv", "Aodv"]) == "net"


def test_no_circle_between_folders() -> None:
    uses = folder_uses()
    found = circles(set(uses))
    detail = [
        f"{' <-> '.join(c)}: " + "; ".join(f"{a} -> {b} at {uses[(a, b)][0]}" for a in c for b in c if (a, b) in uses)
        for c in found
    ]
    assert not found, "folders that use each other:\n" + "\n".join(detail)
