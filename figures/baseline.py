"""Baseline images: each figure as a reader sees it, and a pixel comparison with a tolerance.

`figures/baseline/<id>.png` is committed, so a pull request shows the picture
change; a figure drawn in another language (figures/i18n.py) has its own,
`figures/baseline/<catalog>/<id>.png` (`en/`), compared the same way.
`build.py check` saves every figure as PNG too, from the drawing its SVG comes
from (``png_of``), and compares pixels instead of SVG bytes: SVG bytes carry the installed font's glyph outlines and
every last bit of the data, so they differ between machines that show the same
picture.

How the tolerance was chosen (measured with the real figures at 96 dpi; the
cases are tests in tests/test_figures.py): a pixel counts as changed
when one of its colour channels moved by more than 64 of 255, and a figure
fails when more than `MAX_CHANGED_PIXELS` pixels changed.
- Data that differs in the last bits (another CPU): no pixel changes.
- Edge pixels shaded differently (another build of the same font with the same
  metrics: Agg snaps text to whole pixels, so only anti-aliasing differs): passes.
- A bar 1 % longer: about 400 pixels; one different Chinese character in the
  corner label: about 100; everything one pixel to the side: thousands. Fails.
- A font whose advance widths differ moves text by whole pixels and fails: the
  comparison is only meaningful with the reference font, `REFERENCE_FONT`
  (Debian's fonts-noto-cjk, i.e. upstream Noto CJK Sans 2.004; CI on macOS
  installs that same release). Where it is missing the check says so and fails
  rather than compare a fallback font.

Hinting is off for these images: how a font's hinting instructions snap glyph
stems to the pixel grid differs between font builds far more than the outlines.
"""

from __future__ import annotations

import functools
import io
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from figures.i18n import SOURCE_LANGUAGE, is_source
from figures.runner import drawn_figure
from figures.spec import Figure
from site_builder.vocabulary.i18n import _, catalog_name

BASELINE_DIR = Path(__file__).with_name("baseline")
DPI = 96
"""One image pixel per CSS pixel at the size the page shows the figure."""
CHANGED_LEVEL = 64 / 255
"""A pixel changed when a colour channel moved by more than this (0..1)."""
MAX_CHANGED_PIXELS = 32
"""A figure fails when more pixels than this changed."""
REFERENCE_FONT = "Noto Sans CJK SC"
FONT_HINT = ("Debian/Ubuntu: apt-get install fonts-noto-cjk; elsewhere: NotoSansCJK-Regular.ttc and -Bold.ttc "
             "from github.com/notofonts/noto-cjk release Sans2.004, as .github/workflows/pages.yml does on macOS")
ACCEPT_HINT = "python build.py figures --accept"


@dataclass(frozen=True)
class PixelDiff:
    """How a new drawing differs from its baseline."""

    changed: int
    """Pixels whose largest channel difference exceeds CHANGED_LEVEL."""
    baseline: bytes
    """The baseline PNG."""
    drawn: bytes
    """The new drawing's PNG."""

    @property
    def fails(self) -> bool:
        return self.changed > MAX_CHANGED_PIXELS

    # Only a report shows these, for the figures that changed: made then, not for every figure checked.
    @functools.cached_property
    def rms(self) -> float:
        """Root-mean-square difference over all channels, 0..255 (matplotlib's measure)."""
        from matplotlib.testing.compare import calculate_rms

        expected, actual = png_pixels(self.baseline), png_pixels(self.drawn)
        return float(calculate_rms(expected * 255, actual * 255)) if expected.shape == actual.shape else 255.0

    @functools.cached_property
    def image(self) -> bytes:
        """PNG: the baseline faded, changed pixels in red (the new drawing when the sizes differ)."""
        import numpy as np

        expected, actual = png_pixels(self.baseline), png_pixels(self.drawn)
        if expected.shape != actual.shape:
            return _png(actual)
        faded = 0.8 + 0.2 * expected.mean(axis=-1, keepdims=True)  # (H, W, 1): a pale ghost of the baseline
        picture = np.repeat(faded, 3, axis=-1)
        picture[_changed(expected, actual)] = (0.85, 0.1, 0.1)
        return _png(picture)


def baseline_folder(baseline_dir: Path, language: str = SOURCE_LANGUAGE) -> Path:
    """The folder of the baselines drawn in ``language``: ``baseline_dir`` itself for the source language,
    its subfolder ``<catalog>`` (``en``) for another."""
    return baseline_dir if is_source(language) else baseline_dir / catalog_name(language)


