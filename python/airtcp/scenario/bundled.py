"""The scenario files shipped inside the package, by name: `examples/p2p_lossy` is
`airtcp/data/scenarios/examples/p2p_lossy.yaml`.

They are the examples, the papers' topologies and the scenarios the reproductions read, so an
installed wheel runs everything without a source checkout. They are read with
`importlib.resources`, never through a path of the checkout; in the repository the root
`scenarios` folder is a link to the same files.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from airtcp.errors import ScenarioError
from airtcp.scenario.source import SCENARIO_SUFFIXES, read_source

__all__ = [
    "copy_to",
    "description",
    "file_or_bundled",
    "is_bundled",
    "names",
    "read_data",
    "read_text",
    "unknown",
]

_SUFFIX = ".yaml"
# The place `airtcp scenarios list` is mentioned in errors, so a wrong name leads to the right ones.
_SEE_LIST = "see airtcp scenarios list"
# A description longer than this is cut at a word, so that `airtcp scenarios list` fits a terminal.
_DESCRIPTION_WIDTH = 100
_SENTENCE_END = re.compile(r"[:;](?= )|\.(?= [A-Z])|[.:;]$")


def _folder() -> Any:  # importlib.resources.abc.Traversable (importlib.abc on Python 3.10)
    # Imported here: importlib.resources (with tempfile and random) takes a few milliseconds,
    # which `airtcp run FILE` of an existing file need not spend.
    from importlib.resources import files

    return files("airtcp") / "data" / "scenarios"


def names() -> list[str]:
    """Every bundled scenario's name (`GROUP/STEM`, e.g. `examples/p2p_lossy`), sorted."""
    return sorted(
        f"{group.name}/{entry.name[: -len(_SUFFIX)]}"
        for group in _folder().iterdir()
        if group.is_dir()
        for entry in group.iterdir()
        if entry.name.endswith(_SUFFIX) and entry.is_file()
    )


def is_bundled(name: str) -> bool:
    return name in names()


def read_text(name: str) -> str:
    """The YAML text of the bundled scenario `name`; an unknown name raises `ScenarioError`."""
    if not is_bundled(name):
        raise unknown(name)
    group, stem = name.split("/")
    return (_folder() / group / f"{stem}{_SUFFIX}").read_text(encoding="utf-8")


def read_data(name: str) -> dict[str, Any]:
    """The bundled scenario `name` as the mapping its file holds (a fresh dict, free to modify),
    named after the file if it has no `name`, as a scenario read from the file would be."""
    data = read_source(read_text(name))
    data.setdefault("name", name.split("/")[1])
    return data


def description(name: str) -> str:
    """The first sentence of the comment the file starts with ("" if it has none), up to its first
    empty comment line, shortened to one line of `airtcp scenarios list`. A file starts with a
    one-line title followed by an empty `#` line to say what sets it apart from its siblings."""
    comment: list[str] = []
    for line in read_text(name).splitlines():
        text = line.lstrip("#").strip()
        if not line.startswith("#") or (not text and comment):
            break  # the first paragraph of the leading comment: its title line, if it has one
        if text:
            comment.append(text)
    # A title line stands whole; a longer comment gives its first sentence.
    first = comment[0].rstrip(".:;") if len(comment) == 1 else _first_sentence(" ".join(comment))
    if len(first) <= _DESCRIPTION_WIDTH:
        return first
    return first[: _DESCRIPTION_WIDTH - 3].rsplit(" ", 1)[0].rstrip(",;:") + "..."


def _first_sentence(text: str) -> str:
    """Up to the first colon, semicolon or full stop before a capital letter that is outside
    parentheses: "Fig. 8 (two-hop coding, BFLY): S1 sends ..." ends at "BFLY)", not at "Fig."."""
    depth = 0
    for i, char in enumerate(text):
        if char in "()":
            depth += 1 if char == "(" else -1
        elif depth == 0 and _SENTENCE_END.match(text, i):
            return text[:i]
    return text


def copy_to(name: str, dest: Path, *, force: bool = False) -> Path:
    """Writes the bundled scenario `name` to `dest`, a file or an existing directory (where it
    becomes `STEM.yaml`); returns the file written. An existing file is replaced only with
    `force`; problems raise `ScenarioError` before anything is written."""
    text = read_text(name)
    target = dest / f"{name.split('/')[1]}{_SUFFIX}" if dest.is_dir() else dest
    if target.is_dir():
        raise ScenarioError(str(dest), f"{str(target)!r} is a directory")
    if target.exists() and not force:
        raise ScenarioError(str(dest), f"{str(target)!r} exists (--force replaces it)")
    if not target.parent.is_dir():
        raise ScenarioError(str(dest), f"no such directory: {str(target.parent)!r}")
    try:
        target.write_text(text, encoding="utf-8")
    except OSError as error:
        raise ScenarioError(str(dest), f"cannot write {str(target)!r}: {error.strerror or error}") from None
    return target


def unknown(name: str, problem: str = "unknown bundled scenario") -> ScenarioError:
    """The error for a name that is no bundled scenario, with the closest names and where to
    find them all: `examples/p2p: unknown bundled scenario (did you mean examples/p2p_lossy?);
    see airtcp scenarios list`."""
    import difflib  # here: a millisecond of import that only a mistake needs

    known = names()
    # The same file name in another group ("tree" -> topologies/tree), else a near spelling.
    stem = Path(name).stem
    close = [other for other in known if other.endswith(f"/{stem}")] or difflib.get_close_matches(name, known, n=2, cutoff=0.75)
    guess = f" (did you mean {' or '.join(close)}?)" if close else ""
    return ScenarioError(name, f"{problem}{guess}; {_SEE_LIST}")


def file_or_bundled(file: Path) -> Path | dict[str, Any]:
    """What `airtcp run FILE` reads: FILE if it exists (a file always wins), else the bundled
    scenario of that name (its mapping). A FILE that names neither raises `ScenarioError`: a path
    with a scenario file's ending is reported missing as a file (`no such file`), pointing at the
    bundled scenario of the same name when there is one (`scenarios/examples/p2p_lossy.yaml` from
    a checkout's README, run where there is no checkout); anything else as an unknown name."""
    name = file.as_posix()
    if file.exists():
        return file
    if is_bundled(name):
        return read_data(name)
    if not name.endswith(SCENARIO_SUFFIXES):
        raise unknown(name, "no such file or bundled scenario")
    same = _bundled_name_of_path(name)
    hint = f"; the bundled scenario {same} has this name: give {same} instead of the path" if same else ""
    raise ScenarioError(name, f"no such file{hint}")


def _bundled_name_of_path(path: str) -> str | None:
    """The bundled scenario a path of a checkout's `scenarios/` folder points at, if any:
    `scenarios/examples/p2p_lossy.yaml` -> `examples/p2p_lossy`."""
    parts = Path(path).with_suffix("").parts
    name = "/".join(parts[-2:])
    return name if len(parts) >= 2 and is_bundled(name) else None
