"""sphinx-design's components as Jupyter Book pages use them (``{dropdown}``, ``{tab-set}``/``{tab-item}``,
``{card}``, ``{grid}``/``{grid-item}``/``{grid-item-card}``), in either fence form: shown in the site's own
boxes; a card's ``:link:`` (no layout) stays an error. Pages written for the test."""

from __future__ import annotations

import pytest
from sitekit import fake_evidence, write_site

from site_builder.engine.pipeline import prepare_site, render_site
from site_builder.vocabulary.problems import ContentError

BACKTICKS = """# 组件

```{dropdown} 展开看推导
推导在这里。
```

`````{tab-set}
````{tab-item} PyTorch
用 PyTorch 写。
````
````{tab-item} JAX
用 JAX 写。
````
`````

::::{grid} 1 2 2 2
:gutter: 2
:::{grid-item-card} 预填充
一次算完整个提示。
:::
:::{grid-item}
解码一步一个词。
:::
::::

```{card} 一张卡片
:shadow: md
卡片的正文。
```
"""

EXPECTED = (
    '<details class="admonition dropdown"><summary class="admonition-title">展开看推导</summary>\n'
    "<p>推导在这里。</p>\n</details>\n"
    '<div>\n<aside class="admonition tab-item"><p class="admonition-title">PyTorch</p>\n<p>用 PyTorch 写。</p>\n'
    '</aside>\n<aside class="admonition tab-item"><p class="admonition-title">JAX</p>\n<p>用 JAX 写。</p>\n'
    "</aside>\n</div>\n"
    '<div>\n<aside class="admonition grid-item-card"><p class="admonition-title">预填充</p>\n'
    "<p>一次算完整个提示。</p>\n"
    "</aside>\n<div>\n<p>解码一步一个词。</p>\n</div>\n</div>\n"
    '<aside class="admonition card"><p class="admonition-title">一张卡片</p>\n<p>卡片的正文。</p>\n</aside>\n')


def _prose(tmp_path, page: str) -> str:
    prepared = prepare_site(write_site(tmp_path, {"x": page}), fake_evidence(tmp_path / "fig"))
    html = render_site(prepared, teacher=False)["x.html"].decode()
    return html[html.index('<div class="prose">') + len('<div class="prose">'):html.index("</div>\n<section")]


def test_the_components_show_in_the_sites_boxes(tmp_path):
    assert _prose(tmp_path, BACKTICKS) == EXPECTED


def test_the_colon_form_reads_the_same(tmp_path):
    colons = BACKTICKS.replace("`````", "::::::").replace("````", ":::::").replace("```", "::::")
    assert _prose(tmp_path, colons) == EXPECTED


def test_a_cards_link_is_an_error_at_its_line(tmp_path):
    with pytest.raises(ContentError) as caught:
        prepare_site(write_site(tmp_path, {"x": "# 组件\n\n```{card} 卡片\n:link: https://example.org\n正文。\n```\n"}),
                     fake_evidence(tmp_path / "fig"))
    assert [str(p) for p in caught.value.problems][0].startswith("content/pages/x.md:4: unknown card option ':link:'")


def test_margin_notes_sidebars_and_epigraphs_are_boxes_in_the_text_column(tmp_path):
    page = "# 页\n\n```{margin} 旁注\n旁边的话。\n```\n\n```{epigraph}\n一句引语。\n\n-- 某人\n```\n"
    assert _prose(tmp_path, page) == (
        '<aside class="admonition margin"><p class="admonition-title">旁注</p>\n<p>旁边的话。</p>\n</aside>\n'
        '<aside class="admonition epigraph">\n<p>一句引语。</p>\n<p>-- 某人</p>\n</aside>\n')