def baseline_path(baseline_dir: Path, figure_id: str, language: str = SOURCE_LANGUAGE) -> Path:
    """The baseline of ``figure_id`` drawn in ``language``."""
    return baseline_folder(baseline_dir, language) / f"{figure_id}.png"


def draw_png(figure: Figure, data: Mapping[str, Any], language: str = SOURCE_LANGUAGE) -> bytes:
    """The figure drawn in ``language`` as its baseline PNG (``png_of``)."""
    with drawn_figure(figure, data, language) as (fig, _marks):
        return png_of(fig)


def png_of(fig: Any) -> bytes:
    """A drawn matplotlib figure as a baseline PNG: at DPI, without font hinting and without metadata. Only the
    saving is unhinted (no drawing measures text), so the PNG saved beside the SVG from the same drawing
    (``runner.draw_variants``) is byte-identical to one drawn on its own (tests/test_figure_check_drawing.py)."""
    import matplotlib

    buf = io.BytesIO()
    with matplotlib.rc_context({"text.hinting": "no_hinting"}):
        fig.savefig(buf, format="png", dpi=DPI, metadata={"Software": None})
    return buf.getvalue()


def reference_font_missing() -> str:
    """Why the figures cannot be compared here ('' when the reference font is installed); asked where the figures
    are drawn (``pool.asked_where_drawn``), so that this process need not import matplotlib."""
    from figures.pool import asked_where_drawn

    if asked_where_drawn(font_installed, REFERENCE_FONT):
        return ""
    return _("the figures are compared as drawn with the font '{font}', which is not installed here ({hint}; "
             "then delete matplotlib's font cache)", font=REFERENCE_FONT, hint=FONT_HINT)


def font_installed(family: str) -> bool:
    """Whether matplotlib finds the font ``family`` itself, not a fallback."""
    from matplotlib import font_manager

    try:
        font_manager.findfont(font_manager.FontProperties(family=family), fallback_to_default=False)
    except ValueError:
        return False
    return True


def read_baseline(path: Path) -> tuple[tuple[bytes, Any] | None, str]:
    """The baseline PNG and its image as an (H, W, 3) float array, or (None, a `path: message` problem)."""
    if not path.exists():
        return None, f"{shown_path(path)}: " + _("no baseline image; look at the figure, then create it with: {hint}",
                                                 hint=ACCEPT_HINT)
    try:
        return (path.read_bytes(), png_pixels(path)), ""
    except (OSError, ValueError) as error:  # PIL's UnidentifiedImageError is an OSError
        return None, f"{shown_path(path)}: " + _("cannot read the baseline image ({error}); regenerate it with: "
                                                 "{hint}", error=str(error), hint=ACCEPT_HINT)


def png_pixels(png: bytes | Path) -> Any:
    """A PNG (its bytes, or its file: PIL's errors then name it) as an (H, W, 3) float array in 0..1."""
    import numpy as np
    from PIL import Image

    with Image.open(png if isinstance(png, Path) else io.BytesIO(png)) as image:
        return np.asarray(image.convert("RGB"), dtype=np.float64) / 255  # (H, W, 3)


def compare_pixels(expected: tuple[bytes, Any], drawn: bytes) -> PixelDiff:
    """A new drawing (its PNG) against its baseline (``read_baseline``'s PNG and pixels)."""
    png, pixels = expected
    return PixelDiff(changed_pixels(pixels, png_pixels(drawn)), png, drawn)


def changed_pixels(expected: Any, actual: Any) -> int:
    """How many pixels changed (``png_pixels``' arrays); a different image size counts every pixel as changed."""
    if expected.shape != actual.shape:
        return max(expected.size, actual.size) // 3
    return int(_changed(expected, actual).sum())


def _changed(expected: Any, actual: Any) -> Any:
    """(H, W): whether each pixel's largest channel difference exceeds CHANGED_LEVEL."""
    import numpy as np

    return np.abs(expected - actual).max(axis=-1) > CHANGED_LEVEL


def _png(pixels: Any) -> bytes:
    import numpy as np
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray((np.clip(pixels, 0, 1) * 255).round().astype(np.uint8)).save(buf, format="PNG")
    return buf.getvalue()


def shown_path(path: Path) -> str:
    """A path relative to the repository when it is inside it."""
    root = Path(__file__).resolve().parent.parent
    try:
        return str(Path(path).resolve().relative_to(root))
    except ValueError:
        return str(path)
