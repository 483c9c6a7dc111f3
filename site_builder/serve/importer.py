"""``python build.py import PATH``: a MyST or d2l page made a page of this course, with what still needs a hand.

``convert_page`` is a pure function from the page's text to the converted text and a list of notes
(line in the converted page, what to do there); ``import_page`` writes the result to
``content/pages/<id>.md``, lists it in ``site.yml`` and prints the notes. What the build reads as it
is (MyST directives, labels, ``{eq}``…) stays as written; what it does not is converted:

- d2l: ``:label:`` after a heading → ``(label)=`` before it; after a picture (with ``:width:``) → a
  ``{figure}`` with ``:name:``; ``:eqlabel:`` → ``$$ … $$ (label)``; ``:eqref:``/``:numref:``/``:ref:`` →
  ``{eq}``/``{numref}``/``{ref}``; ``:cite:`` → ``{cite}``; of the framework tabs (``#@tab``, ``%%tab``,
  ``:begin_tab:``) only the chosen framework's code and text are kept;
- MyST: ``{index}`LLN <single: LLN>``` → ``LLN`` (the site has its search, no index); the notebook header
  keys and ```` ```{raw} jupyter ```` blocks (shown only in a notebook) are
  dropped; ``{{ name }}`` → its substitution;
- a picture from elsewhere (``../img/x.svg``) is written as ``images/x.svg``; the note says to copy it there.

Each cited key (``:cite:`` becomes ``{cite}``) is listed: its BibTeX entry goes in ``content/references.bib``.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

from site_builder.load.frontmatter import FRONT_MATTER_KEYS
from site_builder.markdown.directives import DIRECTIVES
from site_builder.serve.scaffold import add_page
from site_builder.vocabulary.i18n import Text, _, localize
from site_builder.vocabulary.names import GENERATED_PAGES

_D2L_ROLE = re.compile(r":(eqref|numref|ref|cite):`([^`]+)`")
_INDEX_ROLE = re.compile(r"\{index\}`([^`<]*)(?:<[^`>]*>)?`")
_MYST_CITE = re.compile(r"\{cite(?::[a-z]+)?\}`([^`]+)`")
_LINE_ROLE = re.compile(r"^\s*:(label|eqlabel|width):`([^`]+)`\s*$")
_TAB = re.compile(r"^\s*(?:#\s*@tab|%%tab)\s+(.*)$")
_BEGIN_TAB = re.compile(r"^\s*:begin_tab:`([^`]+)`\s*$")
_FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*(\S*)")
_DIRECTIVE = re.compile(r"^\s*(?::{3,}|`{3,})\{([A-Za-z][\w-]*)\}")
_IMAGE = re.compile(r"^\s*!\[([^\]]*)\]\(([^)\s]+)(?:\s+\"([^\"]*)\")?\)\s*$")
_BACKTICKS = re.compile(r"^\s*(`{3,})\{")
_RAW_JUPYTER = re.compile(r"^\s*(`{3,}|~{3,})\{raw\}\s+jupyter\s*$")
_JINJA = re.compile(r"\{\{.*?\}\}")
_SUBSTITUTION = re.compile(r"\{\{\s*([\w-]+)\s*\}\}")


@dataclass(frozen=True)
class Converted:
    """A page after ``convert_page``."""

    text: str
    notes: tuple[tuple[int, Text], ...]
    """(1-based line in ``text``, what still needs a hand there), in order."""


def convert_page(text: str, framework: str = "pytorch") -> Converted:
    """``text`` (MyST or d2l Markdown) in this course's Markdown; ``framework``: the d2l tab to keep."""
    lines = text.replace("\r\n", "\n").split("\n")
    header, body, substitutions = _front_matter(lines)
    out: list[str] = list(header)
    notes: list[tuple[int, Text]] = []
    i, fence, closers = 0, "", []
    while i < len(body):
        line = body[i]
        if fence:  # inside a code block: copied as it is until its closer
            out.append(line)
            fence = "" if line.strip() == fence else fence
            i += 1
            continue
        if closers and line.strip() == closers[-1]:  # a backtick directive's closer, not a code block's opener
            out.append(line)
            closers.pop()
            i += 1
            continue
        if (opened := _FENCE.match(line)) and not _DIRECTIVE.match(line):
            i = _code_block(body, i, opened, framework, out)
            continue
        if (tab := _BEGIN_TAB.match(line)) is not None:
            end = next((j for j in range(i + 1, len(body)) if body[j].strip() == ":end_tab:"), len(body))
            if tab.group(1).strip() in (framework, "all"):
                out += body[i + 1:end]
            i = end + 1
            continue
        if (role := _LINE_ROLE.match(line)) is not None:
            _line_role(role.group(1), role.group(2), out, notes)
            i += 1
            continue
        if raw := _RAW_JUPYTER.match(line):  # shown only in a notebook (QuantEcon's logo header): not on a page
            i = next((j for j in range(i + 1, len(body)) if body[j].strip() == raw.group(1)), len(body)) + 1
            while i < len(body) and not body[i].strip() and not (out and out[-1].strip()):
                i += 1  # nor the gap it leaves
            continue
        if (directive := _DIRECTIVE.match(line)) and directive.group(1) not in DIRECTIVES:
            notes.append((len(out) + 1, _("directive '{{{name}}}' has no equivalent here: rewrite this part by hand",
                                          name=directive.group(1))))
        elif directive and directive.group(1) == "code-cell":
            notes.append((len(out) + 1, _("a code cell's output is not produced: if its numbers matter, make it an "
                                          "experiment and cite them with {{num}} (docs/reference.md)")))
        out.append(_inline(line, substitutions, len(out) + 1, notes))
        if directive and (ticks := _BACKTICKS.match(line)):  # code and math are copied as they are
            if DIRECTIVES.get(directive.group(1)) and DIRECTIVES[directive.group(1)].literal in ("code", "math"):
                fence = ticks.group(1)
            else:
                closers.append(ticks.group(1))
        i += 1
    copied = set()
    for n, row in enumerate(out):  # a picture elsewhere: written as images/<its name>, to be copied there once
        if (image := _IMAGE.match(row) or _FIGURE_SRC.match(row)) and not image.group(2).startswith("images/"):
            name = image.group(2).rsplit("/", 1)[-1]
            out[n] = row[:image.start(2)] + f"images/{name}" + row[image.end(2):]
            if image.group(2) in copied:
                continue
            copied.add(image.group(2))
            notes.append((n + 1, _("picture '{src}': copy it to content/pages/images/{name} (PNG, JPEG, GIF, WebP or "
                                   "SVG)", src=image.group(2), name=name)))
    _rename_shared_labels(out, notes)
    return Converted("\n".join(out), tuple(sorted(notes, key=lambda note: note[0])))


