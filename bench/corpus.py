"""A synthetic Chinese lesson corpus, laid out for this project and for MkDocs (same text).

    .venv/bin/python bench/corpus.py --n 1000 --out .cache/bench/corpus-1000

writes ``OUT/project/content/`` (site.yml, pages/, sources.yml, records/) and ``OUT/mkdocs/``
(mkdocs.yml, docs/). Stdlib only; seeded, so the same N gives byte-identical files.

Each lesson is about 9 KB / 2,600 CJK characters, shaped like the corpus of
shared/research/perf.md: front matter (title, summary), 4 H2/H3 headings, 7 paragraphs of
150–400 CJK characters with English terms, a 3–5 item list, inline math, a display-math block,
a 20-line Python block, a 4–6 row table, a link to another page, plus what lessons here have:
3 states (``:::{state}``) with titles, and teacher notes. For MkDocs the same text is plain
Markdown: a state becomes an H2 with its title, a teacher note a blockquote, ``{ref}`` a
Markdown link, and the front matter keeps ``title``. Prose has no digits with units, so the
project's unbound-number check passes without values; the evidence is empty (no model, no figures).
"""

from __future__ import annotations

import argparse
import random
import shutil
from dataclasses import dataclass
from pathlib import Path

SEED = 20240601
WORDS = ("缓存", "注意力", "模型", "键", "值", "查询", "序列", "位置", "编码", "矩阵", "向量", "计算", "内存", "显存",
         "请求", "前缀", "解码", "推理", "训练", "参数", "梯度", "层", "头", "维度", "长度", "批次", "复用", "重算",
         "结果", "误差", "比较", "实验", "教师", "学生", "课堂", "问题", "答案", "例子", "图示", "公式", "代价", "速度",
         "词元", "上下文", "窗口", "分组", "共享", "布局", "读取", "写入", "保留", "丢弃", "更新", "检查", "一致")
GLUE = ("的", "和", "把", "在", "对", "与", "就", "也", "都", "只", "还", "会", "要", "能", "被", "让", "从", "向")
TERMS = ("KV cache", "attention", "prefill", "decode", "token", "Transformer", "softmax", "query", "key", "value",
         "GPU", "batch", "causal mask", "RoPE", "GQA", "NumPy")
HEADINGS = ("为什么可以复用", "缓存里存了什么", "一步解码的代价", "显存从哪里来", "常见误解", "课堂练习", "小结与回顾",
            "新请求怎么接上", "位置编码的作用", "分组查询注意力")


@dataclass(frozen=True)
class Page:
    """One synthetic lesson, in the neutral form both layouts are made from."""

    id: str
    title: str
    summary: str
    parts: tuple[tuple[str, ...], ...]
    """Blocks in order: ("p", text) ("h2"|"h3", text) ("state", title) ("endstate",) ("teacher", text)
    ("list", item, …) ("math", tex) ("code", text) ("table", text) ("ref", target id, target title, text)."""


def _sentence(rng: random.Random) -> str:
    words = []
    for _ in range(rng.randint(5, 9)):
        words.append(rng.choice(WORDS))
        words.append(rng.choice(GLUE) if rng.random() < 0.6 else "")
    if rng.random() < 0.5:
        words.insert(rng.randrange(len(words)), f" {rng.choice(TERMS)} ")
    return "".join(words).strip() + rng.choice("，。；：")


def _paragraph(rng: random.Random, chars: int) -> str:
    text = ""
    while len(text) < chars:
        text += _sentence(rng)
    return text.rstrip("，；：") + "。"


CODE = '''def attend(q, k_cache, v_cache, k_new, v_new):
    """One decode step with an explicit KV cache."""
    k = np.concatenate([k_cache, k_new], axis=0)
    v = np.concatenate([v_cache, v_new], axis=0)
    scores = q @ k.T / np.sqrt(q.shape[-1])
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights = weights / weights.sum(axis=-1, keepdims=True)
    out = weights @ v
    return out, k, v


def prefill(tokens, params):
    cache = []
    for layer in params:
        q, k, v = layer.project(tokens)
        out, k, v = attend(q, k[:0], v[:0], k, v)
        cache.append((k, v))
        tokens = layer.mlp(out)
    return tokens, cache'''


def make_page(n: int, total: int, rng: random.Random) -> Page:
    title = f"第{n}课：{rng.choice(WORDS)}{rng.choice(GLUE)}{rng.choice(WORDS)}"
    other = rng.randrange(1, total + 1)
    paragraphs = [_paragraph(rng, rng.randint(220, 480)) for _ in range(7)]
    rows = "\n".join(f"| {rng.choice(WORDS)} | {rng.choice(TERMS)} | {rng.choice(WORDS)}{rng.choice(WORDS)} |"
                     for _ in range(rng.randint(4, 6)))
    table = "| 名称 | 英文 | 说明 |\n|---|---|---|\n" + rows
    parts: list[tuple[str, ...]] = [
        ("p", paragraphs[0]),
        ("state", f"{rng.choice(HEADINGS)}（一）"), ("p", paragraphs[1]),
        ("list", *(f"{rng.choice(WORDS)}{rng.choice(GLUE)}{rng.choice(WORDS)}：{_sentence(rng)}"
                   for _ in range(rng.randint(3, 5)))),
        ("math", r"\mathrm{bytes} = 2 \cdot L \cdot T \cdot n_{kv} \cdot d_h \cdot s"),
        ("teacher", "指图与推进（不朗读）：" + _paragraph(rng, 80)), ("endstate",),
        ("h2", rng.choice(HEADINGS)),
        ("p", paragraphs[2] + " 每个词元的缓存是 $2 L n_{kv} d_h s$ 字节量级的乘积。"),
        ("ref", f"page-{other:04d}", "", "前后对照见"),
        # Each page's code differs, as in a real course (a highlighter that remembers blocks gains nothing).
        ("code", CODE.replace("KV cache.", f"KV cache (lesson {n}).")),
        ("state", f"{rng.choice(HEADINGS)}（二）"), ("p", paragraphs[3]), ("table", table), ("endstate",),
        ("h3", rng.choice(HEADINGS)), ("p", paragraphs[4]),
        ("state", f"{rng.choice(HEADINGS)}（三）"), ("p", paragraphs[5]),
        ("teacher", "模拟问答：" + _paragraph(rng, 80)), ("endstate",),
        ("h2", rng.choice(HEADINGS)), ("p", paragraphs[6]),
        ("h3", "小结"),
    ]
    summary = _sentence(rng).rstrip("，。；：")
    return Page(f"page-{n:04d}", title, summary, tuple(parts))


