"""The search stage: a Pagefind index of the public site, fed from the parsed pages.

Chinese has no spaces between words, and Pagefind segments it one way when it
indexes (a dictionary) and another in the browser (``Intl.Segmenter``, or one
character at a time), so a word could be indexed whole and searched in pieces:
缓存 then matched every page with 存, and 字节 matched "第 5 节". Here index
and query are cut the same, simple way: every run of Chinese characters becomes
its overlapping character pairs (键值缓存 → 键值 值缓 缓存), everything else stays
as it is, and Pagefind is told the text is space-separated (``force_language``
``en``: no segmentation of its own). ``static/search-engine.js`` cuts the query with the
same rule, so a word matches exactly the pages that contain it, in order; a
quoted phrase asks Pagefind for those pairs consecutively; a word that occurs
nowhere has a pair that occurs nowhere and finds nothing. It joins the
pairs back into text for titles and excerpts.

The text comes from what the build already has — each page's public resolved page
(resolve.py: teacher notes removed, roles as text), its headings and states as anchored
headings (so a result can land on the right state), the values and sources for
the two generated pages — never from reading the written HTML back. search_index.py runs
Pagefind on them.
"""

from __future__ import annotations

import hashlib
import html
import json
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np

from site_builder.markdown.mathtext import math_text
from site_builder.markdown.source import inline_text, parse_inline, role_pieces
from site_builder.parse.page import ParsedPage
from site_builder.render.html import figure_anchor
from site_builder.resolve.resolved import SiteView, Stepper, resolve_page, role_text
from site_builder.vocabulary.atomic import write_atomic
from site_builder.vocabulary.i18n import _
from site_builder.vocabulary.numbers import display

LANGUAGE = "en"
"""What Pagefind is told: split on spaces, no segmenter of its own (the text arrives cut into pairs)."""
_CJK = ((0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF))
"""Chinese characters (the unified ideographs, extension A, the compatibility ideographs): cut into pairs."""
_CJK_PUNCT = ((0x3000, 0x303F), (0xFF01, 0xFF0F), (0xFF1A, 0xFF20), (0xFF3B, 0xFF40), (0xFF5B, 0xFF65))
"""Chinese punctuation and full-width forms: each set apart by spaces."""
_SHARED_PUNCT = ((0x2018, 0x201F), (0x2026, 0x2026), (0x2014, 0x2014))
"""Curly quotes, … and —, which Chinese and English both write: set apart next to a Chinese character or mark
(的“缓存”。), left on their word elsewhere (the “cache” of, it’s). Pagefind drops them from the word it
indexes, and the browser shows them where they were: set apart, they would be shown joined (the“cache”of)."""
_NONE = 0x110000
"""Above every code point: a slot of ``_cut``'s output that holds nothing."""


def search_terms(text: str) -> str:
    """``text`` as Pagefind should index it: Chinese runs as overlapping pairs, punctuation apart.

    static/search-engine.js ``terms()`` is the same rule for queries; tests/browser/test_search.py compares the two
    on random texts.
    """
    return " ".join(_cut(text).split())


def _cut(text: str) -> str:
    """``text`` with each run of Chinese characters as `` p1 p2 … `` (its overlapping pairs; one character
    alone as itself) and each Chinese punctuation mark as `` p ``, spaces around; everything else as it is.

    On arrays of code points: each character gives up to four characters of output, in one pass for the
    whole text (a regular expression calling back per run cost four times as much, for a page's text).
    """
    codes = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), np.uint32)
    chinese, marks = _within(codes, _CJK), _within(codes, _CJK_PUNCT)
    after, before = np.zeros_like(chinese), np.zeros_like(chinese)
    after[:-1], before[1:] = chinese[1:], chinese[:-1]
    beside = np.zeros_like(chinese)  # a Chinese character or mark on either side
    beside[:-1] |= marks[1:]
    beside[1:] |= marks[:-1]
    punctuation = marks | (_within(codes, _SHARED_PUNCT) & (beside | before | after))
    following = np.zeros_like(codes)
    following[:-1] = codes[1:]
    pair = chinese & after  # this character and the next are a pair
    first = pair & ~before  # a run's first pair: a space before it
    spaced = first | punctuation | (chinese & ~before & ~after)  # a space before, the character itself next
    out = np.empty((len(codes), 4), np.uint32)
    out[:, 0] = np.where(spaced, 32, np.where(chinese & ~pair, _NONE, codes))  # a run's last character: nothing
    out[:, 1] = np.where(spaced, codes, np.where(pair, following, _NONE))
    out[:, 2] = np.where(first, following, np.where(spaced | pair, 32, _NONE))
    out[:, 3] = np.where(first, 32, _NONE)
    kept = out.ravel()
    return kept[kept != _NONE].tobytes().decode("utf-32-le", "surrogatepass")


def _within(codes: np.ndarray, ranges: tuple[tuple[int, int], ...]) -> np.ndarray:
    found = np.zeros(len(codes), bool)
    for low, high in ranges:
        found |= (codes >= low) & (codes <= high)
    return found


