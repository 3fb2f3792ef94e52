"""Reading the `airtcp` command line: commands and groups of commands, their positional
arguments and options, help pages, and usage errors in the project's form.

Built on the standard library's argparse rather than typer and click: importing those two took
longer than all the rest of `airtcp --help`, and a check or a short run is mostly start-up.
argparse reads the options; choosing the command, placing the positional arguments and wording
every usage error are done here, so that errors keep the project's form (`error: --seed: not a
whole number: 'abc'`) whatever argparse's wording in a given Python version. The commands
themselves are `airtcp.cli`'s.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, NamedTuple, NoReturn

from airtcp import _core

__all__ = ["Argument", "Command", "Group", "HELP", "Option", "Param", "UsageError", "dispatch"]

EXIT_FAILURE = 1
EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130


class UsageError(Exception):
    """A command line that cannot be run: `error: PATH: MESSAGE` on stderr, exit code 2."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.message = message


class Argument(NamedTuple):
    """A positional argument, NAME in the help; the command's parameter is `name.lower()`."""

    name: str
    help: str
    convert: Callable[[str], object] = Path
    required: bool = True
    default: object = None
    many: bool = False  # every remaining positional, in a list (the last argument only)

    @property
    def dest(self) -> str:
        return self.name.lower()


class Option(NamedTuple):
    """An option, the long form last (`-o, --out`); the command's parameter is `dest`. Without a
    `metavar` it is a flag, True when given."""

    flags: tuple[str, ...]
    dest: str
    help: str
    metavar: str | None = None
    convert: Callable[[str], object] = str
    required: bool = False
    repeatable: bool = False  # every value, in a list

    @property
    def name(self) -> str:
        """What errors call it: the long form."""
        return self.flags[-1]


Param = Argument | Option
HELP = Option(("--help",), "help", "Show this message and exit.")


class Command(NamedTuple):
    """A command: `function`, whose docstring is its help, called with every parameter by name;
    a `passthrough` command gets its arguments as they are instead."""

    function: Callable[..., int | None]
    params: tuple[Param, ...] = ()
    passthrough: bool = False


class Group(NamedTuple):
    """Commands under one name (`airtcp`, `airtcp scenarios`), and the options before them."""

    help: str
    commands: dict[str, Command | Group]
    options: tuple[Option, ...] = (HELP,)


def dispatch(prog: str, group: Group, args: list[str]) -> int:
    """Runs the command of GROUP that ARGS name: the group's own options (`--help`, `--version`)
    come first, then the command's name and its arguments."""
    if not args:  # `airtcp` alone: the help, as for a usage error
        sys.stdout.write(_group_help(prog, group))
        return EXIT_BAD_INPUT
    known = {flag for option in group.options for flag in option.flags}
    given: set[str] = set()
    index = 0
    while index < len(args) and args[index].startswith("-"):
        token = args[index]
        index += 1
        if token == "--":
            break
        name, equals, _ = token.partition("=")
        if name not in known:
            raise UsageError(name, f"no such option{_option_guess(name, group.options)} (see '{prog} --help')")
        if equals:
            raise UsageError(name, "does not take a value")
        given.add(name)
    if "--help" in given:
        sys.stdout.write(_group_help(prog, group))
        return 0
    if "--version" in given:
        print(f"airtcp {_core.core_version()}")
        return 0
    if index == len(args):
        raise UsageError(prog, f"missing command (see '{prog} --help')")
    name = args[index]
    command = group.commands.get(name)
    if command is None:
        close = _close(name, group.commands)
        guess = f" (did you mean {' or '.join(close)}?)" if close else ""
        raise UsageError(prog, f"no such command {name!r}{guess} (see '{prog} --help')")
    if isinstance(command, Group):
        return dispatch(f"{prog} {name}", command, args[index + 1 :])
    if command.passthrough:
        return command.function(args[index + 1 :]) or 0
    values = _parse(f"{prog} {name}", command, args[index + 1 :])
    if values is None:  # the help was asked for
        return 0
    return command.function(**values) or 0


