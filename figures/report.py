"""`build.py check --report DIR`: one HTML page showing every changed figure.

For each figure that failed the check: the committed baseline, the new drawing
and their difference (changed pixels in red) side by side, and the input values
that changed. CI writes it when the check fails and uploads it as an artifact.
"""

from __future__ import annotations

import html
from collections.abc import Iterable
from pathlib import Path

from figures.baseline import CHANGED_LEVEL, MAX_CHANGED_PIXELS
from figures.manifest import FigureCheck

_STYLE = """
body { font-family: system-ui, "Noto Sans CJK SC", sans-serif; margin: 2rem; color: #1a1a1a; }
.figure { border-top: 1px solid #ccc; padding-top: 1rem; margin-top: 2rem; }
.images { display: grid; grid-template-columns: repeat(3, minmax(0, 1fr)); gap: 1rem; }
.images img { width: 100%; border: 1px solid #ddd; }
.missing { padding: 2rem; border: 1px dashed #b34700; color: #b34700; }
code { background: #f2f2f2; padding: 0 .2em; }
"""


def write_report(checks: Iterable[FigureCheck], problems: Iterable[str], out_dir: Path) -> Path:
    """Write `out_dir/index.html` and its images; returns the page's path."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    changed = [c for c in checks if c.changed]
    sections = [_section(c, out_dir) for c in changed]
    others = [p for p in problems if not any(p in c.problems for c in changed)]
    page = "\n".join([
        "<!doctype html>", '<html lang="en"><head><meta charset="utf-8">',
        "<title>Figure check report</title>", f"<style>{_STYLE}</style></head><body>",
        "<h1>Figure check report</h1>",
        f"<p>{len(changed)} figure(s) changed. A pixel counts as changed when a colour channel moved by more "
        f"than {round(CHANGED_LEVEL * 255)} of 255; a figure fails above {MAX_CHANGED_PIXELS} changed pixels. "
        "After checking, accept with <code>python build.py figures --accept</code>.</p>",
        *([f"<h2>Other problems</h2><ul>{''.join(f'<li>{html.escape(p)}</li>' for p in others)}</ul>"]
          if others else []),
        *sections, "</body></html>", ""])
    path = out_dir / "index.html"
    path.write_text(page, "utf-8")
    return path


def _section(check: FigureCheck, out_dir: Path) -> str:
    fid = html.escape(check.shown)
    images = [("baseline (committed)", check.baseline_png, "baseline"), ("new drawing", check.new_png, "new"),
              ("difference (red: changed)", check.pixels.image if check.pixels else None, "diff")]
    cells = []
    for label, png, suffix in images:
        if png is None:
            cells.append(f'<figure><div class="missing">none</div><figcaption>{label}</figcaption></figure>')
            continue
        name = f"{check.shown.replace('/', '-')}-{suffix}.png"
        (out_dir / name).write_bytes(png)
        cells.append(f'<figure><img src="{html.escape(name)}" alt="{fid}: {label}">'
                     f"<figcaption>{label}</figcaption></figure>")
    pixels = (f"{check.pixels.changed} pixels changed, RMS {check.pixels.rms:.2f}" if check.pixels
              else "no readable baseline")
    data = ("".join(f"<li><code>{html.escape(c)}</code></li>" for c in check.data_changes)
            or "<li>no input value changed</li>")
    problems = "".join(f"<li>{html.escape(p)}</li>" for p in check.problems)
    return (f'<section class="figure" id="{fid}"><h2>{fid}</h2><p>{pixels}</p>'
            f'<div class="images">{"".join(cells)}</div>'
            f"<h3>What changed in its data</h3><ul>{data}</ul><h3>Problems</h3><ul>{problems}</ul></section>")
