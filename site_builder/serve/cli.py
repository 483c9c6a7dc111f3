"""``python build.py``'s arguments, and its ``--help`` in the course's language.

build.py does what a command asks; this module only says which commands and options there are.
argparse's own words (``usage:``, the group titles, ``-h``) are said through the catalogs too.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from site_builder.vocabulary.i18n import _

LISTS = ("values", "figures", "sources", "terms")
"""What ``list`` prints: what pages may cite."""


def make_parser(say: Callable[[str], str]) -> argparse.ArgumentParser:
    """The command line; every help text said in the course's language by ``say``."""

    class Formatter(argparse.HelpFormatter):
        def add_usage(self, usage, actions, groups, prefix=None):
            super().add_usage(usage, actions, groups, say(_("usage: ")) if prefix is None else prefix)

    def parser_of(make, *args, **kwargs) -> argparse.ArgumentParser:
        made = make(*args, add_help=False, formatter_class=Formatter, **kwargs)
        made._positionals.title = say(_("arguments"))
        made._optionals.title = say(_("options"))
        made.add_argument("-h", "--help", action="help", help=say(_("show this help and exit")))
        return made

    parser = parser_of(argparse.ArgumentParser, prog="python build.py",
                       description=say(_("Build the lesson sites: measure with lessonmodel, draw the figures, "
                                         "render the pages.")))
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", title=say(_("commands")))

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
    new.add_argument("kind", choices=["lesson", "figure", "experiment"], help=say(_("what to create")))
    new.add_argument("id", help=say(_("lesson and figure ids: lowercase letters, digits and '-' (r56, "
                                      "attention-span); experiment ids: lowercase letters, digits and '_'")))
    new.add_argument("--from", dest="inputs", action="append", default=[], metavar="EXPERIMENT",
                     help=say(_("figure only: draw from this experiment's results (a measured figure)")))
    command("list", _("print what pages may cite: values, figures, sources or terms")).add_argument(
        "what", nargs="?", choices=LISTS, default="values", help=say(_("what to list (default values)")))
    return parser
