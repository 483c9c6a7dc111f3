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
"""The language figures are drawn in, whatever the site's (their labels are pictures, compared with
the committed baselines)."""


def corner_label(provenance: str) -> str:
    """The badge's words as a figure draws them in its corner."""
    return localize(BADGE_TEXT[provenance], FIGURE_LANGUAGE)