# ------------------------------------------------------------------ documents --
_TITLE = ' data-pagefind-weight="10"'
"""A word in a page's title outranks the same word in its text (Pagefind's highest weight)."""
_TEXT_BLOCKS = frozenset({"fence", "code_block"})
"""Block tokens whose content is their text (code is searchable as written)."""
_END = " \u00b6"
"""Ends every block of a document. Pagefind joins a block that ends without punctuation to the next
with ". ", which excerpts showed as stray full stops; static/search-engine.js reads this mark as a
break between blocks and never shows it."""
LESSON, REFERENCE = "lesson", "reference"
"""The tier of a document: a lesson or article ranks above the index page and the generated pages
(numbers, sources, glossary, figures), which name the same words in passing or as a list. Only lessons
carry the ``tier`` filter (static/search-engine.js asks for it): Pagefind writes a filter's values in an
order that changes from run to run, and with one value the filter file is the same bytes every build."""


def page_document(page: ParsedPage, site: SiteView) -> str:
    """One page's search document, from its public resolved page: its title, its text, and an anchored
    heading per heading or state (so a result lands on the right state)."""
    parts = [(f"<h1{_TITLE}>", page.meta.title),
             ("<p>", "".join(p if isinstance(p, str) else role_text(site, *p) for p in role_pieces(page.meta.summary)))]
    for section in resolve_page(site, page).sections:
        for state in section.states if isinstance(section, Stepper) else ():
            source = state.source
            parts += [(f'<h2 id="{html.escape(state.anchor)}">', source.title),
                      *_token_texts(site, source.caption + source.body + source.more, source.figure)]
        if not isinstance(section, Stepper):
            parts += _token_texts(site, section, "")
    return _document(_blocks([part for part in parts if part[1].strip()]),
                     REFERENCE if page.meta.kind == "index" else LESSON)


def _token_texts(site: SiteView, tokens, figure: str) -> list[tuple[str, str]]:
    """(tag, text) of each heading, paragraph, cell, picture and code or maths block, roles and maths as text."""
    parts, heading = [], None
    for token in tokens:
        if token.type == "heading_open":
            heading = f'<h2 id="{html.escape(token.attrGet("id") or "")}">'
        elif token.type == "inline":
            text = inline_text(token, lambda name, target: role_text(site, name, target, figure), math_text)
            parts.append((heading or "<p>", text))
            heading = None
        elif token.type in _TEXT_BLOCKS:
            parts.append(("<p>", token.content))
        elif token.type == "math_block":
            parts.append(("<p>", math_text(token.content)))
        elif token.type == "image_figure":
            parts.append(("<p>", f"{token.meta['alt']} {token.meta['caption']}"))
    return parts


_REFERENCE = ' data-pagefind-weight="0.1"'
_REFERENCE_HEADING = ' data-pagefind-weight="0.5"'
"""The reference pages (numbers, sources) list names, configurations and paper titles verbatim:
a word there ranks below the same word in a lesson's title or text."""


def _entry(anchor: str, heading: str, text: str) -> list[tuple[str, str]]:
    """One entry of a reference page: its anchored heading and its text, both ranked as reference."""
    return [(f'<h2 id="{html.escape(anchor)}"{_REFERENCE_HEADING}>', heading), (f"<p{_REFERENCE}>", text)]


def values_document(values: Iterable, say: Callable[[str], str] = str, text=None) -> str:
    """numbers.html as the reader sees it: each value's name, displayed value and description (in the
    reader's language where content/values.yml gives one, as the page does), and each group's title
    and conditions once."""
    out, groups = [("<h1>", say(_("Numbers and where they come from")))], set()
    for v in sorted(values, key=lambda v: v.name):
        if v.producer not in groups:  # the group's title, conditions and command, said once as the page does
            groups.add(v.producer)
            title = (text.group_title(v.producer) if text else "") or v.producer
            out += _entry(f"group-{v.producer}", title, " ".join(filter(None, (v.producer, v.conditions, v.command))))
        description = (text.describe(v.name) if text else "") or v.description
        out += _entry(v.name, f"{v.name} = {say(display(v))}", description)
    return _document(_blocks(out), REFERENCE)


def sources_document(sources: Iterable, say: Callable[[str], str] = str) -> str:
    """sources.html: each source's id, title, authors and what was checked where."""
    out = [("<h1>", say(_("Sources")))]
    for s in sources:
        text = " ".join(str(x) for x in (s.authors, s.year, s.checked, s.where) if x)
        out += _entry(f"{s.id}-title", f"[{s.id}] {s.title}", text)  # as the page heads it
    return _document(_blocks(out), REFERENCE)


def glossary_document(terms: Iterable, say: Callable[[str], str] = str) -> str:
    """glossary.html: each term, its definition (maths as text) and every wording the page lists."""
    out = [("<h1>", say(_("Glossary")))]
    for t in terms:
        definition = inline_text(parse_inline(t.definition), math=math_text)
        out += _entry(t.anchor, t.term, " ".join((definition, *t.allowed, *t.forbidden)))
    return _document(_blocks(out), REFERENCE)


