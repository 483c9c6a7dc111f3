"""The lesson-site generator: Markdown + Jinja → a static site. Knows nothing of transformers.

Its folders are the build's stages, in the order a page goes through them:

- ``vocabulary/`` the bottom layer every package may import (figures too): messages and their
  catalogs, ``Problem``, value classes and the one tolerance comparison, the URL allowlist;
- ``markdown/``   the course's Markdown dialect: markdown-it plugins, roles, directives, TeX → MathML;
- ``load/``       the content model and reading ``content/`` (pages, site.yml, glossary, records, values);
- ``parse/``      a page's front matter and tokens (``parse_page``);
- ``check/``      every rule across the site (``check_site``), pictures, numbers typed by hand;
- ``resolve/``    one resolved page per site flavour (teacher material removed in one function);
- ``render/``     every output made from resolved pages: HTML, Markdown, notebook, zip, search;
- ``write/``      both sites written and swapped together, then verified;
- ``engine/``     the one build engine and its keyed store (build, check and serve all use it);
- ``serve/``      the front doors: the commands build.py calls and the dev server.

No stage imports a later one (tests/test_architecture.py). Values and figures come in as plain data
(:class:`~site_builder.load.content.Evidence`); only build.py imports lessonmodel and figures.
"""
