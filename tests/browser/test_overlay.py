"""The dev server's overlay in Chromium: a long source line wraps instead of running off the box, the name
the problem quotes is marked on it, and a build's warnings show in a panel that leaves the page usable."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest
from chromium import wait_until
from sitekit import fake_evidence

from site_builder.engine.builder import Engine, Output
from site_builder.serve.scaffold import new_lesson
from site_builder.serve.server import DevServer, EvidenceSource

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "basic" / "content"


@pytest.fixture
def server(tmp_path):
    shutil.copytree(FIXTURE, tmp_path / "content")
    evidence = fake_evidence(tmp_path / "figs")
    made = DevServer(Engine(tmp_path, (Output(False, tmp_path / "out"),), serving=True),
                     EvidenceSource(lambda: evidence), watch=[tmp_path / "content"], port=0, log=lambda text: None)
    made.start()
    yield tmp_path, made
    made.stop()


def _wait(condition, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)


def test_a_long_line_wraps_and_the_quoted_name_is_marked(browser, server):
    root, dev = server
    page = browser.new_page(viewport={"width": 900, "height": 700})
    page.goto(f"{dev.url}alpha.html")
    wait_until(page, "document.readyState === 'complete'")
    source = root / "content" / "pages" / "alpha.md"
    text = source.read_text(encoding="utf-8")
    long_prose = "很长的一段中文，" * 40 + "结尾引用 {num}`exp.dif`。"
    source.write_text(text.replace("{num}`exp.diff`", long_prose, 1), encoding="utf-8")
    _wait(lambda: dev.failure is not None)
    wait_until(page, "document.getElementById('devserver-overlay') !== null")
    shown = page.evaluate("""() => {
        const root = document.getElementById('devserver-overlay').shadowRoot;
        const pre = root.querySelector('pre');
        const mark = root.querySelector('mark');
        return {marked: mark && mark.textContent, overflow: pre.scrollWidth - pre.clientWidth,
                rows: Math.round(mark.closest('div').getBoundingClientRect().height /
                                 parseFloat(getComputedStyle(mark.closest('div')).lineHeight))};
    }""")
    assert shown["marked"] == "exp.dif"
    assert shown["overflow"] <= 0 and shown["rows"] > 1  # wrapped onto several rows, nothing cut off
    page.close()


def test_warnings_show_in_a_panel_that_leaves_the_page_usable(browser, server):
    root, dev = server
    new_lesson(root, "fresh")  # its placeholder text: warnings
    dev.rebuild({root / "content" / "pages" / "fresh.md"})
    assert dev.failure is None and dev.warned["problems"]
    page = browser.new_page(viewport={"width": 900, "height": 700})
    page.goto(f"{dev.url}fresh.html")
    wait_until(page, "document.getElementById('devserver-warnings') !== null")
    panel = page.evaluate("""() => {
        const host = document.getElementById('devserver-warnings');
        const box = host.getBoundingClientRect();
        return {title: host.shadowRoot.querySelector('h2').textContent, top: box.top, height: innerHeight,
                problems: host.shadowRoot.querySelectorAll('p').length};
    }""")
    assert panel["title"].startswith(f"{len(dev.warned['problems'])} 个警告")
    assert panel["problems"] == len(dev.warned["problems"]) and panel["top"] >= panel["height"] * 0.55
    page.close()
