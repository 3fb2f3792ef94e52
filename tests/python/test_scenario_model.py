"""The rules `airtcp.scenario.model` checks scenario values by, pinned.

The schema was checked by pydantic before; the first part of this file holds what pydantic 2
(2.14) answered for each case, so that a change of these rules is a decision rather than an
accident: which values a plain or strict field takes and turns into what, the words and the
order of the problems, where they are located. The last part is the model API that the rest of
airtcp and its tests use (`model_fields`, dumps, copies, assignment).
"""

from __future__ import annotations

import copy
import datetime
import decimal
import enum
import json
import pickle
from typing import Annotated, Any, Literal, Optional

import pytest

from airtcp.errors import ScenarioError
from airtcp.scenario import model
from airtcp.scenario.schema import (
    BernoulliLoss,
    DroptailQueue,
    LinkConfig,
    RadioConfig,
    Scenario,
    TcpTransport,
    load_scenario,
    to_core_dict,
    to_user_dict,
)
from support import minimal_scenario


def wireless(**changes: Any) -> dict[str, Any]:
    scenario: dict[str, Any] = {
        "duration": "10s",
        "topology": {"kind": "chain", "hops": 2, "spacing": "200m"},
        "radio": {
            "standard": "802.11b",
            "data_rate": "2Mbps",
            "basic_rate": "1Mbps",
            "propagation": {"kind": "range", "range": "250m"},
        },
        "flows": [{"id": "f", "src": "n0", "dst": "n2", "app": {"kind": "bulk"}, "transport": {"kind": "tcp"}}],
    }
    scenario.update(changes)
    return scenario


def problems(source: Any) -> list[str]:
    with pytest.raises(ScenarioError) as caught:
        load_scenario(source)
    return caught.value.lines()


def with_link(**fields: Any) -> dict[str, Any]:
    scenario = minimal_scenario()
    scenario["links"][0].update(fields)
    return scenario


class Tag(str, enum.Enum):
    """A str Enum (hashed by its name, not its text)."""

    BERNOULLI = "bernoulli"
    BOTH = "both"


class Text(str):
    pass


# --- Plain (lax) values: routing.local_repair is a bool, routing.k a float ---------------------

BOOLEANS = [
    (True, True), (False, False), (1, True), (0, False), (1.0, True), (0.0, False), (-0.0, False),
    ("yes", True), ("YES", True), ("on", True), ("t", True), ("y", True), ("true", True), ("1", True),
    ("no", False), ("Off", False), ("f", False), ("n", False), ("False", False), ("0", False),
    (b"yes", True), (Text("on"), True), (decimal.Decimal("1"), True),
]


# The engine's plain `bool` and `float`: no scenario field takes them any more (the generated
# models read every number with the schema's readers and every flag strictly), but the engine
# still offers them. Annotations as objects: this module's own would be strings.
_Plain = type(
    "_Plain",
    (model.BaseModel,),
    {
        "__annotations__": {
            "flag": bool,
            "k": Optional[Annotated[float, model.Field(ge=0, allow_inf_nan=False)]],
        },
        "flag": False,
        "k": None,
    },
)


def plain_problems(**data: Any) -> list[str]:
    with pytest.raises(ScenarioError) as caught:
        _Plain.model_validate(data)
    return caught.value.lines()


@pytest.mark.parametrize(("given", "read"), BOOLEANS, ids=repr)
def test_a_plain_bool_reads_words_and_zero_or_one(given: Any, read: bool) -> None:
    assert _Plain.model_validate({"flag": given}).flag is read


NOT_BOOLEANS = [
    (2, "input should be a valid boolean, unable to interpret input, got 2"),
    (2.0, "input should be a valid boolean, unable to interpret input, got 2.0"),
    (1.5, "input should be a valid boolean, got 1.5"),
    (float("nan"), "input should be a valid boolean, got nan"),
    (2**70, "input should be a valid boolean, got 1180591620717411303424"),
    (" true", "input should be a valid boolean, unable to interpret input, got ' true'"),
    ("", "input should be a valid boolean, unable to interpret input, got ''"),
    (None, "input should be a valid boolean, got None"),
    ([], "input should be a valid boolean, got a list"),
    (bytearray(b"yes"), "input should be a valid boolean, got bytearray(b'yes')"),
]


