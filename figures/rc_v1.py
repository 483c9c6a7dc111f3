"""Figures of lesson rc-v1 (旧参数接收新请求，生成当前状态).

b0 parameters kept / training state gone, b1 prefill → first distribution,
b2 choose the teaching token B → decode, b3 one layer reads old K/V and appends
its own, n21 the causal visibility matrix.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from figures import style as s
from figures.i18n import number, percent, tr, tr_later
from figures.inputs import kib, series, value
from figures.marks import data_box, mark
from figures.spec import Figure


def draw_b0(fig: Any, data: Mapping[str, Any]) -> dict[str, Any]:
    params = value(data, "training_state.params_bytes")
    grads = value(data, "training_state.grads_bytes")
    adam = value(data, "training_state.adam_bytes")
    # Adam keeps two moments shaped like the parameters: m and v split adam_bytes evenly.
    kept, not_built = tr("推理保留"), tr("推理不建")
    rows = [(tr("参数"), params, s.PARAM_COLOR, kept), (tr("梯度"), grads, s.FADED, not_built),
            ("Adam m", adam / 2, s.FADED, not_built), ("Adam v", adam / 2, s.FADED, not_built)]
    ax = fig.add_axes((0.2, 0.42, 0.62, 0.47))
    ys = list(range(len(rows)))[::-1]
    bars = []
    for y, (_, n, color, _) in zip(ys, rows, strict=True):
        faded = color == s.FADED
        bars += ax.barh(y, kib(n), height=0.62, color=color, alpha=0.55 if faded else 1.0,
                edgecolor=s.MUTED if faded else s.INK, linestyle="--" if faded else "-", lw=s.LW_THIN)
    xmax = max(kib(n) for _, n, _, _ in rows)
    verdicts = []
    for y, (_, n, color, verdict) in zip(ys, rows, strict=True):
        verdicts += [ax.text(kib(n) + xmax * 0.03, y, verdict, va="center", fontsize=s.FS_SMALL,
                color=s.INK if color != s.FADED else s.MUTED)]
    ax.set_yticks(ys, [r[0] for r in rows])
    ticks = ax.get_yticklabels()
    ax.set_xlim(0, xmax * 1.45)
    ax.set_xlabel(tr("lessonmodel 的字节数（KiB）"))
    ax.tick_params(axis="y", length=0)
    ax.set_title(tr("训练结束：保留什么？"), loc="left", fontsize=s.FS_TITLE, pad=12)
    request = _request_thumbnail(s.sketch_axes(fig, 10, 3.2, (0.03, 0.02, 0.94, 0.27)))
    return {"params": mark(tr("保留的参数条"), bars[0], verdicts[0], ticks[0]),
            "training-state": mark(tr("变淡的梯度与 Adam m、v"), bars[1:], verdicts[1:], ticks[1:]),
            "request": mark(tr("新请求 A/B"), request)}


def _request_thumbnail(ax: Any) -> Any:
    """The A/B request: a known prompt A, the answer B not known yet."""
    frame = s.box(ax, 0.1, 0.2, 9.8, 2.8, fc="#fafafa", ec=s.CARD_EDGE, lw=s.LW_THIN)
    s.note(ax, 0.5, 2.45, tr("新请求 A/B"), color=s.INK, ha="left", weight="bold")
    s.box(ax, 0.5, 0.55, 1.3, 1.2, "A", fc="white", weight="bold")
    s.box(ax, 2.2, 0.55, 1.3, 1.2, "B?", fc="white", ec=s.MUTED, color=s.MUTED, ls="--")
    s.arrow(ax, (3.8, 1.15), (5.0, 1.15))
    s.note(ax, 5.2, 1.5, tr("仍须前向计算"), color=s.INK, ha="left")
    s.note(ax, 5.2, 0.8, tr("才有本次的表示和 K/V"), color=s.INK, ha="left")
    return frame


def draw_b1(fig: Any, data: Mapping[str, Any]) -> dict[str, Any]:
    dist = series(data, "lesson_data", "first_token_distribution")
    prompt = dist["prompt"]
    ax = s.sketch_axes(fig, 10, 6.2, (0.02, 0.45, 0.96, 0.52))
    inputs = [s.note(ax, 0.2, 5.8, tr("已知输入"), ha="left", color=s.INK, weight="bold")]
    xs = [0.3 + i * 1.75 for i in range(len(prompt))]
    for x, tok in zip(xs, prompt, strict=True):
        inputs.append(s.box(ax, x, 4.4, 1.55, 0.95, tok, fc="white"))
    layers = []
    for layer, y in ((1, 2.85), (2, 1.35)):
        layers += [s.box(ax, 0.3, y, 1.75 * len(prompt) - 0.2, 0.95, tr("第 {layer} 层：已知位置一起算", layer=layer),
              fc="#e6f0f8", ec=s.BLUE)]
    for x in xs:
        s.arrow(ax, (x + 0.78, 4.4), (x + 0.78, 3.8), lw=s.LW_THIN, head=10)
        s.arrow(ax, (x + 0.78, 2.85), (x + 0.78, 2.3), lw=s.LW_THIN, head=10)
    s.note(ax, 9.85, 3.3, "prefill", ha="right", color=s.BLUE, weight="bold")
    s.note(ax, 9.85, 2.7, tr("每行只读\n自己的前缀"), ha="right", va="top")
    last = xs[-1] + 0.78
    last_arrow = s.arrow(ax, (last, 1.35), (last, 0.1), color=s.INK)
    last_note = s.note(ax, last - 0.2, 0.65, tr("最后位置 →"), ha="right", color=s.INK)
    dist_ax = fig.add_axes((0.22, 0.15, 0.7, 0.27))
    _distribution_bars(dist_ax, dist)
    caveat = fig.text(0.03, 0.025, tr("权重为随机初始化：分布只是计算结果，不代表语言能力"), fontsize=s.FS_SMALL,
             color=s.VERMILION_TEXT, ha="left", va="bottom")
    return {"inputs": mark(tr("已知输入"), inputs), "layers": mark(tr("各层 prefill"), layers),
            "last-position": mark(tr("最后位置"), last_arrow, last_note),
            "distribution": mark(tr("首个输出分布"), dist_ax), "caveat": mark(tr("随机权重的说明"), caveat)}


def _distribution_bars(ax: Any, dist: Mapping[str, Any], top: int = 5) -> None:
    ranked = sorted(zip(dist["probs"], dist["tokens"], strict=True), reverse=True)[:top]
    probs, tokens = [p for p, _ in ranked], [t for _, t in ranked]
    ys = list(range(len(ranked)))[::-1]
    ax.barh(ys, probs, height=0.65, color=s.SKY, edgecolor=s.INK, lw=s.LW_THIN)
    for y, p in zip(ys, probs, strict=True):
        ax.text(p + 0.004, y, number(p, ".1%"), va="center", fontsize=s.FS_SMALL)
    ax.set_yticks(ys, tokens)
    ax.set_xlim(0, max(probs) * 1.35)
    ax.xaxis.set_major_formatter(percent)
    ax.tick_params(axis="y", length=0)
    ax.set_title(tr("首个输出位置的概率（前 {top} 名）", top=top), loc="left", fontsize=s.FS_TEXT, pad=8)


def draw_b2(fig: Any, _data: Mapping[str, Any]) -> dict[str, Any]:
    ax = s.sketch_axes(fig, 10, 9)
    s.note(ax, 0.3, 8.5, tr("① 首分布"), ha="left", color=s.INK, weight="bold")
    heights = (0.6, 1.6, 0.9, 0.4, 0.25)  # a sketch: no model numbers here
    for i, h in enumerate(heights):
        s.box(ax, 0.5 + i * 0.75, 6.0, 0.55, h * 1.2, fc=s.ORANGE if i == 1 else s.FAINT_FILL,
              ec=s.INK, lw=s.LW_THIN, radius=0.03)
    ax.plot([0.3, 4.3], [6.0, 6.0], color=s.INK, lw=s.LW_THIN)
    choose = [s.arrow(ax, (4.6, 7.0), (5.8, 7.0)), s.note(ax, 5.2, 7.45, tr("② 选择"))]
    chosen = s.box(ax, 6.1, 6.35, 1.4, 1.3, "B", fc="#fdf0d5", ec=s.ORANGE, fs=s.FS_TITLE + 4, weight="bold")
    marker_note = s.note(ax, 6.8, 5.85, tr("教学标记，非实测"), color=s.INK)
    s.note(ax, 0.3, 4.6, tr("③ decode：B 成为新的已知输入"), ha="left", color=s.INK, weight="bold")
    tokens = ["BOS", "I", "gave", "him"]
    old = [s.box(ax, 0.3 + i * 1.55, 3.0, 1.4, 0.9, tok, fc=s.FAINT_FILL, ec=s.MUTED, color=s.MUTED)
           for i, tok in enumerate(tokens)]
    new_input = s.box(ax, 0.3 + 4 * 1.55, 3.0, 1.4, 0.9, "B", fc="#fdf0d5", ec=s.ORANGE, weight="bold")
    entrance = s.arrow(ax, (6.8, 5.6), (6.8 + 0.05, 4.05), color=s.ORANGE, rad=0.0)
    reuse = s.note(ax, 3.2, 2.45, tr("旧位置：兼容的计算直接复用"), color=s.MUTED)
    params = s.box(ax, 0.3, 0.4, 7.6, 1.2, tr("同一套参数 · 多算一个位置"), fc="#e6f0f8", ec=s.BLUE)
    into_model = s.arrow(ax, (7.0, 3.0), (7.0, 1.65), color=s.ORANGE)
    s.note(ax, 8.2, 1.0, tr("→ 下一步"), ha="left", color=s.INK)
    return {"distribution": mark(tr("首分布（示意）"), data_box(ax, 0.2, 5.9, 4.35, 8.8)),
            "choose": mark(tr("选择箭头"), choose), "b": mark(tr("教学标记 B"), chosen, marker_note),
            "entrance": mark(tr("decode 入口"), entrance, new_input),
            "old-positions": mark(tr("旧位置"), old, reuse),
            "model": mark(tr("同一套参数，多算一个位置"), params, into_model)}


def draw_b3(fig: Any, data: Mapping[str, Any]) -> dict[str, Any]:
    att = series(data, "lesson_data", "rc_v1_b3_attention")
    layer = 0  # the first layer; every layer works the same way
    weights, tokens = att["by_layer_mean"][layer], att["columns"]
    n = len(tokens)
    ax = s.sketch_axes(fig, 10, 10)
    x0, cw, w = 1.9, 1.12, 0.98  # first column, column pitch, column width
    cols = [x0 + i * cw for i in range(n)]
    top = max(weights)
    bars, ks, vs = [], [], []
    for i, (x, wt, tok) in enumerate(zip(cols, weights, tokens, strict=True)):
        new = i == n - 1
        edge, ls = (s.ORANGE, "--") if new else (None, "-")
        # the new query's real attention weights (lessonmodel), as bars above the K row
        bars += [s.box(ax, x + 0.14, 7.0, w - 0.28, 1.3 * wt / top, fc=s.ORANGE if new else s.SKY, ec=s.INK,
                       lw=s.LW_THIN, radius=0.02),
                 s.note(ax, x + w / 2, 7.0 + 1.3 * wt / top + 0.3, number(wt, ".2f"), color=s.INK, fs=s.FS_SMALL)]
        ks.append(s.kv_box(ax, x, 5.3, w, 1.2, "K", edge=edge, ls=ls))
        vs.append(s.kv_box(ax, x, 3.6, w, 1.2, "V", edge=edge, ls=ls))
        s.note(ax, x + w / 2, 3.15, tok, color=s.INK, fs=s.FS_SMALL)
    s.note(ax, 0.1, 9.5, tr("第 {layer} 层（共 {n} 层）", layer=layer + 1, n=len(att["by_layer_mean"])), ha="left",
           color=s.INK, weight="bold")
    s.note(ax, x0 - 0.15, 7.6, tr("权重"), ha="right", color=s.INK)
    s.note(ax, x0 - 0.15, 7.1, tr("各头平均"), ha="right", fs=s.FS_TAG)
    query = s.box(ax, 0.05, 5.3, 1.35, 1.2, tr("新 Q"), fc="#fbe3d3", ec=s.Q_COLOR, color=s.VERMILION_TEXT,
                  weight="bold", fs=s.FS_SMALL)
    s.arrow(ax, (1.42, 5.9), (x0 - 0.06, 5.9), color=s.Q_COLOR)
    s.note(ax, 0.72, 4.75, tr("与 {n} 列 K\n逐一匹配", n=n), color=s.VERMILION_TEXT, va="top", fs=s.FS_TAG)
    s.note(ax, (cols[0] + cols[-2] + w) / 2, 2.6, tr("旧缓存 {n} 列：只读，不重算", n=n - 1), color=s.MUTED,
           fs=s.FS_SMALL)
    s.note(ax, cols[-1] + w / 2, 2.6, tr("新追加"), color=s.ORANGE_TEXT, weight="bold", fs=s.FS_SMALL)
    total = s.box(ax, 2.6, 0.3, 4.2, 1.2, tr("Σ 权重 × V"), fc="#e0f2eb", ec=s.V_COLOR, weight="bold")
    s.arrow(ax, (4.7, 2.2), (4.7, 1.55), color=s.V_COLOR)
    output = [s.arrow(ax, (6.85, 0.9), (8.0, 0.9)),
              s.note(ax, 8.1, 0.9, tr("送往\n下一层"), ha="left", color=s.INK, fs=s.FS_SMALL)]
    return {"query": mark(tr("新 Q"), query), "old-k": mark(tr("旧的五列 K"), ks[:-1]),
            "new-k": mark(tr("新追加的 K"), ks[-1]), "weights": mark(tr("注意力权重条"), bars),
            "old-v": mark(tr("旧的五列 V"), vs[:-1]), "new-v": mark(tr("新追加的 V"), vs[-1]),
            "sum": mark(tr("按权重汇总 V"), total), "output": mark(tr("送往下一层的箭头"), output)}


def draw_n21(fig: Any, _data: Mapping[str, Any]) -> dict[str, Any]:
    inputs, labels = ["BOS", "I", "gave", "him"], ["I", "gave", "him", "a"]
    ax = s.sketch_axes(fig, 10, 9)
    x0, y0, c = 2.4, 1.2, 1.35  # matrix origin (lower-left) and cell size
    n = len(inputs)
    for r in range(n):  # row r = position r reads columns 0..r
        y = y0 + (n - 1 - r) * c
        for col in range(n):
            visible = col <= r
            s.box(ax, x0 + col * c, y, c - 0.08, c - 0.08, tr("可见") if visible else "×",
                  fc="#cfe3f2" if visible else "#f4f4f4", ec=s.BLUE if visible else s.FADED,
                  color=s.INK if visible else s.MUTED, fs=s.FS_SMALL, lw=s.LW_THIN, radius=0.05)
        s.note(ax, x0 - 0.2, y + c / 2 - 0.04, inputs[r], ha="right", color=s.INK)
        s.note(ax, x0 + n * c + 0.35, y + c / 2 - 0.04, f"→ {labels[r]}", ha="left", color=s.GREEN_TEXT)
    for col in range(n):
        s.note(ax, x0 + col * c + c / 2 - 0.04, y0 + n * c + 0.3, inputs[col], color=s.INK)
    gave = y0 + (n - 3) * c  # the `gave` row
    row = s.box(ax, x0 - 0.12, gave - 0.1, n * c + 0.16, c + 0.12, fc="none", ec=s.ORANGE, lw=2.6, radius=0.08)
    s.note(ax, x0 + n * c / 2, y0 + n * c + 0.95, tr("可读取的输入（列）"), color=s.MUTED)
    s.note(ax, x0 - 0.2, y0 + n * c + 0.3, tr("行＼列"), ha="right", color=s.MUTED, fs=s.FS_SMALL)
    s.note(ax, x0 + n * c + 0.35, y0 + n * c + 0.3, tr("标签"), ha="left", color=s.GREEN_TEXT)
    s.note(ax, 5.0, 0.55, tr("gave 行读 BOS、I、gave，读不到后面的 him"), color=s.INK)
    return {"gave-row": mark(tr("gave 这一行"), row),
            "labels": mark(tr("标签列"), data_box(ax, x0 + n * c + 0.3, y0, x0 + n * c + 1.9, y0 + n * c + 0.55))}


FIGURES = (
    Figure("rc-v1-b0", tr_later("参数保留，梯度与 Adam 状态不再建立"),
           tr_later(
               "条形图：训练结束后，lessonmodel 的参数字节数被保留；同样大小的梯度，以及 Adam 的一阶矩 m、"
               "二阶矩 v 在普通推理中都不再建立（灰色虚线）。条长取自 training_state 实验按数组计算的字节数。"
               "下方缩略图：新请求 A/B 只有已知的 A，B 还不知道；它仍须经过前向计算，才能得到本次的表示和 K/V。"),
           "measured", ("training_state",), draw_b0, s.SIZE_SQUARE),
    Figure("rc-v1-b1", tr_later("prefill：已知输入经过各层，得到首个输出分布"),
           tr_later(
               "上方：已知输入 BOS、I、gave、him 一起进入第 1 层和第 2 层；各层成批处理已知位置，"
               "但每一行只读自己的前缀。"
               "下方：最后位置给出的首个输出概率分布，列出概率最高的几个 token。分布来自 lessonmodel，"
               "其权重为随机初始化，数值只是计算结果，不代表任何语言能力。此时还没有选出 token。"),
           "measured", ("lesson_data",), draw_b1, s.SIZE_TALL),
    Figure("rc-v1-b2", tr_later("从首分布选出教学 token B，进入 decode"),
           tr_later(
               "示意图：①首分布（示意条形，非实测）；②从中选出一个 token，图中记作教学标记 B，不是实测分词或生成结果；"
               "③ B 成为新的已知输入，接在 BOS、I、gave、him 之后进入逐步 decode。参数不变，只多算一个位置，"
               "旧位置兼容的计算直接复用。"),
           "teaching", (), draw_b2, s.SIZE_SQUARE),
    Figure("rc-v1-b3", tr_later("一层之内：新 Q 读取 6 列 K，按权重汇总 V，并追加第 6 列"),
           tr_later(
               "一层的放大图。左侧是新位置的 Q，它与 5 列旧 K 和自己的第 6 列 K 逐一匹配；上方条形是 lessonmodel "
               "这一层实际算出的注意力权重（各头平均）。权重用来汇总对应的 V，结果送往下一层；新位置的 K 和 V "
               "作为第 6 列追加到本层缓存（橙色虚线框）。六列就是 lessonmodel 这一步处理的六个 token"
               "（它的词表按整词切分）。"),
           "measured", ("lesson_data",), draw_b3, s.SIZE_SQUARE),
    Figure("rc-v1-n21", tr_later("4×4 因果可见矩阵：每一行只能读到自己和之前的输入"),
           tr_later(
               "矩阵的行是输入位置 BOS、I、gave、him，列是它们可读取的输入；下三角标为“可见”，其余为“×”。"
               "右侧是各行要预测的标签 I、gave、him、a。高亮的 gave 行可读 BOS、I、gave，读不到后面的输入 him；"
               "标签 him 属于目标端，不是这一行可见的输入。"),
           "teaching", (), draw_n21, s.SIZE_SQUARE),
)
