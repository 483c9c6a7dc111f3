"""``python build.py``'s arguments, and its ``--help`` and parse errors in the course's language.

build.py does what a command asks; this module only says which commands and options there are.
argparse's own words (``usage:``, the group titles, ``-h``) are said through the catalogs too, and a
command line argparse refuses is one line, its cause first (``parse_error``), not usage plus ``error:``.
"""

from __future__ import annotations

import argparse
import ast
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from site_builder.vocabulary.i18n import Text, _
from site_builder.vocabulary.problems import suggest

LISTS = ("values", "figures", "sources", "terms")
"""What ``list`` prints: what pages may cite."""
COMMAND = "COMMAND"
"""The subcommand's name in usage lines and in argparse's messages."""
_SAID_AS = {"what": "list", "KIND": "new"}
"""A positional argument's name in argparse's messages → what a message calls it: the command it belongs to."""


def make_parser(say: Callable[[str], str]) -> argparse.ArgumentParser:
    """The command line; every help text said in the course's language by ``say``."""

    options: dict[str | None, list[str]] = {}  # command → its options, for a misspelt one

    class Parser(argparse.ArgumentParser):
        command: str | None = None
        """The command whose arguments were left over (argparse's top parser reports them)."""

        def parse_args(self, args=None, namespace=None):
            parsed, extra = self.parse_known_args(args, namespace)
            if extra:  # what argparse's own parse_args does, knowing the command
                self.command = parsed.command
                self.error(f"unrecognized arguments: {' '.join(extra)}")
            return parsed

        def error(self, message: str):  # argparse's documented hook: it must not return
            prog = f"{self.prog} {self.command}" if self.command else self.prog  # its help, for the command's options
            own = options.get(self.command, ())
            elsewhere = {option: f"{self.prog} {name}" for name, theirs in options.items() if name != self.command
                         for option in theirs if option not in own}
            self.exit(2, say(parse_error(message, prog, own, elsewhere)) + "\n")

    class Formatter(argparse.HelpFormatter):
        def add_usage(self, usage, actions, groups, prefix=None):
            super().add_usage(usage, actions, groups, say(_("usage: ")) if prefix is None else prefix)

    def parser_of(make, *args, **kwargs) -> argparse.ArgumentParser:
        made = make(*args, add_help=False, formatter_class=Formatter, **kwargs)
        made._positionals.title = say(_("arguments"))
        made._optionals.title = say(_("options"))
        made.add_argument("-h", "--help", action="help", help=say(_("show this help and exit")))
        return made

    parser = parser_of(Parser, prog="python build.py",
                       description=say(_("Build the lesson sites: measure with lessonmodel, draw the figures, "
                                         "render the pages.")))
    commands = parser.add_subparsers(dest="command", metavar=COMMAND, title=say(_("commands")))

    def command(name: str, text: str) -> argparse.ArgumentParser:
        return parser_of(commands.add_parser, name, help=say(text), description=say(text))

    command("build", _("build _site/ and _site-teacher/ (the default)"))
    command("check", _("clean rebuild and every check CI makes")).add_argument(
        "--report", type=Path, metavar="DIR",
        help=say(_("write DIR/index.html: each changed figure, baseline/new/difference")))
    command("figures", _("draw the figures; --accept records them in the manifest")).add_argument(
        "--accept", action="store_true", help=say(_("write figures/manifest.json")))
    serve = command("serve", _("build, serve on 127.0.0.1 and rebuild on every save"))
    serve.add_argument("--port", type=int, default=8000, help=say(_("port (default 8000; 0 picks a free one)")))
    serve.add_argument("--host", default="127.0.0.1",
                       help=say(_("address to listen on (default 127.0.0.1: only this machine can connect)")))
    serve.add_argument("--teacher", action="store_true", help=say(_("serve the teacher site (with teacher notes)")))
    new = command("new", _("start a lesson, figure or experiment from a skeleton: new lesson|figure|experiment ID"))
    new.add_argument("kind", choices=["lesson", "figure", "experiment"], metavar="KIND",
                     help=say(_("what to create: lesson, figure or experiment")))
    new.add_argument("id", metavar="ID", help=say(_("lesson and figure ids: lowercase letters, digits and '-' (r56, "
                                      "attention-span); experiment ids: lowercase letters, digits and '_'")))
    new.add_argument("--from", dest="inputs", action="append", default=[], metavar="EXPERIMENT",
                     help=say(_("figure only: draw from this experiment's results (a measured figure)")))
    command("import", _("make a MyST or d2l page a page of this course; list what needs a hand")).add_argument(
        "path", type=Path, help=say(_("the page's Markdown file")))
    command("list", _("print what pages may cite: values, figures, sources or terms")).add_argument(
        "what", nargs="?", choices=LISTS, default="values", help=say(_("what to list (default values)")))
    options.update({name: [option for action in made._actions for option in action.option_strings
                            if option.startswith("--") and option != "--help"]
                    for name, made in commands.choices.items()})
    return parser


