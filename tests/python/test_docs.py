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


def test_the_home_page_lists_every_page() -> None:
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    missing = [page.name for page in sorted(DOCS.glob("*.md")) if page.name != "index.md" and f"({page.name})" not in index]
    assert not missing, f"pages docs/index.md does not list: {missing}"


def test_the_readme_status_table_is_the_registry() -> None:
    """The README's table of reproductions names every registered one, in the registry's order,
    each with the paper its title cites and a docs page that exists."""
    from airtcp.papers import registry

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `([\w]+)` \| ([^|]+) \| \[([^\]]+)\]\(([^)]+)\) \|$", readme, re.M)
    known = registry()
    assert [key for key, *_ in rows] == list(known)
    for key, what, _, link in rows:
        assert (REPO / link).is_file(), link
        cited = re.search(r"\(([^,&]+?)[ ,&]", known[key].title)  # the first author of a paper's title
        if cited and key not in ("validation", "compare"):
            assert cited.group(1).split()[0] in what, (key, what, known[key].title)
    # Every relative link of the README points at a file of the checkout.
    for link in re.findall(r"\]\(([^)#]+)\)", readme):
        if "://" not in link:
            assert (REPO / link).exists(), link
