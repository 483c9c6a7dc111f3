"""Figure of lesson rc-v1 b2: choosing the first token from the model's real distribution.

Greedy takes the tallest bar; temperature sharpens (τ < 1) or flattens (τ > 1) the
bars; top-p keeps the most likely tokens up to a cumulative probability.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from figures import style as s
from figures.i18n import number, percent, shown, tr, tr_later
from figures.inputs import series, value
from figures.marks import mark
from figures.spec import Figure

TOP = 8


def draw_choice(fig: Any, data: Mapping[str, Any]) -> dict[str, Any]:
    tokens = series(data, "first_token_choice", "tokens")[:TOP]
    probs = series(data, "first_token_choice", "probs")
    tempered = series(data, "first_token_choice", "tempered")
    kept = series(data, "first_token_choice", "top_p_kept")
    ax = fig.add_axes((0.14, 0.2, 0.82, 0.6))  # room for the y label beside the tick labels
    width = 0.27
    sharp, flat = sorted(tempered, key=float)  # the experiment's τ < 1 and τ > 1 ('0.5', '2.0')
    taus = {key: shown(float(key)) for key in (sharp, flat)}  # written as the page cites them: 0.5, 2
    rows = ((sharp, tr("τ = {tau}（更尖）", tau=taus[sharp]), s.VERMILION), ("1", tr("τ = 1（模型原样）"), s.BLUE),
            (flat, tr("τ = {tau}（更平）", tau=taus[flat]), s.GREEN))  # sky blue beside blue: one colour in dark
    bars = {}
    for i, (tau, label, color) in enumerate(rows):
        ys = probs if tau == "1" else tempered[tau]
        xs = [j + (i - 1) * width for j in range(TOP)]
        bars[tau] = list(ax.bar(xs, ys[:TOP], width=width, color=color, edgecolor=s.INK, lw=s.LW_THIN, label=label))
    greedy = ax.annotate(tr("贪心：取概率最高的 token"), (0, probs[0]), (1.2, probs[0] * 1.45), fontsize=s.FS_SMALL,
                arrowprops={"arrowstyle": "->", "color": s.INK})
    ax.set_xticks(range(TOP), tokens)
    ax.set_ylabel(tr("概率"), labelpad=8)
    ax.yaxis.set_major_formatter(percent)
    ax.set_ylim(0, max(max(tempered[sharp][:TOP]), probs[0]) * 1.6)
    legend = ax.legend(loc="upper right", fontsize=s.FS_SMALL)
    s.title(fig, tr("首个输出位置：概率最高的 {n} 个 token", n=TOP))
    top_p = value(data, "first_token_choice.top_p")
    note = fig.text(0.03, 0.07, tr("top-p = {p}：从最高的往下累加到 {percent}，留下前 {n} 个再抽样",
                                   p=number(top_p, "g"), percent=number(top_p, ".0%"), n=kept),
             fontsize=s.FS_SMALL, color=s.INK, va="bottom")
    fig.text(0.03, 0.02, tr("权重为随机初始化：分布只是计算结果，不代表语言能力"), fontsize=s.FS_SMALL,
             color=s.VERMILION_TEXT, va="bottom")
    return {"original": mark(tr("τ = 1 的柱（模型原样）"), bars["1"]),
            "greedy": mark(tr("贪心的箭头"), greedy, bars["1"][0]),
            "sharper": mark(tr("τ = {tau} 的柱", tau=taus[sharp]), bars[sharp]),
            "flatter": mark(tr("τ = {tau} 的柱", tau=taus[flat]), bars[flat]), "legend": mark(tr("温度图例"), legend),
            "top-p": mark(tr("top-p 说明"), note)}


FIGURES = (
    Figure("rc-v1-choice", tr_later("从首个分布选出 token：贪心、温度与 top-p"),
           tr_later(
               "分组柱状图：lessonmodel 在提示 BOS I gave him 之后的首个输出分布中概率最高的几个 token。"
               "每个 token 三根柱：温度 0.5（分布变尖，最高的更高）、温度 1（模型原样）、温度 2（分布变平）。"
               "箭头指向温度 1（模型原样）那根最高的柱子：贪心选中的 token，换温度也还是它；"
               "底部写明 top-p = 0.9 时保留的 token 个数。权重为随机初始化。"),
           "measured", ("first_token_choice",), draw_choice, s.SIZE_4_3),
)
