"""Render every registered figure to SVG, with a content-hash cache.

The runner owns everything global: the Agg backend, rcParams, the seed, the
output folder and the SVG settings that make output byte-identical across
processes (fixed ``svg.hashsalt``, no date and no RDF metadata block). Drawing
functions only receive a fresh figure and their data.

A figure is redrawn only when its cache key changes. The key hashes the
figure's id, its drawing-module source, the source of the modules every drawing shares
(``_SHARED_MODULES``), its input data, the matplotlib version, the language and that language's figure
catalog (figures/i18n.py); content hashes, never mtimes. On a build where every key hits, matplotlib is never imported.

A cache entry carries the sha256 of each of its SVGs and of its metadata (size and marks); an entry
that is unreadable, wrong-shaped or does not match its digests is discarded and drawn again, and the
discarded ids are named in one warning line (``warn``).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.metadata
import io
import json
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from figures.i18n import catalog_digest, drawing_in, translated
from figures.marks import draw_location, mark_boxes
from figures.spec import Figure
from site_builder.vocabulary.atomic import write_atomic
from site_builder.vocabulary.i18n import _
from site_builder.vocabulary.provenance import FIGURE_LANGUAGE, corner_label

# No date, creator or RDF block: the date breaks determinism, the RDF block is
# invalid inline HTML and says nothing a reader needs.
SVG_METADATA = {"Date": None, "Creator": None, "Format": None, "Type": None}
SEED = 0
_SHARED_MODULES = ("figures.style", "figures.runner", "figures.spec", "figures.inputs", "figures.marks",
                   "figures.dark", "figures.i18n")


@dataclass(frozen=True)
class Rendered:
    """What one ``render`` call produced."""

    figures: dict[str, dict[str, Any]]
    """Figure id → file, alt, description, provenance, inputs, hashes, size and marks."""
    skipped: dict[str, str]
    """Figure id → why it was not rendered (e.g. its record does not exist)."""
    drawn: tuple[str, ...]
    """Ids actually drawn by matplotlib this time (the rest came from the cache)."""
    discarded: tuple[str, ...] = ()
    """Ids whose cache entry was unreadable or did not match its digests (or could not be stored)."""


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def canonical_json(obj: Any) -> bytes:
    """One byte string per value: sorted keys, no whitespace, exact float repr."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=True).encode("utf-8")


def _source_hash(module_name: str) -> str:
    return sha256(Path(importlib.import_module(module_name).__file__ or "").read_bytes())


def figure_data(figure: Figure, results: Mapping[str, Any],
                records: Mapping[str, Mapping[str, Any]]) -> tuple[dict[str, Any] | None, str]:
    """The data ``figure.draw`` receives, or (None, why it is missing).

    Measured figures get {experiment: {config, values, data}} (titles and commands
    are left out: they do not change the picture, so they must not change the hash).
    Record figures get {record id: the whole record} (its date may be drawn).
    """
    data: dict[str, Any] = {}
    experiments = results.get("experiments", {})
    for name in figure.inputs:
        if figure.provenance in ("measured", "computed"):
            if name not in experiments:
                return None, f"figure {figure.id} skipped: the lessonmodel results have no experiment '{name}'"
            exp = experiments[name]
            data[name] = {k: exp.get(k, {}) for k in ("config", "values", "data")}
        elif name not in records:
            return None, (f"figure {figure.id} skipped: record '{name}' does not exist "
                          f"(expected content/records/{name}.json)")
        else:
            data[name] = records[name]
    return data, ""


_SIZE_RE = re.compile(rb'<svg[^>]*?\bwidth="([\d.]+)pt"[^>]*?\bheight="([\d.]+)pt"', re.S)


def svg_size_px(svg: bytes) -> tuple[int, int]:
    """CSS pixel size of a matplotlib SVG (it writes pt; 1 pt = 4/3 px)."""
    match = _SIZE_RE.search(svg)
    if not match:
        raise ValueError("SVG has no width/height in pt")
    return round(float(match[1]) * 4 / 3), round(float(match[2]) * 4 / 3)


