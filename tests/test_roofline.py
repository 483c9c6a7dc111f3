"""lessonmodel/roofline.py: ridge points from datasheet figures against decode's and prefill's intensity."""

from __future__ import annotations

import pytest

from lessonmodel import REAL_MODELS, ModelConfig
from lessonmodel.memory import decode_flops
from lessonmodel.roofline import ACCELERATORS, prefill_intensity, roofline, tokens_to_ridge

OPT = next(m for m in REAL_MODELS if m.key == "opt_13b")


@pytest.fixture(scope="module")
def result():
    return roofline(ModelConfig())


def test_the_roofline_is_computed_and_every_accelerator_cites_a_datasheet(result):
    assert result.provenance == "computed"
    assert all(a.source.endswith("-datasheet") for a in ACCELERATORS)


def test_ridge_points_and_the_decode_lower_bound_follow_from_the_datasheet_figures(result):
    v = {x.key: x.value for x in result.values}
    for a in ACCELERATORS:
        assert v[f"{a.key}_ridge"] == pytest.approx(a.fp16_tflops * 1e12 / (a.bandwidth_gbs * 1e9))
        read = OPT.n_params * 2 + 2 * OPT.n_layers * OPT.native_context * OPT.n_kv_heads * OPT.d_head * 2
        assert v[f"{a.key}_opt_13b_decode_ms_floor"] == pytest.approx(1e3 * read / (a.bandwidth_gbs * 1e9))
        # decode is memory-bound: its FLOPs at full throughput take far less than reading its bytes
        assert v[f"{a.key}_opt_13b_decode_compute_ms"] < v[f"{a.key}_opt_13b_decode_ms_floor"] / 50
        assert v[f"{a.key}_ridge"] > 100


def test_prefill_intensity_grows_with_the_prompt_and_crosses_the_ridge_where_stated():
    assert prefill_intensity(OPT, 1) == pytest.approx(decode_flops(OPT, 1) / (OPT.n_params * 2 + 2 * 40 * 5120 * 2))
    intensities = [prefill_intensity(OPT, t) for t in (16, 128, 512, 2048)]
    assert intensities == sorted(intensities) and intensities[-1] > 1000
    for ridge in (50.0, 200.0):
        t = tokens_to_ridge(OPT, ridge)
        assert prefill_intensity(OPT, t) >= ridge > prefill_intensity(OPT, t - 1)
