"""Save-to-reload latency of ``python build.py serve``: file write → ``reload`` event received.

    .venv/bin/python bench/reload_latency.py [--edits 15] [--pages 1000] [--skip-real]

Two sites, each served by a real DevServer on a free loopback port and watched
by watchfiles, exactly as ``serve`` does:

- the real site: a temporary copy of content/, with the evidence measured and
  drawn by this checkout (lessonmodel and figures, cached in .cache/);
- a synthetic site of ``--pages`` Chinese lesson pages with states, math, code,
  tables and links, and fake evidence.

Each edit appends a sentence to a lesson; the time runs from the write until
the server-sent ``reload`` event arrives. Prints the median, min and max.
A benchmark, not a test: the target (under 200 ms for the real site) depends on the machine.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

# Run as a script from anywhere: the project's own imports below need ROOT on sys.path first.
# ruff: noqa: E402
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from site_builder.engine.builder import Engine, Output
from site_builder.load.content import Evidence, FigureInfo, Value
from site_builder.load.evidence import in_fresh_process
from site_builder.serve.server import DevServer, EvidenceSource

sys.path.insert(0, str(ROOT / "tests"))
from devclient import EventStream

LESSON = """---
title: 第 {n} 课：缓存与注意力（{n}）
label: L{n}
summary: 合成页面 {n}，用于测量重建延迟。
---

开场白：这一课讨论 KV 缓存为什么可以复用，先回顾 {{ref}}`{prev}`，再看下一课 {{ref}}`{next}#b1`。

:::{{state}} b0
:title: 旧状态保留（{n}）
:figure: sketch
:caption: 示意图，来源 {{src}}`M34`
:provenance: teaching

正文说明，公式 $x_t^2 + \\sqrt{{d_k}}$ 与示意数字 {{example}}`3 GiB`。

$$
\\operatorname{{softmax}}\\left(\\frac{{QK^T}}{{\\sqrt{{d_k}}}}\\right) V
$$

| 层 | 头数 | 说明 |
|---|---|---|
| 1 | 4 | 第一层 |
| 2 | 4 | 第二层 |

```python
logits, cache = decode_step(params, token, cache)
```

::::{{more}}
进一步的解释文字：缓存里存的是这一条请求在每一层的当前状态。
::::

::::{{teacher}}
**指图与推进（不朗读）**：先指左边的方框再指右边的箭头。
::::
:::

:::{{state}} b1
:title: 实测差值（{n}）
:figure: plot
:provenance: measured

今天测得的最大差是 {{num}}`exp.diff`，缓存占 {{num}}`exp.bytes`。

## 小结 {{#{page_id}-summary}}

这一节回顾本课的要点：参数、缓存与位置。
:::
"""


def synthetic_site(root: Path, pages: int) -> Path:
    """Write a content/ folder of ``pages`` lessons plus an index; returns ``root``."""
    content = root / "content"
    (content / "pages").mkdir(parents=True)
    (content / "records").mkdir()
    ids = [f"p{n:04d}" for n in range(pages)]
    (content / "site.yml").write_text("title: 合成课程\nlanguage: zh-CN\nbase_url: https://example.org/s/\n"
                                      f"pages: [index, {', '.join(ids)}]\n", encoding="utf-8")
    (content / "sources.yml").write_text("- id: M34\n  title: 内部记录\n", encoding="utf-8")
    (content / "pages" / "index.md").write_text("---\ntitle: 总览\nkind: index\n---\n\n从 {ref}`p0000` 开始。\n",
                                                encoding="utf-8")
    for n, page_id in enumerate(ids):
        text = LESSON.format(n=n, page_id=page_id, prev=ids[n - 1], next=ids[(n + 1) % pages])
        (content / "pages" / f"{page_id}.md").write_text(text, encoding="utf-8")
    return root


def fake_evidence(figure_dir: Path) -> Evidence:
    figure_dir.mkdir(parents=True, exist_ok=True)
    for name in ("sketch", "plot"):
        (figure_dir / f"{name}.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>", encoding="utf-8")
    return Evidence(
        values={"exp.diff": Value("exp.diff", 1.1e-15, "", "measured", "exp"),
                "exp.bytes": Value("exp.bytes", 819200, "B", "measured", "exp")},
        figures={"sketch": FigureInfo("sketch", "sketch.svg", "草图", "长描述", "teaching"),
                 "plot": FigureInfo("plot", "plot.svg", "曲线", "长描述", "measured")},
        figure_dir=str(figure_dir))


def measure(root: Path, evidence: EvidenceSource, page: Path, edits: int) -> tuple[list[float], float, str]:
    """Latencies in ms of ``edits`` saves of ``page``, the first build's time in s, and any failure."""
    started = time.perf_counter()
    server = DevServer(Engine(root, (Output(False, root / "out"),), serving=True), evidence, watch=[root / "content"],
                       port=0, log=lambda text: None)
    server.start()
    first_build = time.perf_counter() - started
    if server.failure is not None:
        server.stop()
        problems = [p["text"] for p in server.failure["problems"]] or [server.failure["traceback"]]
        return [], first_build, "\n".join(problems[:5])
    stream = EventStream(server.port, timeout=60)
    stream.next()  # hello
    latencies = []
    text = page.read_text(encoding="utf-8")
    try:
        for i in range(edits):
            text += f"\n补充说明，第 {i} 次修改。\n"
            before = time.perf_counter()
            page.write_text(text, encoding="utf-8")
            event, data = stream.next()
            latencies.append((time.perf_counter() - before) * 1000)
            if event != "reload":
                return latencies, first_build, json.dumps(data, ensure_ascii=False)[:500]
    finally:
        stream.connection.close()
        server.stop()
    return latencies, first_build, ""


def report(name: str, latencies: list[float], first_build: float, failure: str) -> None:
    print(f"{name}: first build {first_build:.2f} s")
    if latencies:
        print(f"  save → reload: median {statistics.median(latencies):.0f} ms, min {min(latencies):.0f} ms, "
              f"max {max(latencies):.0f} ms over {len(latencies)} edits")
    if failure:
        print(f"  the build failed, so this measures save → build-error:\n  {failure}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--edits", type=int, default=15)
    parser.add_argument("--pages", type=int, default=1000)
    parser.add_argument("--skip-real", action="store_true", help="only the synthetic site")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="reload-bench-") as scratch:
        scratch = Path(scratch)
        if not args.skip_real:
            import build

            real = scratch / "real"
            shutil.copytree(ROOT / "content", real / "content")
            source = EvidenceSource(lambda: in_fresh_process("build.print_evidence", real / "figures-out", build.ROOT))
            lesson = real / "content" / "pages" / "r55.md"
            report("real site (content/)", *measure(real, source, lesson, args.edits))
        synthetic = synthetic_site(scratch / "synthetic", args.pages)
        evidence = fake_evidence(scratch / "figures")
        lesson = synthetic / "content" / "pages" / f"p{args.pages // 2:04d}.md"
        report(f"synthetic site ({args.pages} lessons)",
               *measure(synthetic, EvidenceSource(lambda: evidence), lesson, args.edits))


if __name__ == "__main__":
    main()
