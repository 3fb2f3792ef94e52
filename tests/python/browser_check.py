"""Renders an HTML file in headless Chromium and reports what a reader would see go wrong.

`check_page(path)` starts Debian's `chromium` with a throw-away profile, speaks the Chrome DevTools
Protocol to it over a websocket, loads the page from a file:// URL and returns a `PageCheck`:

- `console_errors`: console.error / console.assert calls, uncaught exceptions and the browser's
  own error log entries (a resource that failed to load appears there as
  "network error: Failed to load resource: net::ERR_FILE_NOT_FOUND (file:///.../missing.png)");
- `images`: every <img> (after scrolling it into view, so lazy images load) and every outermost
  inline <svg>, with natural and rendered sizes;
- `broken_images`: the ones a reader would not see: an <img> that did not load (not complete or
  naturalWidth 0) or either of them rendered with zero width or height;
- `title`: the document's title.

It can also write a full-page PNG screenshot (1280 CSS pixels wide) for humans to look at.
Chromium is always killed and its profile removed, also on errors and time-outs.

Tests use the `chromium` fixture (import it into the test module): it fails with the install
instructions when Chromium is missing, or skips when AIRTCP_SKIP_BROWSER=1 is set.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

SKIP_ENV = "AIRTCP_SKIP_BROWSER"
MISSING_MESSAGE = (
    "Chromium is needed to check HTML reports but neither `chromium` nor `chromium-browser` is on PATH; "
    "install Debian's `chromium` package (`make browser` does it: "
    "apt-get install --no-install-recommends chromium), or set AIRTCP_SKIP_BROWSER=1 to skip these tests"
)
VIEWPORT_WIDTH = 1280
VIEWPORT_HEIGHT = 800
MAX_SCREENSHOT_HEIGHT = 32_000  # CSS pixels; longer pages are cut off in the screenshot
SETTLE_S = 0.25  # quiet time after the checks, for late console messages


@dataclass
class PageCheck:
    console_errors: list[str] = field(default_factory=list)
    images: list[dict[str, Any]] = field(default_factory=list)
    broken_images: list[str] = field(default_factory=list)
    title: str = ""

    @property
    def ok(self) -> bool:
        return not self.console_errors and not self.broken_images

    def problems(self) -> str:
        """A readable list of what went wrong, for assertion messages."""
        lines = [f"console error: {e}" for e in self.console_errors]
        lines += [f"figure not displayed: {b}" for b in self.broken_images]
        return "\n".join(lines) or "no problems"


def find_chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def require_chromium() -> str:
    """The Chromium binary for a test; fails the test with the install instructions when it is
    missing, or skips it when AIRTCP_SKIP_BROWSER=1."""
    binary = find_chromium()
    if binary is not None:
        return binary
    if os.environ.get(SKIP_ENV) == "1":
        pytest.skip(f"{SKIP_ENV}=1: Chromium is not installed and browser checks are skipped")
    pytest.fail(MISSING_MESSAGE, pytrace=False)


@pytest.fixture
def chromium() -> str:
    """The Chromium binary (see `require_chromium`)."""
    return require_chromium()


# Runs in the page after the load event: scrolls each figure into view (lazy images start
# loading), waits for it to load or fail (at most 10 s each) and reports the sizes.
_FIGURES_JS = r"""
(async () => {
  const settle = (img) => new Promise((resolve) => {
    if (img.complete) { resolve(); return; }
    const timer = setTimeout(resolve, 10000);
    const done = () => { clearTimeout(timer); resolve(); };
    img.addEventListener('load', done, { once: true });
    img.addEventListener('error', done, { once: true });
  });
  const figures = [];
  for (const img of document.querySelectorAll('img')) {
    img.scrollIntoView({ block: 'center' });
    await settle(img);
    if (img.complete && img.naturalWidth > 0) { try { await img.decode(); } catch (e) {} }
    figures.push([img, 'img']);
  }
  for (const svg of document.querySelectorAll('svg')) {
    if (svg.parentElement && svg.parentElement.closest('svg')) continue;  // part of another figure
    svg.scrollIntoView({ block: 'center' });
    figures.push([svg, 'svg']);
  }
  await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
  const out = figures.map(([el, kind]) => {
    const rect = el.getBoundingClientRect();
    const src = kind === 'img' ? (el.currentSrc || el.getAttribute('src') || '')
                               : ('<svg' + (el.id ? ' id=' + el.id : '') + '>');
    return {
      kind: kind,
      src: src.slice(0, 40),
      complete: kind === 'img' ? el.complete : true,
      natural_width: kind === 'img' ? el.naturalWidth : null,
      natural_height: kind === 'img' ? el.naturalHeight : null,
      width: rect.width,
      height: rect.height,
    };
  });
  window.scrollTo(0, 0);
  return { title: document.title, figures: out };
})()
"""


class _Cdp:
    """A Chrome DevTools Protocol connection: numbered requests, every event kept in order."""

    def __init__(self, ws: Any, deadline: float) -> None:
        self.ws = ws
        self.deadline = deadline
        self.next_id = 0
        self.events: list[dict[str, Any]] = []  # every event received, in order
        self.consumed = 0  # events before this index are not looked at by `wait_event`

    def _receive(self, what: str, timeout: float | None = None) -> dict[str, Any] | None:
        """The next message; None after `timeout` seconds, TimeoutError past the deadline."""
        remaining = self.deadline - time.monotonic()
        wait = remaining if timeout is None else min(timeout, remaining)
        if wait <= 0:
            if timeout is not None and remaining > 0:
                return None
            raise TimeoutError(f"Chromium: timed out waiting for {what}")
        try:
            raw = self.ws.recv(timeout=wait)
        except TimeoutError:
            if timeout is not None and time.monotonic() < self.deadline:
                return None
            raise TimeoutError(f"Chromium: timed out waiting for {what}") from None
        return json.loads(raw)

    def send(self, method: str, **params: Any) -> dict[str, Any]:
        self.next_id += 1
        request_id = self.next_id
        self.ws.send(json.dumps({"id": request_id, "method": method, "params": params}))
        while True:
            message = self._receive(f"the reply to {method}")
            assert message is not None
            if "method" in message:
                self.events.append(message)
            elif message.get("id") == request_id:
                if "error" in message:
                    raise RuntimeError(f"Chromium: {method} failed: {message['error']}")
                return message.get("result", {})

    def wait_event(self, method: str) -> dict[str, Any]:
        while True:
            for i in range(self.consumed, len(self.events)):
                if self.events[i]["method"] == method:
                    self.consumed = i + 1
                    return self.events[i].get("params", {})
            self.consumed = len(self.events)
            message = self._receive(method)
            assert message is not None
            if "method" in message:
                self.events.append(message)

    def drain(self, quiet_s: float) -> None:
        """Keeps receiving events until none arrived for `quiet_s` seconds."""
        while (message := self._receive("late events", timeout=quiet_s)) is not None:
            if "method" in message:
                self.events.append(message)


def _remote_value(obj: dict[str, Any]) -> str:
    if "value" in obj:
        value = obj["value"]
        return value if isinstance(value, str) else json.dumps(value)
    return str(obj.get("unserializableValue") or obj.get("description") or obj.get("type", "?"))


def _where(url: str | None, line: int | None) -> str:
    if not url:
        return ""
    return f" ({url}:{line + 1})" if line is not None else f" ({url})"


def _errors(events: list[dict[str, Any]]) -> list[str]:
    errors: list[str] = []
    for event in events:
        method, params = event["method"], event.get("params", {})
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            text = " ".join(_remote_value(a) for a in params.get("args", []))
            frames = (params.get("stackTrace") or {}).get("callFrames") or [{}]
            errors.append(f"console.{params['type']}: {text}{_where(frames[0].get('url'), frames[0].get('lineNumber'))}")
        elif method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            exception = details.get("exception") or {}
            text = (exception.get("description") or _remote_value(exception)) if exception else details.get("text", "")
            errors.append(f"uncaught exception: {text}{_where(details.get('url'), details.get('lineNumber'))}")
        elif method == "Log.entryAdded":
            entry = params.get("entry", {})
            if entry.get("level") == "error":
                url = f" ({entry['url']})" if entry.get("url") else ""
                errors.append(f"{entry.get('source', 'browser')} error: {entry.get('text', '')}{url}")
    return errors


def _broken(figure: dict[str, Any]) -> bool:
    if figure["width"] <= 0 or figure["height"] <= 0:
        return True
    return figure["kind"] == "img" and (not figure["complete"] or not figure["natural_width"])


def _http_json(port: int, path: str, deadline: float) -> Any:
    timeout = max(0.1, deadline - time.monotonic())
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # never via http_proxy
    with opener.open(f"http://127.0.0.1:{port}{path}", timeout=timeout) as response:
        return json.loads(response.read())


def _log_tail(log: Path) -> str:
    try:
        text = log.read_text(errors="replace").strip()
    except OSError:
        return ""
    return "\nChromium's output:\n" + "\n".join(text.splitlines()[-20:]) if text else ""


def _devtools_port(proc: subprocess.Popen[bytes], profile: Path, log: Path, deadline: float) -> int:
    active = profile / "DevToolsActivePort"
    while True:
        try:
            lines = active.read_text().splitlines()
            if len(lines) >= 2 and lines[0].strip().isdigit():
                return int(lines[0])
        except FileNotFoundError:
            pass
        if proc.poll() is not None:
            raise RuntimeError(f"Chromium exited with code {proc.returncode} before DevTools started{_log_tail(log)}")
        if time.monotonic() > deadline:
            raise TimeoutError(f"Chromium: timed out waiting for {active}{_log_tail(log)}")
        time.sleep(0.05)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """Ends Chromium and every process it started (they share its process group)."""
    for sig, grace in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 10.0)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            pass
        try:
            proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            continue
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # helpers that outlived the browser
        except ProcessLookupError:
            pass
        return


def check_page(html_path: Path, screenshot: Path | None = None, timeout_s: float = 60) -> PageCheck:
    """Loads `html_path` in headless Chromium; see the module docstring."""
    from websockets.sync.client import connect

    binary = find_chromium()
    if binary is None:
        raise RuntimeError(MISSING_MESSAGE)
    html_path = Path(html_path).resolve()
    if not html_path.is_file():
        raise FileNotFoundError(html_path)
    deadline = time.monotonic() + timeout_s

    tmp = Path(tempfile.mkdtemp(prefix="airtcp-chromium-"))
    profile, log = tmp / "profile", tmp / "chromium.log"
    proc: subprocess.Popen[bytes] | None = None
    try:
        with open(log, "wb") as log_file:
            proc = subprocess.Popen(
                [
                    binary,
                    "--headless=new",
                    "--no-sandbox",  # the tests may run as root
                    "--disable-gpu",
                    "--disable-dev-shm-usage",
                    "--remote-debugging-port=0",
                    f"--user-data-dir={profile}",
                    "--no-first-run",
                    "--no-default-browser-check",
                    "--hide-scrollbars",
                    "--mute-audio",
                    "about:blank",
                ],
                stdin=subprocess.DEVNULL,
                stdout=log_file,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        port = _devtools_port(proc, profile, log, deadline)
        while True:
            pages = [t for t in _http_json(port, "/json/list", deadline) if t.get("type") == "page"]
            if pages:
                break
            if time.monotonic() > deadline:
                raise TimeoutError("Chromium: timed out waiting for a page target")
            time.sleep(0.05)

        open_timeout = max(0.1, deadline - time.monotonic())
        with connect(
            pages[0]["webSocketDebuggerUrl"],
            proxy=None,  # websockets >= 15 would otherwise honour http_proxy for 127.0.0.1
            max_size=None,  # screenshots are large
            open_timeout=open_timeout,
            close_timeout=1,
        ) as ws:
            cdp = _Cdp(ws, deadline)
            for domain in ("Runtime", "Log", "Page"):
                cdp.send(f"{domain}.enable")
            cdp.send(
                "Emulation.setDeviceMetricsOverride",
                width=VIEWPORT_WIDTH,
                height=VIEWPORT_HEIGHT,
                deviceScaleFactor=1,
                mobile=False,
            )
            first = len(cdp.events)  # what happened to about:blank is not the page's fault
            cdp.consumed = first
            navigation = cdp.send("Page.navigate", url=html_path.as_uri())
            if navigation.get("errorText"):
                raise RuntimeError(f"Chromium could not open {html_path}: {navigation['errorText']}")
            cdp.wait_event("Page.loadEventFired")

            evaluated = cdp.send("Runtime.evaluate", expression=_FIGURES_JS, awaitPromise=True, returnByValue=True)
            if "exceptionDetails" in evaluated:
                raise RuntimeError(f"Chromium: the figure check failed: {evaluated['exceptionDetails']}")
            found = evaluated["result"]["value"]

            if screenshot is not None:
                metrics = cdp.send("Page.getLayoutMetrics")
                size = metrics.get("cssContentSize") or metrics["contentSize"]
                height = min(max(1, int(size["height"] + 0.999)), MAX_SCREENSHOT_HEIGHT)
                shot = cdp.send(
                    "Page.captureScreenshot",
                    format="png",
                    captureBeyondViewport=True,
                    clip={"x": 0, "y": 0, "width": VIEWPORT_WIDTH, "height": height, "scale": 1},
                )
                screenshot = Path(screenshot)
                screenshot.parent.mkdir(parents=True, exist_ok=True)
                screenshot.write_bytes(base64.b64decode(shot["data"]))

            cdp.drain(min(SETTLE_S, max(0.0, deadline - time.monotonic())))
            errors = _errors(cdp.events[first:])
    finally:
        if proc is not None:
            _stop(proc)
        shutil.rmtree(tmp, ignore_errors=True)

    figures = found["figures"]
    return PageCheck(
        console_errors=list(dict.fromkeys(errors)),
        images=figures,
        broken_images=[f"{f['kind']} {f['src']}" for f in figures if _broken(f)],
        title=found["title"],
    )