@contextmanager
def drawn_figure(figure: Figure, data: Mapping[str, Any],
                 language: str = FIGURE_LANGUAGE) -> Iterator[tuple[Any, Any]]:
    """A matplotlib figure with ``figure`` drawn on it under the shared style, its text (figures/i18n.py) and
    corner label in ``language``, and what ``draw`` returned (its marks); the figure is cleared afterwards.

    Every output format (the SVG, the baseline PNG of figures/baseline.py) is saved from here,
    so they show the same drawing.
    """
    import matplotlib

    matplotlib.use("Agg")
    import numpy as np
    from matplotlib.figure import Figure as MplFigure

    from figures import style

    with matplotlib.rc_context(style.rc()), drawing_in(language):
        np.random.seed(SEED)  # no figure should need randomness; if one does, it repeats
        # A bare Figure (no pyplot) is never registered globally, so nothing leaks.
        fig = MplFigure(figsize=figure.size)
        try:
            style.card(fig)
            marks = figure.draw(fig, data)
            style.tag(fig, figure.provenance, language)
            yield fig, marks
        finally:
            fig.clear()


def drawn_texts(fig: Any) -> list[str]:
    """Every visible text of a drawn figure (titles, labels, ticks, legends): what a reader sees in it,
    which the SVG cannot tell (its glyphs are paths), for the glossary check."""
    from matplotlib.text import Text

    return [t.get_text() for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]


def draw_variants(figure: Figure, data: Mapping[str, Any], language: str = FIGURE_LANGUAGE,
                  baseline: bool = False) -> tuple[bytes, bytes, dict[str, Any], list[str], bytes | None]:
    """Draw one figure once; return its light SVG, its dark variant (recoloured on the same
    matplotlib figure by figures/dark.py), its marks' boxes, its texts and, with ``baseline``, the PNG
    ``build.py check`` compares with its baseline (``figures.baseline.png_of``, saved from this same drawing:
    a quarter cheaper than drawing it again); imports matplotlib."""
    import matplotlib

    from figures import dark
    from figures.baseline import png_of

    light, dark_svg = io.BytesIO(), io.BytesIO()
    with drawn_figure(figure, data, language) as (fig, marks):
        fig.savefig(light, format="svg", metadata=SVG_METADATA)
        boxes = mark_boxes(fig, marks, figure.id, figure.draw)
        texts = drawn_texts(fig)
        png = png_of(fig) if baseline else None  # before darkening: the baseline is the light figure
        with matplotlib.rc_context(dark.DARK_RC):
            dark.darken(fig)
            fig.savefig(dark_svg, format="svg", metadata=SVG_METADATA)
    return light.getvalue(), dark_svg.getvalue(), boxes, texts, png


def _write_if_changed(path: Path, content: bytes) -> None:
    """Atomic write that leaves an unchanged file (and its mtime) alone."""
    if path.exists() and path.read_bytes() == content:
        return
    write_atomic(path, content)


_CACHE_FILES = (".svg", ".dark.svg", ".json")
"""A cache entry: the light SVG, the dark one and their metadata, each named ``<key><suffix>``; the
metadata file is ``{"key", "meta", "meta_sha256"}``, the metadata holding both SVGs' digests."""


def _cached(cache_dir: Path, key: str) -> tuple[tuple[bytes, bytes, dict[str, Any]] | None, bool]:
    """(the entry stored under ``key``, whether a file of it had to be discarded)."""
    paths = [cache_dir / f"{key}{suffix}" for suffix in _CACHE_FILES]
    try:
        svg, dark_svg, stored = (path.read_bytes() for path in paths)
        stored = json.loads(stored)
    except FileNotFoundError:  # not drawn yet, or a torn entry: drawn (again)
        return None, any(path.exists() for path in paths)
    except (OSError, ValueError):
        return None, True
    meta = stored.get("meta") if isinstance(stored, dict) else None
    if (isinstance(meta, dict) and stored.get("key") == key
            and stored.get("meta_sha256") == sha256(canonical_json(meta))
            and meta.get("svg_sha256") == sha256(svg) and meta.get("dark_sha256") == sha256(dark_svg)):
        return (svg, dark_svg, meta), False
    return None, True