_TARGET = re.compile(r"^\s*\(([^()\s]+)\)=\s*$")
_EQUATION_LABEL = re.compile(r"^\s*:label:\s*(\S+)\s*$|\$\$\s*\(([^()\s]+)\)\s*$")


def _rename_shared_labels(out: list[str], notes: list[tuple[int, Text]]) -> None:
    """A ``(x)=`` target named like an equation's label gets ``-section`` after its name, in its ``{ref}`` uses
    too: Sphinx keeps the two apart (``{eq}`` finds one, ``{ref}`` the other); a page here has one anchor
    per name."""
    equations = {found.group(1) or found.group(2) for row in out if (found := _EQUATION_LABEL.search(row))}
    for n, row in enumerate(out):
        if (target := _TARGET.match(row)) and target.group(1) in equations:
            name = target.group(1)
            out[n] = f"({name}-section)="
            notes.append((n + 1, _("label '{name}' named both this place and a formula: this place is now "
                                   "'{name}-section' (so are its {{ref}} links); other pages linking it need the "
                                   "new name", name=name)))
            for m, other in enumerate(out):
                out[m] = other.replace(f"{{ref}}`{name}`", f"{{ref}}`{name}-section`").replace(
                    f"<{name}>`", f"<{name}-section>`")


_FIGURE_SRC = re.compile(r"^()\s*(?::{3,}|`{3,})\{(?:figure|image)\}\s+(\S+)")


def _front_matter(lines: list[str]) -> tuple[list[str], list[str], dict[str, str]]:
    """The front matter with only this site's keys, the body, and MyST's substitutions (``myst: substitutions``
    or ``substitutions``)."""
    end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None) if lines[0].strip() == "---" \
        else None
    if end is None:
        return [], lines, {}
    data = yaml.safe_load("\n".join(lines[1:end])) or {}
    data = data if isinstance(data, dict) else {}
    found = (data.get("myst") or {}).get("substitutions") if isinstance(data.get("myst"), dict) else None
    substitutions = {str(k): str(v).rstrip("\n") for k, v in (found or data.get("substitutions") or {}).items()}
    for _round in range(len(substitutions)):  # a value may use another (MyST fills them in too)
        substitutions = _filled(substitutions)
    kept = [f"{key}: {yaml.safe_dump(value, allow_unicode=True).strip().removesuffix('...').strip()}"
            for key, value in data.items() if key in FRONT_MATTER_KEYS]
    body = lines[end + 1:]
    while not kept and body and not body[0].strip():  # nothing of the header is left: neither of its gap
        body = body[1:]
    return (["---", *kept, "---"] if kept else []), body, substitutions


def _filled(substitutions: dict[str, str]) -> dict[str, str]:
    """Each value with the substitutions it uses filled in (one level)."""
    return {key: _SUBSTITUTION.sub(lambda m: substitutions.get(m.group(1), m.group(0)), value)
            for key, value in substitutions.items()}


