"""Where something a reader sees comes from: the four provenances and the words that say so.

Figures draw the same words in their corner (figures/style.py) that the site prints on the badge
beside them, so both come from here.
"""

from __future__ import annotations

from site_builder.vocabulary.i18n import _, localize

PROVENANCES = ("teaching", "computed", "measured", "record")
"""Weakest claim first: a sketch; a formula applied to declared inputs (published configs); this
build's model run; a result recorded earlier."""

BADGE_TEXT = {
    "teaching": _("teaching sketch, not measured"),
    "computed": _("computed by formula, not measured"),
    "measured": _("measured by the model"),
    "record": _("historical record"),
}
"""The text of the provenance badge; provenance is text, never colour alone. A figure's corner
label is drawn from the same provenance, and the build checks that the two texts agree."""

FIGURE_LANGUAGE = "zh-CN"
"""The language a figure's corner label is drawn in when no course language is given: the first course's,
the one its committed baselines (figures/baseline/) are drawn in."""


def corner_label(provenance: str, language: str = FIGURE_LANGUAGE) -> str:
    """The badge's words as a figure draws them in its corner, in the course's ``language``."""
    return localize(BADGE_TEXT[provenance], language)
