"""The teacher site's gallery: every figure and value listed, filtered by words and provenance."""

from __future__ import annotations

import re

from playwright.sync_api import expect


def test_gallery_filters_by_words_and_provenance(site, open_tab, tmp_path):
    html = (site.teacher_dir / "gallery.html").read_text(encoding="utf-8")
    figures = len(re.findall(r'<li class="gallery-item" id="figure-', html))
    values = len(re.findall(r'<tr id="value-', html))
    assert not (site.public_dir / "gallery.html").exists()
    page = open_tab(site.url(True, "gallery.html")).page
    count = page.locator("[data-gallery-count]")
    expect(count).to_have_text(f"{figures + values} / {figures + values}")
    first_value = re.search(r'<tr id="value-([^"]+)"', html).group(1)
    page.fill("[data-gallery-filter]", first_value)
    expect(page.locator(f'[id="value-{first_value}"]')).to_be_visible()
    assert page.locator("[data-gallery-item]:visible").count() < figures + values
    page.fill("[data-gallery-filter]", "")
    page.select_option("[data-gallery-provenance]", "teaching")
    shown = page.locator("[data-gallery-item]:visible")
    assert shown.count() == len(re.findall(r'data-gallery-item data-provenance="teaching"', html))
    page.select_option("[data-gallery-provenance]", "")
    page.screenshot(path=str(tmp_path / f"gallery-{site.kind}.png"), full_page=False)
