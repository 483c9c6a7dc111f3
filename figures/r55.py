"""Figures of lesson r55 (缓存旧 K/V，新的需求仍须重新读取).

b0 every layer keeps its own K/V for "I gave", b1 the new token "her" appends
per layer and reads everything, b2 an edit invalidates entries from its
position on, beside the measured logit differences.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from figures import style as s
from figures.i18n import number, tr, tr_later
from figures.inputs import series, value
from figures.marks import mark
from figures.spec import Figure


def _kv_cell(ax: Any, x: float, y: float, w: float, h: float, *, new: bool = False,
             stale: bool = False) -> list[Any]:
    """One cache entry: a K half and a V half (both patches returned)."""
    edge, ls = (s.ORANGE, "--") if new else (None, "-")
    return [s.kv_box(ax, x, y, w / 2 - 0.04, h, "K", edge=edge, ls=ls, stale=stale, fs=s.FS_SMALL),
            s.kv_box(ax, x + w / 2 + 0.04, y, w / 2 - 0.04, h, "V", edge=edge, ls=ls, stale=stale, fs=s.FS_SMALL)]


def draw_b0(fig: Any, _data: Mapping[str, Any]) -> dict[str, Any]:
    tokens = ["BOS", "I", "gave"]
    ax = s.sketch_axes(fig, 10, 10)
    xs = [1.7 + i * 2.8 for i in range(len(tokens))]
    cw = 2.2
    inputs = [s.box(ax, x + 0.3, 0.5, cw - 0.6, 0.9, tok, fc=s.FAINT_FILL) for x, tok in zip(xs, tokens, strict=True)]
    caches: dict[int, list[Any]] = {}
    for layer, y in ((1, 3.0), (2, 6.2)):
        caches[layer] = [s.note(ax, 0.1, y + 0.55, tr("第 {layer} 层", layer=layer), ha="left", color=s.INK,
                                     weight="bold")]
        for x in xs:
            caches[layer] += _kv_cell(ax, x, y, cw, 1.1)
    # layer 1 K/V only project this position's input
    projections = [s.arrow(ax, (x + cw / 2, 1.45), (x + cw / 2, 2.95), lw=s.LW_THIN, head=10) for x in xs]
    # layer 2 K/V at `gave` are projected from gave's layer-1 output, whose query read BOS, I, gave in layer 1
    reads = [s.arrow(ax, (x + cw / 2, 4.15), (xs[-1] + cw / 2 + (i - 1) * 0.55, 6.15), lw=s.LW_THIN, head=10,
                     color=s.MUTED) for i, x in enumerate(xs)]
    reads.append(s.note(ax, 0.1, 5.35, tr("gave 在第 1 层读这三项，\n输出投影成第 2 层的 K/V"), ha="left", va="center",
                        fs=s.FS_SMALL))
    s.note(ax, 0.1, 9.3, tr("缓存 = 每层各一组 K/V 张量"), ha="left", color=s.INK, weight="bold")
    s.note(ax, 0.1, 8.55, tr("不是句子，也不是答案"), ha="left", color=s.INK)
    return {"inputs": mark(tr("输入 BOS、I、gave"), inputs), "layer1": mark(tr("第 1 层的缓存"), caches[1]),
            "layer2": mark(tr("第 2 层的缓存"), caches[2]),
            "projections": mark(tr("从输入到第 1 层的箭头"), projections),
            "reads": mark(tr("gave 在第 1 层读过的三项"), reads)}


def _weight_row(ax: Any, xs: list[float], cw: float, y: float, weights: list[float]) -> list[Any]:
    top = 1.0 / 2.6  # bars scaled so that weight 1.0 would be 2.6 units tall
    drawn = []
    for i, (x, wt) in enumerate(zip(xs, weights, strict=True)):
        new = i == len(xs) - 1
        drawn += [s.box(ax, x + 0.45, y, cw - 0.9, max(wt / top, 0.02), fc=s.ORANGE if new else s.SKY, ec=s.INK,
                        lw=s.LW_THIN, radius=0.02),
                  s.note(ax, x + cw / 2, y + wt / top + 0.28, number(wt, ".2f"), color=s.INK, fs=s.FS_SMALL)]
    return drawn


def draw_b1(fig: Any, data: Mapping[str, Any]) -> dict[str, Any]:
    att = series(data, "lesson_data", "r55_her_attention")
    tokens, means = att["columns"], att["by_layer_mean"]
    ax = s.sketch_axes(fig, 10, 11.25)
    xs = [1.9 + i * 2.0 for i in range(len(tokens))]
    cw = 1.7
    inputs = []
    for i, (x, tok) in enumerate(zip(xs, tokens, strict=True)):
        new = i == len(tokens) - 1
        inputs.append(s.box(ax, x + 0.1, 0.3, cw - 0.2, 0.85, tok, fc="#fdf0d5" if new else s.FAINT_FILL,
                            ec=s.ORANGE if new else s.INK, weight="bold" if new else "normal"))
    old: list[Any] = []
    appended: list[Any] = []
    weights: dict[int, list[Any]] = {}
    for layer, y in enumerate((1.9, 5.9)):
        s.note(ax, 0.05, y + 0.45, tr("第 {layer} 层", layer=layer + 1), ha="left", color=s.INK, weight="bold")
        for i, x in enumerate(xs):
            (appended if i == len(xs) - 1 else old).extend(_kv_cell(ax, x, y, cw, 0.9, new=i == len(xs) - 1))
        weights[layer + 1] = _weight_row(ax, xs, cw, y + 1.05, means[layer])
    s.note(ax, 0.05, 10.7, tr("条形：her 的 Q 对每一项的权重"), ha="left", color=s.INK, fs=s.FS_SMALL)
    s.note(ax, 0.05, 10.15, tr("（lessonmodel，各头平均）"), ha="left", fs=s.FS_TAG)
    s.note(ax, (xs[0] + xs[-2] + cw) / 2, 9.45, tr("旧缓存：只读，不重算"), color=s.MUTED, fs=s.FS_SMALL)
    appended.append(s.note(ax, xs[-1] + cw / 2, 9.45, tr("每层追加"), color=s.ORANGE_TEXT, weight="bold",
                           fs=s.FS_SMALL))
    return {"her": mark(tr("新 token her"), inputs[-1]),
            "old-inputs": mark(tr("旧输入 BOS、I、gave"), inputs[:-1]),
            "appended": mark(tr("每层新追加的 K/V"), appended), "old-entries": mark(tr("两层的旧缓存条目"), old),
            "weights1": mark(tr("第 1 层的权重条"), weights[1]), "weights2": mark(tr("第 2 层的权重条"), weights[2])}


def _edit_grid(ax: Any, original: list[str], edited: list[str], changed: list[list[bool]],
               edit: int) -> dict[str, Any]:
    n = len(original)
    x0, pitch, cw = 1.7, 1.62, 1.5
    xs = [x0 + i * pitch for i in range(n)]
    edited_word: list[Any] = []
    for i, x in enumerate(xs):
        tok = edited[i]
        if i == edit:
            edited_word.append(s.note(ax, x + cw / 2, 0.95, original[i], color=s.MUTED, fs=s.FS_SMALL))
            ax.plot([x + 0.45, x + cw - 0.45], [0.95, 0.95], color=s.MUTED, lw=s.LW_THIN, label=s.STRIKETHROUGH)
        word = s.box(ax, x + 0.05, 0.1, cw - 0.1, 0.6, tok, fs=s.FS_SMALL,
                     fc=s.STALE_FILL if i == edit else s.FAINT_FILL, ec=s.STALE_COLOR if i == edit else s.INK)
        if i == edit:
            edited_word.append(word)
    kept: list[Any] = []
    for layer, y in enumerate((1.6, 3.0)):
        s.note(ax, 0.05, y + 0.45, tr("第 {layer} 层", layer=layer + 1), ha="left", color=s.INK, fs=s.FS_SMALL)
        for i, x in enumerate(xs):
            cell = _kv_cell(ax, x, y, cw, 0.9, stale=changed[layer][i])
            if i < edit:
                kept += cell
    right = xs[-1] + cw + 0.1
    frame = s.box(ax, xs[edit] - 0.08, 1.45, right - xs[edit] + 0.02, 2.65, fc="none", ec=s.STALE_COLOR, lw=2.2,
                  ls="--", radius=0.08)
    title = s.note(ax, (xs[edit] + right) / 2, 4.45, tr("红框：每层都重算"), color=s.VERMILION_TEXT,
                   weight="bold", fs=s.FS_SMALL)
    s.note(ax, 0.05, 4.45, tr("浅红 = 数值实测已变"), ha="left", fs=s.FS_TAG)
    return {"edited-word": mark(tr("被改动的词"), edited_word),
            "invalidated": mark(tr("从编辑处起要重算的范围"), frame, title),
            "kept": mark(tr("编辑处之前仍可用的条目"), kept)}


def _diff_bars(ax: Any, legal: float, stale: float) -> dict[str, Any]:
    bars, texts, names = s.logit_diff_bars(ax, [(tr("按新前缀\n重建的缓存"), legal), (tr("编辑后仍用\n旧缓存"), stale)],
                                           [s.BLUE, s.VERMILION])
    return {"legal-diff": mark(tr("按新前缀重建的缓存：差值"), bars[0], texts[0], names[0]),
            "stale-diff": mark(tr("仍用旧缓存：差值"), bars[1], texts[1], names[1])}


def draw_b2(fig: Any, data: Mapping[str, Any]) -> dict[str, Any]:
    d = series(data, "stale_prefix", "changed")
    original = series(data, "stale_prefix", "tokens_original")
    edited = series(data, "stale_prefix", "tokens_edited")
    edit = value(data, "stale_prefix.edit_position")
    grid = _edit_grid(s.sketch_axes(fig, 10, 4.9, (0.02, 0.47, 0.96, 0.47)), original, edited, d, edit)
    return grid | _diff_bars(fig.add_axes((0.3, 0.13, 0.64, 0.25)), value(data, "stale_prefix.legal_max_abs_diff"),
                             value(data, "stale_prefix.max_abs_diff"))


FIGURES = (
    Figure("r55-b0", tr_later("两层各自保存 BOS、I、gave 的 K/V"),
           tr_later(
               "示意图：底部是输入 BOS、I、gave。第 1 层的每个 K/V 只由本位置的输入投影得到；第 2 层 gave 位置的 K/V "
               "来自第 1 层的输出，而那个输出读过 BOS、I、gave。缓存是每层各一组 K/V 张量，不是句子，也不是答案。"),
           "teaching", (), draw_b0, s.SIZE_SQUARE),
    Figure("r55-b1", tr_later("新 token her 在每层追加 K/V，并读取全部旧项和自身"),
           tr_later(
               "两层的缓存各有 BOS、I、gave 三个旧项，her 在每层追加自己的 K/V（橙色虚线）。"
               "每层上方的条形是 lessonmodel "
               "实测的 her 注意力权重（各头平均），覆盖旧项和 her 自身：缓存省掉的是旧位置的重算，不是读取。"),
           "measured", ("lesson_data",), draw_b1, s.SIZE_TALL),
    Figure("r55-b2", tr_later("改掉前面的词，之后的缓存必须重算；实测对照：兼容缓存与重算逐位相同，旧缓存误差大"),
           tr_later(
               "上方：把 him 改成 her 后，两层中数值实测发生变化的 K/V 以浅红和红色虚线标出：第 1 层只有被改的位置，"
               "第 2 层是被改的位置和它后面的 a。红框是要重算的范围：从编辑位置起的每个位置、每一层。第 1 层 a 的 K/V "
               "数值没变（它只投影本位置的输入），但 a 在第 1 层的输出读过被改的词，第 2 层要用它，"
               "所以这一格也在框里。下方对数轴："
               "按新前缀重建的缓存与完整重算的 logits 最大差为 0（逐位相同，没有条），编辑后仍用旧缓存的差约为 1。"),
           "measured", ("stale_prefix",), draw_b2, s.SIZE_TALL),
)
