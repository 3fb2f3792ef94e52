"""The headless-Chromium page checker itself: it passes a good page and catches each kind of fault."""

from __future__ import annotations

import base64
import struct
import tempfile
import zlib
from pathlib import Path

import pytest

import browser_check
from browser_check import PageCheck, check_page, chromium  # noqa: F401  (chromium is a fixture)


def tiny_png(width: int = 4, height: int = 3) -> bytes:
    """A solid red RGB PNG, built by hand."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def png_size(data: bytes) -> tuple[int, int]:
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    return struct.unpack(">II", data[16:24])


def write_page(directory: Path, body: str, title: str = "report") -> Path:
    path = directory / "page.html"
    path.write_text(
        f'<!doctype html>\n<html><head><meta charset="utf-8"><title>{title}</title></head>\n<body>\n{body}\n</body></html>\n',
        encoding="utf-8",
    )
    return path


SVG = '<svg id="fig" xmlns="http://www.w3.org/2000/svg" width="200" height="100"><rect width="200" height="100" fill="teal"/></svg>'


def test_good_page_passes_and_screenshot_is_written(tmp_path: Path, chromium: str) -> None:
    png = base64.b64encode(tiny_png()).decode()
    page = write_page(
        tmp_path,
        f'<h1>Results</h1><img alt="goodput" width="400" src="data:image/png;base64,{png}">{SVG}'
        '<div style="height: 3000px"></div><p>end</p>',
        title="airtcp report",
    )
    shot = tmp_path / "shots" / "page.png"
    check = check_page(page, screenshot=shot)
    assert check.ok, check.problems()
    assert check.console_errors == []
    assert check.broken_images == []
    assert check.title == "airtcp report"
    img, svg = check.images
    assert img["kind"] == "img" and img["src"] == f"data:image/png;base64,{png}"[:40]
    assert img["complete"] and (img["natural_width"], img["natural_height"]) == (4, 3)
    assert (img["width"], img["height"]) == (400, 300)
    assert svg["kind"] == "svg" and svg["src"] == "<svg id=fig>"
    assert (svg["width"], svg["height"]) == (200, 100)
    data = shot.read_bytes()
    assert data.startswith(b"\x89PNG")
    width, height = png_size(data)
    assert width == browser_check.VIEWPORT_WIDTH and height > 3000  # the full page, not the viewport


def test_lazy_image_below_the_fold_is_loaded(tmp_path: Path, chromium: str) -> None:
    (tmp_path / "fig.png").write_bytes(tiny_png(10, 10))
    page = write_page(tmp_path, '<div style="height: 5000px"></div><img loading="lazy" src="fig.png">')
    check = check_page(page)
    assert check.ok, check.problems()
    (img,) = check.images
    assert img["src"] == (tmp_path / "fig.png").as_uri()[:40]
    assert (img["natural_width"], img["width"]) == (10, 10)


def test_console_error_is_reported(tmp_path: Path, chromium: str) -> None:
    check = check_page(write_page(tmp_path, '<p>hi</p><script>console.error("boom", 42)</script>'))
    assert check.broken_images == []
    (error,) = check.console_errors
    assert error.startswith("console.error: boom 42"), error


def test_uncaught_exception_is_reported(tmp_path: Path, chromium: str) -> None:
    check = check_page(write_page(tmp_path, '<script>throw new TypeError("kaboom")</script>'))
    (error,) = check.console_errors
    assert error.startswith("uncaught exception: TypeError: kaboom"), error
    assert not check.ok


def test_missing_image_and_empty_svg_are_reported(tmp_path: Path, chromium: str) -> None:
    page = write_page(tmp_path, '<img src="missing.png" alt="lost"><svg id="empty" width="0" height="0"></svg>')
    check = check_page(page, screenshot=tmp_path / "broken.png")
    # Chromium shows a 16x16 broken-image icon: the <img> is "complete" but has no natural size,
    # and logs the failed load on its network log (not on the console API).
    img, svg = check.images
    assert img["complete"] and img["natural_width"] == 0 and img["natural_height"] == 0
    assert (svg["width"], svg["height"]) == (0, 0)
    assert check.broken_images == [f"img {(tmp_path / 'missing.png').as_uri()[:40]}", "svg <svg id=empty>"]
    assert check.console_errors == [
        f"network error: Failed to load resource: net::ERR_FILE_NOT_FOUND ({(tmp_path / 'missing.png').as_uri()})"
    ]
    assert (tmp_path / "broken.png").read_bytes().startswith(b"\x89PNG")


def test_timeout_kills_chromium_and_removes_its_profile(
    tmp_path: Path, chromium: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    stopped = []
    real_stop = browser_check._stop

    def stop(proc):  # type: ignore[no-untyped-def]
        stopped.append(proc)
        real_stop(proc)

    monkeypatch.setattr(browser_check, "_stop", stop)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    page = write_page(tmp_path, "<script>for (;;) {}</script>")  # the load event never comes
    with pytest.raises(TimeoutError, match="Chromium: timed out waiting for"):
        check_page(page, timeout_s=4)
    (proc,) = stopped
    assert proc.returncode is not None
    assert list(scratch.iterdir()) == []


def test_missing_chromium_fails_with_install_instructions(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(browser_check.shutil, "which", lambda name: None)
    page = write_page(tmp_path, "<p>hi</p>")
    with pytest.raises(RuntimeError, match="install Debian's `chromium` package"):
        check_page(page)
    monkeypatch.delenv(browser_check.SKIP_ENV, raising=False)
    with pytest.raises(pytest.fail.Exception, match="install Debian's `chromium` package"):
        browser_check.require_chromium()
    monkeypatch.setenv(browser_check.SKIP_ENV, "1")
    with pytest.raises(pytest.skip.Exception, match="AIRTCP_SKIP_BROWSER=1"):
        browser_check.require_chromium()


def test_page_check_summary() -> None:
    assert PageCheck().ok and PageCheck().problems() == "no problems"
    bad = PageCheck(console_errors=["x"], broken_images=["img y"])
    assert not bad.ok
    assert bad.problems() == "console error: x\nfigure not displayed: img y"
