"""The one visual language of every figure: palette, type sizes, rcParams and
small drawing primitives for sketches.

This module must not import matplotlib at import time (``import figures``
stays cheap and a warm build never loads matplotlib); the primitives import
what they need when they are called, which only happens while drawing.

Sizes are in points on a canvas 480 pt (640 CSS px) wide. On a 390 px phone the
page lets figures run the full screen width (site.css), a factor of 390/480 per
point, so the smallest text here (15 pt) lands at 12.2 CSS px there — the floor
the browser tests check.
"""

from __future__ import annotations

from typing import Any

from figures.i18n import number, tr
from site_builder.vocabulary.provenance import FIGURE_LANGUAGE, corner_label

# Okabe–Ito: distinguishable under the common colour-vision deficiencies.
# Colour never carries meaning alone: every coloured thing is also labelled.
BLACK = "#000000"
ORANGE = "#E69F00"
SKY = "#56B4E9"
GREEN = "#009E73"
BLUE = "#0072B2"
VERMILION = "#D55E00"
PURPLE = "#CC79A7"

# Darker shades for *text* in these hues: the bright ones are below 4.5:1 on white.
ORANGE_TEXT = "#8a5000"
GREEN_TEXT = "#00694c"
BLUE_TEXT = "#005a8c"
VERMILION_TEXT = "#b34700"

INK = "#1a1a1a"  # text and outlines: near-black on the white card
MUTED = "#6b6b6b"  # secondary text; 5.3:1 on white
FADED = "#c8c8c8"  # things that no longer exist (gradients after training)
FAINT_FILL = "#f2f2f2"  # background fill of sketch boxes
CARD = "#ffffff"  # the light card every figure is drawn on
CARD_EDGE = "#d4d4d4"

# Roles, so that Q/K/V look the same in every lesson.
Q_COLOR = VERMILION
K_COLOR = BLUE
V_COLOR = GREEN
STALE_COLOR = VERMILION  # entries invalidated by an edit
STALE_FILL = "#fbe3d3"  # their pale red fill
PARAM_COLOR = BLUE

# Type scale (pt). See the module docstring for why these are large.
FS_TITLE = 17
FS_TEXT = 16
FS_SMALL = 15
FS_TAG = 15  # the corner provenance tag (bold pill) and the smallest notes

LW = 1.6  # outline and line weight
LW_THIN = 1.0
LW_ARROW = 2.0
STRIKETHROUGH = "_strikethrough"
"""The label of a line drawn through a text on purpose, to cross a word out: the only line that may cross a
text (tests/test_figure_lines.py). Its leading underscore keeps it out of legends."""

# Canvas sizes in inches at 72 pt per inch; 6.667 in = 480 pt = 640 CSS px.
WIDTH_IN = 640 / 96
SIZE_4_3 = (WIDTH_IN, 480 / 96)
SIZE_SQUARE = (WIDTH_IN, 640 / 96)
SIZE_TALL = (WIDTH_IN, 720 / 96)

RC: dict[str, Any] = {
    "font.family": ["Noto Sans CJK SC", "DejaVu Sans"],
    "font.size": FS_TEXT,
    "axes.titlesize": FS_TITLE,
    "axes.labelsize": FS_TEXT,
    "xtick.labelsize": FS_SMALL,
    "ytick.labelsize": FS_SMALL,
    "legend.fontsize": FS_SMALL,
    "legend.frameon": False,
    "axes.unicode_minus": False,  # CJK fonts lack U+2212
    "axes.edgecolor": INK,
    "axes.labelcolor": INK,
    "axes.linewidth": LW_THIN,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": False,
    "grid.color": "#e3e3e3",
    "grid.linewidth": LW_THIN,
    "xtick.color": INK,
    "ytick.color": INK,
    "lines.linewidth": LW,
    "lines.markersize": 7,
    "patch.linewidth": LW_THIN,
    "text.color": INK,
    "figure.facecolor": CARD,
    "axes.facecolor": CARD,
    "savefig.facecolor": CARD,
    "figure.dpi": 72,
    "svg.fonttype": "path",  # glyphs as paths: the SVG needs no installed CJK font
    "svg.hashsalt": "lesson-figures",  # fixed ids: byte-identical SVG across runs
    "path.simplify": True,
}


def rc() -> dict[str, Any]:
    """The rcParams every figure is drawn under: ``RC`` and the colour cycle (imports matplotlib's cycler)."""
    from cycler import cycler

    return RC | {"axes.prop_cycle": cycler(color=[BLUE, ORANGE, GREEN, VERMILION, SKY, PURPLE, BLACK])}


def card(fig: Any) -> None:
    """Frame the figure as a light card so it stays legible on a dark page."""
    fig.patch.set_facecolor(CARD)
    fig.patch.set_edgecolor(CARD_EDGE)
    fig.patch.set_linewidth(1.5)


CORNER_LINE = 16
"""A corner label longer than this many characters is drawn on two lines (``corner_lines``)."""


def tag(fig: Any, provenance: str, language: str = FIGURE_LANGUAGE) -> None:
    """The small corner label that says what kind of figure this is (from its provenance only; text, never colour
    alone), in the course's ``language``: the words of the badge the site prints beside it (vocabulary/provenance.py
    ``BADGE_TEXT``; the build checks that they agree)."""
    fig.text(0.985, 0.985, corner_lines(corner_label(provenance, language)), ha="right", va="top", fontsize=FS_TAG,
             color=MUTED, fontweight="bold",
             bbox={"boxstyle": "round,pad=0.3", "fc": "#f4f4f4", "ec": CARD_EDGE, "lw": LW_THIN})


