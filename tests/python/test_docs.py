"""The documentation site's API reference covers the public modules (`make docs` builds it; its
strict build checks links and the nav, this checks that no module is left out of the reference).
"""

from __future__ import annotations

import pkgutil
import re
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
# The subpackages whose every public module has a page of its own.
DOCUMENTED = ("scenario", "experiments", "models", "papers", "bench")


def _nav_pages(entries: list) -> list[str]:
    pages = []
    for entry in entries:
        value = next(iter(entry.values())) if isinstance(entry, dict) else entry
        pages += _nav_pages(value) if isinstance(value, list) else [value]
    return pages


def _documented_modules() -> dict[str, str]:
    """Module -> the page (under docs/) that renders it with `::: module`, for pages in the nav."""
    config = yaml.safe_load((REPO / "mkdocs.yml").read_text(encoding="utf-8"))
    modules = {}
    for page in _nav_pages(config["nav"]):
        for name in re.findall(r"^::: ([\w.]+)", (DOCS / page).read_text(encoding="utf-8"), re.M):
            modules[name] = page
    return modules


def test_every_public_module_has_an_api_page() -> None:
    root = REPO / "python" / "airtcp"
    public = ["airtcp"]
    for package in DOCUMENTED:
        public.append(f"airtcp.{package}")
        public += [
            f"airtcp.{package}.{m.name}"
            for m in pkgutil.iter_modules([str(root / package)])
            if not m.name.startswith("_")
        ]
    documented = _documented_modules()
    missing = [m for m in public if m not in documented]
    assert not missing, f"modules without a page under docs/api/ in mkdocs.yml's nav: {missing}"
