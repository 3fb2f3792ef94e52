"""Test-suite options: `--long` runs the tests marked `long` (the full forms of figures and
reproductions that take a minute or more each), which `make test` leaves out to stay fast and
`make test-long` runs on demand."""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--long", action="store_true", help="also run the tests marked long (minutes each)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--long"):
        return
    skip = pytest.mark.skip(reason="a long form: run with --long (make test-long)")
    for item in items:
        if "long" in item.keywords:
            item.add_marker(skip)
