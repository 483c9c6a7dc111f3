"""The engine keeps a page's placeholder warnings under its source, as it keeps its problems: a save warns
about exactly what a fresh build warns about."""

from sitekit import fake_evidence, lesson, write_site
from test_check import STATE

from site_builder.engine.builder import Engine, Output
from site_builder.serve.scaffold import new_lesson


def _warned(engine: Engine, evidence) -> list[tuple[str, int, str]]:
    return sorted((w.path, w.line, w.message) for w in engine.build(evidence).warnings)


def test_a_save_warns_about_the_placeholders_a_fresh_build_warns_about(tmp_path):
    root = write_site(tmp_path / "site", {"x": lesson(STATE)})
    page = new_lesson(root, "y")
    evidence = fake_evidence(tmp_path / "fig")
    serving = Engine(root, (Output(False, tmp_path / "out"),), serving=True)
    first = _warned(serving, evidence)
    assert any(path == "content/pages/y.md" for path, _line, _message in first)
    assert _warned(serving, evidence) == first  # nothing changed: the same warnings, from the store
    lines = page.read_text(encoding="utf-8").splitlines(keepends=True)
    page.write_text("".join("title: 我自己的标题\n" if line.startswith("title:") else line for line in lines),
                    encoding="utf-8")
    saved = _warned(serving, evidence)
    fresh = _warned(Engine(root, (Output(False, tmp_path / "fresh"),), serving=True), evidence)
    assert saved == fresh and len(saved) == len(first) - 1
