"""figures/manifest.json: the accepted state of every figure, for CI.

Per figure it records the sha256 of its input data and of its SVG. CI renders
all figures and compares: a changed figure is explained as a data change (the
model or a record now says something else) or a drawing change (same data,
different SVG: code, style, fonts or matplotlib). ``python build.py figures
--accept`` rewrites the manifest after a human has looked.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

MANIFEST_PATH = Path(__file__).with_name("manifest.json")


def _data_origin(entry: Mapping[str, Any]) -> str:
    if entry.get("provenance") == "record":
        return "records differ: " + ", ".join(entry.get("inputs", []))
    return "lessonmodel results differ"


def check_manifest(rendered: Mapping[str, Mapping[str, Any]], manifest_path: Path = MANIFEST_PATH) -> list[str]:
    """Problems between freshly rendered figures and the accepted manifest (empty when equal)."""
    from figures.registry import FIGURE_IDS

    path = Path(manifest_path)
    if not path.exists():
        return [f"{path} does not exist; render the figures and accept them to create it"]
    accepted: dict[str, Any] = json.loads(path.read_text("utf-8"))["figures"]
    problems: list[str] = []
    for fid, entry in rendered.items():
        old = accepted.get(fid)
        if old is None:
            problems.append(f"figure {fid} is not in the manifest")
        elif old["data_sha256"] != entry["data_sha256"]:
            problems.append(f"figure {fid} changed: its data changed ({_data_origin(entry)})")
        elif old["svg_sha256"] != entry["svg_sha256"]:
            problems.append(f"figure {fid} changed: its drawing changed (same data, different SVG)")
        elif old.get("marks", {}) != _mark_boxes(entry):
            problems.append(f"figure {fid} changed: its marks changed (teacher notes point at them)")
    for fid in accepted:
        if fid in rendered:
            continue
        if fid in FIGURE_IDS:
            problems.append(f"figure {fid} is in the manifest but was not rendered")
        else:
            problems.append(f"manifest lists unknown figure {fid}")
    return problems


def _mark_boxes(entry: Mapping[str, Any]) -> dict[str, list[float]]:
    """Each mark's box, as the manifest records it (labels are text, not geometry)."""
    return {name: list(mark["box"]) for name, mark in sorted(entry.get("marks", {}).items())}


def write_manifest(rendered: Mapping[str, Mapping[str, Any]], manifest_path: Path = MANIFEST_PATH) -> None:
    """Accept the rendered figures: rewrite the manifest from them."""
    import importlib.metadata

    figures = {
        fid: {"provenance": e["provenance"], "inputs": list(e["inputs"]),
              "data_sha256": e["data_sha256"], "svg_sha256": e["svg_sha256"], "marks": _mark_boxes(e)}
        for fid, e in sorted(rendered.items())
    }
    doc = {"matplotlib": importlib.metadata.version("matplotlib"), "figures": figures}
    Path(manifest_path).write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", "utf-8")
