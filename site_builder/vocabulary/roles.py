"""The roles a page may write (``{name}`target```): the parser's, the checks' and the renderers' one list.

Here, in the bottom layer, so that a build that changes nothing can know them without importing the parser.
"""

REFERENCE_ROLES = ("ref", "eq", "numref", "doc")
"""Cross-references in MyST's spelling (check/refs.py finds their targets)."""
CITE_ROLES = ("cite", "cite:p", "cite:t", "cite:ps", "cite:ts", "cite:alp", "cite:cts")
"""MyST's citation roles (sphinxcontrib-bibtex's styles); all show the cited sources' ids."""
ROLES = ("num", "fig", "src", "ref", "example", "term", "mark", *REFERENCE_ROLES[1:], *CITE_ROLES)
"""Every role a page may use: what the check stage accepts and nearmiss.py recognises misspelt."""
ROLE_WORDS = {"value": "num", "number": "num", "figure": "fig", "source": "src", "glossary": "term", "link": "ref"}
"""Words a teacher may try for a role, and the role that does it: an unknown role is told which one to write."""
