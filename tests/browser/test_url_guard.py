"""The URL guard (site_builder/vocabulary/urls.py) against the browser itself.

Random markup, made of the pieces that have fooled scanners (quotes that do not pair up, comments,
script and raw-text ends, templates, SVG and MathML, character references), is parsed by Chromium's HTML
parser and by the guard. Every attribute Chromium ends up with is judged by the allowlist; whenever one
is refused, the guard must refuse the page too. The guard may refuse more, never less. (The judge is the
guard's own ``allowed_attribute``: what this test proves is that both parsers see the same attributes; which
attributes carry URLs is tested with hostile examples in tests/test_vocabulary.py.)
"""

from __future__ import annotations

import random

from site_builder.vocabulary.urls import allowed_attribute, url_problems

OPENINGS = ["<a", "<img", "<p", "<svg><a", "<svg><set", "<math><mrow", "<select><option", "<iframe", "<base",
            "<meta", "<form", "<object", "<link", "<video", "<noscript><a"]
NAMES = ["href", "HREF", "src", "xlink:href", "srcset", "imagesrcset", "srcdoc", "action", "formaction", "data",
         "poster", "ping", "http-equiv", "attributeName", "to", "title", "alttext", "style", "data-x", "a"]
VALUES = ["javascript:x", "&#106;avascript:x", "java&#9;script:x", "//evil", "/etc", "../x", "ok.html", "#b1", "x/",
          "href", "refresh", "ok.html //evil", "%2e%2e/x", "a=", 'a="', "a='", "x alttext=", ""]
LOOSE = [" ", "\n", "\f", "\x0b", "/", '"', "'", "=", ">", "/>", "<template>", "</template>", "<script>", "</script>",
         "</script x>", "<textarea>", "</textarea>", "<style>", "</style>", "<title>", "</title>", "<noscript>",
         "</noscript>", "<!--", "-->", "<![CDATA[", "]]>", "</svg>", "</math>"]


def soup(rng: random.Random) -> str:
    """Openings, attributes quoted every way (or not closed) and loose pieces, in any order."""
    parts = []
    for _ in range(rng.randint(2, 14)):
        kind = rng.random()
        if kind < 0.2:
            parts.append(rng.choice(OPENINGS))
        elif kind < 0.7:
            quote, close = rng.choice([('"', '"'), ("'", "'"), ("", ""), ('"', ""), ("'", "")])
            parts.append(f"{rng.choice([' ', '', chr(10)])}{rng.choice(NAMES)}{rng.choice(['=', ' = '])}"
                         f"{quote}{rng.choice(VALUES)}{close}")
        else:
            parts.append(rng.choice(LOOSE))
    return "".join(parts)


# Chromium's own parser, through DOMParser (scripting off: <noscript> holds markup, the view with the most links).
ATTRIBUTES_IN_CHROMIUM = """soups => soups.map(soup => {
  const found = [];
  const walk = root => {
    for (const element of root.querySelectorAll("*")) {
      if (element.localName === "template") found.push(["template", "", ""]);
      for (const a of element.attributes) found.push([element.localName, a.name, a.value]);
      if (element.content) walk(element.content);
    }
  };
  walk(new DOMParser().parseFromString(soup, "text/html"));
  return found;
})"""


def test_the_guard_refuses_every_page_whose_parsed_links_chromium_would_follow(open_tab):
    rng = random.Random(20261203)
    soups = [soup(rng) for _ in range(10_000)]
    parsed = open_tab().page.evaluate(ATTRIBUTES_IN_CHROMIUM, soups)
    refused_by_chromium = [soup for soup, attributes in zip(soups, parsed, strict=True)
                           if any(tag == "template" or not allowed_attribute(tag, name, value)
                                  for tag, name, value in attributes)]
    assert len(refused_by_chromium) > 500 and len(soups) - len(refused_by_chromium) > 500  # both kinds occur
    missed = [soup for soup in refused_by_chromium if not url_problems(soup.encode())]
    assert not missed, "\n".join(map(repr, missed[:10]))
