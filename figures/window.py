"""Figure of the R55 details: a full window's oldest tokens dropped and the rest renumbered from 0."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from figures import style as s
from figures.i18n import tr, tr_later
from figures.inputs import series, value
from figures.marks import mark
from figures.spec import Figure


def _grid(ax: Any, data: Mapping[str, Any]) -> dict[str, Any]:
    tokens = series(data, "front_truncation", "tokens")
    dropped = value(data, "front_truncation.n_dropped")
    keys = series(data, "front_truncation", "key_change_by_layer")
    vals = series(data, "front_truncation", "value_change_by_layer")
    kept = tokens[dropped:]
    x0, pitch = 1.45, 1.06
    xs = [x0 + i * pitch for i in range(len(kept))]
    words = [s.box(ax, x + 0.04, 0.1, pitch - 0.12, 0.6, tok, fs=s.FS_SMALL) for x, tok in zip(xs, kept, strict=True)]
    numbers = [s.note(ax, x + pitch / 2 - 0.04, 0.98, f"{dropped + i}→{i}", fs=s.FS_TAG)
               for i, x in enumerate(xs)]
    cells: dict[int, list[Any]] = {}
    for layer, y in enumerate((1.45, 2.65)):
        s.note(ax, 0.05, y + 0.4, tr("第 {layer} 层", layer=layer + 1), ha="left", color=s.INK, fs=s.FS_SMALL)
        cells[layer] = []
        for i, x in enumerate(xs):
            half = (pitch - 0.16) / 2
            cells[layer] += [s.kv_box(ax, x + 0.04, y, half, 0.8, "K", stale=keys[layer][i] > 0, fs=s.FS_SMALL),
                             s.kv_box(ax, x + 0.08 + half, y, half, 0.8, "V", stale=vals[layer][i] > 0, fs=s.FS_SMALL)]
    gone = s.note(ax, 0.05, 4.4, tr("丢掉 {tokens}，留下的从 0 重新编号", tokens=" ".join(tokens[:dropped])), ha="left",
                  color=s.INK, weight="bold")
    s.note(ax, 0.05, 0.98, tr("编号"), ha="left", fs=s.FS_TAG)
    s.note(ax, 0.05, 3.9, tr("浅红虚线 = 与重算结果不同"), ha="left", fs=s.FS_TAG)
    return {"renumbered": mark(tr("旧编号到新编号"), numbers, words, gone),
            "layer1": mark(tr("第 1 层留下的条目"), cells[0]), "layer2": mark(tr("第 2 层留下的条目"), cells[1])}


def _bars(ax: Any, data: Mapping[str, Any]) -> dict[str, Any]:
    rows = [(tr("旧条目＋新编号"), value(data, "front_truncation.renumbered_max_abs_diff")),
            (tr("再转回 key"), value(data, "front_truncation.rerotated_max_abs_diff")),
            (tr("重新 prefill"), value(data, "front_truncation.rebuilt_max_abs_diff"))]
    bars, texts, names = s.logit_diff_bars(ax, rows, [s.VERMILION, s.ORANGE, s.BLUE])
    return {"stale": mark(tr("沿用旧条目的两种做法"), bars[0], bars[1], texts[:2], names[:2]),
            "rebuilt": mark(tr("重新 prefill"), bars[2], texts[2], names[2])}


def draw_truncation(fig: Any, data: Mapping[str, Any]) -> dict[str, Any]:
    grid = _grid(s.sketch_axes(fig, 10, 4.8, (0.02, 0.46, 0.96, 0.5)), data)
    return grid | _bars(fig.add_axes((0.3, 0.13, 0.62, 0.26)), data)


FIGURES = (
    Figure("r55-truncation",
           tr_later("窗口满了丢掉最前面的 token 并重新编号：留下的 key 全部失效，只有重新 prefill 才对"),
           tr_later(
               "上方：一个占满的窗口丢掉最前面的几个 token，留下的 token 从 0 重新编号（每格上方写着旧编号到新编号）。"
               "两层缓存里，与对留下文本完整重算的结果不同的条目画成浅红虚线："
               "第 1 层的 K 全部不同（RoPE 按旧编号旋转过），"
               "第 1 层的 V 没变（V 不旋转）；第 2 层的 K 和 V 全部不同，因为它们是读着被丢掉的 token 算出来的。"
               "下方对数轴：沿用旧条目并用新编号续写，与完整重算差得很多；把 key 转回新编号仍然差得很多；"
               "对留下的文本重新做 prefill，差为 0。数值来自 lessonmodel。"),
           "measured", ("front_truncation",), draw_truncation, s.SIZE_TALL),
)
