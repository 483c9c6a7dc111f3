"""Every page a search engine may list says what it is in ``<meta name="description">``: a lesson its summary,
a generated page (numbers, glossary, figures, sources) its first paragraph (Lighthouse's SEO audit)."""

import html
import re
from pathlib import Path

from sitekit import fake_evidence

from site_builder.engine.pipeline import prepare_site, render_site

FIXTURE = Path(__file__).parent / "fixtures" / "basic"
GENERATED = ("numbers.html", "glossary.html", "figures.html", "sources.html")


def _text(fragment: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", fragment)).strip()


def test_generated_pages_are_described_by_their_first_paragraph(tmp_path):
    files = render_site(prepare_site(FIXTURE, fake_evidence(tmp_path / "figures")), teacher=False)
    for name in GENERATED:
        page = files[name].decode()
        [description] = re.findall(r'<meta name="description" content="([^"]*)">', page)
        first = re.search(r"<h1>.*?</h1>\s*<p>(.*?)</p>", page, re.S)[1]
        assert html.unescape(description) == _text(first) != "", name
