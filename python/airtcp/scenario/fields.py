"""What a model's declarations are made of: `Field`, `FieldInfo` and the `Annotated` metadata.

Named and used as in pydantic 2 (see `airtcp.scenario.model` for what is supported and why);
`airtcp.scenario.checks` compiles them into checks, `airtcp.scenario.model` into models.
"""

from __future__ import annotations

import typing
from collections.abc import Callable
from typing import Any, Literal, TypeVar

__all__ = [
    "NO_DEFAULT",
    "AfterValidator",
    "BeforeValidator",
    "Field",
    "FieldInfo",
    "PlainSerializer",
    "SerializationInfo",
    "StrictBool",
    "model_validator",
]


class _NoDefault:
    def __repr__(self) -> str:
        return "<required>"


# The default of a field that has none.
NO_DEFAULT: Any = _NoDefault()


class BeforeValidator:
    """`Annotated` metadata: `func(value)` turns the raw input into what the type checks."""

    __slots__ = ("func",)

    def __init__(self, func: Callable[[Any], Any]):
        self.func = func


class AfterValidator:
    """`Annotated` metadata: `func(value)` checks (and may change) the value the type accepted."""

    __slots__ = ("func",)

    def __init__(self, func: Callable[[Any], Any]):
        self.func = func


class PlainSerializer:
    """`Annotated` metadata: `func(value, info)` is what `model_dump` writes for the value;
    `info.context` is the dump's `context`."""

    __slots__ = ("func",)

    def __init__(self, func: Callable[[Any, SerializationInfo], Any]):
        self.func = func


class SerializationInfo:
    """What a `PlainSerializer` is told about the dump in progress."""

    __slots__ = ("by_alias", "context")

    def __init__(self, context: Any, by_alias: bool):
        self.context = context
        self.by_alias = by_alias


class FieldInfo:
    """A field: its type (`annotation`, outer `Annotated` removed into `metadata`), default and
    alias, and the constraints given with `Field(...)`."""

    __slots__ = ("alias", "allow_inf_nan", "annotation", "default", "default_factory", "discriminator",
                 "exclude_if", "ge", "metadata", "min_length", "strict")

    def __init__(
        self,
        default: Any = NO_DEFAULT,
        *,
        default_factory: Callable[[], Any] | None = None,
        alias: str | None = None,
        discriminator: str | None = None,
        strict: bool | None = None,
        min_length: int | None = None,
        ge: float | None = None,
        allow_inf_nan: bool | None = None,
        exclude_if: Callable[[Any], bool] | None = None,
    ):
        if default is not NO_DEFAULT and default_factory is not None:
            raise TypeError("a field takes a default or a default_factory, not both")
        self.default = default
        self.default_factory = default_factory
        self.alias = alias
        self.discriminator = discriminator
        self.strict = strict
        self.min_length = min_length
        self.ge = ge
        self.allow_inf_nan = allow_inf_nan
        self.exclude_if = exclude_if
        self.annotation: Any = None
        self.metadata: list[Any] = []

    # The constraints `Field(...)` may give, which the checks apply to the field's type.
    CONSTRAINTS = ("discriminator", "strict", "min_length", "ge", "allow_inf_nan")

    def has_constraints(self) -> bool:
        return any(getattr(self, name) is not None for name in self.CONSTRAINTS)

    def is_required(self) -> bool:
        return self.default is NO_DEFAULT and self.default_factory is None

    def get_default(self, *, call_default_factory: bool = False) -> Any:
        """The default; with a factory, what it makes if `call_default_factory` (else None)."""
        if self.default_factory is not None:
            return self.default_factory() if call_default_factory else None
        return self.default

    def __repr__(self) -> str:
        shown = {name: getattr(self, name) for name in ("annotation", "default", "alias", "discriminator")}
        return f"FieldInfo({', '.join(f'{k}={v!r}' for k, v in shown.items() if v is not None)})"


def Field(  # noqa: N802 - named like pydantic's
    default: Any = NO_DEFAULT,
    *,
    default_factory: Callable[[], Any] | None = None,
    alias: str | None = None,
    discriminator: str | None = None,
    strict: bool | None = None,
    min_length: int | None = None,
    ge: float | None = None,
    allow_inf_nan: bool | None = None,
    exclude_if: Callable[[Any], bool] | None = None,
) -> Any:
    """A field's default and alias (as a class attribute), or constraints (in `Annotated`).
    `exclude_if(value)` true leaves the field out of `model_dump` (pydantic 2.11's meaning)."""
    return FieldInfo(
        default,
        default_factory=default_factory,
        alias=alias,
        discriminator=discriminator,
        strict=strict,
        min_length=min_length,
        ge=ge,
        allow_inf_nan=allow_inf_nan,
        exclude_if=exclude_if,
    )


StrictBool = typing.Annotated[bool, Field(strict=True)]

_F = TypeVar("_F", bound=Callable[..., Any])


def model_validator(*, mode: Literal["after"]) -> Callable[[_F], _F]:
    """Marks a method `check(self) -> self` to run once every field of the model is valid; a
    `ValueError` it raises is a problem located at the model."""
    if mode != "after":
        raise ValueError("only model_validator(mode='after') is supported")

    def mark(method: _F) -> _F:
        method.__model_validator__ = mode  # type: ignore[attr-defined]
        return method

    return mark
