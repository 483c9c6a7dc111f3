"""Find the experiments (``discover``), run them and assemble the results document.

Results are cached on disk as JSON, keyed by the sha256 of lessonmodel's own
source files plus the experiment name and config: an unchanged model is never
rerun, and any edit to any source file (a new experiment's module too) reruns everything.
Each cache file also carries the sha256 of its entry: a file that is unreadable, wrong-shaped
or edited (a value changed by hand would be published as measured) is discarded, recomputed,
and named in one plain-English line on stderr (lessonmodel imports nothing of the site builder,
so it cannot use the course's message catalogs). The experiments' names are kept beside them under
the source hash alone, so a run whose entries are all cached imports no experiment module (nor NumPy);
a names file found damaged is only found again, silently: it holds no value a page could publish.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import json
import os
import pkgutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from lessonmodel.config import ModelConfig
from lessonmodel.result import ROUNDING, ROUNDING_TOLERANCE, VALUE_CLASSES, Experiment, result_document

PACKAGE_DIR = Path(__file__).resolve().parent


def discover() -> dict[str, Experiment]:
    """Every function marked ``@experiment`` in the package's modules, by name: modules in name order, each
    module's experiments in the order it defines them, so the document's order is the same on every machine."""
    found: dict[str, Experiment] = {}
    # The package's own modules, no subpackage: the source hash (and so the cache) covers exactly these.
    for name in sorted(info.name for info in pkgutil.iter_modules([str(PACKAGE_DIR)])
                       if not info.name.startswith("_") and not info.ispkg):
        module = importlib.import_module(f"{__package__}.{name}")
        for fn in vars(module).values():
            if callable(fn) and getattr(fn, "is_experiment", False) is True and fn.__module__ == module.__name__:
                assert fn.__name__ not in found, f"experiment {fn.__name__!r} is defined twice"
                found[fn.__name__] = fn
    return found


@functools.cache
def experiments() -> dict[str, Experiment]:
    """Experiment name -> function; the order is the order of the document. Found when first asked for
    (``EXPERIMENTS``): importing every experiment's module imports NumPy, which cached results do not need."""
    return discover()


def __getattr__(name: str) -> Any:
    if name == "EXPERIMENTS":
        return experiments()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


DEFAULT_CONFIG = ModelConfig()
"""The lesson model every experiment starts from."""


def source_hash(package_dir: Path = PACKAGE_DIR) -> str:
    """sha256 over the names and bytes of every .py file of the package."""
    h = hashlib.sha256()
    for path in sorted(package_dir.glob("*.py")):
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def cache_key(name: str, cfg: ModelConfig, src_hash: str) -> str:
    """sha256 of source hash + experiment name + config."""
    return entry_digest({"source": src_hash, "experiment": name, "config": cfg.to_dict()})


def compute_experiment(name: str, cfg: ModelConfig = DEFAULT_CONFIG) -> dict[str, Any]:
    """Run one experiment now and return its document entry.

    The entry goes through JSON, exactly as a cache hit comes back, so a fresh run and a
    cached one give the same document (key order included): output never depends on the cache.
    """
    if name not in experiments():
        raise ValueError(f"unknown experiment {name!r}; known: {', '.join(experiments())}")
    fn = experiments()[name]
    source = f"lessonmodel/{fn.__module__.rsplit('.', 1)[-1]}.py"  # the file that holds it
    return json.loads(json.dumps(result_document(fn(cfg), name, source)))


def write_atomically(path: Path, text: str) -> None:
    """Write to a temporary file and rename, so a crash never leaves half a file.

    The site builder has its own (site_builder/vocabulary/atomic.py); lessonmodel keeps this one because it
    imports nothing of the site builder: a lesson's download carries the model alone."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def entry_digest(entry: Any) -> str:
    """sha256 of canonical JSON: a cache key's fields, or the entry a cache file must carry beside it."""
    return hashlib.sha256(json.dumps(entry, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def _read_cached(path: Path, key: str) -> tuple[dict[str, Any] | None, bool]:
    """(the entry stored at ``path`` under ``key``, whether a file there had to be discarded)."""
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None, False
    except (OSError, ValueError):  # unreadable, not UTF-8, not JSON
        return None, True
    entry = stored.get("entry") if isinstance(stored, dict) else None
    if isinstance(entry, dict) and stored.get("key") == key and stored.get("entry_sha256") == entry_digest(entry):
        return entry, False
    return None, True


def _cached_run(name: str, cache_dir: Path, cfg: ModelConfig, src_hash: str) -> tuple[dict[str, Any], bool]:
    """(one experiment's entry, whether its cache file was discarded or could not be stored)."""
    key = cache_key(name, cfg, src_hash)
    path = Path(cache_dir) / f"lessonmodel-{name}-{key[:20]}.json"
    entry, discarded = _read_cached(path, key)
    if entry is None:
        entry = compute_experiment(name, cfg)
        discarded = not _store(path, key, entry) or discarded
    return entry, discarded


def _store(path: Path, key: str, entry: dict[str, Any]) -> bool:
    """Keep ``entry`` at ``path`` under ``key``, with its digest (what ``_read_cached`` checks); whether it could."""
    try:  # key order kept: a cache hit must read back what was computed
        write_atomically(path, json.dumps({"key": key, "entry_sha256": entry_digest(entry), "entry": entry},
                                          indent=1))
    except OSError:
        return False
    return True


def run_experiment(name: str, cache_dir: Path | None = None, cfg: ModelConfig = DEFAULT_CONFIG,
                   src_hash: str | None = None) -> dict[str, Any]:
    """One experiment's entry, from `cache_dir` when its key and digest match, else computed (and stored)."""
    return _run([name], cache_dir, cfg, src_hash or source_hash())[name]


def _run(names: list[str], cache_dir: Path | None, cfg: ModelConfig, src_hash: str) -> dict[str, Any]:
    """Entries by name, cached in `cache_dir` if given; the discarded cache files named in one line."""
    runs = {name: _cached_run(name, cache_dir, cfg, src_hash) if cache_dir is not None
            else (compute_experiment(name, cfg), False) for name in names}
    discarded = [name for name, (_entry, bad) in runs.items() if bad]
    if discarded:
        print(f"lessonmodel: cache entries of {', '.join(discarded)} in {cache_dir} were unreadable or did not "
              "match their digest; computed again", file=sys.stderr)
    return {name: entry for name, (entry, _bad) in runs.items()}


def run_all(cache_dir: Path | None = None) -> dict[str, Any]:
    """The results document: every experiment's entry, in order, and the value classes; cached in `cache_dir`
    if given."""
    src_hash = source_hash()
    return {
        "source_hash": src_hash,
        "value_classes": {name: {"meaning": meaning}
                          | (ROUNDING_TOLERANCE if name == ROUNDING else {})
                          for name, meaning in VALUE_CLASSES.items()},
        "experiments": _run(_names(cache_dir, src_hash), cache_dir, DEFAULT_CONFIG, src_hash),
    }


def _names(cache_dir: Path | None, src_hash: str) -> list[str]:
    """The experiments' names, in order: found by importing the package, or read from ``cache_dir``, where
    the last import under the same source hash (the same modules, so the same names) left them."""
    if cache_dir is None:
        return list(experiments())
    path = Path(cache_dir) / f"experiments-{src_hash[:20]}.json"
    listed, _discarded = _read_cached(path, src_hash)  # a damaged list is only found again: it holds no value
    if listed is not None and isinstance(listed.get("names"), list):
        return listed["names"]
    names = list(experiments())
    _store(path, src_hash, {"names": names})  # not kept: found again next time
    return names
