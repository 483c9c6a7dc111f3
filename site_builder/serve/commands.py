"""The build engine's front doors: what ``python build.py``, ``check`` and ``serve`` ask of it.

Everything kept between runs lives under one ``cache`` folder: the engine's store (``build/``),
the shared assets both sites link (``assets/``), the search index shards (``search/``), math font
subsets (``math-font/``), compiled templates (``jinja/``) and each dev server's own site
(``serve/PORT/``). ``check`` passes no cache at all.
"""

from __future__ import annotations

import signal
import sys
import tempfile
import textwrap
from pathlib import Path

from site_builder.engine.builder import BuildReport, Engine, Output
from site_builder.load.content import Content, Evidence
from site_builder.load.evidence import in_fresh_process
from site_builder.load.loader import load_content
from site_builder.render import mathfont
from site_builder.vocabulary.i18n import _, localize
from site_builder.vocabulary.numbers import display
from site_builder.vocabulary.problems import ContentError, Problem
from site_builder.vocabulary.provenance import BADGE_TEXT
from site_builder.write.writer import prune_store


def print_list(root: Path, what: str, figures: list[tuple[str, str, str, tuple[str, ...]]] | None = None,
               evidence: Evidence | None = None) -> int:
    """``python build.py list``: what a page may cite, one line each, provenances in the course's language
    (``figures``: id, provenance, alt text and inputs of each, which only build.py knows); raises
    ``ContentError`` when the content cannot be loaded."""
    from site_builder.serve.server import width  # the dev server's: both line text up in a terminal

    content, problems = load_content(root)
    if content is None:
        raise ContentError(problems)
    language = content.config.language

    def badge(provenance: str) -> str:
        return localize(BADGE_TEXT[provenance], language) if provenance in BADGE_TEXT else provenance

    rows = [(fid, badge(provenance) + (f" ← {', '.join(inputs)}" if inputs else ""), alt)
            for fid, provenance, alt, inputs in figures] if figures is not None else \
        [(v.name, localize(display(v), language),
          f"[{badge(v.provenance)}] {content.value_text.describe(v.name) or v.description}")
         for v in evidence.values.values()] if evidence else \
        [(s.id, str(s.year or ""), s.title) for s in content.sources] if what == "sources" else \
        [(t.id, t.term, t.definition) for t in content.glossary]
    widths = [max((width(row[i]) for row in rows), default=0) for i in range(2)]
    for row in sorted(rows):
        print(f"{row[0]}{' ' * (widths[0] - width(row[0]))}  {row[1]}{' ' * (widths[1] - width(row[1]))}  "
              f"{row[2]}".rstrip())
    n = len(rows)
    print(localize({"values": _("{n} values", n=n), "figures": _("{n} figures", n=n), "sources": _("{n} sources", n=n),
                    "terms": _("{n} terms", n=n)}[what], language), file=sys.stderr)
    return 0


def print_problems(error: ContentError, language: str) -> int:
    """A failed build on the terminal: each problem as ``path:line: message``, a code error's trace folded
    (indented) below it, then how many; 1, the exit status."""
    for problem in error.problems:
        print(problem.localized(language), file=sys.stderr)
    if error.trace:
        print(textwrap.indent(error.trace, "    | "), file=sys.stderr)
    print(localize(_("{n} problem(s); the site was not changed.", n=len(error.problems)), language), file=sys.stderr)
    return 1


def keep_between_runs(cache: Path) -> None:
    """Math font subsets (≈0.5 s each) are kept, keyed by the characters they hold. Compiled templates
    are not (see ``site_builder/render/html.py``)."""
    mathfont.CACHE_DIR = cache / "math-font"


def build_sites(root: Path, evidence: Evidence, public: Path, teacher: Path, cache: Path | None, workers: int,
                loaded: tuple[Content, list[Problem]] | tuple = (), warn: bool = True) -> BuildReport:
    """Both sites, the public one with its search index (made while the pages render); with no
    ``cache`` every page is parsed, rendered and written anew and the index is made from scratch.
    ``warn``: the warnings are printed, in the course's language (else the caller says them)."""
    with tempfile.TemporaryDirectory(prefix="search-") as scratch:
        search = cache / "search" if cache else Path(scratch)
        outputs = (Output(False, public, finish=lambda prepared: _index(prepared, search, kept=cache is not None)),
                   Output(True, teacher))
        if cache:
            keep_between_runs(cache)
        engine = Engine(root, outputs, store=cache / "build" if cache else None,
                        assets=cache / "assets" if cache else None, workers=workers)
        report = engine.build(evidence, loaded)
    if cache:
        prune_store(cache / "assets")
    for warning in report.warnings if warn else ():  # each says it is one (``Problem.as_warning``)
        print(warning.localized(report.prepared.content.config.language), file=sys.stderr)
    return report


