"""What a fuzzed input got, by class, and the long runs' report.

The acceptable answers: `ok` (ran to the end with its packets accounted for, or a sweep that
finished), `refused` (bad input named by its field path), `slow` (simulated time advancing when
the wall-clock budget ran out: stopped and counted, not a failure). Everything else is a bug:
`hang` (no simulated progress for the budget, or a stop request ignored), `panic`, `abort` (the
process died), `traceback` (a Python exception other than the refusal), `conservation` (packets
that do not add up), `core_error` (a core error not in the `path: message` form), `error_form`
(a refusal without a path or message, over several lines, or output that is not `error: ...`),
`disagreement` (validation accepting what a run refuses, or the other way round), `output_left`
(a refused input that left output behind).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ACCEPTABLE = ("ok", "refused", "slow")
FAILURES = ("hang", "panic", "abort", "traceback", "conservation", "core_error", "error_form", "disagreement", "output_left")

# Reproducers kept per class in the report; more add nothing but size.
EXAMPLES_PER_CLASS = 20
LONGEST_REPRODUCER = 20_000
# The slowest cases are listed with the start of their input: what a short run spends its time on.
SLOWEST_KEPT = 10
# A refusal's path can be an input's 100,000-character field name.
LONGEST_PREFIX = 40


@dataclass(frozen=True)
class Outcome:
    kind: str
    detail: str = ""
    path: str = ""  # the refused field's path
    # The check could not clean up after itself (a simulation thread that would not stop): the
    # process running it must go.
    process_spoiled: bool = False

    def __post_init__(self) -> None:
        assert self.kind in ACCEPTABLE + FAILURES, self.kind

    @property
    def acceptable(self) -> bool:
        return self.kind in ACCEPTABLE

    def __str__(self) -> str:
        where = f" at {self.path}" if self.path else ""
        return f"{self.kind}{where}: {self.detail}"


# Refusals a run may make although validation accepted the scenario: memory outgrown while running.
RUNTIME_REFUSALS = ("limits.memory",)


def agreement(checked: Outcome, ran: Outcome, checker: str) -> Outcome:
    """The run's outcome, unless it contradicts what validation (`checker`) said: a run must
    refuse exactly what validation refuses, and nothing else before it starts."""
    if not ran.acceptable:
        return ran
    if checked.kind == "refused":
        if ran.kind == "refused" and ran.detail == checked.detail:
            return ran
        return Outcome("disagreement", f"{checker} refused ({checked.detail}) but the run gave {ran}")
    if ran.kind == "refused" and not ran.path.startswith(RUNTIME_REFUSALS):
        return Outcome("disagreement", f"{checker} accepted but the run refused: {ran.detail}")
    return ran


def path_prefix(path: str) -> str:
    """What a refusal is counted under: the top-level field (`flows`, `radio`), `sweep.<field>`
    for a sweep spec, `<file>` and `<scenario>` for the input as a whole."""
    head = re.match(r"[^.\[]*", path)[0]  # type: ignore[index]
    if head == "sweep":
        rest = re.match(r"sweep\.([^.\[]*)", path)
        return f"sweep.{rest[1]}" if rest else "sweep"
    return (head or path)[:LONGEST_PREFIX]


@dataclass
class Tally:
    """Counts of outcomes per entry point (api, cli, sweep), and the failures' reproducers."""

    counts: dict[str, Counter[str]] = field(default_factory=dict)
    refused_under: dict[str, Counter[str]] = field(default_factory=dict)
    examples: list[dict[str, Any]] = field(default_factory=list)
    slowest: list[dict[str, Any]] = field(default_factory=list)

    def record(self, entry: str, outcome: Outcome, reproducer: str, wall_s: float) -> None:
        self.counts.setdefault(entry, Counter())[outcome.kind] += 1
        self.slowest.append({"entry": entry, "wall_s": round(wall_s, 2), "class": outcome.kind, "input": reproducer[:300]})
        self.slowest = sorted(self.slowest, key=lambda case: -case["wall_s"])[:SLOWEST_KEPT]
        if outcome.kind == "refused":
            self.refused_under.setdefault(entry, Counter())[path_prefix(outcome.path)] += 1
        elif outcome.kind != "ok":
            kept = sum(1 for e in self.examples if e["entry"] == entry and e["class"] == outcome.kind)
            if kept < EXAMPLES_PER_CLASS:
                self.examples.append({"entry": entry, "class": outcome.kind, "detail": outcome.detail[:2000],
                                      "input": reproducer[:LONGEST_REPRODUCER]})

    def failures(self, entry: str) -> list[dict[str, Any]]:
        """The failures kept with their input (at most `EXAMPLES_PER_CLASS` of each class)."""
        return [e for e in self.examples if e["entry"] == entry and e["class"] in FAILURES]

    def failure_count(self, entry: str) -> int:
        counts = self.counts.get(entry, Counter())
        return sum(counts[kind] for kind in FAILURES)

    def report(self) -> dict[str, Any]:
        total: Counter[str] = Counter()
        for counts in self.counts.values():
            total.update(counts)
        return {
            "cases": sum(total.values()),
            "outcomes": dict(total.most_common()),
            "by_entry": {
                entry: {"cases": sum(counts.values()), "outcomes": dict(counts.most_common()),
                        "refused_by_path": dict(self.refused_under.get(entry, Counter()).most_common())}
                for entry, counts in self.counts.items()
            },
            "examples": self.examples,
            "slowest": self.slowest,
        }

    def summary_lines(self) -> list[str]:
        report = self.report()
        lines = [f"fuzz: {report['cases']} cases: " + ", ".join(f"{k} {v}" for k, v in report["outcomes"].items())]
        for entry, part in report["by_entry"].items():
            outcomes = ", ".join(f"{k} {v}" for k, v in part["outcomes"].items())
            lines.append(f"  {entry}: {part['cases']} cases: {outcomes}")
            if part["refused_by_path"]:
                lines.append("    refused under: " + ", ".join(f"{k} {v}" for k, v in part["refused_by_path"].items()))
        return lines

    def write(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        # ASCII: reproducers may hold lone surrogates, which UTF-8 cannot encode.
        path.write_text(json.dumps(self.report(), indent=1, default=str) + "\n", encoding="ascii")
