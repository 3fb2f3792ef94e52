"""The exceptions airtcp raises for bad input and for failed runs."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["ScenarioError", "SimulationError", "format_path", "one_line"]


def one_line(text: str) -> str:
    """`text` with its unprintable characters escaped (a newline as `\\n`, an escape as
    `\\x1b`): a message that quotes user input (a field name, a node name) stays one line, as
    `error: <path>: <message>` must."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text)


class ScenarioError(Exception):
    """Bad input: a scenario field, a file, an override or an output location.

    `path` names the offending field the way a scenario file spells it (`links[0].loss.per`,
    `flows[0].transport.cc`), or the file / command-line option at fault. `str(error)` is
    `"<path>: <message>"`. When several problems were found, `errors` lists all of them as
    `(path, message)` pairs; the first one is also `path` / `message`.
    """

    def __init__(self, path: str, message: str, more: Sequence[tuple[str, str]] = ()):
        self.path = path
        self.message = message
        self.errors: list[tuple[str, str]] = [(path, message), *more]
        super().__init__(path, message)

    def __str__(self) -> str:
        return one_line(f"{self.path}: {self.message}")

    @classmethod
    def from_list(cls, errors: Sequence[tuple[str, str]]) -> ScenarioError:
        """One exception carrying several problems (at least one)."""
        (path, message), *more = errors
        return cls(path, message, more)

    def lines(self) -> list[str]:
        """Every problem as a `"<path>: <message>"` line."""
        return [one_line(f"{path}: {message}") for path, message in self.errors]


class SimulationError(RuntimeError):
    """The simulator core failed on a scenario that passed validation (a bug, not bad input)."""


def format_path(parts: Sequence[str | int]) -> str:
    """("links", 0, "loss", "per") -> "links[0].loss.per". A field name the user wrote is shown
    one line long (`one_line`), and quoted when it is empty or starts or ends with white space,
    so that the path is the text `str(error)` shows and is never blank."""
    text = ""
    for part in parts:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            name = one_line(str(part))
            if not name.strip() or name != name.strip():
                name = repr(name)
            text += f".{name}" if text else name
    return text or "<scenario>"
