"""``python build.py new lesson <id>``: start a lesson from a template that builds cleanly.

The page is listed in ``content/site.yml`` by inserting its id into the text
of the ``pages`` list, so the teacher's formatting and comments stay as they
were; the result is parsed again and must list exactly the old pages plus the
new one, or nothing is written.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from site_builder.check.placeholders import SKELETONS
from site_builder.load.files import read_content_file
from site_builder.load.yamlnodes import course_language
from site_builder.vocabulary.atomic import write_atomic
from site_builder.vocabulary.i18n import _, catalog_name
from site_builder.vocabulary.names import id_problem

_PAGE_ID = re.compile(r"^[a-z0-9][a-z0-9-]*\Z")  # the rule frontmatter.py applies to page ids
_FLOW = re.compile(r"^pages:[ \t]*\[(?P<items>[^\]]*?)(?P<end>\s*)\]", re.MULTILINE)
_BLOCK = re.compile(r"^pages:[ \t]*(?:#.*)?\n(?P<items>(?:[ \t]*(?:-[^\n]*|#[^\n]*)?\n)*)", re.MULTILINE)


def new_lesson(root: Path, page_id: str, content_dir: str = "content") -> Path:
    """Write ``content/pages/<id>.md`` from the template and list it in ``site.yml``; return the page path.

    Raises ``ValueError`` with a message for the teacher when the id is invalid or taken.
    """
    skeleton = SKELETONS / f"lesson.{catalog_name(course_language(root, content_dir))}.md"
    skeleton = skeleton if skeleton.is_file() else SKELETONS / "lesson.md"
    return add_page(root, page_id, skeleton.read_text(encoding="utf-8").replace("{{id}}", page_id), content_dir)


def add_page(root: Path, page_id: str, page_text: str, content_dir: str = "content") -> Path:
    """Write ``content/pages/<id>.md`` holding ``page_text`` and list it in ``site.yml``; return the page path.

    Raises ``ValueError`` with a message for the teacher when the id is invalid or taken.
    """
    if not _PAGE_ID.match(page_id):
        raise ValueError(_("'{id}' is not a valid page id: use lowercase letters, digits and '-', "
                           "starting with a letter or digit (e.g. 'r56' or 'kv-paging')", id=page_id))
    if too_long := id_problem(page_id):
        raise ValueError(too_long)
    content = root / content_dir
    page = content / "pages" / f"{page_id}.md"
    site_yml = content / "site.yml"
    if page.exists() or page.is_symlink():  # a dangling link too: writing through it would land elsewhere
        raise ValueError(_("{path} already exists: choose another id", path=page.relative_to(root).as_posix()))
    try:  # the build's own reader: never blocks on a FIFO, never follows a link out of content/
        text = read_content_file(content, site_yml).decode("utf-8", errors="replace")
    except ValueError as refused:
        raise ValueError(site_yml.relative_to(root).as_posix() + " " + refused.args[0]) from None
    pages = (yaml.safe_load(text) or {}).get("pages") or []
    if page_id in pages:
        raise ValueError(_("{path} already lists '{id}': choose another id", path=site_yml.relative_to(root).as_posix(),
                           id=page_id))
    listed = add_page_id(text, page_id)
    if (yaml.safe_load(listed) or {}).get("pages") != [*pages, page_id]:
        raise ValueError(_("could not add '{id}' to the pages list of {path} automatically: add it by hand, "
                           "then run this again", id=page_id, path=site_yml.relative_to(root).as_posix()))
    page.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(page, page_text)
    write_atomic(site_yml, listed)
    return page


def add_page_id(text: str, page_id: str) -> str:
    """``site.yml`` text with ``page_id`` appended to ``pages`` (flow ``[a, b]`` or block ``- a`` style)."""
    flow = _FLOW.search(text)
    if flow:
        items = flow.group("items")
        at = flow.start("items") + len(items.rstrip())
        return text[:at] + (", " if items.strip() else "") + page_id + text[at:]
    text = text if text.endswith("\n") else text + "\n"
    block = _BLOCK.search(text)
    items = list(re.finditer(r"^([ \t]*)-[^\n]*\n", block.group("items"), re.MULTILINE)) if block else []
    if not items:
        return text
    indent = items[-1].group(1)
    at = block.start("items") + items[-1].end()
    return text[:at] + f"{indent}- {page_id}\n" + text[at:]