def parse_error(message: str, prog: str, options: Sequence[str] = (),
                elsewhere: Mapping[str, str] | None = None) -> Text | str:
    """argparse's English ``message`` (Python 3.11's wording) said as one of ours, cause first, with where
    to read more; a message we have no words for stays as argparse wrote it. ``options``: the ones a misspelt
    option is compared with; ``elsewhere``: another command's option → that command's ``prog``."""
    name = None
    if argument := re.fullmatch(r"argument (.+?): (.+)", message, re.S):
        name, message = argument.groups()
        name = _SAID_AS.get(name, name)
    if extra := re.fullmatch(r"unrecognized arguments: (.+)", message, re.S):
        words = extra.group(1).split()
        typed = next((w for w in words if w.startswith("-")), words[0])
        option = typed.split("=", 1)[0]
        if owner := (elsewhere or {}).get(option):  # `figures --report`: check's option
            cause = _("{option} is an option of {command}", option=option, command=owner.rsplit(" ", 1)[1])
            return _("{cause} (help: {prog} --help)", cause=cause, prog=owner)
        cause = _("unexpected {extra}", extra=extra.group(1)) + suggest(typed, options)
        return _("{cause} (help: {prog} --help)", cause=cause, prog=prog)
    for pattern, say in _CAUSES:
        if found := re.fullmatch(pattern, message, re.S):
            return _("{cause} (help: {prog} --help)", cause=say(name, *found.groups()), prog=prog)
    return message if name is None else f"{name}: {message}"


def _literal(shown: str):
    """What argparse showed with ``repr`` (``'lst'``, ``'a', 'b'``), as it was typed; else as shown."""
    try:
        return ast.literal_eval(shown)
    except (ValueError, SyntaxError):
        return shown


def _not_a_choice(name: str, value: str, choices: str) -> Text:
    typed, known = str(_literal(value)), [str(c) for c in _literal(f"[{choices}]")]
    said = {"value": typed, "suggestion": suggest(typed, known), "choices": ", ".join(known)}
    if name == COMMAND:
        return _("unknown command '{value}'{suggestion}; the commands: {choices}", **said)
    return _("'{value}' is not a choice for {name}{suggestion}; choose from {choices}", name=name, **said)


_CAUSES: tuple[tuple[str, Callable[..., Text]], ...] = (
    (r"invalid choice: (.+) \(choose from (.+)\)", _not_a_choice),
    (r"invalid int value: (.+)",
     lambda name, value: _("'{value}' is not a whole number: {name} takes one", value=_literal(value), name=name)),
    (r"expected one argument", lambda name: _("{name} needs a value", name=name)),
    (r"ignored explicit argument (.+)",
     lambda name, value: _("{name} takes no value, but was given '{value}'", name=name, value=_literal(value))),
    (r"the following arguments are required: (.+)", lambda _name, names: _("missing {names}", names=names)),
    (r"ambiguous option: (.+) could match (.+)",
     lambda _name, typed, options: _("{typed} could mean {options}; write it out", typed=typed, options=options)),
)
"""argparse's messages (after ``argument NAME: ``) and what we say for each, given NAME and the message's parts."""