@pytest.mark.parametrize(("given", "message"), NOT_BOOLEANS, ids=repr)
def test_a_plain_bool_refuses_the_rest(given: Any, message: str) -> None:
    assert plain_problems(flag=given) == [f"flag: {message}"]


FLOATS = [
    (1, 1.0), (0.5, 0.5), (True, 1.0), ("1.5", 1.5), (" 2 ", 2.0), ("\u20031\u2003", 1.0), ("+1.", 1.0),
    (".5", 0.5), ("1E3", 1000.0), ("1_0", 10.0), ("1_.5", 1.5), ("1e1_0", 1e10), ("-0", -0.0),
    (b"1", 1.0), (decimal.Decimal("1.5"), 1.5), (2**70, float(2**70)), (1e308, 1e308), (None, None),
]


@pytest.mark.parametrize(("given", "read"), FLOATS, ids=repr)
def test_a_plain_float_reads_numbers_and_their_text(given: Any, read: float | None) -> None:
    k = _Plain.model_validate({"k": given}).k
    assert k == read and type(k) is type(read)
    assert json.dumps(k) == json.dumps(read)  # -0.0 stays -0.0


NOT_FLOATS = [
    ("inf", "input should be a finite number, got 'inf'"),
    ("-Infinity", "input should be a finite number, got '-Infinity'"),
    ("NaN", "input should be a finite number, got 'NaN'"),
    ("1e400", "input should be a finite number, got '1e400'"),
    (-1, "input should be greater than or equal to 0, got -1"),
    (10**400, "input should be a valid number, got a whole number of 401 digits or so"),
    ("abc", "input should be a valid number, unable to parse string as a number, got 'abc'"),
    ("1__0", "input should be a valid number, unable to parse string as a number, got '1__0'"),
    ("_1", "input should be a valid number, unable to parse string as a number, got '_1'"),
    (" 1_0", "input should be a valid number, unable to parse string as a number, got ' 1_0'"),
    ("\x1c1", "input should be a valid number, unable to parse string as a number, got '\\x1c1'"),
    ("\uff11", "input should be a valid number, unable to parse string as a number, got '\uff11'"),
    ("0x10", "input should be a valid number, unable to parse string as a number, got '0x10'"),
    ("", "input should be a valid number, unable to parse string as a number, got ''"),
    ([1], "input should be a valid number, got a list"),
    (bytearray(b"1"), "input should be a valid number, got bytearray(b'1')"),
]


@pytest.mark.parametrize(("given", "message"), NOT_FLOATS, ids=repr)
def test_a_plain_float_refuses_the_rest(given: Any, message: str) -> None:
    assert plain_problems(k=given) == [f"k: {message}"]


# --- Strict values -----------------------------------------------------------------------------


@pytest.mark.parametrize("given", [1, 0, "yes", "true", None, 1.0])
def test_a_strict_bool_takes_true_and_false_only(given: Any) -> None:
    scenario = minimal_scenario()
    scenario["flows"][0]["transport"]["sack"] = given
    assert problems(scenario) == [f"flows[0].transport.sack: input should be a valid boolean, got {given!r}"]


def test_text_is_a_str_and_a_subclass_becomes_one() -> None:
    scenario = load_scenario(with_link(to=Text("B")))
    assert type(scenario.links[0].to) is str and scenario.links[0].to == "B"
    assert problems(with_link(to=5)) == ["links[0].to: input should be a valid string, got 5"]
    assert problems(with_link(to=b"B")) == ["links[0].to: input should be a valid string, got b'B'"]


def test_a_literal_takes_its_strings_and_keeps_its_own() -> None:
    loss = {"kind": Tag.BERNOULLI, "per": 0.1, "direction": Tag.BOTH}
    scenario = load_scenario(with_link(loss=loss))
    assert isinstance(scenario.links[0].loss, BernoulliLoss)
    assert type(scenario.links[0].loss.direction) is str and scenario.links[0].loss.direction == "both"
    assert to_core_dict(scenario)["links"][0]["loss"]["kind"] == "bernoulli"
    assert problems(with_link(loss={"kind": "bernoulli", "per": 0.1, "direction": "back"})) == [
        "links[0].loss.direction: must be 'forward', 'reverse' or 'both', got 'back'"
    ]
    assert problems(with_link(loss={"kind": "bernoulli", "per": 0.1, "direction": 1})) == [
        "links[0].loss.direction: must be 'forward', 'reverse' or 'both', got 1"
    ]


