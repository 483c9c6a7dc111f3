"""Teacher-supplied pictures: a paragraph holding only ``![alt](path "caption")`` becomes an ``image_figure``.

The core rule turns such a paragraph into one block token whose ``meta`` holds
``src``, ``alt`` (plain text), ``caption`` and ``line``. The check stage
refuses images inside sentences, without alt text, or pointing outside the
page's folder; the render rule asks ``env["image_html"]`` for the HTML (which
knows the resized files), so parsing never touches files.
"""

from __future__ import annotations

from urllib.parse import unquote

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token


def image_figure_plugin(md: MarkdownIt) -> None:
    md.core.ruler.after("inline", "image_figure", _image_figures)
    md.add_render_rule("image_figure", _render)


def _lone_image(inline: Token) -> Token | None:
    children = [c for c in inline.children or () if not (c.type in ("text", "softbreak") and not c.content.strip())]
    return children[0] if len(children) == 1 and children[0].type == "image" else None


def _image_figures(state: StateCore) -> None:
    tokens, out, i = state.tokens, [], 0
    while i < len(tokens):
        token = tokens[i]
        image = (_lone_image(tokens[i + 1]) if token.type == "paragraph_open" and not token.hidden
                 and i + 2 < len(tokens) and tokens[i + 1].type == "inline" else None)
        if image is None:
            out.append(token)
            i += 1
            continue
        figure = Token("image_figure", "figure", 0, map=token.map, block=True, level=token.level)
        # The file's own name: markdown-it percent-encodes spaces and non-ASCII letters (显卡.png).
        figure.meta = {"src": unquote(str(image.attrGet("src") or "")), "caption": str(image.attrGet("title") or ""),
                       "alt": state.md.renderer.renderInlineAsText(image.children or [], state.md.options,
                                                                   state.env).strip(),
                       "line": token.map[0] + 1 if token.map else 0}
        out.append(figure)
        i += 3
    state.tokens = out


def _render(self, tokens, idx, options, env) -> str:
    return env["image_html"](tokens[idx].meta) if "image_html" in env else ""
