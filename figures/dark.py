"""The dark variant of a figure: the same drawing, recoloured by matplotlib for a dark page.

Drawing modules name their colours directly (``style.INK``, ``"#fdf0d5"`` …), so a dark
rcParams set alone would leave most of a figure light. Instead the runner draws the figure
once, saves the light SVG, then calls :func:`darken` on the very same matplotlib figure and
saves again: every artist's colours go through one mapping, so nothing a drawing module
adds can stay white-on-white or black-on-black.

The mapping keeps each colour's hue and saturation and mirrors its lightness (HLS), squeezed
into the range between the dark page's card and its text: near-white fills become the dark
card, near-black ink becomes light ink, and the Okabe–Ito hues stay recognisably themselves.
Hue is unchanged, so "the orange box" in a caption is still orange.

Importing this module does not import matplotlib (``darken`` imports what it needs).
"""

from __future__ import annotations

import colorsys
from typing import Any

CARD = "#1b1e22"
"""The dark site's raised surface (site.css ``--raised`` in dark mode): the figure's background."""
CARD_EDGE = "#3b414a"
"""The dark site's rule colour (``--line``): the figure's frame."""
_DARKEST, _LIGHTEST = 0.11, 0.90
"""Lightness range of the recoloured figure: the card at the bottom, the ink at the top."""


def dark_rgba(rgba: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
    """One colour of the light figure → its dark-page counterpart (alpha kept)."""
    r, g, b, a = rgba
    hue, lightness, saturation = colorsys.rgb_to_hls(r, g, b)
    mirrored = _DARKEST + (1.0 - lightness) * (_LIGHTEST - _DARKEST)
    # Saturated mid-tones (the palette's hues) only need lifting a little, not mirroring:
    # blend towards their own lightness so blue stays blue rather than turning pastel.
    keep = saturation * (1 - abs(2 * lightness - 1))
    lightness = keep * max(lightness, 0.55) + (1 - keep) * mirrored
    if mirrored < 0.35:  # pale tints become dark fills: muted, or they glare next to the text
        saturation *= 0.5
    r, g, b = colorsys.hls_to_rgb(hue, min(lightness, _LIGHTEST), saturation)
    return r, g, b, a


DARK_RC = {"figure.facecolor": CARD, "axes.facecolor": CARD, "savefig.facecolor": CARD, "savefig.edgecolor": CARD_EDGE}
"""rcParams for anything created after ``darken`` starts (savefig's background)."""


def darken(fig: Any) -> None:
    """Recolour every artist of a drawn matplotlib figure in place (then save it again)."""
    from matplotlib.colors import to_hex, to_rgba

    def convert(color: Any) -> Any:
        if color is None or (isinstance(color, str) and color.lower() == "none"):
            return color
        rgba = to_rgba(color)
        if rgba[3] == 0:  # "none": an artist's own alpha would make any real colour opaque again
            return "none"
        return to_hex(dark_rgba(rgba), keep_alpha=True)

    for artist in fig.findobj():
        _recolour(artist, convert)
    fig.patch.set_facecolor(CARD)
    fig.patch.set_edgecolor(CARD_EDGE)


_FILL_AND_EDGE = ("facecolor", "edgecolor")
"""A patch's or a collection's colour properties (``get_<name>``, ``set_<name>``); a line has its own."""


def _recolour(artist: Any, convert: Any) -> None:
    import numpy as np
    from matplotlib.collections import Collection
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    from matplotlib.text import Text

    if isinstance(artist, Text):
        artist.set_color(convert(artist.get_color()))
        for patch in (artist.get_bbox_patch(), getattr(artist, "arrow_patch", None)):  # arrow: annotations
            if patch is not None:
                _recolour(patch, convert)
    elif isinstance(artist, Collection):  # one colour per member
        for prop in _FILL_AND_EDGE:
            colours = np.asarray(getattr(artist, f"get_{prop}")())
            if colours.size:
                getattr(artist, f"set_{prop}")([convert(tuple(c)) for c in colours.reshape(-1, 4)])
    elif isinstance(artist, Line2D | Patch):
        for prop in ("color", "markerfacecolor", "markeredgecolor") if isinstance(artist, Line2D) else _FILL_AND_EDGE:
            colour = getattr(artist, f"get_{prop}")()
            if not (isinstance(colour, str) and colour in ("none", "auto")):
                getattr(artist, f"set_{prop}")(convert(colour))
