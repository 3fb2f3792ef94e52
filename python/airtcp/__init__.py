"""airtcp: a fast, deterministic packet-level simulator for TCP over wireless networks."""

from airtcp import _core

__version__ = _core.core_version()