def _store(cache_dir: Path, key: str, svg: bytes, dark_svg: bytes, meta: dict[str, Any]) -> bool:
    """Keep a drawn entry; whether that worked (an unwritable cache only costs drawing again)."""
    stored = canonical_json({"key": key, "meta": meta, "meta_sha256": sha256(canonical_json(meta))})
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        for suffix, content in zip(_CACHE_FILES, (svg, dark_svg, stored), strict=True):
            _write_if_changed(cache_dir / f"{key}{suffix}", content)
    except OSError:
        return False
    return True


def _warn(message: str) -> None:
    print(message, file=sys.stderr)


def _entry(figure: Figure, svg_sha: str, data_sha: str, meta: Mapping[str, Any], language: str) -> dict[str, Any]:
    return {"file": f"{figure.id}.svg", "dark_file": f"{figure.id}.dark.svg", "alt": translated(figure.alt, language),
            "description": translated(figure.description, language), "provenance": figure.provenance,
            "label": corner_label(figure.provenance, language), "inputs": list(figure.inputs),
            "svg_sha256": svg_sha, "data_sha256": data_sha, "width": meta["width"], "height": meta["height"],
            "marks": meta.get("marks", {}), "texts": meta.get("texts", []),
            "drawn_at": list(draw_location(figure.draw))}


@dataclass(frozen=True)
class _Planned:
    """One figure in one language, before drawing: its data, cache key and cache entry (``None``: to be drawn)."""

    figure: Figure
    data: Mapping[str, Any]
    data_sha: str
    key: str
    hit: tuple[bytes, bytes, dict[str, Any]] | None
    bad: bool
    """Whether a file of its cache entry had to be discarded."""


def _plan(results: Mapping[str, Any], records: Mapping[str, Mapping[str, Any]], cache_dir: Path,
          registry: Iterable[Figure], language: str) -> tuple[list[_Planned], dict[str, str]]:
    """Every figure of ``registry`` with its cache entry looked up, and the figures skipped (id → why)."""
    shared = sha256("".join(_source_hash(m) for m in _SHARED_MODULES).encode())
    mpl = importlib.metadata.version("matplotlib")  # read without importing matplotlib
    planned: list[_Planned] = []
    skipped: dict[str, str] = {}
    for figure in registry:
        data, why = figure_data(figure, results, records)
        if data is None:
            skipped[figure.id] = why
            continue
        data_sha = sha256(canonical_json(data))
        key = sha256(canonical_json({"id": figure.id, "code": _source_hash(figure.module), "shared": shared,
                                     "data": data_sha, "matplotlib": mpl, "language": language,
                                     "catalog": catalog_digest(language)}))
        planned.append(_Planned(figure, data, data_sha, key, *_cached(cache_dir, key)))
    return planned, skipped


def _finish(planned: list[_Planned], skipped: dict[str, str], fresh: Iterator[tuple], out_dir: Path,
            cache_dir: Path, warn: Callable[[str], None], language: str,
            baselines: Callable[[str, str, bytes], None] | None = None) -> Rendered:
    """Store what was drawn (``fresh``: ``draw_variants``'s results for the figures without a cache entry, in
    order, each stored as it comes), write every figure into ``out_dir``, hand each baseline PNG drawn to
    ``baselines`` and say which cache entries were discarded."""
    out_dir.mkdir(parents=True, exist_ok=True)
    done: dict[str, dict[str, Any]] = {}
    drawn: list[str] = []
    discarded: list[str] = []
    for job in planned:
        bad = job.bad
        if job.hit is None:
            svg, dark_svg, marks, texts, png = next(fresh)
            if png is not None and baselines is not None:
                baselines(job.figure.id, language, png)
            width, height = svg_size_px(svg)
            meta = {"id": job.figure.id, "svg_sha256": sha256(svg), "dark_sha256": sha256(dark_svg),
                    "width": width, "height": height, "marks": marks, "texts": texts}
            bad = not _store(cache_dir, job.key, svg, dark_svg, meta) or bad
            drawn.append(job.figure.id)
        else:
            svg, dark_svg, meta = job.hit
        if bad:
            discarded.append(job.figure.id)
        _write_if_changed(out_dir / f"{job.figure.id}.svg", svg)
        _write_if_changed(out_dir / f"{job.figure.id}.dark.svg", dark_svg)
        done[job.figure.id] = _entry(job.figure, meta["svg_sha256"], job.data_sha, meta, language)
    if discarded:
        warn(_("figure cache: the entries of {ids} in {folder} were unreadable or did not match their digest; "
               "drawn again", ids=", ".join(discarded), folder=str(cache_dir)))
    return Rendered(done, skipped, tuple(drawn), tuple(discarded))


