"""Stage 4: one ``ResolvedPage`` per page and site flavour (teacher material removed in ``without_teacher``),
its table of contents, and the escaping rule for text the build writes as Markdown.
"""