def _parse(prog: str, command: Command, args: list[str]) -> dict[str, object] | None:
    """COMMAND's parameters from ARGS, checked and converted; None when ARGS ask for the help
    (which is then printed). Problems are reported in the order click reported them, as the
    command line did: what cannot be read (an unknown option, an option without its value), then
    the help, then the values given (`--seed abc`), then what is missing, then arguments left
    over."""
    options = [param for param in command.params if isinstance(param, Option)] + [HELP]
    parser = _parser(prog, command, options)
    try:
        namespace, rest = parser.parse_known_args(args)
    except argparse.ArgumentError as error:
        # argparse's wording varies; what went wrong does not: an option without its value, or
        # a flag given one (`--quiet=yes`).
        option = next((o for o in options if "/".join(o.flags) == error.argument_name), None)
        if option is None:
            raise UsageError(prog, f"{error.message} (see '{prog} --help')") from None
        raise UsageError(option.name, "requires an argument" if option.metavar else "does not take a value") from None

    # Positional arguments are placed here, not by argparse: argparse words a missing one its own
    # way, which changes between Python versions, and declared optional to avoid that, one after
    # an option is lost (`scenarios copy NAME --force DEST`). Taken from what argparse did not
    # read, they keep the rules the command line had: options and arguments in any order, `--`
    # ends the options.
    positionals = []
    options_end = False
    for token in rest:
        if token == "--" and not options_end:
            options_end = True
        elif token.startswith("-") and token != "-" and not options_end:
            name = token.partition("=")[0]
            raise UsageError(name, f"no such option{_option_guess(name, options)} (see '{prog} --help')")
        else:
            positionals.append(token)
    if namespace.help:
        sys.stdout.write(_parser(prog, command, options, with_arguments=True).format_help())
        return None

    given: list[tuple[Param, Any]] = []
    for param in command.params:
        if isinstance(param, Argument) and param.many:
            given.append((param, positionals[:] or None))
            positionals.clear()
        elif isinstance(param, Argument):
            given.append((param, positionals.pop(0) if positionals else None))
        else:
            given.append((param, getattr(namespace, param.dest)))
    values: dict[str, object] = {}
    for param, value in sorted(given, key=lambda pair: pair[1] is None):
        values[param.dest] = _value(prog, param, value)
    if positionals:
        plural = "s" if len(positionals) > 1 else ""
        raise UsageError(
            prog, f"got unexpected extra argument{plural} ({' '.join(positionals)}) (see '{prog} --help')"
        )
    return values


def _value(prog: str, param: Param, given: str | list[str] | None) -> object:
    """PARAM's value, converted from what was GIVEN (None: nothing)."""
    if isinstance(param, Option) and param.metavar is None:
        return given  # a flag: True or False
    if given is None:
        if param.required:
            what = "argument" if isinstance(param, Argument) else "option"
            raise UsageError(param.name, f"required {what} is missing (see '{prog} --help')")
        if isinstance(param, Argument):
            return param.default
        return [] if param.repeatable else None
    try:
        return [param.convert(text) for text in given] if isinstance(given, list) else param.convert(given)
    except ValueError as error:
        raise UsageError(param.name, str(error)) from None


def _option_guess(name: str, options: Sequence[Option]) -> str:
    """` (did you mean --seed or --set?)` for an unknown long option close to known ones."""
    if not name.startswith("--"):
        return ""
    close = _close(name, [flag for option in options for flag in option.flags if flag.startswith("--")])
    return f" (did you mean {' or '.join(sorted(close))}?)" if close else ""


def _close(name: str, known: Iterable[str]) -> list[str]:
    import difflib

    return difflib.get_close_matches(name, list(known))


# --- Help ----------------------------------------------------------------------------------------


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        # Not reached with this module's parsers (every check argparse would report is made by
        # `_parse`); should a Python version call it anyway, it is still a usage error.
        raise UsageError(self.prog, f"{message} (see '{self.prog} --help')")


