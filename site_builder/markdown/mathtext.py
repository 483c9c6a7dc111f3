"""Maths as plain text, for places that hold text only (the search index and its excerpts).

A reader searching or skimming an excerpt should see ``2 × L × n_kv × d_h``, not the TeX
``2 \\times L \\times n_{kv} \\times d_h``. The text is read off the MathML the build renders
anyway (mathrender.py), so it agrees with what the page shows: scripts as ``_`` and ``^``,
fractions as ``a/b``, roots as ``√(x)``.
"""

from __future__ import annotations

import functools
import xml.etree.ElementTree as ET

from site_builder.markdown.mathrender import MathError, render_math

_NS = "{http://www.w3.org/1998/Math/MathML}"


@functools.lru_cache(maxsize=4096)
def math_text(tex: str) -> str:
    """``tex`` as readable text; TeX the renderer refuses stays as written (the build reports it elsewhere)."""
    try:
        root = ET.fromstring(render_math(tex, False))
    except (MathError, ET.ParseError):
        return tex
    return " ".join(_text(root).split())


def _text(node: ET.Element) -> str:
    tag = node.tag.removeprefix(_NS)
    parts = [_text(child) for child in node]
    if tag in ("msub", "msup") and len(parts) == 2:
        return parts[0] + ("_" if tag == "msub" else "^") + _group(parts[1])
    if tag == "msubsup" and len(parts) == 3:
        return f"{parts[0]}_{_group(parts[1])}^{_group(parts[2])}"
    if tag == "mfrac" and len(parts) == 2:
        return f"{_group(parts[0])}/{_group(parts[1])}"
    if tag in ("msqrt", "mroot"):
        return f"√({parts[0] if tag == 'mroot' else ''.join(parts)})"
    if tag == "mo":
        text = (node.text or "").strip()
        return f" {text} " if text in "=+×·<>≤≥≈∝" and text else text
    return (node.text or "").strip() + "".join(parts)


def _group(text: str) -> str:
    """A script or fraction part of more than one symbol in parentheses (``h^(ℓ-1)``, not ``h^ℓ-1``)."""
    text = text.strip()
    wrapped = text.startswith("(") and text.endswith(")") and text.count("(") == 1
    return f"({text})" if len(text) > 1 and not text.isalnum() and not wrapped else text
