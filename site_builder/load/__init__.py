"""Stage 1: the content model (frozen dataclasses) and reading ``content/``: site.yml, pages, sources, records,
values.yml, the glossary; and the evidence adapter that turns the model's results into ``Evidence``.
"""
