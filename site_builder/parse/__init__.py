"""Stage 2: a page's front matter and Markdown tokens (``parse_page``), and the position words of marks.
"""
