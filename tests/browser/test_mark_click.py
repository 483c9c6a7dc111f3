"""Following a ``{mark}`` in a later state that shows the same figure as an earlier one keeps the stepper on
the later state (its link goes to that state's own figure)."""

from __future__ import annotations

import http.server
import threading
from dataclasses import replace
from functools import partial

import pytest
from chromium import wait_until
from sitekit import fake_evidence, lesson, write_site

from site_builder.engine.pipeline import prepare_site, render_site
from site_builder.load.content import FigureMark


def _state(number: int) -> str:
    return (f":::{{state}} b{number}\n:title: 第 {number} 步\n:figure: sketch\n:provenance: teaching\n\n"
            f"正文 {number}，见{{mark}}`params`。\n:::\n\n")


@pytest.fixture
def served(tmp_path):
    base = fake_evidence(tmp_path / "fig")
    mark = FigureMark("params", "参数条", (0.1, 0.05, 0.75, 0.3))
    evidence = replace(base, figures={**base.figures, "sketch": replace(base.figures["sketch"], marks=(mark,))})
    root = write_site(tmp_path / "site", {"x": lesson(_state(0) + _state(1))})
    out = tmp_path / "out"
    for name, data in render_site(prepare_site(root, evidence), teacher=True).items():
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_bytes(data if isinstance(data, bytes) else data.read_bytes())
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), partial(http.server.SimpleHTTPRequestHandler,
                                                                     directory=str(out)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()


def test_a_mark_in_the_second_state_keeps_the_stepper_there(browser, served):
    page = browser.new_page()
    page.goto(f"{served}x.html#x-b1")
    wait_until(page, "!document.getElementById('x-b1').hasAttribute('hidden')")
    page.locator("#x-b1 a.mark-ref").first.click()
    wait_until(page, "location.hash !== '#x-b1'")  # the link was followed
    assert page.evaluate("location.hash") == "#x-b1-fig"
    hidden = "id => document.getElementById(id).hasAttribute('hidden')"
    assert (page.evaluate(hidden, "x-b0"), page.evaluate(hidden, "x-b1")) == (True, False)
    page.close()