# --- Unions tagged by kind ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("loss", "message"),
    [
        ({"per": 0.1}, "links[0].loss.kind: required field is missing (one of: 'bernoulli', 'segments')"),
        ({"kind": "x"}, "links[0].loss.kind: unknown kind 'x' (expected one of: 'bernoulli', 'segments')"),
        ({"kind": 5}, "links[0].loss.kind: unknown kind '5' (expected one of: 'bernoulli', 'segments')"),
        ({"kind": None}, "links[0].loss.kind: unknown kind 'None' (expected one of: 'bernoulli', 'segments')"),
        ({"kind": [1, 2]}, "links[0].loss.kind: unknown kind '[1, 2]' (expected one of: 'bernoulli', 'segments')"),
        ("bernoulli", "links[0].loss: expected a mapping, got 'bernoulli'"),
        ([], "links[0].loss: expected a mapping, got a list"),
        (datetime.date(2020, 1, 1), "links[0].loss: expected a mapping, got datetime.date(2020, 1, 1)"),
        # An object of a type not built in is read by attribute, as pydantic's tagged unions do.
        (decimal.Decimal(1), "links[0].loss.kind: required field is missing (one of: 'bernoulli', 'segments')"),
    ],
    ids=repr,
)
def test_a_tagged_union_needs_a_known_kind(loss: Any, message: str) -> None:
    assert problems(with_link(loss=loss)) == [message]


def test_a_union_of_one_model_is_tagged_too() -> None:
    assert problems(with_link(queue={"packets": 5})) == [
        "links[0].queue.kind: required field is missing (one of: 'droptail')"
    ]


def test_a_model_takes_a_mapping_or_an_instance() -> None:
    queue = DroptailQueue(kind="droptail", packets=7)
    link = LinkConfig.model_validate({**minimal_scenario()["links"][0], "queue": queue})
    assert link.queue is queue  # taken as it is
    scenario = load_scenario(with_link(queue=queue, loss=BernoulliLoss(kind="bernoulli", per=0.5)))
    assert scenario.links[0].queue == queue
    assert problems(with_link(queue=[1])) == ["links[0].queue: expected a mapping, got a list"]
    assert problems(minimal_scenario(metrics="1s")) == ["metrics: expected a mapping, got '1s'"]


# --- Lists and mappings -------------------------------------------------------------------------


def test_a_list_takes_any_iterable_but_text_and_mappings() -> None:
    assert load_scenario(minimal_scenario(nodes=("A", "B"))).nodes == ["A", "B"]
    assert load_scenario(minimal_scenario(nodes=iter(["A", "B"]))).nodes == ["A", "B"]
    assert problems(minimal_scenario(nodes="AB")) == ["nodes: expected a list, got 'AB'"]
    assert problems(minimal_scenario(nodes=b"AB")) == ["nodes: expected a list, got b'AB'"]
    assert problems(minimal_scenario(nodes={"A": 1})) == ["nodes: expected a list, got a dict"]
    assert problems(minimal_scenario(nodes=5)) == ["nodes: expected a list, got 5"]


def test_a_list_of_at_least_one() -> None:
    topology = {"kind": "explicit", "nodes": []}
    assert problems(wireless(topology=topology)) == [
        "topology.nodes: needs at least 1 entry, got none"
    ]


def test_a_mapping_locates_its_keys_as_pydantic_did() -> None:
    channels = {"n0": [1], 5: ["x"], "\udc80": ["y"], None: [1], True: "q", 2**70: 1}
    radio = {**wireless()["radio"], "node_channels": channels}
    assert problems(wireless(radio=radio)) == [
        "radio.node_channels.5: input should be a valid string, got 5",
        "radio.node_channels[5][0]: expected a whole number, got 'x'",
        # The lone surrogate in the path is escaped: every problem prints as one line of text.
        "radio.node_channels.\\udc80: must be Unicode text, got '\\udc80' (U+DC80 at position 0 is a lone surrogate)",
        "radio.node_channels.\ufffd\ufffd\ufffd[0]: expected a whole number, got 'y'",
        "radio.node_channels.None: input should be a valid string, got None",
        "radio.node_channels.1: input should be a valid string, got True",
        "radio.node_channels[1]: expected a list, got 'q'",
        "radio.node_channels.1180591620717411303424: input should be a valid string, got 1180591620717411303424",
        "radio.node_channels.1180591620717411303424: expected a list, got 1",
    ]


