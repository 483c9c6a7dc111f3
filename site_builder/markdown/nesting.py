"""Where block nesting reaches markdown-it's limit.

markdown-it stops parsing blocks nested deeper than ``maxNesting`` (20 levels of
lists, quotes and directives) and silently skips the rest of the enclosing
block — for a deep list that is everything to the end of the page. This plugin
notes the first line where that happens in ``env["nesting_limit"]``, so the
parse stage can report it as ``path:line`` instead of losing the content.
"""

from __future__ import annotations

from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock


def nesting_limit_plugin(md: MarkdownIt) -> None:
    """Wrap the block tokenizer (the rule that drops content is inside it, not in a rule of its own)."""
    tokenize = md.block.tokenize

    def tokenize_noting_limit(state: StateBlock, start: int, end: int) -> None:
        line = state.skipEmptyLines(start)
        if (state.level >= state.md.options.maxNesting and line < end
                and state.sCount[line] >= state.blkIndent):  # exactly when markdown-it skips to `end`
            state.env.setdefault("nesting_limit", line + 1)
        tokenize(state, start, end)

    md.block.tokenize = tokenize_noting_limit  # type: ignore[method-assign]
