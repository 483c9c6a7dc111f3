"""A bug in a figure's or an experiment's code is one ``file:line: ExceptionType: message``, the trace folded
below it, on the terminal and in the dev server's overlay; the overlay and the terminal mark the column."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

import pytest
from sitekit import fake_evidence

from site_builder.engine.builder import Engine, Output
from site_builder.serve.server import DevServer, EvidenceSource, problem_report, terminal_report
from site_builder.vocabulary.problems import ContentError, Problem, code_error

FIXTURE = Path(__file__).parent / "fixtures" / "basic" / "content"
BROKEN = "def helper(data):\n    return data['missing']\n\n\ndef draw(fig, data):\n    return helper(data)\n"


def _broken_figure(root: Path):
    """A figure module under ``root/figures`` whose draw fails two calls down, on line 2."""
    (root / "figures").mkdir(parents=True)
    path = root / "figures" / "broken.py"
    path.write_text(BROKEN, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("broken_figure_for_test", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _raised(call) -> BaseException:
    try:
        call()
    except Exception as error:  # noqa: BLE001 (what code_error is given: any exception)
        return error
    raise AssertionError("nothing was raised")


def test_a_code_error_is_one_line_at_the_innermost_line_of_the_project_s_code(tmp_path):
    module = _broken_figure(tmp_path)
    error = code_error(_raised(lambda: module.draw(None, {})), tmp_path, ("figures", "lessonmodel"))
    assert isinstance(error, ContentError)
    assert [str(p) for p in error.problems] == ["figures/broken.py:2: KeyError: 'missing'"]
    trace = error.trace.splitlines()
    assert trace[0].endswith(f'{tmp_path / "figures" / "broken.py"}", line 6, in draw')  # from the project's code on
    assert trace[-1] == "KeyError: 'missing'" and "test_code_errors.py" not in error.trace


def test_build_py_prints_the_line_then_the_folded_trace_then_the_count(tmp_path, monkeypatch, capsys):
    import build
    import figures
    import lessonmodel

    module = _broken_figure(tmp_path)
    shutil.copytree(FIXTURE, tmp_path / "content")
    monkeypatch.setattr(build, "ROOT", tmp_path)
    monkeypatch.setattr(build, "CACHE", tmp_path / ".cache")
    monkeypatch.setattr(lessonmodel, "run_all", lambda cache=None: {})
    monkeypatch.setattr(figures, "render_languages", lambda results, *args, **kwargs: module.draw(None, results))
    assert build.main(["build"]) == 1
    said = capsys.readouterr().err.splitlines()
    assert said[0] == "figures/broken.py:2: KeyError: 'missing'"
    assert said[-1] == "1 个问题；站点没有改动。"
    assert len(said) > 4 and all(line.startswith("    | ") for line in said[1:-1])


def test_the_dev_server_shows_the_line_as_a_problem_and_folds_the_trace(tmp_path):
    module = _broken_figure(tmp_path)
    shutil.copytree(FIXTURE, tmp_path / "content")
    evidence = fake_evidence(tmp_path / "figs")
    broken = [True]

    def load():
        if broken[0]:
            raise code_error(_raised(lambda: module.draw(None, {})), tmp_path, ("figures",))
        return evidence

    logged: list[str] = []
    server = DevServer(Engine(tmp_path, (Output(False, tmp_path / "out"),), serving=True),
                       EvidenceSource(load, inputs=(tmp_path / "figures",)), watch=[], port=0, log=logged.append)
    server.start()
    try:
        [problem] = server.failure["problems"]
        assert problem["text"] == "figures/broken.py:2: KeyError: 'missing'"
        assert server.failure["traceback"].endswith("KeyError: 'missing'")
        assert logged[-1].splitlines()[0] == problem["text"]
        assert all(line.startswith("    | ") for line in logged[-1].splitlines()[1:-1])
        broken[0] = False
        server.rebuild({tmp_path / "figures" / "broken.py"})
        assert server.failure is None
    finally:
        server.stop()


def test_the_overlay_and_the_terminal_mark_the_column_of_the_quoted_name(tmp_path):
    shutil.copytree(FIXTURE, tmp_path / "content")
    page = tmp_path / "content" / "pages" / "alpha.md"
    lines = page.read_text(encoding="utf-8").splitlines()
    long_line = "很长的一段中文，" * 30 + "结尾引用{num}`exp.dif`。"  # one paragraph line, wide characters only
    lines[7] = long_line
    page.write_text("\n".join(lines) + "\n", encoding="utf-8")
    report = problem_report(Problem("content/pages/alpha.md", 8, "unknown value 'exp.dif'"), tmp_path)
    [here] = [c for c in report["context"] if c["here"]]
    start, end = here["column"]
    assert here["text"][start:end] == "exp.dif" and all(c["column"] is None for c in report["context"] if c != here)
    said = terminal_report([report], "").splitlines()
    caret = said[said.index(f"  > {8:4d} | {long_line}") + 1]
    # wide characters take two columns: the carets stand under the name on a terminal
    assert caret == " " * (11 + 2 * long_line.index("{num}") + len("{num}`")) + "^" * len("exp.dif")


def test_a_message_quoting_nothing_on_the_line_marks_no_column(tmp_path):
    shutil.copytree(FIXTURE, tmp_path / "content")
    report = problem_report(Problem("content/pages/alpha.md", 2, "unknown value 'not-on-this-line'"), tmp_path)
    assert [c["column"] for c in report["context"]] == [None] * len(report["context"])


@pytest.mark.skipif(sys.platform == "win32", reason="the dev server runs on POSIX")
def test_warnings_reach_a_tab_when_it_connects(tmp_path):
    from devclient import EventStream

    from site_builder.serve.scaffold import new_lesson

    shutil.copytree(FIXTURE, tmp_path / "content")
    new_lesson(tmp_path, "fresh")  # its placeholder text: warnings, not problems
    evidence = fake_evidence(tmp_path / "figs")
    server = DevServer(Engine(tmp_path, (Output(False, tmp_path / "out"),), serving=True),
                       EvidenceSource(lambda: evidence), watch=[], port=0, log=lambda text: None)
    server.start()
    stream = EventStream(server.port)
    try:
        hello = stream.wait_for("hello")
        warned = hello["warnings"]["problems"]
        assert hello["failing"] is False and warned
        assert {w["path"] for w in warned} == {"content/pages/fresh.md"}
        assert hello["warnings"]["labels"]["count"].startswith(f"{len(warned)} 个警告")
    finally:
        stream.close()
        server.stop()
