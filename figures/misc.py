"""Figures for the knowledge pages and the R55 notes: bidirectional attention,
the resource ledger (s01) and the character-stream check (s04).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from figures import style as s
from figures.i18n import number, tr, tr_later
from figures.inputs import series, value
from figures.marks import mark
from figures.spec import Figure


def draw_bidirectional(fig: Any, data: Mapping[str, Any]) -> dict[str, Any]:
    change = series(data, "bidirectional", "old_kv_change_by_layer")
    causal, bidir = change["causal"], change["bidirectional"]
    layers = range(1, len(causal) + 1)
    ax = fig.add_axes((0.16, 0.15, 0.78, 0.66))
    top = max(max(bidir), max(causal)) or 1.0
    drawn: dict[str, list[Any]] = {}
    for offset, vals, color, hatch in ((-0.2, causal, s.BLUE, ""), (0.2, bidir, s.VERMILION, "//")):
        bars = ax.bar([i + offset for i in layers], vals, width=0.38, color=color, edgecolor=s.INK,
                      lw=s.LW_THIN, hatch=hatch)
        drawn[color] = [bars, *(ax.text(i + offset, v + top * 0.03, "0" if v == 0 else number(v, ".2f"), ha="center",
                                        fontsize=s.FS_SMALL) for i, v in zip(layers, vals, strict=True))]
    ax.set_xticks(list(layers), [tr("第 {layer} 层", layer=i) for i in layers])
    ax.set_ylim(0, top * 1.3)
    ax.set_ylabel(tr("旧 K/V 最大变化 |Δ|"))
    ax.tick_params(axis="x", length=0)
    s.title(fig, tr("追加一个 token 后，旧位置的 K/V 变了吗？"))
    fig.text(0.03, 0.885, tr("■ 因果（可缓存）"), color=s.BLUE_TEXT, fontsize=s.FS_SMALL, va="top")
    fig.text(0.42, 0.885, tr("▨ 双向（高层旧值改变）"), color=s.VERMILION_TEXT, fontsize=s.FS_SMALL, va="top")
    return {"causal": mark(tr("因果注意力的条形"), drawn[s.BLUE]),
            "bidirectional": mark(tr("双向注意力的条形"), drawn[s.VERMILION])}


def draw_ledger(fig: Any, _data: Mapping[str, Any]) -> dict[str, Any]:
    ax = s.sketch_axes(fig, 10, 11.25)
    rows = (
        (tr("每个模型"), tr("参数"), tr("所有请求共用，常驻"), s.BLUE, "#e6f0f8"),
        (tr("每个请求"), tr("KV 缓存"), tr("随已存 token 数 T 增长"), s.ORANGE, "#fdf0d5"),
        (tr("每一步"), tr("临时激活"), tr("算完即弃"), s.MUTED, s.FAINT_FILL),
    )
    s.note(ax, 0.2, 10.6, tr("资源账本：谁占什么"), ha="left", color=s.INK, weight="bold")
    marks = {}
    for i, (scope, what, life, edge, fill) in enumerate(rows):
        y = 8.6 - i * 1.55
        marks[("params", "kv-cache", "activations")[i]] = mark(what, s.box(ax, 0.2, y, 2.6, 1.25, scope, fc="white",
                                                                            ec=edge, weight="bold"),
                                                               s.box(ax, 3.0, y, 6.8, 1.25, "", fc=fill, ec=edge))
        s.note(ax, 3.3, y + 0.82, what, ha="left", color=s.INK, weight="bold")
        s.note(ax, 3.3, y + 0.35, life, ha="left", color=s.INK, fs=s.FS_SMALL)
    marks["prefill"] = mark(tr("prefill 一栏"), s.box(ax, 0.2, 0.3, 4.7, 4.2, "", fc="white", ec=s.BLUE))
    s.note(ax, 0.5, 4.0, "prefill", ha="left", color=s.BLUE_TEXT, weight="bold")
    for j, line in enumerate((tr("一次前向"), tr("处理整段已知提示"), tr("各位置成批计算"), tr("写入各层 K/V"),
                               tr("得到首个分布"))):
        s.note(ax, 0.5, 3.35 - j * 0.6, line, ha="left", color=s.INK, fs=s.FS_SMALL)
    marks["decode"] = mark(tr("decode 一栏"), s.box(ax, 5.1, 0.3, 4.7, 4.2, "", fc="white", ec=s.ORANGE))
    s.note(ax, 5.4, 4.0, "decode", ha="left", color=s.ORANGE_TEXT, weight="bold")
    for j, line in enumerate((tr("每步一个 token"), tr("读全部权重"), tr("读增长的 K/V"), tr("追加一列 K/V"),
                               tr("逐步等待"))):
        s.note(ax, 5.4, 3.35 - j * 0.6, line, ha="left", color=s.INK, fs=s.FS_SMALL)
    return marks


FLOOR = 1e-17
"""Where a log-scale plot draws an exact zero."""


def draw_char_stream(fig: Any, data: Mapping[str, Any]) -> dict[str, Any]:
    cached = series(data, "char_stream", "cached_diff_by_position")
    stale = series(data, "char_stream", "stale_diff_by_position")
    n_prefill = data["char_stream"]["config"]["n_prefill"]
    ax = fig.add_axes((0.17, 0.15, 0.76, 0.64))
    xs = range(len(cached))
    decode_x = [x for x in xs if x >= n_prefill]
    span = ax.axvspan(-0.5, n_prefill - 0.5, color="#efefef", lw=0)
    ax.text(n_prefill / 2 - 0.5, 2e1, "prefill", ha="center", va="top", fontsize=s.FS_SMALL, color=s.MUTED)
    stale_line = ax.plot(decode_x, [stale[x] for x in decode_x], color=s.VERMILION, marker="s", ms=4,
                         label=tr("旧前缀缓存 vs 新文本重算"))
    # A log axis has no 0: exact zeros sit on the axis floor, whose tick reads 0.
    cached_line = ax.plot(decode_x, [max(cached[x], FLOOR) for x in decode_x], color=s.BLUE, marker="o", ms=4,
                          label=tr("缓存 vs 完整重算"), clip_on=False, zorder=3)
    ax.set_yscale("log")
    ax.set_ylim(FLOOR, 1e2)
    ax.set_xlim(-0.5, len(cached) - 0.5)
    ax.set_yticks([FLOOR, 1e-15, 1e-10, 1e-5, 1], ["0", *(rf"$10^{{{e}}}$" for e in (-15, -10, -5, 0))])
    ax.set_xlabel(tr("字符位置（decode 逐个追加）"))
    ax.set_ylabel(tr("max |Δlogits|（对数轴）"))
    ax.legend(loc="center right", bbox_to_anchor=(1.0, 0.5))
    n = value(data, "char_stream.n_chars")
    s.title(fig, tr("字符流（{n} 个字符）：只验证缓存计算", n=n))
    return {"prefill": mark(tr("prefill 区域"), span), "stale": mark(tr("旧前缀缓存的红线"), stale_line),
            "cached": mark(tr("缓存路径的蓝线"), cached_line)}


FIGURES = (
    Figure("bidirectional", tr_later("追加 token 后旧 K/V 的变化：因果为零，双向从第 2 层起改变"),
           tr_later(
               "分组条形图，每层两根：因果注意力下，追加一个 token 后所有层旧位置的 K/V 变化都是 0；"
               "双向注意力下，第 1 层仍为 0（它只投影未变的输入），从第 2 层起旧 K/V 发生改变，缓存不再有效。"
               "数值来自 lessonmodel 的 bidirectional 实验。"),
           "measured", ("bidirectional",), draw_bidirectional, s.SIZE_4_3),
    Figure("ledger-s01", tr_later("资源账本：每个模型的参数、每个请求的 K/V、每一步的临时激活；prefill 与 decode"),
           tr_later(
               "示意图。上方三行：每个模型一份参数，所有请求共用、常驻；每个请求一份 KV 缓存，随已存 token 数增长；"
               "每一步的临时激活算完即弃。下方对比：prefill 用一次前向成批处理整段已知提示，"
               "写入各层 K/V 并得到首个分布；"
               "decode 每步一个 token，要读全部权重和不断增长的 K/V，再追加一列，只能逐步等待。"),
           "teaching", (), draw_ledger, s.SIZE_TALL),
    Figure("char-stream", tr_later("字符流上的缓存检查：缓存与重算逐位相同，旧前缀缓存差得多"),
           tr_later(
               "对数坐标折线图，横轴是字符位置：灰色区域是 prefill；之后每个位置比较 logits 的最大差。"
               "蓝线是使用缓存与完整重算之差，每个位置都是 0（逐位相同），画在坐标轴最底端；"
               "红线是前缀被改后仍沿用旧缓存的差，接近 1。"
               "这只验证缓存计算，与文字含义无关。"),
           "measured", ("char_stream",), draw_char_stream, s.SIZE_4_3),
)
