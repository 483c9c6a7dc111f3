"""The content model: what the loader reads and what later stages pass along.

Everything is a frozen dataclass; a stage that changes something returns a new
value. Values and figures arrive from ``build.py`` as plain data, so this
package never needs to know how they were produced.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from site_builder.load.value_text import ValueText

if TYPE_CHECKING:
    from site_builder.load.glossary import Term

IMAGE_FORMATS = {".png": "PNG", ".jpg": "JPEG", ".jpeg": "JPEG", ".gif": "GIF", ".webp": "WEBP"}
"""Raster pictures a page may show with ``![alt](path)``: suffix → the format its bytes must be (Pillow's name)."""
IMAGE_SUFFIXES = (*IMAGE_FORMATS, ".svg")
"""Every picture a page may show: the raster formats and SVG (written anew from an allowlist, check/svg.py)."""

@dataclass(frozen=True)
class SiteConfig:
    """``content/site.yml``."""

    title: str
    """The site title, shown in every page header."""
    language: str
    """BCP 47 language tag of the content, e.g. ``zh-CN``."""
    base_url: str
    """Absolute URL the public site is published at (ends with ``/``)."""
    pages: tuple[str, ...]
    """Page ids in reading order; lessons are linked prev/next in this order."""
    path: str = "content/site.yml"
    """Where the config was read from, for messages."""
    content_language: str = ""
    """BCP 47 tag of the lessons' own text when it differs from ``language`` (the interface's): a Chinese
    course with an English interface says ``lang`` right on each page's text. Empty: ``language``."""
    translations: tuple[str, ...] = ()
    """site.yml ``translations``: the language tags of the course's translations, each in ``content/<tag>/`` and
    published under ``<tag>/`` (the same in the source's config and in each translation's)."""
    short_title: str = ""
    """site.yml ``short_title``: the title on a phone's header, where the whole title would take several lines.
    Empty: ``title`` everywhere."""
    source_language: str = ""
    """In a translation's config: the source language's tag (the translation's own is ``language``, which is
    also its URL prefix). Empty in the source's config."""

    @property
    def languages(self) -> tuple[str, ...]:
        """Every language the course is published in, the source's first."""
        return (self.source_language or self.language, *self.translations) if self.translations else ()

    @property
    def prefix(self) -> str:
        """This edition's folder in the site: ``''`` for the source language, ``en/`` for a translation."""
        return f"{self.language}/" if self.source_language else ""

    @property
    def up(self) -> str:
        """From this edition's folder to the site's root: ``''`` for the source language, ``../`` for a
        translation. What every edition shares (``static/``, ``code/``, the math font) is there, once."""
        return "../" * self.prefix.count("/")

    @property
    def root_url(self) -> str:
        """The address of the site's root, where the source language's edition is (``base_url`` without
        the prefix)."""
        return self.base_url[:len(self.base_url) - len(self.prefix)]


@dataclass(frozen=True)
class SourceFile:
    """A text file as the loader read it."""

    path: str
    """Path relative to the project root, used in messages."""
    text: str


@dataclass(frozen=True)
class Source:
    """One entry of the source registry ``content/sources.yml``."""

    id: str
    """Stable id, used by ``{src}`` and as the anchor on the sources page."""
    title: str
    line: int
    """Line of the entry in sources.yml, for messages."""
    authors: str = ""
    year: str = ""
    url: str = ""
    """Public URL; empty for internal records."""
    checked: str = ""
    """What was checked in this source."""
    where: str = ""
    """Where it was checked: section, physical PDF page."""


@dataclass(frozen=True)
class Value:
    """A named number the prose may cite with ``{num}``."""

    name: str
    """Dotted name, e.g. ``equivalence.max_abs_diff``."""
    value: Any
    """The number (int, float or bool) as produced."""
    unit: str
    """Unit: ``''``, ``B`` (bytes), ``ms``, ``x`` (a ratio) …"""
    provenance: str
    """``measured`` (this build's model run), ``computed`` (a formula on declared inputs, evaluated
    by this build) or ``record`` (recorded earlier)."""
    producer: str
    """Experiment name (measured) or record id (record)."""
    description: str = ""
    """One line saying what the number is."""
    command: str = ""
    """The command that reproduces it."""
    source_file: str = ""
    """Repository path of the code that produced it (measured values)."""
    conditions: str = ""
    """Configuration or recording conditions, in one line."""
    date: str = ""
    """Date of the record (record values)."""
    tolerance: str = ""
    """Comparison this value must satisfy, if any, e.g. ``≤ 1×10⁻¹²``."""
    value_class: str = ""
    """How it may be compared: ``exact`` (bit for bit), ``rounding`` (within rtol/atol: last bits
    differ between CPUs) or ``timing`` (recorded, never compared). Empty: not declared."""
    rtol: float = 0.0
    """Relative tolerance of a ``rounding`` value."""
    atol: float = 0.0
    """Absolute tolerance of a ``rounding`` value."""


@dataclass(frozen=True)
class FigureMark:
    """A named region of a figure that notes and prose may point at with ``{mark}``."""

    name: str
    """Name used in ``{mark}`name``` (e.g. ``params``)."""
    label: str
    """Short Chinese label, shown where the mark is referenced."""
    box: tuple[float, float, float, float]
    """(left, top, right, bottom) as fractions of the figure's width and height, origin top left."""


@dataclass(frozen=True)
class FigureInfo:
    """A figure file the build drew, as the site sees it."""

    id: str
    """Figure id, cited by ``:figure:`` and ``{fig}``."""
    file: str
    """File name inside the site's ``figures/`` folder."""
    alt: str
    description: str
    """Longer text description of what the figure shows."""
    provenance: str
    """One of ``PROVENANCES``."""
    width: int = 640
    """Intrinsic width in CSS pixels."""
    height: int = 480
    """Intrinsic height in CSS pixels."""
    inputs: tuple[str, ...] = ()
    """Experiments or records the figure was drawn from."""
    label: str = ""
    """The provenance label drawn in the figure's corner (must equal its badge text)."""
    marks: tuple[FigureMark, ...] = ()
    """Regions a teacher may point at, by name."""
    dark_file: str = ""
    """The dark-mode variant's file name in ``figures/`` (empty: the light figure serves both)."""
    texts: tuple[str, ...] = ()
    """Every text drawn in the figure (titles, labels, ticks, legends), for the glossary check."""
    drawn_at: tuple[str, int] = ("", 0)
    """Path and line of the figure's drawing code, where a problem with its texts is reported."""

    def mark(self, name: str) -> FigureMark | None:
        return next((m for m in self.marks if m.name == name), None)


@dataclass(frozen=True)
class Record:
    """A historical record from ``content/records/``: shown, never re-measured."""

    id: str
    """Record id (the file's stem)."""
    path: str
    data: dict[str, Any] = field(hash=False, compare=False)
    """The record document as loaded (see docs/reference.md, "Records")."""


@dataclass(frozen=True)
class ImageFile:
    """A picture file under ``content/pages/`` that a page may show with ``![alt](path)``."""

    path: str
    """Path relative to the project root, e.g. ``content/pages/images/gpu.jpg``."""
    size: int
    """Size in bytes."""
    data: bytes | None = field(repr=False, compare=False)
    """The file's bytes; ``None`` when it is over the size limit (then it was not read)."""


@dataclass(frozen=True)
class Content:
    """Everything under ``content/``, read but not yet interpreted."""

    config: SiteConfig
    pages: tuple[SourceFile, ...]
    """Page sources in site order."""
    sources: tuple[Source, ...]
    records: tuple[Record, ...]
    glossary: tuple[Term, ...] = ()
    """``content/glossary.yml``: preferred terms, variants and definitions (optional file)."""
    images: tuple[ImageFile, ...] = ()
    """Picture files under ``content/pages/`` (read only when under the size limit)."""
    value_text: ValueText = ValueText()
    """Group titles and value descriptions in the reader's language (``content/values.yml``)."""
    unlisted: frozenset[str] = frozenset()
    """Ids of page files that are not among ``pages`` (not listed in site.yml, or refused): their own problem
    says why, so a reference to one is not reported as a reference to a page that does not exist."""
    editions: tuple[Content, ...] = ()
    """The translations (site.yml ``translations``), each a ``Content`` of its own language read from
    ``content/<tag>/``: its ``pages`` are the translated ones only."""
    fallback: tuple[SourceFile, ...] = ()
    """In a translation: the source-language pages not translated yet, shown with a notice in their place."""
    folder: str = "content"
    """Where its files were read from, relative to the project: ``content``, or ``content/<tag>`` for a
    translation (its glossary.yml and sources.yml are there, whether or not it has pages yet)."""
    read: dict[str, bytes] = field(default_factory=dict, compare=False, repr=False)
    """Path (``content/…``) → the bytes the loader read there, translations' included: what this content was
    made from, for the digest that says whether anything changed (``load/digest.py``)."""


@dataclass(frozen=True)
class Evidence:
    """What the build measured and drew, handed to the site as plain data."""

    values: dict[str, Value] = field(default_factory=dict, hash=False)
    """Named values the prose may cite, by name."""
    figures: dict[str, FigureInfo] = field(default_factory=dict, hash=False)
    """Figures the build drew, by id."""
    figure_dir: str = ""
    """Folder holding the figure files named in ``figures`` (absolute path)."""
    experiment_files: dict[str, str] = field(default_factory=dict, hash=False)
    """Experiment or module name → absolute path of its ``.py`` source, published with the site."""
    notebook_setup: str = ""
    """Python that defines ``measure(producer) -> {key: value}``, rerunning the experiment that produced a
    measured value; the first code cell of each lesson's notebook. Empty: no notebooks are published."""
    notebook_files: dict[str, str] = field(default_factory=dict, hash=False)
    """What the notebook imports, carried in each lesson's download: path there (``lessonmodel/…py``) →
    absolute path."""
    notebook_requirements: str = ""
    """The download's ``requirements.txt``: the packages the notebook's code imports, pinned as the project pins
    them."""
    editions: dict[str, Evidence] = field(default_factory=dict, hash=False)
    """Language tag of a translation → the same evidence with the figures drawn in that language (a language
    missing here shows the source language's figures)."""

    def edition(self, language: str) -> Evidence:
        """The evidence a translation into ``language`` shows."""
        return self.editions.get(language, self)
