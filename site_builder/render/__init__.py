"""Stage 5: every output made from resolved pages: HTML, published Markdown, notebook, zip, search documents and
index, the generated pages, the math font; and the render keys the engine files them under.
"""
