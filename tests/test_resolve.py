"""The resolved page: the public flavour holds no teacher material, the teacher flavour keeps all of it."""

from __future__ import annotations

import io
import zipfile
from dataclasses import replace

import pytest
from PIL import Image
from sitekit import fake_evidence, lesson, write_site

from site_builder.engine.pipeline import prepare_site, render_site
from site_builder.load.content import Value
from site_builder.render import search
from site_builder.render.markdown_out import page_markdown
from site_builder.render.notebook import lesson_notebook
from site_builder.resolve.resolved import ResolvedPage, SiteView, Stepper, resolve_page, without_teacher

SECRET = "只给教师看的提示"


PAGE = lesson(f"""公开的开场白 {{num}}`exp.bytes`。

::::{{teacher}}
## 教师小节

{SECRET}，引用 {{num}}`secret.x` 与 {{src}}`M34`。

![教师的图](images/t.jpg)
::::

:::{{state}} b0
:title: 第一步
:provenance: teaching

公开正文。

![公开的图](images/p.jpg)

::::{{teacher}}
状态里的{SECRET}，{{fig}}`plot`。
::::
:::

:::{{state}} b1
:title: 第二步
:provenance: teaching

第二步正文。
:::
""")


def _jpeg(colour: tuple[int, int, int]) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (40, 30), colour).save(out, "JPEG")
    return out.getvalue()


@pytest.fixture(scope="module")
def prepared(tmp_path_factory):
    root = write_site(tmp_path_factory.mktemp("site"), {"x": PAGE})
    (root / "content" / "pages" / "images").mkdir()
    (root / "content" / "pages" / "images" / "t.jpg").write_bytes(_jpeg((200, 0, 0)))
    (root / "content" / "pages" / "images" / "p.jpg").write_bytes(_jpeg((0, 0, 200)))
    code = root / "secret_experiment.py"
    code.write_text("SECRET_CODE = 1\n", encoding="utf-8")
    evidence = fake_evidence(root / "figures")
    evidence = replace(evidence, values={**evidence.values, "secret.x": Value(
        "secret.x", 7, "", "measured", "secret", source_file="lessonmodel/secret.py", value_class="exact")},
        experiment_files={"lessonmodel/secret.py": str(code)})
    return prepare_site(root, evidence)


def resolved(prepared, teacher: bool) -> ResolvedPage:
    site = SiteView(prepared.content, prepared.pages, prepared.evidence, teacher, prepared.images)
    return resolve_page(site, prepared.pages["x"])


def _tokens(page: ResolvedPage):
    for section in page.sections:
        runs = [s.source.caption + s.source.body + s.source.more + s.source.teacher
                for s in section.states] if isinstance(section, Stepper) else [section]
        for run in runs:
            for token in run:
                yield token
                yield from token.children or ()


def _text(page: ResolvedPage) -> str:
    return "\n".join(t.content for t in _tokens(page) if t.type == "inline")


def test_the_public_page_holds_no_teacher_token_text_role_or_picture(prepared):
    public = resolved(prepared, teacher=False)
    assert not any(t.type.startswith("directive_") for t in _tokens(public))
    assert SECRET not in _text(public) and "教师小节" not in _text(public) and "公开正文" in _text(public)
    assert [(u.name, u.target) for u in public.uses] == [("num", "exp.bytes")]
    assert public.values == ("exp.bytes",)
    assert [p.src for p in public.pictures] == [prepared.images["content/pages/images/p.jpg"].src]
    assert all(s.source.teacher == () for s in public.states)
    markdown = page_markdown(public)
    assert SECRET not in markdown and "secret.x" not in markdown and "公开的开场白 800 KiB" in markdown
    assert "教师" not in markdown and "images/p-" in markdown


def test_the_teacher_page_keeps_every_note_role_and_picture(prepared):
    teacher = resolved(prepared, teacher=True)
    assert _text(teacher).count(SECRET) == 2 and "教师小节" in _text(teacher)
    assert {(u.name, u.target) for u in teacher.uses} == {("num", "exp.bytes"), ("num", "secret.x"),
                                                           ("src", "M34"), ("fig", "plot")}
    assert teacher.values == ("exp.bytes", "secret.x")
    assert len(teacher.pictures) == 2
    assert page_markdown(teacher).count(SECRET) == 2
    assert teacher.states[0].source.teacher


def test_one_stepper_holds_both_states_and_each_state_its_anchor(prepared):
    for flavour in (False, True):
        page = resolved(prepared, flavour)
        steppers = [s for s in page.sections if isinstance(s, Stepper)]
        assert [s.anchor for s in steppers] == ["x-steps"]
        assert [s.anchor for s in steppers[0].states] == ["x-b0", "x-b1"]


def test_without_teacher_hides_the_lines_of_every_note(prepared):
    page = prepared.pages["x"]
    _blocks, hidden = without_teacher(page)
    lines = page.source.split("\n")
    assert {lines[n] for n in hidden} >= {"::::{teacher}", "## 教师小节", f"状态里的{SECRET}，{{fig}}`plot`。"}
    assert not any(SECRET in line for n, line in enumerate(lines) if n not in hidden)


def test_every_public_output_of_the_page_is_free_of_teacher_material(prepared):
    public = resolved(prepared, teacher=False)
    notebook = lesson_notebook(public, prepared.evidence).decode()
    site = SiteView(prepared.content, prepared.pages, prepared.evidence, False, prepared.images)
    document = search.page_document(prepared.pages["x"], site)
    assert SECRET not in notebook and "secret" not in notebook
    assert search.search_terms(SECRET) not in document and search.search_terms("公开正文") in document
    files = render_site(prepared, teacher=False)
    with zipfile.ZipFile(io.BytesIO(files["downloads/x.zip"])) as bundle:
        names = bundle.namelist()
        assert "lessonmodel/secret.py" not in names and len([n for n in names if n.startswith("images/")]) == 1
        assert all(SECRET not in bundle.read(n).decode(errors="ignore") for n in names)
    assert SECRET not in files["x.html"].decode() and SECRET not in files["x.md"].decode()
    teacher = render_site(prepared, teacher=True)
    with zipfile.ZipFile(io.BytesIO(teacher["downloads/x.zip"])) as bundle:
        assert "lessonmodel/secret.py" in bundle.namelist()
    shown = {name for name in files if name.startswith("images/")}
    assert shown == set(prepared.images["content/pages/images/p.jpg"].files)  # the teacher's picture stays out
    assert {name for name in teacher if name.startswith("images/")} > shown
