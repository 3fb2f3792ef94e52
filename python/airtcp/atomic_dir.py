"""Writing an output directory all at once: either every file appears, or nothing does.

Files are written into a hidden temporary sibling of the target, which is renamed into place
only after the last file was written. A failure (or Ctrl-C) removes the temporary directory, so a
half-written result set can never be mistaken for a complete one.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["OutputDirError", "check_output_dir", "atomic_directory", "atomic_write_bytes", "staging_sibling"]


class OutputDirError(Exception):
    """The output location cannot be used (exists and is not empty, is a file, ...)."""


def check_output_dir(target: Path, replace: bool) -> None:
    """Raises `OutputDirError` unless `target` may be written (absent, empty, or `replace`)."""
    if not os.path.lexists(target):
        return
    if not target.is_dir() or target.is_symlink():
        raise OutputDirError(f"{str(target)!r} exists and is not a directory")
    if not replace and any(target.iterdir()):
        raise OutputDirError(f"{str(target)!r} exists and is not empty (use --force to replace it)")


@contextmanager
def atomic_directory(target: Path | str, *, replace: bool = False) -> Iterator[Path]:
    """Yields a temporary directory to fill; on success it becomes `target`.

    With `replace`, an existing non-empty `target` is swapped out and deleted only once the new
    one is in place. Parent directories created here are removed again if writing fails.
    """
    target = Path(target)
    check_output_dir(target, replace)
    created = _make_parents(target.absolute().parent)
    try:
        staging = _make_sibling(target, "tmp")
    except BaseException:
        _remove_empty(created)
        raise
    try:
        yield staging
        _move_into_place(staging, target, replace)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        _remove_empty(created)
        raise


def staging_sibling(target: Path | str, tag: str) -> Path:
    """A fresh hidden directory next to `target` (its parents created): where a run writes files
    that `atomic_directory(target)`'s caller moves in at the end (the pcap traces of `airtcp
    run`), on the same file system so that the move is a rename."""
    target = Path(target)
    target.absolute().parent.mkdir(parents=True, exist_ok=True)
    return _make_sibling(target, tag)


def _make_parents(directory: Path) -> list[Path]:
    """Creates `directory` and missing ancestors; returns those created, deepest first."""
    missing = []
    while not directory.exists():
        missing.append(directory)
        directory = directory.parent
    for path in reversed(missing):
        path.mkdir()
    return missing


def _remove_empty(directories: list[Path]) -> None:
    for path in directories:
        try:
            path.rmdir()
        except OSError:
            return


def _make_sibling(target: Path, tag: str) -> Path:
    """A fresh hidden directory next to `target` (same file system, so renames are atomic)."""
    while True:
        # os.urandom is what secrets.token_hex uses; importing secrets (hmac, hashlib) would cost
        # every command that checks an output directory, `airtcp --help` included.
        candidate = target.with_name(f".{target.name}.{tag}-{os.urandom(4).hex()}")
        try:
            candidate.mkdir()  # honours the umask, unlike tempfile.mkdtemp's private mode
            return candidate
        except FileExistsError:
            continue


def _move_into_place(staging: Path, target: Path, replace: bool) -> None:
    # Checked again: the directory may have been filled while the simulation ran.
    check_output_dir(target, replace)
    if not os.path.lexists(target) or not any(target.iterdir()):
        os.replace(staging, target)  # rename(2) may replace an empty directory
        return
    retired = _make_sibling(target, "old")
    retired.rmdir()
    os.rename(target, retired)
    try:
        os.rename(staging, target)
    except BaseException:
        os.rename(retired, target)
        raise
    shutil.rmtree(retired, ignore_errors=True)


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Writes one file so that it is either whole or absent (and an old version stays whole until
    the new one replaces it): a temporary sibling renamed into place."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