def _folders(out_dir: Path, cache_dir: Path) -> tuple[Path, Path]:
    out_dir, cache_dir = Path(out_dir), Path(cache_dir)  # out_dir is made where its figures are written (_finish)
    with contextlib.suppress(OSError):  # a cache folder that cannot be made: each entry is drawn and reported
        cache_dir.mkdir(parents=True, exist_ok=True)
    return out_dir, cache_dir


def render(results: Mapping[str, Any], records: Mapping[str, Mapping[str, Any]], out_dir: Path,
           cache_dir: Path, *, registry: Iterable[Figure] | None = None,
           warn: Callable[[str], None] = _warn, language: str = FIGURE_LANGUAGE) -> Rendered:
    """Render ``registry`` (by default every figure) into ``out_dir`` (``<id>.svg``), reusing ``cache_dir``;
    ``warn`` gets the one line naming discarded cache entries (a translatable message; stderr by default).

    Everything a reader sees (drawn text, corner label, alt text, description, mark labels) is in
    ``language``: each language is drawn into its own ``out_dir`` (the files are named by figure id alone);
    ``cache_dir`` may be shared. Drawn here, one figure after another (``render_languages`` draws on every
    core)."""
    if registry is None:
        from figures.registry import FIGURES as registry
    out_dir, cache_dir = _folders(out_dir, cache_dir)
    planned, skipped = _plan(results, records, cache_dir, registry, language)
    fresh = (draw_variants(job.figure, job.data, language) for job in planned if job.hit is None)
    return _finish(planned, skipped, fresh, out_dir, cache_dir, warn, language)


def render_languages(results: Mapping[str, Any], records: Mapping[str, Mapping[str, Any]], out_dir: Path,
                     cache_dir: Path, languages: tuple[str, ...], *, warn: Callable[[str], None] = _warn,
                     drawn_only: bool = False, baselines: Callable[[str, str, bytes], None] | None = None,
                     ) -> dict[str, dict[str, dict[str, Any]]]:
    """Every figure in each of ``languages``: output folder → figure id → its entry (``render``'s ``figures``), the
    first language's in ``out_dir`` (folder ``""``), each other's in ``out_dir/<language>`` (folder its tag). Keyed
    by folder, not language: a translation into the first language itself still gets its folder. Their figures to
    draw are drawn together, on every core (figures/pool.py). ``baselines``: each figure drawn (not taken from the
    cache) is also saved as its baseline PNG and handed to it with its id and language (what ``build.py check``
    compares: the drawing the site shows).

    ``drawn_only``: a language after the first is left out of the result, and not drawn, unless every one of its
    figures is in the cache (the dev server shows the first language's pages first and draws the rest after)."""
    from figures.pool import Drawers
    from figures.registry import FIGURES

    out_dir, cache_dir = _folders(out_dir, cache_dir)
    folders = {"": languages[0], **{language: language for language in languages[1:]}}
    plans = {folder: _plan(results, records, cache_dir, FIGURES, language) for folder, language in folders.items()}
    if drawn_only:
        plans = {folder: plan for folder, plan in plans.items()
                 if not folder or all(job.hit is not None for job in plan[0])}
    jobs = [(job.figure, job.data, folders[folder], baselines is not None)
            for folder, (planned, _skipped) in plans.items() for job in planned if job.hit is None]
    with Drawers() as drawers:
        fresh = drawers.draw(jobs)
        return {folder: _finish(planned, skipped, fresh, out_dir / folder, cache_dir, warn, folders[folder],
                                baselines).figures
                for folder, (planned, skipped) in plans.items()}