# --- Fields: unknown, missing, and the order of problems ------------------------------------------


def test_problems_come_field_by_field_then_unknown_keys() -> None:
    link = {"zz": 1, "rate": "x", 5: 2, (1, 2): 3, None: 4, "from": "A", "to": "B", "delay": "1ms"}
    scenario = minimal_scenario(links=[link], duration="0s")
    assert problems(scenario) == [
        "duration: must be greater than 0, got '0s'",
        "links[0].rate: cannot read 'x' as a rate; write a number and a unit, e.g. '2Mbps'",
        "links[0].zz: unknown field; allowed fields: from, to, rate, delay, delay_spread, queue, loss",
        "links[0]: field names must be strings, got 5",
        "links[0]: field names must be strings, got (1, 2)",
        "links[0]: field names must be strings, got None",
    ]


def test_fields_by_alias() -> None:
    link = {"from_": "A", "to": "B", "rate": "2Mbps", "delay": "20ms"}
    assert problems(minimal_scenario(links=[link])) == [
        "links[0].from: required field is missing",
        "links[0].from_: unknown field (did you mean 'from'?); allowed fields: from, to, rate, delay, delay_spread, queue, loss",
    ]


def test_a_model_check_names_the_model() -> None:
    fading = {"kind": "block", "coherence": "10ms", "doppler": "10Hz"}
    radio = {**wireless()["radio"], "fading": fading}
    assert problems(wireless(radio=radio)) == [
        "radio.fading: block fading needs exactly one of coherence (a duration) or doppler (a frequency), got both"
    ]


# --- Where the engine parts from pydantic ---------------------------------------------------------


def test_an_unknown_field_name_that_is_not_unicode_is_one_problem_among_the_others() -> None:
    # pydantic stopped at such a name and reported it alone.
    assert problems(with_link(zz=1, rate="x", **{"\udc80x": 1})) == [
        "links[0].rate: cannot read 'x' as a rate; write a number and a unit, e.g. '2Mbps'",
        "links[0].zz: unknown field; allowed fields: from, to, rate, delay, delay_spread, queue, loss",
        "links[0].\\udc80x: a field name must be Unicode text, got '\\udc80x' (U+DC80 at position 0 is a lone surrogate)",
    ]


def test_a_literal_or_a_kind_that_is_not_unicode_is_shown_as_it_is() -> None:
    # pydantic read these as field names ("links[0].loss.direction.\udc80: a field name must be
    # Unicode text, ...") and showed tags with U+FFFD for the surrogates.
    assert problems(with_link(loss={"kind": "bernoulli", "per": 0.1, "direction": "\udc80"})) == [
        "links[0].loss.direction: must be 'forward', 'reverse' or 'both', got '\\udc80'"
    ]
    assert problems(with_link(loss={"kind": "\udc80"})) == [
        "links[0].loss.kind: unknown kind '\\udc80' (expected one of: 'bernoulli', 'segments')"
    ]


def test_a_kind_that_cannot_be_written_as_text() -> None:
    assert problems(with_link(loss={"kind": 10**5000})) == [
        "links[0].loss.kind: unknown kind '<unprintable int object>' (expected one of: 'bernoulli', 'segments')"
    ]


# --- The model API ------------------------------------------------------------------------------


def test_model_fields_describe_each_field() -> None:
    fields = LinkConfig.model_fields
    assert list(fields) == ["from_", "to", "rate", "delay", "delay_spread", "queue", "loss"]
    assert fields["from_"].alias == "from" and fields["from_"].is_required()
    assert fields["rate"].annotation is int and not fields["loss"].is_required()
    assert fields["queue"].get_default(call_default_factory=True) == DroptailQueue(kind="droptail", packets=100)
    assert fields["loss"].get_default() is None
    assert list(Scenario.model_fields)[:3] == ["name", "duration", "seed"]


def test_dumps_by_name_or_alias_and_in_the_users_units() -> None:
    link = load_scenario(minimal_scenario()).links[0]
    # delay_spread is left out at 0 (the normalised form of a scenario without it is unchanged).
    assert list(link.model_dump()) == ["from_", "to", "rate", "delay", "queue", "loss"]
    assert link.model_dump(mode="json", by_alias=True)["from"] == "A"
    assert to_user_dict(load_scenario(minimal_scenario()))["links"][0]["rate"] == "2Mbps"
    dumped = link.model_dump()
    dumped["queue"]["packets"] = 1
    assert link.queue.packets == 100  # a dump is a copy


