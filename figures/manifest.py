"""figures/manifest.json: the accepted input data of every figure; figures/baseline/: its picture.

The manifest keeps each figure input (an experiment's config, values and data, or
a record) quantized by its values' classes: `exact` values as they are,
`rounding` floats to 12 significant digits, compared within the class's
tolerance. So a CPU whose `exp` rounds the last bit differently agrees, and a
changed number does not. The picture is checked by pixels against the committed
baseline PNG (figures/baseline.py). `python build.py figures --accept` rewrites
both after a human has looked, and lists what it accepted.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from figures import baseline
from figures.i18n import SOURCE_LANGUAGE, is_source
from figures.runner import figure_data
from figures.spec import Figure
from site_builder.vocabulary.atomic import write_atomic
from site_builder.vocabulary.i18n import _, catalog_name
from site_builder.vocabulary.numbers import agrees

MANIFEST_PATH = Path(__file__).with_name("manifest.json")
SIGNIFICANT_DIGITS = 12
"""Rounding floats are stored this precisely: finer than any tolerance they are compared with."""
EXACT, ROUNDING = "exact", "rounding"
SHOWN_CHANGES = 8
MARK_TOLERANCE_PT = 2.0
"""How far (SVG units, pt) a mark's edge may move before the check calls the mark moved: teacher
notes and position words point at these boxes; a font's glyph widths may shift them a little."""


@dataclass(frozen=True)
class FigureCheck:
    """One figure compared with its accepted state."""

    id: str
    new_png: bytes
    baseline_png: bytes | None
    """The committed image, if it could be read."""
    pixels: baseline.PixelDiff | None
    """None when there is no readable baseline."""
    data_changes: tuple[str, ...]
    """'path: old → new' for each input leaf that changed beyond its class's tolerance."""
    problems: tuple[str, ...]
    """`path: message` lines for build.py check."""
    marks_changes: tuple[str, ...] = ()
    """'name: what' for each mark added, removed or moved beyond MARK_TOLERANCE_PT."""
    language: str = SOURCE_LANGUAGE
    """The language the figure was drawn in (its baseline is that language's)."""

    @property
    def shown(self) -> str:
        """How the check names it: the figure id, after its catalog in another language (``en/r55-b0``)."""
        return shown_id(self.id, self.language)

    @property
    def changed(self) -> bool:
        return bool(self.problems)


def shown_id(figure_id: str, language: str) -> str:
    """A figure as the check names it in ``language``: its id, after its catalog in another language."""
    return figure_id if is_source(language) else f"{catalog_name(language)}/{figure_id}"


# --- quantizing inputs by value class ------------------------------------------------------

def quantize(node: Any, kind: str = ROUNDING) -> Any:
    """Floats of class `rounding` to SIGNIFICANT_DIGITS; everything else as it is.

    A value entry ({"value": …, "class": …}) uses its own class; other floats in an
    experiment's data are rounding (they come from exp/tanh/sin like the values do).
    """
    if isinstance(node, Mapping):
        own = node.get("class", kind) if "value" in node else kind
        return {k: quantize(v, own if k == "value" else kind) for k, v in node.items()}
    if isinstance(node, list | tuple):
        return [quantize(v, kind) for v in node]
    if isinstance(node, float) and kind == ROUNDING:
        return float(f"{node:.{SIGNIFICANT_DIGITS}g}")
    return node


