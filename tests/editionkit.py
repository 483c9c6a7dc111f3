"""A small course in two languages for the edition tests: Chinese at the root, English in content/en/.

Page ``r1`` is translated, page ``r2`` is not (the English site shows it with a notice). The evidence
has the same values for both and each figure drawn twice, once per language (English alt text and
mark labels in ``editions["en"]``), as build.py hands it over.
"""

from __future__ import annotations

from pathlib import Path

from sitekit import write_site

from site_builder.load.content import Evidence, FigureInfo, FigureMark, Value

SITE_YML = ("title: 测试课程\nlanguage: zh-CN\nbase_url: https://example.org/c/\npages: [index, r1, r2]\n"
            "translations: [en]\n")
SOURCES_YML = ("- id: M34\n  title: 内部记录\n  checked: 原课的采用记录\n"
               "- id: Vaswani2017\n  title: Attention Is All You Need\n")

GLOSSARY_ZH = "- id: kv-cache\n  term: KV 缓存\n  definition: 每层为已处理的位置保存的 K 和 V。\n"
INDEX_ZH = "---\ntitle: 课程首页\nkind: index\n---\n\n这门课讲推理时的缓存。\n"
INDEX_EN = "---\ntitle: Course home\nkind: index\n---\n\nThis course is about the cache used at inference.\n"

R1_ZH = """---
title: 第一课：缓存
label: 第一课
---

开场：缓存为什么可以复用，见 {src}`M34`。

:::{state} b0
:title: 旧状态保留
:figure: marked
:provenance: teaching

旧的条目原样保留，不再重算。

::::{teacher}
先指{mark}`left`，再指{mark}`right`，然后翻页。
::::
:::

:::{state} b1
:title: 实测差值
:figure: plot
:provenance: measured

今天测得的最大差是 {num}`exp.diff`，缓存共占 {num}`exp.bytes`。
:::
"""

R1_EN = """---
title: "Lesson one: the cache"
label: Lesson one
---

Opening: why a cache can be reused, see {src}`M34`.

:::{state} b0
:title: The old state stays
:figure: marked
:provenance: teaching

The old entries stay “as they are” — the model's entries are not computed again.

::::{teacher}
Point at {mark}`left` first, then at {mark}`right`, then move on.
::::
:::

:::{state} b1
:title: The measured difference
:figure: plot
:provenance: measured

Today the largest difference measured is {num}`exp.diff`; the cache takes {num}`exp.bytes`.
:::
"""

R2_ZH = """---
title: 第二课：读取
label: 第二课
---

:::{state} b0
:title: 每一步都读全部历史
:figure: plot
:provenance: measured

新的查询仍要读取 {term}`KV 缓存` 里的全部旧条目，差值仍是 {num}`exp.diff`。
:::
"""


def write_course(root: Path, en_pages: dict[str, str] | None = None, *, site_yml: str = SITE_YML,
                 en_files: dict[str, str] | None = None) -> Path:
    """The two-language course under ``root/content``: ``en_pages`` (id → text) replace the English pages,
    ``en_files`` (name → text) add files to ``content/en/``."""
    write_site(root, {"index": INDEX_ZH, "r1": R1_ZH, "r2": R2_ZH}, site_yml=site_yml, sources=SOURCES_YML,
               glossary=GLOSSARY_ZH)
    folder = root / "content" / "en"
    (folder / "pages").mkdir(parents=True, exist_ok=True)
    files = {"site.yml": "title: Test course\n",
             "sources.yml": "- id: M34\n  title: Internal record\n  checked: The adoption record of the course\n",
             **(en_files or {})}
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    for page_id, text in ({"index": INDEX_EN, "r1": R1_EN} if en_pages is None else en_pages).items():
        (folder / "pages" / f"{page_id}.md").write_text(text, encoding="utf-8")
    return root


def _figures(figure_dir: Path, texts: dict[str, tuple[str, ...]]) -> dict[str, FigureInfo]:
    figure_dir.mkdir(parents=True, exist_ok=True)
    for name in texts:
        (figure_dir / f"{name}.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>", encoding="utf-8")
    marked_alt, left, right, middle = texts["marked"]
    marks = (FigureMark("left", left, (0.0, 0.0, 0.3, 0.5)), FigureMark("right", right, (0.6, 0.0, 1.0, 0.5)),
             FigureMark("middle", middle, (0.3, 0.5, 0.6, 1.0)))
    return {"marked": FigureInfo("marked", "marked.svg", marked_alt, marked_alt, "teaching", marks=marks),
            "plot": FigureInfo("plot", "plot.svg", texts["plot"][0], texts["plot"][0], "measured")}


def course_evidence(figure_dir: Path) -> Evidence:
    """The same two values for both languages; each figure in each language's own folder."""
    values = {"exp.diff": Value("exp.diff", 1.1e-15, "", "measured", "exp", command="python -m lessonmodel run exp",
                                value_class="rounding", rtol=1e-9, atol=1e-12),
              "exp.bytes": Value("exp.bytes", 819200, "B", "measured", "exp", value_class="exact")}
    chinese = _figures(figure_dir, {"marked": ("两个方框", "左框", "右框", "中间"), "plot": ("差值曲线",)})
    english = _figures(figure_dir / "en", {"marked": ("Two boxes", "left box", "right box", "middle"),
                                           "plot": ("The difference",)})
    return Evidence(values=values, figures=chinese, figure_dir=str(figure_dir),
                    editions={"en": Evidence(values=values, figures=english, figure_dir=str(figure_dir / "en"))})


def line_of(text: str, needle: str, after: str = "") -> int:
    """1-based line of the first ``needle`` in ``text`` (after the first ``after``)."""
    start = text.index(after) if after else 0
    return text.count("\n", 0, text.index(needle, start)) + 1
