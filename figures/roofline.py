"""The roofline of lesson kv-bytes: two accelerators' ceilings against OPT-13B's decode and prefill."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from figures import style as s
from figures.i18n import shown, tr, tr_later
from figures.inputs import series, value
from figures.marks import mark
from figures.spec import Figure

_COLORS = (s.BLUE, s.VERMILION)


def draw_roofline(fig: Any, data: Mapping[str, Any]) -> dict[str, Any]:
    """Attainable TFLOPS = min(peak, intensity · bandwidth) on log-log axes, with the steps' intensities."""
    accelerators = series(data, "roofline", "accelerators")
    prefill = series(data, "roofline", "prefill")
    decode = series(data, "roofline", "decode_flops_per_byte")
    ax = fig.add_axes((0.14, 0.14, 0.8, 0.66))
    xs = [0.25 * 1.25**i for i in range(60)]  # FLOP per byte, 0.25 .. ~1.3e5
    roofs, ridges = [], []
    for a, color in zip(accelerators, _COLORS, strict=True):
        ridge = a["fp16_tflops"] * 1e12 / (a["bandwidth_gbs"] * 1e9)
        roofs += ax.plot(xs, [min(a["fp16_tflops"], x * a["bandwidth_gbs"] / 1e3) for x in xs], color=color, lw=2,
                         label=tr("{name}：{bandwidth} GB/s，{tflops} TFLOPS", name=a["key"].upper(),
                                  bandwidth=shown(a["bandwidth_gbs"]), tflops=shown(a["fp16_tflops"])))
        ridges += ax.plot([ridge], [a["fp16_tflops"]], "o", color=color, ms=6)
        # above its own flat roof: below it, the next lower roof would run through the text
        ridges.append(ax.text(ridge * 1.3, a["fp16_tflops"] * 1.25, tr("拐点 ≈ {ridge}", ridge=shown(ridge)),
                              color=color, fontsize=s.FS_SMALL, va="bottom"))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(xs[0], 1e5)
    ax.set_ylim(0.2, 3000)
    decode_line = ax.axvline(decode, color=s.INK, ls="--", lw=s.LW)
    decode_text = ax.text(decode * 1.12, 0.3, tr("decode\n≈ {intensity}", intensity=shown(decode)),
                          fontsize=s.FS_SMALL, va="bottom")
    prompts = [p for p in prefill if p["tokens"] > 1]
    prefill_marks = ax.plot([p["flops_per_byte"] for p in prompts], [0.45] * len(prompts), "v", color=s.ORANGE, ms=7)
    prefill_marks += [ax.text(p["flops_per_byte"], 0.6, shown(p["tokens"]), ha="center", fontsize=s.FS_TAG,
                              color=s.ORANGE_TEXT) for p in prompts]
    prefill_note = ax.text(prompts[0]["flops_per_byte"] * 0.8, 1.1, tr("prefill（提示 token 数）"), fontsize=s.FS_SMALL,
                           color=s.ORANGE_TEXT)
    ax.set_xlabel(tr("每读一个字节做的浮点运算（FLOP/byte，对数轴）"))
    ax.set_ylabel(tr("能达到的算力（TFLOPS）"))
    legend = ax.legend(loc="lower right", bbox_to_anchor=(1.0, 0.27), fontsize=s.FS_SMALL, frameon=False)
    model = value(data, "roofline.a100_opt_13b_prefill_tokens_to_ridge")
    s.title(fig, tr("屋顶线：OPT-13B 的 decode 远在拐点左边"))
    fig.text(0.03, 0.895, tr("fp16、batch 1；A100 上提示约 {n} 个 token 起，prefill 越过拐点", n=shown(model)),
             fontsize=s.FS_SMALL, color=s.MUTED, va="top")
    return {"roofs": mark(tr("两条屋顶线"), roofs, legend), "ridges": mark(tr("两个拐点"), ridges),
            "decode": mark(tr("decode 的竖线"), decode_line, decode_text),
            "prefill": mark(tr("prefill 的三角"), prefill_marks, prefill_note)}


FIGURES = (
    Figure("kv-bytes-roofline", tr_later("屋顶线：decode 远在拐点左侧，prefill 随提示变长越过拐点"),
           tr_later(
               "对数坐标的屋顶线图。横轴是每读一个字节做的浮点运算次数，纵轴是能达到的算力。"
               "两条折线分别是 A100 40GB 与 "
               "H100 SXM：左段斜线受显存带宽限制，右段水平线是数据表给出的 fp16 稠密算力，折点即拐点，"
               "图中标出它的数值。"
               "黑色虚线是 OPT-13B 在 batch 为 1、上下文占满时 decode 一步的运算强度，约每字节一次，落在斜线段上："
               "它受带宽限制。橙色三角是不同提示长度的 prefill，运算强度约等于提示的 token 数，"
               "几百个 token 起就越过拐点。"
               "数值由数据表和公开配置代入公式算出，不是测量。"),
           "computed", ("roofline",), draw_roofline, s.SIZE_4_3),
)
