"""What ``content/`` holds, as one digest: the engine's "has anything changed?" key.

Made from what the loader made of the folder (``Content`` and its problems), not from another walk of it: it
covers exactly what the build sees, so a file the loader leaves out (a link out of the folder, a FIFO, a file it
does not read) changes nothing, and nothing is read twice.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Iterable

from site_builder.load.content import Content
from site_builder.vocabulary.problems import Problem


def content_digest(content: Content, problems: Iterable[Problem] = ()) -> str:
    """A digest of everything ``content`` holds and the ``problems`` of loading it: the pages' texts, the
    pictures' bytes (neither is in the content model's repr: the texts are long, the bytes left out) and the
    repr of the rest (frozen dataclasses of text, numbers and tuples; the set of unlisted ids sorted, as a set's
    order changes between processes)."""
    summary = hashlib.sha256(repr((dataclasses.replace(content, pages=(), unlisted=frozenset()),
                                   sorted(content.unlisted), sorted(problems))).encode())
    for page in content.pages:
        summary.update(f"\0{page.path}\0{len(page.text)}\0{page.text}".encode("utf-8", "surrogatepass"))
    for image in content.images:
        summary.update(b"\0" + hashlib.sha256(image.data or b"").digest())
    return summary.hexdigest()
