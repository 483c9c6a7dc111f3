"""Figures of lesson kv-bytes (一份当前状态，究竟需要多少字节？).

The formula's factors, the formula checked against real array sizes, the
published model table, growth with T and B, the n_kv lever (MHA/GQA/MQA), and
a recorded decode timing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from figures import style as s
from figures.i18n import number, tr, tr_later
from figures.inputs import human_bytes, kib, series, value
from figures.marks import data_box, mark
from figures.spec import Figure

_FACTORS = (  # (mark name, mark label, symbol, meaning, colour); the texts are translated when drawn
    ("two", tr_later("因子 2"), "2", tr_later("K 和 V 各存一份"), s.INK),
    ("layers", tr_later("因子 L"), "L", tr_later("层数：每层一份缓存"), s.INK),
    ("batch", tr_later("因子 B"), "B", tr_later("batch：同时服务的请求数"), s.INK),
    ("tokens", tr_later("因子 T"), "T", tr_later("已存的 token 数，随生成增长"), s.ORANGE_TEXT),
    ("heads", tr_later("因子 n_kv"), "$n_{kv}$", tr_later("KV 头数：GQA、MQA 减少它"), s.INK),
    ("head-dim", tr_later("因子 d_h"), "$d_h$", tr_later("头维度"), s.INK),
    ("dtype", tr_later("因子 s"), "s", tr_later("每个元素的字节数（fp16 为 2）"), s.INK),
)


def draw_formula(fig: Any, _data: Mapping[str, Any]) -> dict[str, Any]:
    ax = s.sketch_axes(fig, 10, 10)
    s.note(ax, 0.2, 9.3, tr("KV 缓存字节数"), ha="left", color=s.INK, weight="bold")
    formula = ax.text(5.0, 8.2, r"$2 \cdot L \cdot B \cdot T \cdot n_{kv} \cdot d_h \cdot s$", ha="center",
                      va="center", fontsize=30, color=s.INK)
    marks = {"formula": mark(tr("整条公式"), formula)}
    for i, (name, label, sym, meaning, color) in enumerate(_FACTORS):
        y = 6.5 - i * 0.98
        cell = s.box(ax, 0.3, y - 0.38, 1.5, 0.76, fc="#fdf0d5" if sym == "T" else s.FAINT_FILL,
                     ec=s.ORANGE if sym == "T" else s.CARD_EDGE, lw=s.LW_THIN)
        ax.text(1.05, y, sym, ha="center", va="center", fontsize=s.FS_TITLE + 2, color=color)
        marks[name] = mark(tr(label), cell, s.note(ax, 2.2, y, tr(meaning), ha="left", color=color, fs=s.FS_TEXT))
    return marks


def _models(data: Mapping[str, Any]) -> list[dict[str, Any]]:
    return list(series(data, "kv_models", "models"))


def draw_measured(fig: Any, data: Mapping[str, Any]) -> dict[str, Any]:
    rows = series(data, "kv_bytes", "check")
    ax = fig.add_axes((0.2, 0.16, 0.72, 0.66))
    lo = min(r["formula"] for r in rows) / 2
    hi = max(r["formula"] for r in rows) * 2
    diagonal = ax.plot([lo, hi], [lo, hi], color=s.MUTED, lw=s.LW_THIN, ls="--", zorder=1)
    markers = {t: m for t, m in zip(sorted({r["T"] for r in rows}), "osD^v", strict=False)}
    for t, marker in markers.items():
        pts = [r for r in rows if r["T"] == t]
        ax.scatter([r["formula"] for r in pts], [r["nbytes"] for r in pts], marker=marker, s=70,
                   facecolor="white", edgecolor=s.BLUE, lw=1.6, zorder=2, label=f"T = {t}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    xlabel = ax.set_xlabel(tr("公式预测（字节）"))
    ylabel = ax.set_ylabel(tr("数组实测 nbytes（字节）"))
    legend = ax.legend(loc="lower right", handletextpad=0.2)
    equal = value(data, "kv_bytes.formula_equals_nbytes")
    n = value(data, "kv_bytes.n_checked")
    verdict = tr("全部逐字节相等") if equal else tr("存在不相等！")
    title = fig.text(0.03, 0.93, tr("{n} 种 T、B、$n_{{kv}}$、dtype 组合：{verdict}", n=n, verdict=verdict),
                     fontsize=s.FS_TEXT, color=s.INK, weight="bold", va="top")
    key = ax.text(0.04, 0.96, tr("虚线：两者相等"), transform=ax.transAxes, fontsize=s.FS_SMALL, color=s.MUTED,
                  va="top")
    # A scatter's own extent ignores its offsets: outline the points by their data range.
    points_box = data_box(ax, min(r["formula"] for r in rows) / 1.4, min(r["nbytes"] for r in rows) / 1.4,
                          max(r["formula"] for r in rows) * 1.4, max(r["nbytes"] for r in rows) * 1.4)
    return {"verdict": mark(tr("检查结论"), title), "points": mark(tr("各组合的点"), points_box),
            "diagonal": mark(tr("相等的对角虚线"), diagonal, key), "legend": mark(tr("T 的图例"), legend),
            "x-axis": mark(tr("横轴：公式预测"), xlabel), "y-axis": mark(tr("纵轴：数组 nbytes"), ylabel)}


_KIND_COLOR = {"MHA": s.BLUE, "GQA": s.ORANGE, "MQA": s.GREEN}


def _kind(row: Mapping[str, Any]) -> str:
    if row["n_kv"] == row["n_heads"]:
        return "MHA"
    return "MQA" if row["n_kv"] == 1 else "GQA"


def draw_models(fig: Any, data: Mapping[str, Any]) -> dict[str, Any]:
    rows = sorted(_models(data), key=lambda r: r["per_token"])
    ax = fig.add_axes((0.38, 0.12, 0.5, 0.76))
    ys = range(len(rows))
    drawn = []
    for y, r in zip(ys, rows, strict=True):
        color = _KIND_COLOR[_kind(r)]
        bar = ax.barh(y, kib(r["per_token"]), height=0.66, color=color, edgecolor=s.INK, lw=s.LW_THIN)
        drawn.append([bar, ax.text(kib(r["per_token"]) + 12, y, human_bytes(r["per_token"]), va="center",
                                   fontsize=s.FS_SMALL)])
    ax.set_yticks(list(ys), [f"{r['name']}\n{_kind(r)}, $n_{{kv}}$={r['n_kv']}" for r in rows],
                  fontsize=s.FS_SMALL)
    for row, label in zip(drawn, ax.get_yticklabels(), strict=True):
        row.append(label)
    ax.tick_params(axis="y", length=0)
    ax.set_xlim(0, kib(max(r["per_token"] for r in rows)) * 1.3)
    ax.set_xlabel(tr("每个 token 的 K/V（KiB，fp16）"))
    s.title(fig, tr("按公开配置与公式计算，batch 1"))
    marks = {f"model-{r['key'].replace('_', '-')}": mark(tr("{name} 这一行", name=r["name"]), row)
             for r, row in zip(rows, drawn, strict=True)}
    kinds = {kind: [row for r, row in zip(rows, drawn, strict=True) if _kind(r) == kind] for kind in _KIND_COLOR}
    marks |= {kind.lower(): mark(tr("{kind} 的条形", kind=kind), rows_) for kind, rows_ in kinds.items() if rows_}
    return marks


def draw_growth(fig: Any, data: Mapping[str, Any]) -> dict[str, Any]:
    row = next(r for r in _models(data) if r["key"] == "llama2_7b")
    t_max = row["native_context"]
    ax = fig.add_axes((0.16, 0.15, 0.66, 0.7))
    gib = 1024**3
    lines = {}
    for batch, color in ((16, s.VERMILION), (4, s.ORANGE), (1, s.BLUE)):
        lines[batch] = [*ax.plot([0, t_max], [0, row["per_token"] * batch * t_max / gib], color=color, lw=2.2),
                        ax.text(t_max * 1.02, row["per_token"] * batch * t_max / gib, f"B = {batch}", va="center",
                                fontsize=s.FS_SMALL, color=s.INK)]
    if "weights_bytes" in row:  # published parameter bytes, if lessonmodel provides them
        ax.axhline(row["weights_bytes"] / gib, color=s.INK, ls="--", lw=s.LW)
        ax.text(0, row["weights_bytes"] / gib, tr(" 模型权重"), va="bottom", fontsize=s.FS_SMALL)
    ax.set_xlim(0, t_max)
    ax.set_ylim(0, None)
    xlabel = ax.set_xlabel(tr("已存 token 数 T"))
    ylabel = ax.set_ylabel(tr("KV 缓存（GiB）"))
    ax.grid(True, axis="y")
    s.title(fig, tr("{name}，fp16：随 T 和 B 线性增长", name=row["name"]))
    return {"batch1": mark(tr("B = 1 的直线"), lines[1]), "batch4": mark(tr("B = 4 的直线"), lines[4]),
            "batch16": mark(tr("B = 16 的直线"), lines[16]), "x-axis": mark(tr("横轴：已存 token 数 T"), xlabel),
            "y-axis": mark(tr("纵轴：缓存 GiB"), ylabel)}


def draw_gqa(fig: Any, data: Mapping[str, Any]) -> dict[str, Any]:
    rows = [r for r in _models(data) if r["n_kv"] < r["n_heads"]]
    rows.sort(key=lambda r: r["n_kv"] / r["n_heads"], reverse=True)
    ax = fig.add_axes((0.36, 0.13, 0.54, 0.72))
    ys = list(range(len(rows)))[::-1]
    ghosts, actual, ratios = [], [], []
    for y, r in zip(ys, rows, strict=True):
        ghosts += ax.barh(y + 0.19, kib(r["mha_per_token"]), height=0.36, color=s.FADED, edgecolor=s.MUTED,
                          lw=s.LW_THIN, ls="--")
        actual += ax.barh(y - 0.19, kib(r["per_token"]), height=0.36, color=_KIND_COLOR[_kind(r)], edgecolor=s.INK,
                          lw=s.LW_THIN)
        ratios.append(ax.text(kib(r["per_token"]) + 40, y - 0.19, f"÷{r['n_heads'] // r['n_kv']}" if
                              r["n_heads"] % r["n_kv"] == 0 else "÷" + number(r["n_heads"] / r["n_kv"], ".0f"),
                              va="center", fontsize=s.FS_SMALL, weight="bold"))
    ax.set_yticks(ys, [tr("{name}\n{q} Q 头 → {kv} KV 头", name=r["name"], q=r["n_heads"], kv=r["n_kv"]) for r in rows],
                  fontsize=s.FS_SMALL)
    ax.tick_params(axis="y", length=0)
    ax.set_xlabel(tr("每个 token 的 K/V（KiB，fp16）"))
    s.title(fig, tr("少存 KV 头：GQA 与 MQA"))
    key = fig.text(0.03, 0.895, tr("灰色虚线：若每个 Q 头各有 K/V (MHA)"), fontsize=s.FS_SMALL, color=s.MUTED, va="top")
    labels = ax.get_yticklabels()
    marks = {"mha-bars": mark(tr("灰色虚线条：假如是 MHA"), ghosts, key),
             "actual-bars": mark(tr("彩色条：实际配置"), actual), "ratios": mark(tr("缩小倍数"), ratios)}
    for i, r in enumerate(rows):
        marks[f"model-{r['key'].replace('_', '-')}"] = mark(tr("{name} 这一组", name=r["name"]), ghosts[i], actual[i],
                                                           ratios[i], labels[i])
    return marks


_METHODS = (("recompute", tr_later("每步完整重算"), s.VERMILION, "s"),
            ("cached", tr_later("KV 缓存（预分配）"), s.BLUE, "o"),
            ("naive", tr_later("KV 缓存（拼接增长）"), s.GREEN, "^"),
            ("tokenwise", tr_later("缓存，但逐 token 喂提示"), s.PURPLE, "D"))


def _timing_panel(ax: Any, rows: list[Mapping[str, Any]], generated: int, field: str, title: str) -> dict[str, Any]:
    """Median per method against prompt length; the bar spans the interquartile range of the repeats."""
    lines: dict[str, Any] = {}
    for method, label, color, marker in _METHODS:
        points = sorted((r["prompt"], r[field]) for r in rows
                        if r["method"] == method and r["generated"] == generated and r[field])
        if not points:
            continue
        x = [p for p, _ in points]
        median = [st["median"] for _, st in points]
        low = [st["median"] - st["q1"] for _, st in points]
        high = [st["q3"] - st["median"] for _, st in points]
        lines[method] = ax.errorbar(x, median, yerr=[low, high], color=color, marker=marker, ms=5, lw=s.LW,
                                    capsize=2, label=tr(label))
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_title(title, fontsize=s.FS_SMALL, loc="left")
    ax.set_ylabel(tr("毫秒"))
    return lines


def draw_timing(fig: Any, data: Mapping[str, Any]) -> dict[str, Any]:
    """Two panels of the same record: time to first token (prefill included), then each further token."""
    rec = data["decode_timing"]
    rows = rec["data"]["rows"]
    longest = max(r["generated"] for r in rows)
    top = fig.add_axes((0.15, 0.49, 0.8, 0.26))  # its title clear of the legend above
    bottom = fig.add_axes((0.15, 0.1, 0.8, 0.29), sharex=top)
    first = _timing_panel(top, rows, longest, "ttft_ms", tr("首 token 时间（含 prefill）"))
    after = _timing_panel(bottom, rows, longest, "decode_ms", tr("之后每个 token 的时间（共生成 {n} 个）", n=longest))
    bottom.set_xlabel(tr("提示长度（token，对数坐标）"))
    top.tick_params(labelbottom=False)
    handles, labels = top.get_legend_handles_labels()
    legend = fig.legend(handles, labels, loc="upper left", fontsize=s.FS_TAG, ncols=2, frameon=False,
                        bbox_to_anchor=(0.02, 0.93))
    date = fig.text(0.03, 0.975, tr("记录于 {date}：点为中位数，误差棒为四分位距", date=rec["date"]),
                    fontsize=s.FS_SMALL, weight="bold", va="top")
    return {"date": mark(tr("记录日期"), date), "legend": mark(tr("四种做法的图例"), legend),
            "ttft-panel": mark(tr("首 token 时间的上图"), top),
            "decode-panel": mark(tr("之后每个 token 时间的下图"), bottom),
            "ttft-pair": mark(tr("上图：缓存与完整重算的首 token 时间"), _lines(first["cached"]),
                              _lines(first["recompute"])),
            "ttft-tokenwise": mark(tr("上图：逐 token 喂提示的折线"), _lines(first["tokenwise"])),
            "decode-cached": mark(tr("下图：预分配缓存的折线"), _lines(after["cached"])),
            "decode-recompute": mark(tr("下图：完整重算的折线"), _lines(after["recompute"]))}


def _lines(errorbar: Any) -> list[Any]:
    """The drawn parts of an errorbar container: its line and its bars."""
    line, caps, bars = errorbar.lines
    return [line, *caps, *bars]


FIGURES = (
    Figure("kv-bytes-formula", tr_later("KV 缓存字节数公式 2·L·B·T·n_kv·d_h·s 的各个因子"),
           tr_later(
               "公式 2·L·B·T·n_kv·d_h·s，逐项说明：2 表示 K 和 V 各一份；L 是层数；B 是同时服务的请求数；"
               "T 是已存的 token 数，会随生成增长；n_kv 是 KV 头数，GQA 和 MQA 会减少它；d_h 是头维度；"
               "s 是每个元素的字节数，fp16 为 2。"),
           "teaching", (), draw_formula, s.SIZE_SQUARE),
    Figure("kv-bytes-measured", tr_later("公式预测与 lessonmodel 缓存数组的实际字节数逐一相等"),
           tr_later(
               "对数坐标散点图：横轴是公式预测的字节数，纵轴是 lessonmodel 缓存数组的实测 nbytes，"
               "覆盖不同的 T、batch、KV 头数和 dtype。所有点都落在对角虚线上，即两者逐字节相等。"),
           "measured", ("kv_bytes",), draw_measured, s.SIZE_SQUARE),
    Figure("kv-bytes-models", tr_later("真实模型每个 token 的 K/V 字节数（fp16）"),
           tr_later(
               "横向条形图：按各模型公开配置（层数、KV 头数、头维度）用同一公式算出的每 token K/V 字节数，fp16、"
               "batch 1。"
               "条形按注意力类型着色并在标签中注明：MHA、GQA 或 MQA 以及 n_kv。"),
           "computed", ("kv_models",), draw_models, s.SIZE_SQUARE),
    Figure("kv-bytes-growth", tr_later("KV 缓存随 T 和 batch 线性增长"),
           tr_later(
               "折线图：Llama-2-7B 在 fp16 下，KV 缓存字节数随已存 token 数 T 线性增长，batch 为 1、4、"
               "16 时斜率成倍增加；"
               "每 token 字节数来自 kv_bytes 实验按公开配置的计算。"),
           "computed", ("kv_models",), draw_growth, s.SIZE_4_3),
    Figure("kv-bytes-gqa", tr_later("GQA 与 MQA 减少 KV 头数，每 token 缓存随之缩小"),
           tr_later(
               "成对条形图：对采用 GQA 或 MQA 的模型，灰色虚线条是假如每个 Q 头各有一组 K/V（MHA）时的每 token 字节数，"
               "彩色条是实际配置的字节数，旁边标出缩小的倍数（Q 头数 ÷ KV 头数）。"),
           "computed", ("kv_models",), draw_gqa, s.SIZE_SQUARE),
    Figure("kv-bytes-timing", tr_later("记录：首 token 时间与之后每个 token 的时间，缓存与完整重算对比"),
           tr_later(
               "两幅对数坐标折线图，来自一次记录下来的计时，横轴是提示长度。"
               "上图是首 token 时间（从开始到选出第一个 token，"
               "含 prefill）；下图是之后每生成一个 token 的时间（只算 decode 步）。比较每步完整重算、预分配的 KV 缓存、"
               "靠拼接增长的缓存，以及逐 token 喂入提示的缓存；点是中位数，误差棒是四分位距（第一到第三四分位）。"
               "图中标出记录日期；这是历史记录，不是本次构建的测量。"),
           "record", ("decode_timing",), draw_timing, s.SIZE_TALL),
)
