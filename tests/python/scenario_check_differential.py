"""Compares this checkout's scenario check with another revision's, case by case.

The scenario check moved from pydantic to `airtcp.scenario.model` (revision 81c8140 is the last
with pydantic). This script runs both on the same inputs and reports every difference in the
outcome: the normalised JSON (`to_core_json`), the user form (`to_user_dict`) and whether it
reads back, or the error lines. Inputs: scenarios drawn by the fuzzer (`fuzzing.cases`), every
place of a few rich scenarios given odd values, odd keys or deleted, and every scenario file of
the reference checkout. Differences of the known kinds (all about lone surrogates, see
`test_scenario_model.py`) are counted apart; any other fails the run.

    git worktree add --detach /tmp/airtcp-ref 81c8140
    cp python/airtcp/_core*.so /tmp/airtcp-ref/python/airtcp/
    python tests/python/scenario_check_differential.py /tmp/airtcp-ref --examples 3000

Not a test module (pytest does not collect it): it needs the reference checkout, and takes
minutes. Run from the repository root with PYTHONPATH=python:tests/python.
"""

from __future__ import annotations

import argparse
import collections
import copy
import json
import os
import pickle
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


# --- Inputs ------------------------------------------------------------------------------------


def fuzz_cases(examples: int, seed: int) -> list[dict[str, Any]]:
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hypothesis_seed

    from fuzzing.abuse import materialize
    from fuzzing.cases import api_cases, scenario_files

    cases: list[dict[str, Any]] = []
    options = dict(database=None, deadline=None, suppress_health_check=list(HealthCheck), phases=[Phase.generate])

    @hypothesis_seed(seed)
    @settings(max_examples=examples, **options)  # type: ignore[arg-type]
    @given(api_cases())
    def api(case: Any) -> None:
        source = case.source if isinstance(case.source, str) else materialize(case.source)
        cases.append({"source": source, "seed": case.seed, "overrides": case.overrides})

    @hypothesis_seed(seed + 1)
    @settings(max_examples=max(1, examples // 8), **options)  # type: ignore[arg-type]
    @given(scenario_files())
    def files(content: bytes) -> None:
        if len(content) <= 2**20:  # the size limit is checked before the schema sees anything
            cases.append({"file": "fuzz.yaml", "content": content, "seed": None, "overrides": None})

    api()
    files()
    return cases


ODD_VALUES: list[Any] = [
    None, True, False, 0, 1, -1, 2, 1.0, 0.0, -0.0, 1.5, 2.0, 2**64, 2**70, 10**400, float("nan"), float("inf"),
    "", " ", "x", "1", "0", "yes", "no", "on", "TRUE", " true", "1.5", "1_0", "inf", "\udc80", "a\udcff", "n0",
    "cwnd", b"x", b"yes", b"1", bytearray(b"1"), [], [1], ["x"], [None], (1, 2), {1, 2}, frozenset(), {}, {"a": 1},
    {"kind": "x"}, {"kind": None}, "10s", "2Mbps", "250m", "15dBm", "10dB", "1%", "droptail", "bernoulli",
    "forward", "tcp", "udp", "bulk", "static", "range",
]
ODD_KEYS: list[Any] = [5, None, (1, 2), 1.5, True, "\udc80", "zz", "kind", "from_", b"k"]

RICH = {
    "duration": "10s",
    "topology": {"kind": "chain", "hops": 2, "spacing": "200m"},
    "radio": {"standard": "802.11b", "data_rate": "2Mbps", "basic_rate": "1Mbps", "rts_cts": False,
              "propagation": {"kind": "log_distance", "exponent": 3, "reference_distance": "1m", "reference_loss": "46dB"},
              "fading": {"kind": "block", "coherence": "10ms"}, "node_channels": {"n0": [1, 6], "n1": [1]}},
    "routing": {"kind": "backpressure", "differential": "tcp_aware", "k": 5.5, "next_hops": "any"},
    "link_errors": [{"from": "n0", "to": "n1", "error": {"kind": "bimodal", "low": 0.1, "high": 0.9,
                                                          "hold_min": "1ms", "hold_max": "2ms"}}],
    "failures": [{"node": "n2", "at": "5s"}],
    "flows": [{"id": "f", "src": "n0", "dst": "n2", "stop": "9s", "app": {"kind": "bulk", "bytes": "1MB"},
               "transport": {"kind": "tcp", "cc": "cubic", "cubic": {"c": 0.4, "beta": 0.7}, "nc": {"block": 8}}},
              {"id": "g", "src": "n2", "dst": "n0", "transport": {"kind": "udp"},
               "app": {"kind": "utility", "packet_size": 1000, "r_max": "1Mbps", "m": 2,
                       "utility": {"kind": "alpha_fair", "alpha": 2}}}],
    "metrics": {"bin": "1s", "trace_rtt": True},
    "limits": {"memory": "1GiB"},
}


def odd_cases(reference: Path) -> list[dict[str, Any]]:
    """Every place of some scenarios given each odd value, deleted, or given odd keys."""
    import yaml

    from fuzzing.abuse import places, value_at

    documents = [RICH, {**RICH, "routing": {"kind": "aodv", "local_repair": False}}]
    for name in ("p2p_lossy", "dumbbell", "cell_downlink"):
        path = reference / "scenarios" / "examples" / f"{name}.yaml"
        if path.is_file():
            documents.append(yaml.safe_load(path.read_text(encoding="utf-8")))
    cases = []
    for document in documents:
        for path in places(document)[1:]:
            variants = []
            for value in ODD_VALUES:
                changed = copy.deepcopy(document)
                value_at(changed, path[:-1])[path[-1]] = copy.deepcopy(value)
                variants.append(changed)
            if isinstance(value_at(document, path[:-1]), dict):
                changed = copy.deepcopy(document)
                del value_at(changed, path[:-1])[path[-1]]
                variants.append(changed)
            if isinstance(value_at(document, path), dict):
                for key in ODD_KEYS:
                    changed = copy.deepcopy(document)
                    value_at(changed, path)[key] = 1
                    variants.append(changed)
            cases.extend({"source": variant, "seed": None, "overrides": None} for variant in variants)
    return cases


def file_cases(reference: Path) -> list[dict[str, Any]]:
    folder = reference / "python" / "airtcp" / "data" / "scenarios"
    return [
        {"file": path.name, "content": path.read_bytes(), "seed": None, "overrides": None}
        for path in sorted(folder.rglob("*.yaml"))
    ]


# --- Outcomes ----------------------------------------------------------------------------------


def outcomes(cases: list[dict[str, Any]], scratch: Path) -> list[tuple[Any, ...]]:
    """What this interpreter's airtcp answers for each case (run in either checkout)."""
    from airtcp.errors import ScenarioError
    from airtcp.scenario.schema import load_scenario, to_core_json, to_user_dict

    answers: list[tuple[Any, ...]] = []
    for i, case in enumerate(cases):
        source = case.get("source")
        if "file" in case:
            folder = scratch / str(i)
            folder.mkdir(parents=True, exist_ok=True)
            source = folder / case["file"]
            source.write_bytes(case["content"])
        try:
            overrides = () if case["overrides"] is None else case["overrides"]
            scenario = load_scenario(source, seed=case["seed"], overrides=overrides)
            core, user = to_core_json(scenario), to_user_dict(scenario)
            again = to_core_json(load_scenario(user)) == core
            answers.append(("ok", core, json.dumps(user), again))
        except ScenarioError as error:
            answers.append(("error", tuple(error.lines())))
        except Exception as error:  # noqa: BLE001 - compared, not judged, here
            answers.append(("exception", type(error).__name__, str(error)[:300]))
    return answers


def known_difference(ours: tuple[Any, ...], theirs: tuple[Any, ...]) -> str | None:
    """The kind of a deliberate difference (see test_scenario_model.py), or None."""
    if ours[0] != "error" or theirs[0] != "error":
        return None
    only_ours = [line for line in ours[1] if line not in theirs[1]]
    only_theirs = [line for line in theirs[1] if line not in ours[1]]
    pairs = list(zip(only_theirs, only_ours))
    if not only_theirs and any("a field name must be Unicode text" in line for line in theirs[1]):
        return "a field name that is not Unicode: the model's other problems are reported too"
    if len(only_ours) != len(only_theirs):
        return None
    if all("unknown kind" in old and "\ufffd" in old and "unknown kind" in new for old, new in pairs):
        return "a kind that is not Unicode: shown escaped, not with U+FFFD"
    if all("a field name must be Unicode text" in old and re.search(r": (must be|input should be) ", new) for old, new in pairs):
        return "a value that is not Unicode: the field's own message, not one about field names"
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("reference", type=Path, help="checkout of the revision to compare with")
    parser.add_argument("--examples", type=int, default=2000, help="fuzzer cases (default 2000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--shown", type=int, default=10, help="differences printed in full")
    parser.add_argument("--answer", nargs=3, metavar=("CASES", "OUT", "SCRATCH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.answer:  # the worker: this interpreter's answers for a file of cases
        cases_file, out, scratch = args.answer
        with open(cases_file, "rb") as file:
            cases = pickle.load(file)
        with open(out, "wb") as file:
            pickle.dump(outcomes(cases, Path(scratch)), file)
        return 0

    reference = args.reference.resolve()
    cases = fuzz_cases(args.examples, args.seed) + odd_cases(reference) + file_cases(reference)
    cases = [case for case in cases if _picklable(case)]
    with tempfile.TemporaryDirectory() as work:
        cases_file = Path(work) / "cases.pickle"
        with open(cases_file, "wb") as file:
            pickle.dump(cases, file)
        answers = {}
        for label, tree in (("ours", HERE.parents[1]), ("theirs", reference)):
            out = Path(work) / f"{label}.pickle"
            # The same scratch folder for both: error messages name the files.
            env = {**os.environ, "PYTHONPATH": f"{tree / 'python'}{os.pathsep}{HERE}"}
            command = [sys.executable, __file__, str(reference), "--answer", str(cases_file), str(out), f"{work}/files"]
            subprocess.run(command, env=env, check=True)
            with open(out, "rb") as file:
                answers[label] = pickle.load(file)

    known: collections.Counter[str] = collections.Counter()
    unexplained = []
    for i, (ours, theirs) in enumerate(zip(answers["ours"], answers["theirs"])):
        if ours != theirs:
            kind = known_difference(ours, theirs)
            if kind is None:
                unexplained.append(i)
            else:
                known[kind] += 1
    print(f"{len(cases)} cases: {len(unexplained)} differences, and known ones: {dict(known)}")
    for i in unexplained[: args.shown]:
        print("-" * 80)
        print(repr(cases[i])[:800])
        print("  ours:  ", answers["ours"][i])
        print("  theirs:", answers["theirs"][i])
    return 1 if unexplained else 0


def _picklable(case: dict[str, Any]) -> bool:
    try:
        pickle.dumps(case)
    except Exception:  # noqa: BLE001 - data that contains itself too deeply, for one
        return False
    return True


if __name__ == "__main__":
    sys.exit(main())