def _code_block(body: list[str], i: int, opened: re.Match[str], framework: str, out: list[str]) -> int:
    """Copy the code block at ``body[i]`` (a d2l one only for ``framework``, as ```` ```python ````); the line
    after it."""
    indent, fence, info = opened.groups()
    end = next((j for j in range(i + 1, len(body)) if body[j].strip().startswith(fence)
                and not body[j].strip().strip(fence[0])), len(body))
    code = body[i + 1:end]
    tab = _TAB.match(code[0]) if code else None
    if info.startswith("{.") or tab:  # d2l: one block per framework; an untagged one is d2l's default, mxnet
        chosen = tab.group(1).split(",") if tab else ["mxnet"]
        if framework in [name.strip() for name in chosen] or "all" in chosen:
            out += [f"{indent}{fence}python", *code[1 if tab else 0:], f"{indent}{fence}"]
    else:
        out += body[i:end + 1]
    return end + 1


def _line_role(name: str, target: str, out: list[str], notes: list[tuple[int, Text]]) -> None:
    """A d2l ``:label:``, ``:eqlabel:`` or ``:width:`` line, applied to the block above it."""
    above = max((n for n, row in enumerate(out) if row.strip()), default=-1)
    key = "name" if name == "label" else name
    figure = next((n for n in range(above - 1, -1, -1) if out[n].startswith("```{figure}")), None) \
        if above >= 0 and out[above] == "```" else None
    if name == "eqlabel" and above >= 0 and out[above].rstrip().endswith("$$"):
        out[above] = f"{out[above].rstrip()} ({target})"
    elif name != "eqlabel" and above >= 0 and (image := _IMAGE.match(out[above])):
        out[above:above + 1] = [f"```{{figure}} {image.group(2)}", f":alt: {image.group(1)}", f":{key}: {target}",
                                "", image.group(3) or image.group(1), "```"]
    elif name != "eqlabel" and figure is not None:
        out.insert(figure + 1, f":{key}: {target}")
    elif name == "label" and above >= 0:
        out.insert(above, f"({target})=")
    else:
        notes.append((len(out) + 1, _("':{name}:`{target}`' labels nothing above it: place '({target})=' by hand",
                                      name=name, target=target)))


def _inline(line: str, substitutions: dict[str, str], number: int, notes: list[tuple[int, Text]]) -> str:
    """A line with d2l's inline roles, ``{cite}`` and substitutions converted (a citation noted: its source
    must be listed)."""
    def cited(keys: str, written: str) -> str:
        notes.extend((number, _("cited key '{key}': put its BibTeX entry in content/references.bib", key=key.strip()))
                     for key in keys.split(",") if key.strip())
        return written

    line = _INDEX_ROLE.sub(lambda m: m.group(1).strip(), line)  # an index entry: the site has its search
    line = _MYST_CITE.sub(lambda m: cited(m.group(1), m.group(0)), line)
    line = _D2L_ROLE.sub(lambda m: cited(m.group(2), f"{{cite}}`{m.group(2)}`") if m.group(1) == "cite" else
                         f"{{{'eq' if m.group(1) == 'eqref' else m.group(1)}}}`{m.group(2)}`", line)

    def substituted(found: re.Match[str]) -> str:
        if found.group(1) in substitutions:
            return substitutions[found.group(1)]
        notes.append((number, _("'{{{{ {name} }}}}' has no substitution in the front matter: write its text",
                                name=found.group(1))))
        return found.group(0)

    line = _SUBSTITUTION.sub(substituted, line)
    notes.extend((number, _("'{expression}' is a Jinja expression, which this site does not evaluate: write its "
                            "result", expression=found.group(0)))
                 for found in _JINJA.finditer(line) if not _SUBSTITUTION.fullmatch(found.group(0)))
    return line


def page_id_for(path: Path) -> str:
    """A page id from a file name: lowercase, runs of other characters as one ``-``; ``-page`` after the name
    of a page the site makes (``figures.md`` → ``figures-page``)."""
    page_id = re.sub(r"[^a-z0-9]+", "-", path.stem.lower()).strip("-") or "page"
    return f"{page_id}-page" if page_id in GENERATED_PAGES else page_id


def import_page(root: Path, source: Path) -> tuple[Path, Converted]:
    """Convert ``source`` and write it as ``content/pages/<id>.md``, listed in ``site.yml``; ``ValueError``
    saying why not (an unreadable file, a page that exists)."""
    try:
        text = source.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise ValueError(_("cannot read {path}: {reason}", path=source, reason=str(error))) from None
    converted = convert_page(text)
    return add_page(root, page_id_for(source), converted.text + "\n"), converted


def run_import(root: Path, source: Path, language: str) -> int:
    """``python build.py import PATH``: write the page, then say where and what still needs a hand."""
    try:
        page, converted = import_page(root, source)
    except ValueError as error:
        print(localize(_("import: ") + error.args[0], language), file=sys.stderr)
        return 1
    where = page.relative_to(root).as_posix()
    print(localize(_("created {path} and listed it in content/site.yml; {n} thing(s) still need a hand "
                     "(then run python build.py, which names anything else at its line):",
                     path=where, n=len(converted.notes)), language))
    for line, note in converted.notes:
        print(f"{where}:{line}: {localize(note, language)}")
    return 0