def test_construction_checks_like_a_file() -> None:
    assert DroptailQueue(kind="droptail", packets="20") == DroptailQueue(kind="droptail", packets=20)
    with pytest.raises(ScenarioError) as caught:
        DroptailQueue(kind="droptail", packets=0, extra=1)
    assert caught.value.lines() == [
        "packets: must be at least 1, got 0",
        "extra: unknown field; allowed fields: kind, packets",
    ]
    with pytest.raises(ScenarioError, match=r"^<scenario>: expected a mapping, got a list$"):
        Scenario.model_validate([])


def test_assignment_is_checked_and_a_refused_one_changes_nothing() -> None:
    scenario = load_scenario(minimal_scenario())
    scenario.flows[0].transport.cc = "cubic"  # type: ignore[union-attr]
    with pytest.raises(ScenarioError, match=r"^cc: must be 'reno', "):
        scenario.flows[0].transport.cc = "westwood"  # type: ignore[union-attr]
    assert scenario.flows[0].transport.cc == "cubic"  # type: ignore[union-attr]
    scenario.flows[0].start = "5s"  # type: ignore[assignment]
    with pytest.raises(ScenarioError, match=r"^flows\[0\]\.start: must be before the end of the run"):
        scenario.duration = "5s"  # type: ignore[assignment]
    assert scenario.duration == 10_000_000_000
    with pytest.raises(AttributeError):
        scenario.durations = 5  # type: ignore[attr-defined]


def test_copies_and_equality() -> None:
    scenario = load_scenario(minimal_scenario())
    assert scenario == load_scenario(minimal_scenario()) and scenario != load_scenario(minimal_scenario(seed=8))
    assert scenario.model_copy(update={"seed": 9}).seed == 9 and scenario.seed == 7
    for copied in (copy.copy(scenario), copy.deepcopy(scenario), pickle.loads(pickle.dumps(scenario))):
        assert copied == scenario and to_core_dict(copied) == to_core_dict(scenario)
    deep = scenario.model_copy(deep=True)
    assert deep.links[0] is not scenario.links[0] and deep == scenario
    assert repr(DroptailQueue(kind="droptail", packets=5)) == "DroptailQueue(kind='droptail', packets=5)"
    with pytest.raises(TypeError):
        hash(scenario)


def test_radio_defaults_are_fresh_per_model() -> None:
    first = RadioConfig.model_validate(wireless()["radio"])
    second = RadioConfig.model_validate(wireless()["radio"])
    assert first.node_channels is not second.node_channels and first.queue is not second.queue


def declare(annotation: Any) -> type[model.BaseModel]:
    """A model with one field `x` (built by hand: this file's annotations are postponed)."""
    return type("Declared", (model.BaseModel,), {"__annotations__": {"x": annotation}})


def test_a_field_may_be_left_out_of_the_dump() -> None:
    # pydantic 2.11's Field(exclude_if=...): dumped only when the test is false.
    maybe = type(
        "Maybe",
        (model.BaseModel,),
        {"__annotations__": {"x": int, "y": Optional[int]}, "y": model.Field(default=None, exclude_if=lambda v: v is None)},
    )
    assert maybe.model_validate({"x": 1}).model_dump() == {"x": 1}
    assert maybe.model_validate({"x": 1, "y": 2}).model_dump() == {"x": 1, "y": 2}
    assert maybe.model_validate({"x": 1, "y": None}).y is None


def test_declarations_the_engine_cannot_read_fail_at_once() -> None:
    assert declare(int).model_validate({"x": 1}).x == 1
    with pytest.raises(TypeError, match="must not use `from __future__ import annotations`"):
        declare("int")
    with pytest.raises(TypeError, match="unsupported field type"):
        declare(complex)
    with pytest.raises(TypeError, match="only Literal strings"):
        declare(Literal[1, 2])


def test_defaults_are_the_declared_ones() -> None:
    # Fields left out of the normalised form at their defaults (`x-omit-default`) are not dumped.
    defaults = {
        name: info.get_default(call_default_factory=True)
        for name, info in TcpTransport.model_fields.items()
        if info.exclude_if is None
    }
    assert TcpTransport(kind="tcp").model_dump() == {**defaults, "kind": "tcp"}