class _HelpFormatter(argparse.HelpFormatter):
    """The help's layout, as the command line had it: `Usage: ...`, an option as `-o, --out PATH`,
    at most 80 columns, the docstrings' paragraphs re-wrapped one by one."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, max_help_position=30, width=min(_terminal_columns(), 80) - 2)

    def add_usage(self, usage: str | None, actions: Any, groups: Any, prefix: str | None = None) -> None:
        super().add_usage(usage, actions, groups, "Usage: " if prefix is None else prefix)

    def _format_action_invocation(self, action: argparse.Action) -> str:
        if action.option_strings and action.nargs != 0:
            return f"{', '.join(action.option_strings)} {action.metavar}"
        return super()._format_action_invocation(action)

    # Lines are broken at spaces only: `--out` and `published-vs-airtcp` stay whole.
    def _split_lines(self, text: str, width: int) -> list[str]:
        import textwrap

        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        import textwrap

        return "\n\n".join(
            textwrap.fill(paragraph, width, initial_indent=indent, subsequent_indent=indent, break_on_hyphens=False)
            for paragraph in text.split("\n\n")
        )


def _terminal_columns() -> int:
    """COLUMNS, else the terminal's width, else 80, as `shutil.get_terminal_size` reads them:
    importing shutil (and the compression modules it loads) took 2 ms of `airtcp --help`."""
    try:
        return int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        pass
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        return 80


def _parser(
    prog: str, command: Command, options: Sequence[Option], *, with_arguments: bool = False
) -> argparse.ArgumentParser:
    """A parser of COMMAND's OPTIONS; its positional arguments are there only `with_arguments`,
    for the help (`_parse` places them)."""
    parser = _new_parser(prog, _usage(prog, command.params), _doc(command.function))
    arguments = parser.add_argument_group("Arguments")
    if with_arguments:
        for param in command.params:
            if isinstance(param, Argument):
                nargs = ("+" if param.required else "*") if param.many else (None if param.required else "?")
                arguments.add_argument(param.name, nargs=nargs, help=_help_text(param.help, param.required))
    group = parser.add_argument_group("Options")
    for option in options:
        if option.metavar is None:
            group.add_argument(*option.flags, dest=option.dest, action="store_true", help=_help_text(option.help))
        else:
            action = "append" if option.repeatable else "store"
            group.add_argument(
                *option.flags,
                dest=option.dest,
                action=action,
                metavar=option.metavar,
                help=_help_text(option.help, option.required),
            )
    return parser


def _new_parser(prog: str, usage: str, description: str) -> argparse.ArgumentParser:
    # argparse's errors are raised, not printed, to be worded here. No abbreviations (`--qu` for
    # `--quiet`), as before: a new option could make one ambiguous. No -h, which it never had.
    return _Parser(
        prog=prog,
        usage=usage,
        description=description,
        add_help=False,
        allow_abbrev=False,
        exit_on_error=False,
        formatter_class=_HelpFormatter,
    )


def _group_help(prog: str, group: Group) -> str:
    """GROUP's help: its options, then its commands, each with the first sentence of its help."""
    parser = _new_parser(prog, f"{prog} [OPTIONS] COMMAND [ARGS]...", group.help)
    options = parser.add_argument_group("Options")
    for option in group.options:
        options.add_argument(*option.flags, action="store_true", help=_help_text(option.help))
    commands = parser.add_argument_group("Commands")
    for name, command in group.commands.items():
        commands.add_argument(name, help=_help_text(_summary(command)))
    return parser.format_help()


def _usage(prog: str, params: Sequence[Param]) -> str:
    arguments = [
        (param.name if param.required else f"[{param.name}]") + ("..." if param.many else "")
        for param in params
        if isinstance(param, Argument)
    ]
    return " ".join([prog, "[OPTIONS]", *arguments])


def _help_text(text: str, required: bool = False) -> str:
    # argparse fills in `%(default)s` and the like, so a literal % is doubled.
    return text.replace("%", "%%") + ("  [required]" if required else "")


def _doc(function: Callable[..., object]) -> str:
    """A command's docstring, each paragraph on one line (the help re-wraps them)."""
    return "\n\n".join(" ".join(paragraph.split()) for paragraph in (function.__doc__ or "").strip().split("\n\n"))


def _summary(command: Command | Group) -> str:
    """The first sentence of a command's help."""
    text = command.help if isinstance(command, Group) else _doc(command.function).split("\n\n")[0]
    return text.split(". ")[0].rstrip(".") + "."
