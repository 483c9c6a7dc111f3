"""The build engine: ``python build.py``, ``check`` and ``serve`` all build through ``Engine.build``.

One keyed store (keys.py says what each key is made of):

- source digest → the parsed page and its problems (persisted for pages without problems);
- per site, render key → that page's files (the generated pages are one more entry, and each translation's
  pages and generated pages more, under its folder: ``en/alpha``);
- per output folder → what the last build wrote there: each file's sha256 and formula characters,
  and the digest of every input of that build.

The dev server keeps the store in memory and writes its private folder in place. ``python build.py``
persists the parsed pages (``parsed_store``) and what it wrote (JSON per output folder) in ``store``
between processes and swaps each site in whole, linking what did not change. ``check`` gives no store.

A file of an earlier build is used only while its folder is the very one that build swapped in
(``folder_identity``) and the file still has the digest that build recorded; otherwise its page is
rendered and the file written again, so the result is always the bytes a clean build writes
(tests/test_engine.py checks this).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable, Hashable, Iterable
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from site_builder.load.content import Content, Evidence, SourceFile
from site_builder.load.digest import content_digest
from site_builder.load.files import file_stamp
from site_builder.load.loader import load_content
from site_builder.render.keys import (
    GENERATED,
    PageFacts,
    code_digest,
    digest,
    digest_after,
    evidence_digest,
    file_digest,
    file_stamps,
    files_of_pages,
    folder_identity,
    page_facts,
    render_keys,
    tree_digest,
)
from site_builder.render.mathfont import formula_characters, math_font_for
from site_builder.vocabulary.atomic import write_atomic
from site_builder.vocabulary.problems import ContentError, Problem
from site_builder.write.writer import together, update_in_place, write_site

if TYPE_CHECKING:
    from jinja2 import Environment

    from site_builder.engine.pipeline import Parsed, PreparedSite, SiteFiles
    from site_builder.parse.page import ParsedPage

# The renderer (the pipeline, Jinja, the Markdown parser and the parsed pages' store) is imported by the methods
# that render, parse or check: a build that finds every input unchanged needs only digests, and importing it would
# be most of that build's time (about 0.5 of 1 CPU-s at 1000 pages).


@dataclass(frozen=True)
class Output:
    """One site the engine writes."""

    teacher: bool
    """The teacher site (with teacher notes), or the public one."""
    folder: Path
    """Where it goes."""
    finish: Callable[[PreparedSite], Callable[[Path], None]] | None = None
    """Given the prepared site, what to run on the complete staging folder before the swap (the search
    index); called only when the site is written, before its pages are rendered."""


@dataclass(frozen=True)
class BuildReport:
    """What one build did."""

    prepared: PreparedSite | None
    """The site as built; ``None`` when every input was the one the folders were built from."""
    changed_urls: tuple[str, ...]
    """Site-relative paths (``alpha.html``) of the HTML pages an open browser tab should reload."""
    changed_files: tuple[str, ...]
    """Every output file that was written anew (added, changed) or removed."""
    rendered: tuple[str, ...]
    """Ids of the pages rendered this time (the others came from the store)."""
    seconds: float
    """Wall-clock time of the build, writing included."""

    @property
    def warnings(self) -> tuple[Problem, ...]:
        """Likely mistakes that did not stop the build."""
        return self.prepared.warnings if self.prepared else ()


class Engine:
    """Builds the sites of ``outputs`` from ``root``'s content, keeping what it made in its store.

    Mutable on purpose: it exists to remember. Not thread-safe; builds run one at a time.
    """

    def __init__(self, root: Path, outputs: tuple[Output, ...], content_dir: str = "content", store: Path | None = None,
                 assets: Path | None = None, workers: int = 1, serving: bool = False) -> None:
        """``store``: where the store persists between processes (none: this process only); ``assets``:
        the writer's content-addressed store; ``workers``: rendering processes; ``serving``: a dev
        server, which writes its private folder in place and keeps the garbage collector running."""
        self.root, self.outputs, self.content_dir = root, outputs, content_dir
        self.store, self.assets, self.workers, self.serving = store, assets, workers, serving
        self._parsed: dict[str, tuple[ParsedPage | None, list[Problem]]] = {}
        self._keys: dict[str, str] = {}
        """Page path → its source digest, this build."""
        self._sources: dict[str, tuple[SourceFile, str]] = {}  # page path → the last build's source, its digest
        self._facts: dict[str, PageFacts] = {}
        self._checked: dict[tuple, list[Problem]] = {}
        self._key_memo: dict[bool, dict[tuple[str, ...], str]] = {}  # per site: ``render_keys``'s memo
        self._evidence: tuple[Evidence, str] | None = None
        self._pages: dict[bool, dict[str, tuple[str, SiteFiles]]] = {o.teacher: {} for o in outputs}
        self._written: dict[Path, dict] = {o.folder: self._load_state(o.folder) for o in outputs}
        self._jinja: tuple[str, Environment] | None = None
        self._stored: dict[str, bytes] | None = None
        """Source digest → the parsed page as persisted (``parsed_store``), once read."""
        self.prepared: PreparedSite | None = None
        """The site of the build being written (for an output's ``finish``), then of the last one."""

    # ------------------------------------------------------------------ the build --
    def build(self, evidence: Evidence, loaded: tuple[Content, list[Problem]] | tuple = ()) -> BuildReport:
        """Load (or take ``loaded``), parse, check, render and write what changed; raise ``ContentError``
        with every problem found. On any error the folders and the store of the last good build stay."""
        started = time.perf_counter()
        content, problems = loaded or load_content(self.root, self.content_dir)
        if content is None:
            raise ContentError(problems)
        inputs = digest(code_digest(), content_digest(self.root, self.content_dir, content.read),
                        evidence_digest(evidence)) if self.store else ""
        if inputs and all(self._written[o.folder].get("inputs") == inputs and self._trusted(o.folder)
                          and self._intact(o.folder, self._written[o.folder].get("files", {})) for o in self.outputs):
            return BuildReport(None, (), (), (), time.perf_counter() - started)
        from site_builder.engine.editions import edition_sources, with_editions
        from site_builder.engine.pipeline import STATIC, check_parsed, render_sites
        from site_builder.render.html import TEMPLATES
        from site_builder.write.verify import source_link_problems

        parsed = self._parse((*content.pages, *edition_sources(content)))  # one pass: the store keeps them all
        memo = self._memo(evidence)
        prepared = with_editions(check_parsed(content, parsed[:len(content.pages)], problems, evidence, memo),
                                 parsed[len(content.pages):], memo)
        self.prepared = prepared
        looks = digest(code_digest(), tree_digest(TEMPLATES, STATIC))
        keys = {o.teacher: self._render_keys(prepared, o.teacher, looks, evidence) for o in self.outputs}
        kept = {o.teacher: self._kept(o, keys[o.teacher]) for o in self.outputs}
        # Started before rendering (the search index is made meanwhile) when the site will be written.
        finishers = {o.teacher: o.finish(prepared) for o in self.outputs
                     if o.finish and (kept[o.teacher] != set(keys[o.teacher]) or not self._trusted(o.folder))}
        files = render_sites(prepared, tuple(o.teacher for o in self.outputs), self.workers, kept,
                             self._environment(looks))
        linking = [page for page in prepared.pages.values() if page.file_links]  # the others have nothing to check
        made = {rel: payload for teacher in sorted(files)  # public, then teacher: its pages hold every anchor
                for site in ([self._pages[teacher][page_id][1] for page_id in kept[teacher]] + [files[teacher]])
                for rel, payload in site.items()} if linking else {}
        if dead := source_link_problems(linking, made):  # before writing: both sites stay
            raise ContentError(dead)
        with together():  # both sites are swapped in at the end, or neither is
            changed = {output: self._write(output, files[output.teacher], keys[output.teacher], kept[output.teacher],
                                           finishers.get(output.teacher), inputs) for output in self.outputs}
        for output in self.outputs:  # once every site is written: linking a shared file changes its stamp
            self._save_state(output, keys[output.teacher], changed[output])
        rendered = tuple(dict.fromkeys(p for o in self.outputs for p in keys[o.teacher]
                                       if p not in kept[o.teacher] and not p.endswith(GENERATED)))
        changed_files = set().union(*changed.values())
        return BuildReport(prepared, _urls_to_reload(changed_files, prepared), tuple(sorted(changed_files)), rendered,
                           time.perf_counter() - started)

    def _render_keys(self, prepared: PreparedSite, teacher: bool, looks: str, evidence: Evidence) -> dict[str, str]:
        """Each page's key and the generated pages' (``GENERATED``), a translation's under its folder (``en/alpha``);
        the evidence's digest covers every edition's figures."""
        from site_builder.render.html import SiteView

        editions = (prepared, *prepared.editions)
        if len(memo := self._key_memo.setdefault(teacher, {})) > 2 * len(editions) * len(prepared.pages) + 8:
            memo.clear()  # a long editing session's old keys go
        keys = {}
        for edition in editions:
            site = SiteView(edition.content, edition.pages, edition.evidence, teacher, edition.images)
            pages, generated = render_keys(site, looks, self._evidence_digest(evidence),
                                           lambda page: self._keys[page.meta.path], self._page_facts, memo)
            prefix = edition.content.config.prefix
            keys.update({prefix + page_id: key for page_id, key in pages.items()} | {prefix + GENERATED: generated})
        return keys

    def _kept(self, output: Output, keys: dict[str, str]) -> set[str]:
        """Pages (and ``GENERATED``) whose files the store holds under this build's key; files of an
        earlier build are taken from its folder only while they still have the digest it recorded."""
        held, folder = self._pages[output.teacher], output.folder
        # Without a persisted store every page's files are held in memory (``_write``): nothing to verify.
        return {page_id for page_id, key in keys.items() if page_id in held and held[page_id][0] == key
                and (self.store is None or all(isinstance(payload, bytes) for payload in held[page_id][1].values())
                     or self._trusted(folder) and self._intact(folder, held[page_id][1]))}

    def _write(self, output: Output, files: SiteFiles, keys: dict[str, str], kept: set[str],
               finish: Callable[[Path], None] | None, inputs: str) -> set[str]:
        """Write one site: nothing when no file changed, only the changed files into the dev server's own
        folder, otherwise a whole new site swapped in, linking the unchanged files. Returns the changed paths."""
        state, folder = self._written[output.folder], output.folder
        trusted = self._trusted(folder)
        # A kept page's files are those of the last build: their digests and formula characters are as recorded.
        old_sums, old_formulas = state.get("files", {}) if trusted else {}, state.get("formulas", {})
        held = self._pages[output.teacher]
        pages = {page_id: held[page_id] for page_id in kept}
        kept_files = set().union(*(made for _key, made in pages.values()))
        owned = files_of_pages(files, keys, [page_id for page_id in keys if page_id not in kept])  # rendered now
        files = dict(files)
        for _key, made in pages.values():
            files.update(made)
        # The math font holds the characters of every page's formulas, kept pages' and every edition's included.
        formulas = {rel: old_formulas[rel] for rel in kept_files & old_formulas.keys()}
        formulas.update(formula_characters({rel: files[rel] for rel in files.keys() - kept_files}))
        files.update(math_font_for(formulas))
        sums = {rel: old_sums[rel] for rel in kept_files & old_sums.keys()}
        fresh = files.keys() - sums.keys()  # only these are looked at one by one: a save keeps thousands of files
        sums.update((rel, _sum(files[rel])) for rel in fresh)
        # A file made now is left (or linked) as it is only while the folder's copy still has the recorded
        # digest; a kept page's files were checked when it was kept (or are the dev server's, in memory).
        unchanged = (sums.keys() - fresh) | {rel for rel in fresh
                                             if old_sums.get(rel) == sums[rel] and self._intact(folder, (rel,))}
        changed = (sums.keys() - unchanged) | (old_sums.keys() - sums.keys())
        if self.serving and trusted:
            update_in_place(files, changed, folder)
        elif changed or not trusted or len(kept) < len(keys):
            if finish is None and output.finish and self.prepared:
                finish = output.finish(self.prepared)
            write_site(files, folder, finish=finish, reuse=unchanged, delete_later=self.serving, store=self.assets)
        for page_id, made in owned.items():
            if page_id not in pages:
                pages[page_id] = (keys[page_id], {rel: folder / rel if self.store else files[rel] for rel in made})
        self._pages[output.teacher] = pages
        self._written[folder] = {"inputs": inputs, "files": sums,
                                 "formulas": {rel: chars for rel, chars in formulas.items() if chars},
                                 "stamps": state.get("stamps", {}) if self.serving and trusted else {}}
        return changed

    def _trusted(self, folder: Path) -> bool:
        identity = self._written[folder].get("identity")
        return bool(identity) and identity == list(folder_identity(folder) or ())

    def _intact(self, folder: Path, files: Iterable[str]) -> bool:
        """Whether each of ``files`` in ``folder`` still has the digest the last build recorded. A file whose
        size and change time (which no write can keep, unlike the modification time) are those recorded
        after the build is that build's file; any other is read and its digest compared."""
        written, base = self._written[folder], os.fspath(folder)
        sums, stamps = written.get("files", {}), written.get("stamps", {})
        try:  # plain strings for the paths: with thousands of files, pathlib's overhead shows
            return all(rel in sums and ((stamp := file_stamp(os.path.join(base, rel))) and stamp == stamps.get(rel)
                                        or file_digest(folder / rel) == sums[rel]) for rel in files)
        except OSError:  # gone, or no longer a file
            return False

    # ------------------------------------------------------------ parse and check --
    def _parse(self, sources: tuple[SourceFile, ...]) -> Parsed:
        """Each source's parse, kept under the source's digest: in memory (the dev server parses only what
        changed) and, with a persisted store, between processes (``parsed_store``)."""
        from site_builder.engine import parsed_store
        from site_builder.engine.pipeline import collector_paused, parse_split

        kept: dict[str, tuple[ParsedPage | None, list[Problem]]] = {}  # source digest → its parse, this build's
        stored = parsed_store.load(self._parsed_file()) if self._stored is None else self._stored
        self._stored = {}
        with nullcontext() if self.serving else collector_paused():
            source_digest = digest_after(code_digest())
            known, self._sources, keys, missing = self._sources, {}, self._keys, []
            for source in sources:
                # The very source of the last build (a dev server's loader keeps a page not saved since) is unchanged.
                last = known.get(source.path)
                key = last[1] if last and last[0] is source else source_digest(source.path, source.text)
                keys[source.path], self._sources[source.path] = key, (source, key)
                # Kept in memory (a dev server's), or read back from the store; else parsed below.
                if found := self._parsed.get(key) or parsed_store.read_entry(stored.get(key), lazy=True):
                    kept[key] = found
                else:
                    missing.append(source)
            workers = 1 if self.serving else self.workers  # the dev server has threads (its HTTP server): no fork
            fresh = list(zip(missing, parse_split(missing, workers, entries=bool(self.store)), strict=True))
            kept.update((keys[source.path], parsed) for source, (parsed, _text) in fresh)
            if self.store:  # an entry read back is kept as it is; one made with its parse or kept in memory, encoded
                made = {keys[source.path]: text for source, (_parsed, text) in fresh}
                self._stored = {key: text for key in (keys[source.path] for source in sources)
                                if (text := (made[key] if key in made else stored.get(key))
                                    or parsed_store.entry(kept[key]))}
        if self.store and self._stored != stored:
            parsed_store.save(self._parsed_file(), self._stored)
        # Only this build's sources stay, so a long editing session does not pile up parses.
        self._parsed = kept
        if len(self._facts) > len(kept) + 64:
            self._facts = {k: v for k, v in self._facts.items() if k in kept}
        return [kept[keys[source.path]] for source in sources]

    def _page_facts(self, page: ParsedPage) -> PageFacts:
        key = self._keys[page.meta.path]
        if key not in self._facts:
            self._facts[key] = page_facts(page)
        return self._facts[key]

    def _memo(self, evidence: Evidence) -> Callable[[str, Hashable, Callable[[], list[Problem]]], list[Problem]]:
        """Each page's problems kept under its source, the evidence and what they depend on around it
        (``check_site``; its placeholder lines, ``placeholder_problems``); only this build's entries stay."""
        evidence_key = self._evidence_digest(evidence)
        held, self._checked = self._checked, {}

        def memo(path: str, around: Hashable, check: Callable[[], list[Problem]]) -> list[Problem]:
            key = (self._keys[path], evidence_key, around)
            self._checked[key] = held[key] if key in held else check()
            return self._checked[key]

        return memo

    def _evidence_digest(self, evidence: Evidence) -> str:
        if self._evidence is None or self._evidence[0] is not evidence:
            self._evidence = (evidence, evidence_digest(evidence))
        return self._evidence[1]

    def _environment(self, looks: str) -> Environment:
        from site_builder.render.html import make_environment

        # A fresh environment when any template changed: Jinja's own reload check uses mtimes.
        if self._jinja is None or self._jinja[0] != looks:
            self._jinja = (looks, make_environment())
        return self._jinja[1]

    # ------------------------------------------------------ persisted between processes --
    def _state_file(self, folder: Path) -> Path | None:
        """A state file per output folder (tests and benchmarks write elsewhere than _site/)."""
        name = folder.name + "-" + digest(str(folder.resolve()))[:12]
        return self.store / f"{name}.json" if self.store else None

    def _parsed_file(self) -> Path | None:
        return self.store / "parsed.jsonl" if self.store else None

    def _load_state(self, folder: Path) -> dict:
        """What the last build recorded of ``folder``; its pages' files are those in the folder."""
        file = self._state_file(folder)
        try:
            state = json.loads(file.read_text(encoding="utf-8")) if file else {}
            pages = {page_id: (key, {rel: folder / rel for rel in made})
                     for page_id, (key, made) in state.pop("pages", {}).items()}
        except (OSError, ValueError, TypeError, AttributeError):  # unreadable or wrong-shaped: built anew
            return {}
        if not all(isinstance(state.get(field, {}), dict) for field in ("files", "formulas", "stamps")):
            return {}
        teacher = next(o.teacher for o in self.outputs if o.folder == folder)
        self._pages[teacher] = pages
        return state

    def _save_state(self, output: Output, keys: dict[str, str], changed: set[str]) -> None:
        """Record each file's stamp (see ``_intact``: the dev server, which writes only what changed into
        its own folder, stamps only those) and, with a persisted store, the folder's state."""
        state, file = self._written[output.folder], self._state_file(output.folder)
        state["identity"] = list(folder_identity(output.folder) or ())  # after the swap: the new folder's
        state["stamps"] = file_stamps(output.folder, state["files"], state["stamps"], changed)
        if file is not None:
            pages = {p: [keys[p], sorted(made)] for p, (_key, made) in self._pages[output.teacher].items()}
            write_atomic(file, json.dumps({**state, "pages": pages}).encode())


def _sum(payload: bytes | Path) -> str:
    return file_digest(payload) if isinstance(payload, Path) else hashlib.sha256(payload).hexdigest()


def _urls_to_reload(changed: set[str], prepared: PreparedSite) -> tuple[str, ...]:
    """Changed HTML pages, pages showing a redrawn figure (and the galleries: figures.html, the teacher
    site's gallery.html), and every page when CSS or JS changed."""
    html = {rel for rel in changed if rel.endswith(".html")}
    if any(rel.startswith("static/") for rel in changed):  # every edition's pages load the root's static/
        html |= {f"{edition.content.config.prefix}{name}" for edition in (prepared, *prepared.editions)
                 for name in [f"{page_id}.html" for page_id in edition.pages]
                 + ["numbers.html", "sources.html", "glossary.html", "figures.html", "gallery.html"]}
    for edition in (prepared, *prepared.editions):  # each draws its figures in its language, in its folder
        prefix = edition.content.config.prefix
        files = {f"{prefix}figures/{name}": f.id for f in edition.evidence.figures.values()
                 for name in (f.file, f.dark_file) if name}
        if redrawn := {files[rel] for rel in changed if rel in files}:
            html |= {f"{prefix}{page_id}.html" for page_id, page in edition.pages.items()
                     if _figures_shown(page) & redrawn} | {f"{prefix}figures.html", f"{prefix}gallery.html"}
    return tuple(sorted(html))


def _figures_shown(page: ParsedPage) -> set[str]:
    """Figure ids a page shows (state figures and ``{fig}``), for reloading it when one is redrawn."""
    from site_builder.parse.page import StateSource

    states = {b.figure for b in page.blocks if isinstance(b, StateSource) and b.figure}
    return states | {use.target for use in page.roles if use.name == "fig"}
