"""Figures of two worked examples: one attention read by hand (r55 b3) and the bytes one
decode step reads (kv-bytes). Both draw numbers lessonmodel produced; none is typed in."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from figures import style as s
from figures.i18n import shown, tr, tr_later
from figures.inputs import series, value
from figures.marks import data_box, mark
from figures.spec import Figure

_GIB = 1024**3


def draw_attention(fig: Any, data: Mapping[str, Any]) -> dict[str, Any]:
    """Three aligned panels, one row per cached position: score → softmax weight → weight · v[0]."""
    tokens = series(data, "attention_example", "tokens")
    scores = series(data, "attention_example", "scores")
    weights = series(data, "attention_example", "weights")
    v0 = [row[0] for row in series(data, "attention_example", "v")]
    ys = list(range(len(tokens)))[::-1]
    panels = (("① q·k / √d", scores, s.BLUE), (tr("② softmax 权重"), weights, s.ORANGE),
              (tr("③ 权重 × v"), [w * v for w, v in zip(weights, v0, strict=True)], s.GREEN))
    marks = {}
    for i, (title, vals, color) in enumerate(panels):
        ax = fig.add_axes((0.14 + i * 0.29, 0.2, 0.23, 0.6))
        marks[("scores", "weights", "products")[i]] = mark(title, ax)
        ax.barh(ys, vals, height=0.6, color=color, edgecolor=s.INK, lw=s.LW_THIN)
        ax.axvline(0, color=s.INK, lw=s.LW_THIN)
        lim = max(abs(v) for v in vals) * 2.1
        for y, val in zip(ys, vals, strict=True):
            ax.text(val + (0.04 if val >= 0 else -0.04) * lim, y, shown(val),  # as the table beside it
                    ha="left" if val >= 0 else "right", va="center", fontsize=s.FS_SMALL)
        ax.set_xlim(-lim * 1.7 if min(vals) < 0 else 0, lim)  # a negative label clear of the tick labels
        ax.set_ylim(-0.6, len(tokens) - 0.4)
        ax.set_yticks(ys, tokens if i == 0 else [""] * len(tokens))
        ax.tick_params(axis="y", length=0)
        ax.set_xticks([])
        ax.set_title(title, fontsize=s.FS_SMALL, loc="left")
    out = value(data, "attention_example.out0")
    s.title(fig, tr("第 1 层第 1 个头：新 token her 的 q 读 {n} 个位置", n=len(tokens)))
    total = fig.text(0.03, 0.07, tr("③ 这一列加起来 = 输出的第 1 维 {out}；权重之和为 1", out=shown(out)),
                     fontsize=s.FS_SMALL, va="bottom")
    fig.text(0.03, 0.02, tr("权重为随机初始化：数字只演示计算步骤"), fontsize=s.FS_SMALL, color=s.VERMILION_TEXT,
             va="bottom")
    return marks | {"sum": mark(tr("输出第 1 维的合计"), total)}


def draw_decode_read(fig: Any, data: Mapping[str, Any]) -> dict[str, Any]:
    """Stacked bars: weights and cache that one batch-1 decode step of OPT-13B reads."""
    weights = value(data, "kv_models.opt_13b_weights_bytes") / _GIB
    per_token = value(data, "kv_models.opt_13b_per_token") / _GIB
    native = value(data, "kv_models.opt_13b_native_context")
    lengths = [native // 8, native // 2, native]
    ax = fig.add_axes((0.14, 0.15, 0.74, 0.66))
    caches = [per_token * t for t in lengths]
    weight_bars = ax.bar(range(3), [weights] * 3, color=s.FADED, edgecolor=s.INK, lw=s.LW_THIN,
                         label=tr("全部权重（fp16）"))
    cache_bars = ax.bar(range(3), caches, bottom=[weights] * 3, color=s.ORANGE, edgecolor=s.INK, lw=s.LW_THIN,
           label=tr("这条请求的 KV 缓存"))
    for x, (t, c) in enumerate(zip(lengths, caches, strict=True)):
        read = value(data, "kv_models.opt_13b_weights_bytes") + value(data, "kv_models.opt_13b_per_token") * t
        ax.text(x, weights + c, shown(read, "B"), ha="center", va="bottom", fontsize=s.FS_SMALL)  # as b5's text
    ax.set_xticks(range(3), [f"T = {t}" for t in lengths])
    ax.set_ylabel(tr("decode 一步要读的字节（GiB）"))
    ax.set_ylim(0, (weights + caches[-1]) * 1.55)
    ax.legend(loc="upper left", fontsize=s.FS_SMALL)
    flops = value(data, "kv_models.opt_13b_decode_flops_per_byte")
    s.title(fig, tr("OPT-13B，batch 1：每生成一个 token"))
    ratio = fig.text(0.03, 0.895, tr("每读一个字节约做 {flops} 次浮点运算（含注意力，T = {t}）",
                                     flops=shown(flops), t=native),
                     fontsize=s.FS_SMALL, color=s.MUTED, va="top")
    return {"weights": mark(tr("灰色的权重部分"), list(weight_bars)),
            "cache": mark(tr("橙色的缓存部分"), list(cache_bars)), "flops": mark(tr("每字节运算次数"), ratio)}


def draw_vs_weights(fig: Any, data: Mapping[str, Any]) -> dict[str, Any]:
    """Total KV cache of B full-context OPT-13B requests against its weights, both fp16."""
    weights = value(data, "kv_models.opt_13b_weights_bytes") / _GIB
    cache = value(data, "kv_models.opt_13b_kv_native") / _GIB
    native = value(data, "kv_models.opt_13b_native_context")
    equal = value(data, "kv_models.opt_13b_requests_equal_weights")
    batches = list(range(1, 33))
    ax = fig.add_axes((0.14, 0.15, 0.74, 0.66))
    (line,) = ax.plot(batches, [cache * b for b in batches], color=s.ORANGE, lw=2.2,
                      label=tr("KV 缓存：B 条 {t} token 的请求", t=native))
    level = ax.axhline(weights, color=s.INK, ls="--", lw=s.LW, label=tr("权重（fp16，一份）"))
    ax.vlines(equal, 0, weights, color=s.MUTED, lw=s.LW_THIN)  # up to the crossing: above it sat the legend
    cross_note = ax.text(equal + 0.4, weights * 0.35, tr("B ≈ {b}：\n缓存追上权重", b=shown(equal)),
                         fontsize=s.FS_SMALL, va="center")
    ax.set_xlim(0, batches[-1])
    ax.set_ylim(0, cache * batches[-1] * 1.1)
    ax.set_xlabel(tr("同时服务的请求数 B"))
    ax.set_ylabel("GiB")
    ax.legend(loc="upper left", fontsize=s.FS_SMALL)
    s.title(fig, tr("OPT-13B：权重是一份，缓存按请求叠加"))
    return {"cache-line": mark(tr("缓存总量的橙线"), line),
            "weights-line": mark(tr("权重的黑色虚线"), level,
                                 data_box(ax, 0, weights * 0.95, batches[-1], weights * 1.05)),
            "crossing": mark(tr("两者相等的竖线"), cross_note, data_box(ax, equal - 0.3, 0, equal + 0.3, weights))}


FIGURES = (
    Figure("r55-b3", tr_later("手算一次注意力：q·k/√d，softmax，按权重加 V"),
           tr_later(
               "三栏横条图，每行是一个位置（BOS、I、gave、her）：第一栏是新 token her 的 q 与各位置 k 的点积除以 √d_h"
               "ead；"
               "第二栏是对这些分数做 softmax 得到的权重，合计为 1；第三栏是权重乘以各位置 v 的第 1 维，"
               "这一栏相加就是输出的第 1 维。数字来自 lessonmodel 第 1 层第 1 个头，并与模型自己的注意力权重核对过。"),
           "measured", ("attention_example",), draw_attention, s.SIZE_4_3),
    Figure("kv-bytes-decode-read", tr_later("decode 一步要读的字节：OPT-13B 的权重加上 KV 缓存"),
           tr_later(
               "堆叠柱状图：OPT-13B（按论文的 130 亿参数、fp16 计）batch 为 1 时，"
               "每生成一个 token 要读完全部权重（灰色），"
               "再加上这条请求已存的 KV 缓存（橙色）；三根柱分别对应已存 256、1024、2048 个 token。"
               "图中注明每读一个字节约做一次浮点运算（权重和缓存的每个字节各参与一次乘加，注意力的运算已算在内）。"
               "数值由公式和公开配置算出，不是测量。"),
           "computed", ("kv_models",), draw_decode_read, s.SIZE_4_3),
    Figure("kv-bytes-vs-weights", tr_later("OPT-13B：多少条满上下文请求的缓存能抵得上权重"),
           tr_later(
               "折线图：横轴是同时服务的请求数 B，橙线是 B 条满上下文（2048 个 token）请求的 KV 缓存总量，"
               "随 B 线性上升；"
               "黑色虚线是 fp16 权重的大小（按论文的 130 亿参数计），只有一份；竖线标出两者相等处。"
               "数值由公式和公开配置算出。"),
           "computed", ("kv_models",), draw_vs_weights, s.SIZE_4_3),
)