def figures_document(figures: Iterable, say: Callable[[str], str] = str) -> str:
    """figures.html: each figure's short text and description (not its id: a highlight of the word GQA
    would have marked all of ``kv-bytes-gqa``)."""
    out = [("<h1>", say(_("All figures")))]
    for f in sorted(figures, key=lambda f: f.id):
        out += _entry(figure_anchor(f.id), f.alt, f.description)
    return _document(_blocks(out), REFERENCE)


def synonyms(terms: Iterable) -> list[dict[str, list[str]]]:
    """The glossary as search synonyms: a query holding any wording of a term (preferred, allowed or
    refused) also searches for each wording a page may write (static/search-engine.js)."""
    return [{"words": list(t.words), "also": list(t.forbidden)} for t in terms if len(t.words) + len(t.forbidden) > 1]


def site_documents(prepared, cache: Path | None = None) -> dict[str, str]:
    """URL → search document for every indexed page of the public site, in site order.

    With a ``cache`` folder, a page's document is kept there between builds (``_kept_documents``),
    so an edit makes one page's document again, not every page's.
    """
    site = SiteView(prepared.content, prepared.pages, prepared.evidence, False, prepared.images)
    if cache is None:
        docs = {f"{page_id}.html": page_document(page, site) for page_id, page in prepared.pages.items()}
    else:
        docs = _kept_documents(prepared, site, Path(cache))
    docs["numbers.html"] = values_document(prepared.evidence.values.values(), site.say, prepared.content.value_text)
    docs["sources.html"] = sources_document(prepared.content.sources, site.say)
    docs["glossary.html"] = glossary_document(prepared.content.glossary, site.say)
    docs["figures.html"] = figures_document(prepared.evidence.figures.values(), site.say)
    return docs


def _kept_documents(prepared, site: SiteView, cache: Path) -> dict[str, str]:
    """The pages' documents, each kept in ``cache`` under a hash of everything it is made from (its
    source, the titles of every page, the evidence, the language, the code)."""
    from site_builder.render.keys import code_digest, digest, evidence_digest, source_key

    titles = {page_id: p.meta.title for page_id, p in prepared.pages.items()}
    held = _held_documents(cache)
    common = digest(code_digest(), evidence_digest(prepared.evidence), repr(sorted(titles.items())),
                    prepared.content.config.language)
    kept: dict[str, tuple[str, str]] = {}
    for page_id, page in prepared.pages.items():
        url, key = f"{page_id}.html", digest(common, source_key(page))
        kept[url] = held[url] if url in held and held[url][0] == key else \
            (key, page_document(page, site))
    if kept != held:
        _hold_documents(cache, kept)
    return {url: document for url, (_key, document) in kept.items()}


_DOCUMENTS = "documents.json"
"""URL → [key, document, the document's sha256]: plain data, read back only where an entry has exactly
that shape and its document still has its digest (an edited document is made again, never indexed)."""


def _held_documents(cache: Path) -> dict[str, tuple[str, str]]:
    try:
        held = json.loads((cache / _DOCUMENTS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {url: (entry[0], entry[1]) for url, entry in held.items()
            if isinstance(entry, list) and len(entry) == 3 and all(isinstance(part, str) for part in entry)
            and hashlib.sha256(entry[1].encode()).hexdigest() == entry[2]} if isinstance(held, dict) else {}


def _hold_documents(cache: Path, documents: dict[str, tuple[str, str]]) -> None:
    entries = {url: [key, document, hashlib.sha256(document.encode()).hexdigest()]
               for url, (key, document) in documents.items()}
    write_atomic(cache / _DOCUMENTS, json.dumps(entries, ensure_ascii=False))


def _block(tag: str, cut: str) -> str:
    """One block of a document from text already cut into pairs."""
    return f"{tag}{html.escape(' '.join(cut.split()), quote=False)}{_END}</{tag[1:3].rstrip('> ')}>"


def _blocks(parts: list[tuple[str, str]]) -> list[str]:
    """Each (tag, text) as a block, every text cut into pairs in one pass (``_cut`` costs about as much for
    a line as for a page), unless a text holds the NUL that joins them."""
    texts = [text for _tag, text in parts]
    joined = "\x00".join(texts)
    cut = _cut(joined).split("\x00") if joined.count("\x00") == len(texts) - 1 else list(map(_cut, texts))
    return [_block(tag, text) for (tag, _text), text in zip(parts, cut, strict=True)]


def _document(parts: list[str], tier: str = LESSON) -> str:
    tagged = ' data-pagefind-filter="tier:lesson"' if tier == LESSON else ""
    return ('<!doctype html><html lang="en"><head><meta charset="utf-8"></head><body>'
            f'<main data-pagefind-body{tagged}>' + "".join(parts) + "</main></body></html>")