def corner_lines(label: str) -> str:
    """``label`` broken at the space nearest its middle when it is longer than ``CORNER_LINE``: an English label
    ("computed by formula, not measured") on one line would take half the top edge, where a figure's title
    starts; a Chinese one (四个字) stays as it is."""
    spaces = [i for i, c in enumerate(label) if c == " "]
    if len(label) <= CORNER_LINE or not spaces:
        return label
    cut = min(spaces, key=lambda i: abs(i - len(label) / 2))
    return f"{label[:cut]}\n{label[cut + 1:]}"


def sketch_axes(fig: Any, width: float, height: float, rect: tuple[float, ...] = (0, 0, 1, 1)) -> Any:
    """Axes for a box-and-arrow sketch: data units equal on both axes, no frame."""
    ax = fig.add_axes(rect)
    ax.set_xlim(0, width)
    ax.set_ylim(0, height)
    ax.set_aspect("equal", adjustable="box")
    ax.axis("off")
    return ax


def box(ax: Any, x: float, y: float, w: float, h: float, text: str = "", *, fc: str = FAINT_FILL,
        ec: str = INK, color: str = INK, fs: float = FS_TEXT, lw: float = LW, ls: str = "-",
        weight: str = "normal", radius: float = 0.12, alpha: float = 1.0) -> Any:
    """A rounded box with centred text; (x, y) is the lower-left corner."""
    from matplotlib.patches import FancyBboxPatch

    patch = FancyBboxPatch((x, y), w, h, boxstyle=f"round,pad=0,rounding_size={radius}",
                           fc=fc, ec=ec, lw=lw, ls=ls, alpha=alpha)
    ax.add_patch(patch)
    if text:
        ax.text(x + w / 2, y + h / 2, text, ha="center", va="center", fontsize=fs,
                color=color, fontweight=weight)
    return patch


def kv_box(ax: Any, x: float, y: float, w: float, h: float, which: str, *, edge: str | None = None,
           ls: str = "-", fill: str = "white", fs: float = FS_TEXT, stale: bool = False) -> Any:
    """One cached key (``which="K"``) or value (``"V"``) in its role's colours; ``edge`` marks it new, ``stale``
    (pale red, dashed) changed since it was cached."""
    role, text = (K_COLOR, BLUE_TEXT) if which == "K" else (V_COLOR, GREEN_TEXT)
    edge, ls, fill = (STALE_COLOR, "--", STALE_FILL) if stale else (edge, ls, fill)
    return box(ax, x, y, w, h, which, fc=fill, ec=edge or role, ls=ls, color=text, fs=fs, weight="bold")


def arrow(ax: Any, start: tuple[float, float], end: tuple[float, float], *, color: str = INK,
          lw: float = LW_ARROW, ls: str = "-", rad: float = 0.0, head: float = 14) -> Any:
    """A plain arrow from start to end (data coordinates); returns it (a mark may name it)."""
    return ax.annotate(
        "", xy=end, xytext=start,
        arrowprops={"arrowstyle": f"-|>,head_length={head / 20:.2f},head_width={head / 40:.2f}",
                    "color": color, "lw": lw, "ls": ls, "shrinkA": 0, "shrinkB": 0,
                    "connectionstyle": f"arc3,rad={rad}"},
    )


def note(ax: Any, x: float, y: float, text: str, *, color: str = MUTED, fs: float = FS_SMALL,
         ha: str = "center", va: str = "center", weight: str = "normal") -> Any:
    """Secondary text inside a sketch; returns it (a mark may name it)."""
    return ax.text(x, y, text, ha=ha, va=va, fontsize=fs, color=color, fontweight=weight)


def title(fig: Any, text: str) -> Any:
    """The figure's title, at the top left of its card, where every figure has it; returns it (a mark may name it)."""
    return fig.text(0.03, 0.955, text, fontsize=FS_TEXT, weight="bold", va="top")


def sci(x: float) -> str:
    """A number for a log-scale plot, as mathtext, in the drawing language: 1.8×10⁻¹⁵, 0.63, 0."""
    if x == 0:
        return "0"
    if 0.01 <= abs(x) < 1000:
        return number(x, ".3g")
    mant, exp = number(x, ".1e").split("e")
    return rf"${mant}\times10^{{{int(exp)}}}$"


def logit_diff_bars(ax: Any, rows: list[tuple[str, float]], colors: list[str]) -> tuple[Any, list[Any], list[Any]]:
    """``rows`` (label, max |Δlogits| against a full recompute) as horizontal bars, top to bottom, on a log axis;
    returns the bars, their value texts and their labels. A log axis has no 0: an exact zero gets no bar, only
    its text at the axis floor."""
    ys = list(range(len(rows)))[::-1]
    bars = ax.barh(ys, [v for _, v in rows], height=0.55, color=colors, edgecolor=INK, lw=LW_THIN)
    ax.set_xscale("log")
    ax.set_xlim(1e-17, 1e2)
    texts = [ax.text(v * 1.8 if v > 0 else 2e-17, y, sci(v) if v > 0 else tr("0（逐位相同）"), va="center",
                     fontsize=FS_SMALL) for y, (_, v) in zip(ys, rows, strict=True)]
    ax.set_yticks(ys, [label for label, _ in rows])
    ax.set_xticks([1e-15, 1e-10, 1e-5, 1])
    ax.tick_params(axis="y", length=0)
    ax.set_xlabel(tr("max |Δlogits|，对照完整重算（对数轴）"))
    return bars, texts, ax.get_yticklabels()