def figure_inputs(figures: Iterable[Figure], results: Mapping[str, Any],
                  records: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """Every figure input by name, quantized; records are committed files, so compared exactly."""
    inputs: dict[str, Any] = {}
    for figure in figures:
        data, _ = figure_data(figure, results, records)
        for name, value in (data or {}).items():
            inputs[name] = quantize(value, EXACT if figure.provenance == "record" else ROUNDING)
    return dict(sorted(inputs.items()))


def data_changes(old: Any, new: Any, tolerance: Mapping[str, float], path: str = "",
                 kind: str = ROUNDING) -> list[str]:
    """Leaves of `new` that differ from `old` beyond their class allows, as 'path: old → new'."""
    if isinstance(old, Mapping) and isinstance(new, Mapping):
        own = new.get("class", kind) if "value" in new else kind
        out: list[str] = []
        for key in sorted(set(old) | set(new), key=str):
            where = f"{path}.{key}" if path else str(key)
            if key not in old or key not in new:
                out.append(f"{where}: {_short(old.get(key, '(absent)'))} → {_short(new.get(key, '(absent)'))}")
            else:
                out += data_changes(old[key], new[key], tolerance, where, own if key == "value" else kind)
        return out
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        return [c for i, (a, b) in enumerate(zip(old, new, strict=True))
                for c in data_changes(a, b, tolerance, f"{path}[{i}]", kind)]
    if _same(old, new, tolerance, kind):
        return []
    return [f"{path}: {_short(old)} → {_short(new)}"]


def _same(old: Any, new: Any, tolerance: Mapping[str, float], kind: str) -> bool:
    numbers = (int, float)
    if (kind == ROUNDING and isinstance(old, numbers) and isinstance(new, numbers)
            and not isinstance(old, bool) and not isinstance(new, bool)):
        return agrees(new, old, ROUNDING, tolerance["rtol"], tolerance["atol"])
    return type(old) is type(new) and old == new


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "…"


# --- the manifest file -----------------------------------------------------------------------

def read_manifest(path: Path) -> tuple[dict[str, Any] | None, str]:
    """The manifest, or (None, a `path: message` problem)."""
    shown = baseline.shown_path(path)
    if not path.exists():
        return None, f"{shown}: " + _("does not exist; look at the figures, then create it with: {hint}",
                                      hint=baseline.ACCEPT_HINT)
    try:
        doc = json.loads(path.read_text("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        return None, f"{shown}: " + _("not valid JSON ({error}); regenerate it with: {hint}", error=str(error),
                                      hint=baseline.ACCEPT_HINT)
    if not isinstance(doc, dict) or not isinstance(doc.get("figures"), dict) or not isinstance(doc.get("inputs"), dict):
        return None, f"{shown}: " + _("has no 'figures' and 'inputs' objects (an older format?); regenerate it "
                                        "with: {hint}", hint=baseline.ACCEPT_HINT)
    return doc, ""


def mark_boxes(entry: Mapping[str, Any] | None) -> dict[str, list[float]]:
    """A rendered figure's marks as the manifest records them: name → box (labels are text, not geometry)."""
    return {name: list(mark["box"]) for name, mark in sorted(((entry or {}).get("marks") or {}).items())}


def marks_changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """Marks added, removed or moved by more than MARK_TOLERANCE_PT, as 'name: what'."""
    changes = [_("{name}: new", name=name) for name in new if name not in old]
    changes += [_("{name}: removed", name=name) for name in old if name not in new]
    changes += [_("{name}: moved {old} → {new}", name=name, old=_short(old[name]), new=_short(new[name]))
                for name in new if name in old
                and max(abs(a - b) for a, b in zip(old[name], new[name], strict=True)) > MARK_TOLERANCE_PT]
    return changes


def write_manifest(figures: Iterable[Figure], inputs: Mapping[str, Any], path: Path = MANIFEST_PATH,
                   marks: Mapping[str, Mapping[str, Any]] | None = None) -> None:
    import importlib.metadata

    marks = marks or {}
    doc = {
        "matplotlib": importlib.metadata.version("matplotlib"),
        "font": baseline.REFERENCE_FONT,
        "figures": {f.id: {"provenance": f.provenance, "inputs": list(f.inputs),
                           "baseline": f"baseline/{f.id}.png", "marks": dict(marks.get(f.id, {}))}
                    for f in sorted(figures, key=lambda f: f.id)},
        "inputs": dict(inputs),
    }
    write_atomic(Path(path), json.dumps(doc, indent=1, ensure_ascii=False, sort_keys=True) + "\n")


# --- checking and accepting ------------------------------------------------------------------

def check_figure(figure: Figure, results: Mapping[str, Any], records: Mapping[str, Mapping[str, Any]],
                 accepted: Mapping[str, Any], baseline_dir: Path, manifest_path: Path,
                 marks: Mapping[str, Any] | None, language: str, new_png: bytes) -> FigureCheck:
    """Compare `figure` drawn in ``language`` (``new_png``, ``baseline.png_of``) with that language's baseline and,
    in the source language, its inputs and (given the rendered entry's ``marks``) its marks with the manifest:
    those are the same in every language, so they are said once."""
    path = baseline.baseline_path(baseline_dir, figure.id, language)
    expected, unreadable = baseline.read_baseline(path)
    problems = [unreadable] if unreadable else []
    pixels = None
    if expected is not None:
        pixels = baseline.compare_pixels(expected, new_png)
        if pixels.fails:
            problems.append(f"{baseline.shown_path(path)}: " + _(
                "figure {id} looks different: {n} pixels changed (tolerance {tolerance}); look at it (build.py "
                "check --report DIR), then accept it with: {hint}", id=shown_id(figure.id, language), n=pixels.changed,
                tolerance=baseline.MAX_CHANGED_PIXELS, hint=baseline.ACCEPT_HINT))
    source = is_source(language)
    changes, moved = _manifest_changes(figure, results, records, accepted, marks) if source else ([], [])
    in_manifest = f"{baseline.shown_path(manifest_path)}: "
    if source and figure.id not in accepted["figures"]:
        problems.append(in_manifest + _("figure {id} is not in the manifest; accept it with: {hint}", id=figure.id,
                                        hint=baseline.ACCEPT_HINT))
    if changes:
        shown = _joined(changes[:SHOWN_CHANGES]) + (_("; and {n} more", n=len(changes) - SHOWN_CHANGES)
                                                    if len(changes) > SHOWN_CHANGES else "")
        problems.append(in_manifest + _("figure {id}: its data changed: {changes}", id=figure.id, changes=shown))
    if moved:
        problems.append(in_manifest + _(
            "figure {id}: its marks changed (teacher notes point at them): {changes}; accept it with: {hint}",
            id=figure.id, changes=_joined(moved[:SHOWN_CHANGES]), hint=baseline.ACCEPT_HINT))
    return FigureCheck(figure.id, new_png, pixels.baseline if pixels else None, pixels,
                       tuple(changes), tuple(problems), tuple(moved), language)


def _manifest_changes(figure: Figure, results: Mapping[str, Any], records: Mapping[str, Mapping[str, Any]],
                      accepted: Mapping[str, Any], marks: Mapping[str, Any] | None) -> tuple[list[str], list[str]]:
    """How `figure`'s inputs and marks differ from the manifest: (data changes, mark changes)."""
    tolerance = _tolerance(results)
    now = figure_inputs([figure], results, records)
    changes = [c for name in figure.inputs
               for c in (data_changes(accepted["inputs"][name], now.get(name), tolerance, name)
                         if name in accepted["inputs"] else [_("{name}: not in the manifest yet", name=name)])]
    moved = marks_changes(accepted["figures"].get(figure.id, {}).get("marks", {}), marks) if marks is not None else []
    return changes, moved


def _check_all(figures: list[Figure], results: Mapping[str, Any], records: Mapping[str, Mapping[str, Any]],
               accepted: Mapping[str, Any], baseline_dir: Path, manifest_path: Path,
               marks: Mapping[str, Mapping[str, Any]] | None, languages: Sequence[str],
               drawn: Mapping[tuple[str, str], bytes]) -> list[FigureCheck]:
    """Each figure checked in each language, its PNG taken from ``drawn`` or drawn now, on every core."""
    from figures.pool import Drawers

    wanted = [(f, language) for language in languages for f in figures]
    jobs = [(f, figure_data(f, results, records)[0] or {}, language) for f, language in wanted
            if (f.id, language) not in drawn]
    with Drawers(draw=baseline.draw_png) as drawers:
        pngs = {**drawn, **{(f.id, language): png for (f, _data, language), png in zip(jobs, drawers.draw(jobs),
                                                                                       strict=True)}}
    return [check_figure(f, results, records, accepted, baseline_dir, manifest_path,
                         None if marks is None else marks.get(f.id, {}), language, pngs[f.id, language])
            for f, language in wanted]


def check_figures(figures: Iterable[Figure], results: Mapping[str, Any],
                  records: Mapping[str, Mapping[str, Any]], manifest_path: Path = MANIFEST_PATH,
                  baseline_dir: Path = baseline.BASELINE_DIR,
                  marks: Mapping[str, Mapping[str, Any]] | None = None,
                  languages: Sequence[str] = (SOURCE_LANGUAGE,),
                  drawn: Mapping[tuple[str, str], bytes] | None = None) -> tuple[list[FigureCheck], list[str]]:
    """Every figure's check in each of ``languages`` (``figures.LANGUAGES``: all), and every problem
    (`path: message`), including manifest-level ones. ``drawn``: (figure id, language) → its baseline PNG drawn
    already by this run (``render_languages``' ``baselines``); the others are drawn here."""
    accepted, problem = read_manifest(manifest_path)
    if accepted is None:
        return [], [problem]
    missing_font = baseline.reference_font_missing()
    if missing_font:
        return [], [f"{baseline.shown_path(baseline_dir)}: {missing_font}"]
    checks = _check_all(list(figures), results, records, accepted, baseline_dir, manifest_path, marks, languages,
                        drawn or {})
    problems = [p for c in checks for p in c.problems]
    from figures.registry import FIGURE_IDS

    problems += [f"{baseline.shown_path(manifest_path)}: " + _(
        "lists figure {id}, which no module registers; accept to remove it: {hint}", id=fid, hint=baseline.ACCEPT_HINT)
        for fid in accepted["figures"] if fid not in FIGURE_IDS]
    return checks, problems


def accept_figures(figures: Iterable[Figure], results: Mapping[str, Any],
                   records: Mapping[str, Mapping[str, Any]], manifest_path: Path = MANIFEST_PATH,
                   baseline_dir: Path = baseline.BASELINE_DIR,
                   marks: Mapping[str, Mapping[str, Any]] | None = None,
                   languages: Sequence[str] = (SOURCE_LANGUAGE,)) -> list[str]:
    """Write new baselines for the figures that changed, in each of ``languages``, and rewrite the manifest;
    say what was accepted.

    A figure within the tolerance keeps its committed PNG, so accepting on another
    machine does not rewrite every image. Without the reference font nothing is
    accepted (ValueError): the baselines would show a fallback font.
    """
    missing_font = baseline.reference_font_missing()
    if missing_font:
        raise ValueError(f"{baseline.shown_path(baseline_dir)}: " + _("nothing accepted: {why}", why=missing_font))
    figures = list(figures)
    accepted = read_manifest(manifest_path)[0] or {"figures": {}, "inputs": {}}
    said: list[str] = []
    for check in _check_all(figures, results, records, accepted, baseline_dir, manifest_path, marks, languages, {}):
        if not check.changed:
            continue
        if check.pixels is None or check.pixels.fails:
            path = baseline.baseline_path(baseline_dir, check.id, check.language)
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(path, check.new_png)
        said.append(_("accepted {id}: {what}", id=check.shown, what=_what_changed(check)))
    known = {f.id for f in figures}
    for language in languages:
        for stale in sorted(baseline.baseline_folder(baseline_dir, language).glob("*.png")):
            if stale.stem not in known:
                stale.unlink()
                said.append(_("removed {path}: no figure {id} is drawn", path=baseline.shown_path(stale),
                              id=stale.stem))
    said += [_("removed figure {id} from the manifest", id=fid) for fid in accepted["figures"] if fid not in known]
    tolerance = _tolerance(results)
    accepted_marks = {fid: entry["marks"] for fid, entry in accepted["figures"].items() if "marks" in entry}
    write_manifest(figures, _kept(figure_inputs(figures, results, records), accepted["inputs"],
                                  lambda old, new: data_changes(old, new, tolerance)),
                   manifest_path, _kept(marks or {}, accepted_marks, marks_changes))
    return said


def _kept(now: Mapping[str, Any], accepted: Mapping[str, Any], differ: Any) -> dict[str, Any]:
    """Entries within their tolerance keep the accepted text: accepting on another CPU changes no line."""
    return {name: accepted[name] if name in accepted and not differ(accepted[name], value) else value
            for name, value in now.items()}


def _tolerance(results: Mapping[str, Any]) -> Mapping[str, float]:
    return results["value_classes"][ROUNDING]  # its rtol and atol, as the results document states them


def _what_changed(check: FigureCheck) -> str:
    parts = []
    if check.pixels is None:
        parts.append(_("new baseline image"))
    elif check.pixels.fails:
        parts.append(_("picture changed ({n} pixels)", n=check.pixels.changed))
    if check.marks_changes:
        parts.append(_("marks changed ({changes})", changes=_first_three(check.marks_changes)))
    if check.data_changes:
        parts.append(_("data changed ({n}: {changes})", n=len(check.data_changes),
                       changes=_first_three(check.data_changes)))
    return _joined(parts, ", ") if parts else _("newly listed in the manifest")


def _first_three(changes: Sequence[str]) -> str:
    return _joined(changes[:3]) + ("; …" if len(changes) > 3 else "")


def _joined(parts: Sequence[str], between: str = "; ") -> str:
    """``between.join(parts)`` that keeps messages translatable (``str.join`` would make them English text)."""
    return functools.reduce(lambda joined, part: joined + between + part, parts) if parts else ""
