"""The experiments and the figure check hold under other CPU code paths this machine can emulate.

NumPy picks SIMD code per CPU feature set (its exp, tanh, sin and cos round the
last bit differently with and without AVX-512); `NPY_DISABLE_CPU_FEATURES`
makes it take the paths an older CPU would. OpenBLAS picks kernels per CPU;
`OPENBLAS_CORETYPE` forces the kernels of another core. Under each, in a fresh
process: the bitwise-zero values are exactly 0 and `figures.check_figures`
(what `build.py check` runs on the figures) reports no problem.

One other OpenBLAS core is enough: the experiments sum in the fixed-order kernels
(lessonmodel/kernels.py), so OpenBLAS only reaches the two matrix-vector products of
`worked.attention_example` (rounding-class values) and matplotlib's 3x3 transforms.
Measured once under all five cores: the results documents differ only in the last
bit of attention_example's scores and outputs; Nehalem (SSE only, the furthest from
this machine's AVX-512 kernels) moves the most of them.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest

# Each test runs the experiments and checks every figure in a new process under emulated paths.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
X86 = platform.machine().lower() in ("x86_64", "amd64")

# NumPy 2.4 groups x86 features by level: X86_V2 is the baseline and cannot be disabled.
NUMPY_PATHS = {
    "no AVX-512 (x86-64-v3)": "X86_V4 AVX512_ICL AVX512_SPR",
    "no AVX2, no AVX-512 (x86-64-v2)": "X86_V3 X86_V4 AVX512_ICL AVX512_SPR",
}
OPENBLAS_CORE = "Nehalem"

SCRIPT = """
import json
import build, figures, lessonmodel
from site_builder.load.loader import load_content

results = lessonmodel.run_all(None)
zeros = {f"{exp}.{key}": v["value"] for exp, e in results["experiments"].items()
         for key, v in e["values"].items() if v["class"] == "exact" and isinstance(v["value"], float)}
content, _ = load_content(build.ROOT)
records = {r.id: r.data for r in content.records}
_, problems = figures.check_figures([figures.BY_ID[i] for i in figures.FIGURE_IDS], results, records)
print(json.dumps({"zeros": zeros, "problems": problems}))
"""


def _run(env: dict[str, str]) -> dict:
    full = {**os.environ, **env, "OPENBLAS_VERBOSE": "2"}
    out = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, env=full, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return {**json.loads(out.stdout.strip().splitlines()[-1]), "stderr": out.stderr}


def _assert_check_passes(found: dict) -> None:
    assert found["zeros"] and all(v == 0.0 for v in found["zeros"].values()), found["zeros"]
    assert found["problems"] == []


@pytest.mark.skipif(not X86, reason="these NumPy feature names are x86's; CI's arm64 runners check their own path")
@pytest.mark.parametrize("features", list(NUMPY_PATHS.values()), ids=list(NUMPY_PATHS))
def test_check_passes_under_older_numpy_simd_paths(features: str) -> None:
    _assert_check_passes(_run({"NPY_DISABLE_CPU_FEATURES": features}))


def test_check_passes_under_another_openblas_core() -> None:
    found = _run({"OPENBLAS_CORETYPE": OPENBLAS_CORE})
    if f"Core: {OPENBLAS_CORE}" not in found["stderr"]:  # OpenBLAS fell back to another kernel on this CPU
        pytest.skip(f"OpenBLAS does not run its {OPENBLAS_CORE} kernels on this CPU")
    _assert_check_passes(found)


@pytest.mark.skipif(not X86, reason="x86 feature names")
def test_check_passes_with_the_oldest_paths_combined() -> None:
    _assert_check_passes(_run({"NPY_DISABLE_CPU_FEATURES": NUMPY_PATHS["no AVX2, no AVX-512 (x86-64-v2)"],
                               "OPENBLAS_CORETYPE": "Sandybridge"}))


def test_the_emulated_paths_really_differ() -> None:
    # Otherwise the tests above would prove nothing: the rounding values must move in the last bits.
    if not X86:
        pytest.skip("x86 feature names")
    script = "import lessonmodel, json; print(json.dumps(lessonmodel.run_experiment('lesson_data')['data']))"
    outputs = {subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True,
                              env={**os.environ, "NPY_DISABLE_CPU_FEATURES": features}).stdout
               for features in ("", *NUMPY_PATHS.values())}
    if len(outputs) == 1:
        pytest.skip("this CPU has no SIMD path whose transcendental functions round differently")
    assert len(outputs) > 1
