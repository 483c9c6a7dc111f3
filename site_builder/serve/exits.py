"""How a command ends when it cannot finish: one line in the course's language, the usual exit status,
never a traceback. Bugs in the code still end in a traceback; these are the machine's and the user's doing."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable
from pathlib import Path

from site_builder.vocabulary.i18n import _, localize
from site_builder.vocabulary.oserrors import reason
from site_builder.write.writer import WriteFailed

INTERRUPTED = 130
"""Exit status after Ctrl-C, as shells report a command stopped by SIGINT (128 + 2)."""
PIPE_CLOSED = 141
"""Exit status when the reader of our output went away (``… | head -1``), as for SIGPIPE (128 + 13)."""


def run_command(main: Callable[[], int], language: Callable[[], str], cache: Path | None = None) -> int:
    """``main()``'s status; Ctrl-C, a closed pipe, a site that cannot be written, or a file the tools
    cannot read or write (``cache``: the folder to suggest deleting when the file is in it) end in one line."""
    try:
        return main()
    except KeyboardInterrupt:
        _say(_("interrupted: stopped before finishing; each site is the last complete one, never half-written"),
             language)
        return INTERRUPTED
    except BrokenPipeError:
        # stdout to /dev/null: the interpreter's final flush would complain about the closed pipe
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return PIPE_CLOSED
    except WriteFailed as failed:
        _say(failed.args[0], language)
        return 1
    except OSError as error:
        if not error.filename:
            raise
        _say(_file_problem(Path(os.fsdecode(error.filename)), error, cache), language)
        return 1


def _file_problem(path: Path, error: OSError, cache: Path | None) -> str:
    shown = os.path.relpath(path) if path.is_absolute() else str(path)
    if cache is not None and path.resolve().is_relative_to(cache.resolve()):
        return _("{path}: {reason}; the build keeps only what it can make again here: delete {cache}/ and "
                 "build again", path=shown, reason=reason(error), cache=os.path.relpath(cache))
    return _("{path}: {reason}", path=shown, reason=reason(error))


def _say(text: str, language: Callable[[], str]) -> None:
    with contextlib.suppress(BrokenPipeError):
        print(localize(text, language()), file=sys.stderr)