def make_corpus(n: int) -> list[Page]:
    rng = random.Random(SEED)
    pages = [make_page(i, n, rng) for i in range(1, n + 1)]
    titles = {p.id: p.title for p in pages}
    return [Page(p.id, p.title, p.summary, tuple(("ref", part[1], titles[part[1]], part[3]) if part[0] == "ref"
                                                   else part for part in p.parts)) for p in pages]


def project_page(page: Page) -> str:
    out = [f"---\ntitle: {page.title}\nsummary: {page.summary}\n---\n"]
    state = 0
    for kind, *rest in page.parts:
        if kind == "p":
            out.append(rest[0] + "\n")
        elif kind in ("h2", "h3"):
            out.append(("## " if kind == "h2" else "### ") + rest[0] + "\n")
        elif kind == "state":
            out.append(f":::{{state}} b{state}\n:title: {rest[0]}\n:provenance: teaching\n")
            state += 1
        elif kind == "endstate":
            out.append(":::\n")
        elif kind == "teacher":
            out.append(f"::::{{teacher}}\n{rest[0]}\n::::\n")
        elif kind == "list":
            out.append("\n".join(f"- {item}" for item in rest) + "\n")
        elif kind == "math":
            out.append(f"$$\n{rest[0]}\n$$\n")
        elif kind == "code":
            out.append(f"```python\n{rest[0]}\n```\n")
        elif kind == "table":
            out.append(rest[0] + "\n")
        elif kind == "ref":
            out.append(f"{rest[2]} {{ref}}`{rest[0]}`。\n")
    return "\n".join(out)


def mkdocs_page(page: Page) -> str:
    out = [f"---\ntitle: {page.title}\nsummary: {page.summary}\n---\n"]
    for kind, *rest in page.parts:
        if kind == "p" or kind == "table":
            out.append(rest[0] + "\n")
        elif kind in ("h2", "h3", "state"):
            out.append(("### " if kind == "h3" else "## ") + rest[0] + "\n")
        elif kind == "teacher":
            out.append(f"> {rest[0]}\n")
        elif kind == "list":
            out.append("\n".join(f"- {item}" for item in rest) + "\n")
        elif kind == "math":
            out.append(f"$$\n{rest[0]}\n$$\n")
        elif kind == "code":
            out.append(f"```python\n{rest[0]}\n```\n")
        elif kind == "ref":
            out.append(f"{rest[2]} [{rest[1]}]({rest[0]}.md)。\n")
    return "\n".join(out)


INDEX_TEXT = "这是合成的课程首页，用于测量构建时间。每一课都有状态、公式、代码、表格和链接。"


def write_corpus(n: int, out: Path) -> list[Page]:
    pages = make_corpus(n)
    shutil.rmtree(out, ignore_errors=True)
    content = out / "project" / "content"
    (content / "pages").mkdir(parents=True)
    (content / "records").mkdir()
    ids = ["index"] + [p.id for p in pages]
    (content / "site.yml").write_text("title: 合成课程\nlanguage: zh-CN\nbase_url: https://example.org/bench/\n"
                                      f"pages: [{', '.join(ids)}]\n", encoding="utf-8")
    (content / "sources.yml").write_text("- id: Vaswani2017\n  title: Attention Is All You Need\n"
                                         "  url: https://arxiv.org/abs/1706.03762\n", encoding="utf-8")
    (content / "pages" / "index.md").write_text(f"---\ntitle: 合成课程\nkind: index\n---\n\n{INDEX_TEXT}\n",
                                                encoding="utf-8")
    docs = out / "mkdocs" / "docs"
    docs.mkdir(parents=True)
    (out / "mkdocs" / "mkdocs.yml").write_text("site_name: 合成课程\ntheme: mkdocs\n", encoding="utf-8")
    (docs / "index.md").write_text(f"---\ntitle: 合成课程\n---\n\n{INDEX_TEXT}\n", encoding="utf-8")
    for page in pages:
        (content / "pages" / f"{page.id}.md").write_text(project_page(page), encoding="utf-8")
        (docs / f"{page.id}.md").write_text(mkdocs_page(page), encoding="utf-8")
    return pages


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=100, help="number of lesson pages")
    parser.add_argument("--out", type=Path, required=True, help="folder to (re)create")
    args = parser.parse_args()
    pages = write_corpus(args.n, args.out)
    size = sum(p.stat().st_size for p in (args.out / "project" / "content" / "pages").glob("page-*.md"))
    print(f"{len(pages)} pages, {size / len(pages) / 1024:.1f} KiB per page → {args.out}")


if __name__ == "__main__":
    main()