def _index(prepared, search: Path, kept: bool = True):
    """The search index jobs of the public site (imported only when that site is written): one per edition, each
    in its folder, so that each language's search finds its own pages. ``kept``: ``search`` is the cache kept
    between builds (the editions' are beside it)."""
    from site_builder.render.search_index import IndexJob

    jobs = [(IndexJob(site, _edition_cache(search, folder) if kept else search / folder), folder)
            for site, folder in _searched(prepared)]

    def place(site_dir: Path) -> None:
        for job, folder in jobs:
            job.place(site_dir / folder)

    return place


def _carried(prepared, previous: Path, cache: Path):
    """The dev server's search: each edition's index carried from its previous site (``carry_index``); in a site
    updated in place (an edition added once its figures are drawn), an edition's index already there is kept."""
    from site_builder.render.search_index import carry_index

    def place(site_dir: Path) -> None:
        for site, folder in _searched(prepared):
            if site_dir != previous or not (site_dir / folder / "pagefind" / "pagefind.js").is_file():
                carry_index(site_dir / folder, previous=previous / folder, prepared=site,
                            cache=_edition_cache(cache / "search", folder))

    return place


def _edition_cache(search: Path, folder: str) -> Path:
    """The kept search cache of the edition in ``folder``: beside the site's own (``search``, folder ``''``)."""
    return search.with_name(f"{search.name}-{folder}") if folder else search


def _searched(prepared) -> list:
    """(the prepared site its search indexes, its folder) for every edition; a translation's search leaves out
    the pages it shows in the source language (not translated yet), so it finds pages in its language only."""
    from dataclasses import replace

    found = [(prepared, "")]
    for edition in prepared.editions:
        untranslated = {file.path for file in edition.content.fallback}
        found.append((replace(edition, pages={k: p for k, p in edition.pages.items()
                                              if p.meta.path not in untranslated}), edition.content.config.language))
    return found


def serve_site(root: Path, cache: Path, host: str, port: int, teacher: bool, measure: str,
               inputs: tuple[Path, ...]) -> None:
    """Bind the port (``PortBusy`` before anything is built or written), then build one site into this
    server's own folder and rebuild it on every save until Ctrl-C (or ``kill``, which stops it as cleanly).

    The folder is keyed by the bound port (two live servers never share a port), so servers never
    write into each other's site or figures; the content-hashed model and figure caches are shared.
    The evidence is measured by ``measure`` (``module.function``, called with the figure folder; see
    ``evidence.answer``) in a fresh process (after an edit of the model only a new interpreter runs the
    new code), again whenever a file it is made from changes (``inputs``: the model, the figures, the records).
    """
    from site_builder.engine.pipeline import STATIC  # the server and the renderer: not needed by `build.py`
    from site_builder.render.html import TEMPLATES
    from site_builder.serve.devhttp import listen
    from site_builder.serve.server import DevServer, EvidenceSource

    httpd = listen(host, port, teacher)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    keep_between_runs(cache)
    own = cache / "serve" / str(httpd.server_address[1])
    out_dir = own / ("teacher" if teacher else "public")
    index = None if teacher else (lambda prepared: _carried(prepared, out_dir, cache))
    engine = Engine(root, (Output(teacher, out_dir, finish=index),), serving=True)
    running: list = []  # the fresh processes measuring for this server

    def stop() -> None:
        for process in running:
            if process.poll() is None:
                process.terminate()
        running.clear()

    evidence = EvidenceSource(load=lambda: in_fresh_process(measure, own / "figures-out", root, started=running.append),
                              sooner=lambda: in_fresh_process(measure, own / "figures-out", root, True, running.append),
                              inputs=inputs, stop=stop)
    watch = (root / "content", TEMPLATES, STATIC, *(p for p in inputs if not p.is_relative_to(root / "content")))
    DevServer(engine, evidence, watch=watch, httpd=httpd).serve_forever()
