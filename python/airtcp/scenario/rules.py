"""What the scenario models do beyond their JSON Schema, written by hand.

The models are generated from the schema (`airtcp.scenario.models`); a class `<Model>Rules` here
is a base of the model of that name (`airtcp.scenario.model_gen` looks for it): the rules that
tie a part's fields together (`model_validator` methods, whose `ValueError` is a problem at the
part), and the few methods the front end reads a part with. The rules across the whole file
are in `airtcp.scenario.consistency`.
"""

# Methods name their models in quotes: this module is imported by the models' own.

from __future__ import annotations

import math
from typing import Any

from airtcp.errors import ScenarioError
from airtcp.scenario import consistency
from airtcp.scenario.fields import SerializationInfo, model_validator
from airtcp.scenario.readers import USER_FORM

__all__ = [
    "BackpressureRoutingRules",
    "BlockFadingRules",
    "QuicTcpParamsRules",
    "RadioConfigRules",
    "ScenarioRules",
    "TcpTransportRules",
]


class QuicTcpParamsRules:
    @model_validator(mode="after")
    def _one_cadence(self: Any) -> Any:
        if self.cadence is not None and self.update_interval is not None:
            raise ValueError("give either cadence or update_interval (its older spelling), not both")
        return self


class BlockFadingRules:
    @model_validator(mode="after")
    def _one_of_coherence_or_doppler(self: Any) -> Any:
        # Both would be two answers to one question; the core takes exactly one.
        given = [name for name in ("coherence", "doppler") if getattr(self, name) is not None]
        if len(given) != 1:
            got = "neither" if not given else "both"
            raise ValueError(
                f"block fading needs exactly one of coherence (a duration) or doppler (a frequency), got {got}"
            )
        return self


class BackpressureRoutingRules:
    @model_validator(mode="after")
    def _k_only_when_tcp_aware(self: Any) -> Any:
        if self.k is not None and self.differential == "classical":
            raise ValueError("k: K belongs to the tcp_aware differential; classical backpressure has none")
        return self


class RadioConfigRules:
    """The fields that default by standard (`rx_threshold`, `cs_threshold`, `noise`, `ack_rate`,
    `preamble`) stay absent in the model and in the user's form, so that a later change of
    standard changes them too; the normalised form spells out the standard's value of each, so
    the core and the results' config.json see one value per field."""

    def resolved(self: Any, name: str) -> Any:
        """A field that defaults by standard: its value, or the standard's when the scenario
        leaves it out."""
        value = getattr(self, name)
        return self._defaults()[name] if value is None else value

    def _defaults(self: Any) -> dict[str, Any]:
        """The standard's value of each field that defaults by standard; an 802.11n radio in a
        40 MHz channel hears twice the noise (3.01 dB more, as the core's `noise_dbm`)."""
        defaults: dict[str, Any] = consistency.standard_table("STANDARD_DEFAULTS")[self.standard]
        if self.standard == "802.11n" and self.ht is not None and self.ht.channel_width == "40MHz":
            defaults = {**defaults, "noise": defaults["noise"] + 10 * math.log10(2)}
        return defaults

    def _model_dump(self: Any, info: SerializationInfo) -> dict[str, Any]:
        dumped: dict[str, Any] = super()._model_dump(info)  # type: ignore[misc]
        if info.context and info.context.get(USER_FORM):
            return dumped  # as the file spelled it: a changed standard brings its own defaults
        defaults = self._defaults()
        out: dict[str, Any] = {}
        for slot in self._model_slots:
            key = slot.key if info.by_alias else slot.name
            if key in dumped:
                out[key] = dumped[key]
            elif defaults.get(slot.name) is not None:
                value = defaults[slot.name]
                out[key] = value if slot.dump is None else slot.dump(value, info)
        return out


class TcpTransportRules:
    """A TCP block's `profile` (`linux`): the profile's settings, from the schema's `x-profiles`
    (written by the core's `transport::tcp::profile`, which expands them the same way), fill in
    the fields the block leaves out; a controller's parameter block the profile brings stays out
    when the block names another controller. The normalised form holds the values used."""

    @classmethod
    def _model_input(cls, data: Any) -> Any:
        name = data.get("profile")
        if name is None:
            return data
        profiles = consistency.tcp_profiles()
        if not isinstance(name, str) or name not in profiles:
            return data  # the field's own check names the problem
        own_cc = data.get("cc")
        blocks = set(consistency.cc_parameter_blocks(cls))
        merged = dict(data)
        for key, value in profiles[name].items():
            if key in blocks and own_cc is not None and own_cc != key:
                continue
            merged.setdefault(key, value)
        return merged


class ScenarioRules:
    def node_names(self: Any) -> list[str]:
        """Every node's name in node-id order: `nodes`, then those the topology places."""
        return [*self.nodes, *consistency.placed_node_names(self.topology)]

    @property
    def node_count(self: Any) -> int:
        """How many nodes the scenario has (without listing generated names)."""
        topology = self.topology
        if topology is None:
            return len(self.nodes)
        placed = len(topology.nodes) if topology.kind == "explicit" else consistency.generated_count(topology)
        return len(self.nodes) + placed

    @model_validator(mode="after")
    def _check_consistency(self: Any) -> Any:
        # ScenarioError is not a ValueError, so the model lets it through unchanged with its paths.
        problems = list(consistency.problems(self))
        if problems:
            raise ScenarioError.from_list(problems)
        return self
