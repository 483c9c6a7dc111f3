"""Writing the site (site_builder/write): killed builds leave the old or the new site, and the leak check:
teacher notes never reach a public file (note fences, near-miss directives, refs, archives, fuzzed courses)."""

from __future__ import annotations

import gzip
import io
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image
from sitekit import _found, fake_evidence, lesson, write_site
from test_engine import tree_hashes

from site_builder.engine.pipeline import prepare_site, render_site
from site_builder.render import search, search_index
from site_builder.vocabulary.problems import ContentError
from site_builder.write import writer

# ---------------------------------------------------------------------------
# The output is atomic even under SIGKILL: after a build is killed at any moment, each output
# folder holds either the complete previous site or the complete new one, never a mixture or nothing.
#
# The fixture site is built once (the "old" trees), one page is changed and built elsewhere (the
# "new" trees); then 20 builds are started and killed at seeded random moments spread over the measured
# duration of a build's rendering and writing (start-up and loading cannot touch the output folders, so
# kills are not spent there), and each output folder is compared by tree hash with the two known-good trees.


ROOT = Path(__file__).resolve().parent.parent


FIXTURE = ROOT / "tests" / "fixtures" / "basic"


KILLS = 20


SEED = 20241129


OUTPUTS = ("_site", "_site-teacher")


# Extra articles make the write stage a real part of the build (the fixture alone writes in a blink).
EXTRA_PAGES = 25


BUILDER = """
import os, signal, sys
from pathlib import Path
sys.path[:0] = [{root!r}, {tests!r}]
from sitekit import fake_evidence
from site_builder.engine.pipeline import prepare_site, render_site
from site_builder.write.writer import write_site
prepared = {{}}  # site folder → its content prepared (loading cannot touch the output folders)
while line := sys.stdin.readline():  # a site folder: rendered and written by a new child process
    site = Path(line.strip())
    if site not in prepared:
        prepared[site] = prepare_site(site, fake_evidence(site / "figures-in"))
    child = os.fork()
    if child == 0:
        try:
            print("writing", flush=True)  # the parent draws its kills over the writes, not over start-up
            for name, teacher in (("_site", False), ("_site-teacher", True)):
                write_site(render_site(prepared[site], teacher=teacher), site / name)
        except BaseException:
            import traceback
            traceback.print_exc()
            os._exit(1)
        os._exit(0)
    if sys.stdin.readline() == "kill\\n":  # sent by its parent, so never to another process that reused the pid
        os.kill(child, signal.SIGKILL)
    print("exit", os.waitstatus_to_exitcode(os.waitpid(child, 0)[1]), flush=True)
"""


def _make_site(root: Path) -> Path:
    shutil.copytree(FIXTURE / "content", root / "content")
    pages = root / "content" / "pages"
    ids = []
    for n in range(EXTRA_PAGES):
        ids.append(f"extra-{n:02d}")
        body = "\n\n".join(f"第 {{example}}`{n}` 篇补充文章的第 {{example}}`{k}` 段：缓存复用旧的键和值。"
                           for k in range(30))
        (pages / f"{ids[-1]}.md").write_text(f"---\ntitle: 补充 {n}\nkind: article\n---\n{body}\n", encoding="utf-8")
    site_yml = root / "content" / "site.yml"
    site_yml.write_text(site_yml.read_text(encoding="utf-8").replace("beta]", "beta, " + ", ".join(ids) + "]"),
                        encoding="utf-8")
    return root


class Builder:
    """Builds of a site folder, each rendering and writing in a new process forked from one that imported the
    build's modules once and prepared each folder's content once.

    Every build's rendering and writing is still a process of its own, killed with SIGKILL; only what comes
    before (a fresh interpreter's imports, loading and checking the content: nothing that touches the output
    folders) is not repeated for each of the 24 builds.
    """

    def __init__(self, errors: Path) -> None:
        self.errors = errors
        with errors.open("w") as stderr:
            script = BUILDER.format(root=str(ROOT), tests=str(ROOT / "tests"))
            self.process = subprocess.Popen(
                [sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr,
                text=True, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})

    def _say(self, line: str) -> None:
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def start(self, site: Path) -> None:
        """Start a build of ``site``; return once it has prepared and is about to write."""
        self._say(str(site))
        said = self.process.stdout.readline()
        assert said == "writing\n", said + self.errors.read_text(encoding="utf-8")[-2000:]

    def end(self, kill: bool) -> int:
        """Kill the build (SIGKILL) or let it finish; its exit status once it is gone."""
        self._say("kill" if kill else "wait")
        said = self.process.stdout.readline()
        assert said.startswith("exit "), said + self.errors.read_text(encoding="utf-8")[-2000:]
        return int(said.split()[1])

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait(timeout=30)


def _build(builder: Builder, site: Path) -> float:
    """Run one build; return how long its writing took (from its "writing" line to its exit)."""
    builder.start(site)
    started = time.perf_counter()
    assert builder.end(kill=False) == 0, builder.errors.read_text(encoding="utf-8")[-2000:]
    return time.perf_counter() - started


def _edit(site: Path) -> None:
    page = site / "content" / "pages" / "beta.md"
    page.write_text(page.read_text(encoding="utf-8") + "\n新加的一段，让新旧两个站点不同。\n", encoding="utf-8")


@pytest.fixture
def builder(tmp_path):
    started = Builder(tmp_path / "builds.err")
    yield started
    started.close()


@pytest.mark.slow  # 20 build processes killed at random moments: the only proof writing is atomic
def test_killed_builds_leave_the_old_or_the_new_site(tmp_path, builder):
    old_site = _make_site(tmp_path / "old")
    new_site = _make_site(tmp_path / "new")
    _edit(new_site)
    durations = [_build(builder, old_site), _build(builder, new_site), _build(builder, new_site)]
    old = {name: tree_hashes(old_site / name) for name in OUTPUTS}
    new = {name: tree_hashes(new_site / name) for name in OUTPUTS}
    assert all(old[name] != new[name] for name in OUTPUTS), "the edit must change both sites"
    duration = sorted(durations)[1]

    site = _make_site(tmp_path / "victim")
    _edit(site)
    rng = random.Random(SEED)
    seen: dict[str, int] = {"old": 0, "new": 0}
    for attempt in range(KILLS):
        for name in OUTPUTS:  # every attempt starts from the complete old site
            shutil.rmtree(site / name, ignore_errors=True)
            shutil.copytree(old_site / name, site / name)
        delay = rng.uniform(0.0, duration * 1.1)
        builder.start(site)
        time.sleep(delay)
        builder.end(kill=True)
        for name in OUTPUTS:
            assert (site / name).is_dir(), f"kill {attempt} at {delay:.3f} s left no {name}/"
            now = tree_hashes(site / name)
            state = "old" if now == old[name] else "new" if now == new[name] else None
            assert state, (f"kill {attempt} at {delay:.3f} s of {duration:.3f} s: {name}/ is neither the old nor "
                           f"the new site ({len(now)} files; old {len(old[name])}, new {len(new[name])})")
            seen[state] += 1

    # Killed builds leave staging folders behind; the next build clears them and swaps in the new site.
    _build(builder, site)
    for name in OUTPUTS:
        assert tree_hashes(site / name) == new[name]
    assert not list(site.glob("_site*.tmp-*")), "leftover staging folders after a complete build"
    print(f"writing {duration:.2f} s; after {KILLS} kills: {seen}")
    assert seen["old"] > 0, f"no kill landed before the swap ({seen}); the test is not exercising the writer"


SECRET = "Tell the class the answer is forty two."


def _public_texts(files: dict[str, bytes]) -> dict[str, str]:
    """Every public file as text, zip members as ``zip:member``."""
    texts = {}
    for name, data in files.items():
        if name.endswith(".zip"):
            with zipfile.ZipFile(io.BytesIO(data)) as bundle:
                texts |= {f"{name}:{m}": bundle.read(m).decode(errors="ignore") for m in bundle.namelist()}
        else:  # a file the build copies is a path
            texts[name] = (data if isinstance(data, bytes) else data.read_bytes()).decode(errors="ignore")
    return texts


FENCED = lesson(f"""公开的开场白。

::::{{teacher}}
A fence whose content looks like a closer:

```text
::::
```

{SECRET}
::::

:::{{state}} b0
:title: 第一步
:provenance: teaching

公开正文。

::::{{teacher}}
~~~
:::
~~~
In the state too: {SECRET}
::::
:::
""")


def test_a_fence_holding_a_closer_cannot_end_a_teacher_note(tmp_path):
    prepared = prepare_site(write_site(tmp_path, {"x": FENCED}), fake_evidence(tmp_path / "figures"))
    public = _public_texts(render_site(prepared, teacher=False))
    assert [name for name, text in public.items() if "forty two" in text] == []
    assert "公开正文" in public["x.html"] and "公开的开场白" in public["x.md"]
    assert "forty" not in search.site_documents(prepared)["x.html"]
    teacher = render_site(prepared, teacher=True)["x.html"].decode()
    assert teacher.count("forty two") == 2


_STATE = ":::{state} b0\n:title: 第一步\n:provenance: teaching\n\n正文。\n:::\n"


NEAR_MISSES = [  # (written, the line it is on in the page, the right spelling suggested)
    ("~~~{teacher}\n" + SECRET + "\n~~~\n", "~~~{teacher}", "write ':::{teacher}'"),
    ("::: {teacher}\n" + SECRET + "\n:::\n", "::: {teacher}", "write ':::{teacher}'"),
    (":::: {teacher}\n" + SECRET + "\n::::\n", ":::: {teacher}", "write '::::{teacher}'"),
    ("::{teacher}\n" + SECRET + "\n::\n", "::{teacher}", "write ':::{teacher}'"),
    (":::teacher\n" + SECRET + "\n:::\n", ":::teacher", "write ':::{teacher}'"),
    ("    ::::{teacher}\n    " + SECRET + "\n    ::::\n", "::::{teacher}", "write '::::{teacher}' at the start"),
    ("\t::::{teacher}\n\t" + SECRET + "\n\t::::\n", "::::{teacher}", "write '::::{teacher}' at the start"),
    ("Text before.\n     ::::{teacher}\n" + SECRET + "\n::::\n", "::::{teacher}", "write '::::{teacher}'"),
    ("::: {state} b1\n:title: 二\n", "::: {state} b1", "write ':::{state} b1'"),
    ("```{ Teacher }\n" + SECRET + "\n```\n", "```{ Teacher }", "write ':::{teacher}'"),
]


@pytest.mark.parametrize("written,opener,advice", NEAR_MISSES, ids=[m[1] for m in NEAR_MISSES])
def test_a_near_miss_spelling_of_a_directive_is_an_error_at_its_line(tmp_path, written, opener, advice):
    page = lesson(_STATE + "\n" + written)
    root = write_site(tmp_path, {"x": page})
    with pytest.raises(ContentError) as raised:
        prepare_site(root, fake_evidence(tmp_path / "figures"))
    line = page.split("\n").index(next(n for n in page.split("\n") if n.strip() == opener)) + 1
    found = [str(p) for p in raised.value.problems]
    assert [p for p in found if p.startswith(f"content/pages/x.md:{line}: '{opener}'") and advice in p], found


OPTION_MISSES = [  # (a state's option lines, the messages: the line they are on in the state, what they say)
    (":title: 一\n:caption 改掉\n:provenance: teaching", [
        (3, "':caption 改掉' is not an option's spelling, so it is read as text: write ':caption: …', with ASCII "
            "colons on both sides of the name")]),
    (":title：一\n:provenance: teaching", [
        (2, "':title：一' is not an option's spelling, so it is read as text: write ':title: …', with ASCII colons on "
            "both sides of the name")]),
    (":title: 一\n\n:provenance: teaching", [
        (4, "option ':provenance:' stands after a blank line, so it is read as text: keep a directive's options "
            "together, right under its first line")]),
]


@pytest.mark.parametrize("options,said", OPTION_MISSES, ids=["colon left out", "full-width colon", "blank line"])
def test_an_option_read_as_text_is_said_at_its_line_instead_of_as_missing(tmp_path, options, said):
    """The option is lost to the state's text: the message names the line and the spelling, not 'needs :provenance:'
    at the state's first line (nor the right spelling under a wrong one, read again once that is fixed)."""
    page = lesson(f":::{{state}} b0\n{options}\n\n正文。\n:::\n")
    with pytest.raises(ContentError) as raised:
        prepare_site(write_site(tmp_path, {"x": page}), fake_evidence(tmp_path / "figures"))
    first = page.split("\n").index(":::{state} b0") + 1
    assert [str(p) for p in raised.value.problems] == [f"content/pages/x.md:{first + n - 1}: {m}" for n, m in said]


ROLE_MISSES = [  # (written, what the message quotes, the role meant)
    ("{num} `v`", "{num}", "num"), ("{num}v", "{num}", "num"), ("｛num｝`v`", "｛num｝", "num"),
    ("{num}｀v｀", "{num}", "num"), ("{ fig }`f`", "{ fig }", "fig"),
]


def test_a_near_miss_spelling_of_a_role_is_an_error_at_its_line_and_escaped_or_code_is_allowed(tmp_path):
    """Each would show the role's name on the page instead of the value, and no check would see a citation."""
    written = [f"第 {n} 行写了 {miss}。" for n, (miss, _quoted, _role) in enumerate(ROLE_MISSES)]
    page = lesson(_STATE.replace(":provenance:", ":caption: 说明写了 {num} `v`\n:provenance:") + "\n"
                  + "\n".join(written) + "\n\n转义的 \\{num}`v` 和代码里的 `{num}` 照样显示。\n")
    root = write_site(tmp_path, {"x": page})
    with pytest.raises(ContentError) as raised:
        prepare_site(root, fake_evidence(tmp_path / "figures"))
    lines = page.split("\n")
    in_caption = (lines.index(":caption: 说明写了 {num} `v`") + 1, "{num}", "num")  # a caption is parsed apart
    assert [str(p) for p in raised.value.problems] == [
        f"content/pages/x.md:{line}: '{quoted}' is not a role's spelling, so the page shows it as "
        f"text: write {{{role}}}`…` (ASCII braces and backticks, nothing between them)"
        for line, quoted, role in [in_caption] + [(lines.index(text) + 1, quoted, role)
                                                  for text, (_miss, quoted, role) in zip(written, ROLE_MISSES,
                                                                                         strict=True)]]


def test_a_link_or_picture_markdown_could_not_read_is_an_error_at_its_line_and_escaped_or_code_is_allowed(tmp_path):
    """A space in an address leaves the whole link as text: the page would show the brackets and the address."""
    missed = ['![一张照片](images/gpu .png "说明")', "[这一页](https://example.org/a b)"]
    written = [f"图 {missed[0]} 在此。", f"见 {missed[1]}。"]
    page = lesson(_STATE + "\n" + "\n\n".join(written) + "\n\n转义的 \\[a](b)、代码里的 `[a](b c)` 和 "
                  "[能读的](<https://example.org/a b>) 照样可以。\n")
    with pytest.raises(ContentError) as raised:
        prepare_site(write_site(tmp_path, {"x": page}), fake_evidence(tmp_path / "figures"))
    lines = page.split("\n")
    assert [p.localized("zh-CN") for p in raised.value.problems] == [
        f"content/pages/x.md:{lines.index(text) + 1}: '{miss}' 没有被读成链接或图片，页面上会原样显示这串文字："
        "地址里有空格时，要写在 <…> 里，例如 ![文字](<images/a b.png>)"
        for text, miss in zip(written, missed, strict=True)]


def test_option_like_lines_in_a_code_directive_are_code(tmp_path):
    page = lesson(_STATE + "\n```{code-block} rst\n:caption: 参数\n\n:param x: the input\n:returns: y\n```\n")
    prepared = prepare_site(write_site(tmp_path, {"x": page}), fake_evidence(tmp_path / "figures"))
    assert ":param x: the input" in render_site(prepared, teacher=False)["x.md"].decode()  # built, shown as written


def test_directive_syntax_shown_in_a_code_block_is_allowed(tmp_path):
    page = lesson(_STATE + "\n````markdown\n```{teacher}\n::: {teacher}\n::::{teacher}\n````\n")
    prepared = prepare_site(write_site(tmp_path, {"x": page}), fake_evidence(tmp_path / "figures"))
    assert "::: {teacher}" in render_site(prepared, teacher=False)["x.md"].decode()


def test_a_ref_from_public_text_to_a_heading_in_a_teacher_note_is_an_error(tmp_path):
    page = lesson(_STATE + "\n见 {ref}`#secret-plan` 与 {ref}`y#plan-b`。\n\n::::{teacher}\n## Secret plan\n\n"
                  "本页自引 {ref}`#secret-plan`。\n::::\n")
    other = lesson(_STATE + "\n::::{teacher}\n## Plan B\n::::\n\n## Public part\n")
    root = write_site(tmp_path, {"x": page, "y": other})
    with pytest.raises(ContentError) as raised:
        prepare_site(root, fake_evidence(tmp_path / "figures"))
    assert [str(p) for p in raised.value.problems] == [  # in reading order of the messages
        f"content/pages/x.md:11: {{ref}} to '#{anchor}', a heading inside a teacher note, would publish it: "
        "link to a public heading, or move the {ref} into the note" for anchor in ("plan-b", "secret-plan")]
    (root / "content" / "pages" / "x.md").write_text(page.replace("y#plan-b", "y#public-part"), encoding="utf-8")
    with pytest.raises(ContentError) as raised:
        prepare_site(root, fake_evidence(tmp_path / "figures"))
    assert len(raised.value.problems) == 1


CHINESE = "只在备注里写给老师的悄悄话"


LEAKY = lesson(f"""Public opening sentence of this lesson.

::::{{teacher}}
{SECRET}

{CHINESE}。

![the teacher's own picture](images/t.png)
::::

:::{{state}} b0
:title: 第一步
:provenance: teaching

公开正文。Tell the class about caches.
:::

实测的差是 {{num}}`exp.diff`（它有下载，下载里也查）。
""")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """A lesson with an English and a Chinese teacher sentence and a teacher-only picture, built with its
    search index."""
    root = write_site(tmp_path_factory.mktemp("site"), {"x": LEAKY})
    (root / "content" / "pages" / "images").mkdir()
    Image.new("RGB", (40, 30), (200, 0, 0)).save(root / "content" / "pages" / "images" / "t.png")
    prepared = prepare_site(root, fake_evidence(root / "figures"))
    public, teacher = root / "_site", root / "_site-teacher"
    writer.write_site(render_site(prepared, teacher=False), public,
                            finish=lambda folder: search_index.index_site(prepared, folder))
    writer.write_site(render_site(prepared, teacher=True), teacher)
    return prepared, public, teacher


@pytest.fixture
def planted(built, tmp_path):
    """A copy of the public site to plant a leak in."""
    prepared, public, teacher = built
    shutil.copytree(public, tmp_path / "_site")
    return prepared, tmp_path / "_site", teacher


def test_the_built_public_site_has_no_leak(built):
    prepared, public, teacher = built
    assert _found(prepared, public) == []
    assert "forty two" in (teacher / "x.html").read_text(encoding="utf-8")  # the note is there to leak


def test_an_english_teacher_sentence_in_a_page_is_found(planted):
    prepared, site, _teacher = planted
    page = site / "x.html"
    page.write_text(page.read_text(encoding="utf-8").replace("</main>", "<p>Tell the <em>class</em> the answer "
                                                             "is forty two!</p></main>"), encoding="utf-8")
    assert _found(prepared, site) == ["_site/x.html: teacher note from content/pages/x.md:7 leaks into the "
                                      "public site: 'tell the class the answer is forty two…'"]


def test_a_teacher_sentence_in_an_attribute_is_found(planted):
    """A picture's alt text or a tooltip is shown to readers as much as a paragraph is."""
    prepared, site, _teacher = planted
    page = site / "x.html"
    page.write_text(page.read_text(encoding="utf-8").replace(
        "</main>", '<img src="a.png" alt="Tell the class the answer is forty two!"></main>'), encoding="utf-8")
    assert _found(prepared, site) == ["_site/x.html: teacher note from content/pages/x.md:7 leaks into the "
                                      "public site: 'tell the class the answer is forty two…'"]


def test_a_teacher_sentence_in_a_zip_member_is_found(planted):
    prepared, site, _teacher = planted
    bundle_path = site / "downloads" / "x.zip"
    with zipfile.ZipFile(bundle_path) as bundle:
        members = {name: bundle.read(name) for name in bundle.namelist()}
    with zipfile.ZipFile(bundle_path, "w", zipfile.ZIP_DEFLATED) as bundle:
        for name, data in members.items():
            bundle.writestr(name, data)
        bundle.writestr("notes/extra.txt", f"见：{CHINESE}")
    assert _found(prepared, site) == ["_site/downloads/x.zip:notes/extra.txt: teacher note from content/pages/x.md:9 "
                                      "leaks into the public site: '只在备注里写给老师的…'"]


def test_a_teacher_sentence_in_a_notebook_cell_is_found(planted):
    prepared, site, _teacher = planted
    cells = [{"cell_type": "markdown", "metadata": {}, "source": ["# 一课\n", "只在备注里\n写给老师的悄悄话\n"]}]
    notebook = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (site / "downloads" / "x.ipynb").write_text(json.dumps(notebook), encoding="utf-8")  # \u-escaped Chinese
    assert _found(prepared, site) == ["_site/downloads/x.ipynb: teacher note from content/pages/x.md:9 leaks into "
                                      "the public site: '只在备注里写给老师的…'"]


def test_a_teacher_sentence_in_the_compressed_search_index_is_found(planted):
    prepared, site, _teacher = planted
    fragments = sorted((site / "pagefind" / "fragment").iterdir())
    fragment = next(f for f in fragments if b'"url":"/x.html"' in gzip.decompress(f.read_bytes()))
    signature, _brace, document = gzip.decompress(fragment.read_bytes()).partition(b"{")
    data = json.loads(b"{" + document)
    data["content"] += " " + search.search_terms(CHINESE)  # as Pagefind holds it: 只在 在备 备注 …
    fragment.write_bytes(gzip.compress(signature + json.dumps(data, ensure_ascii=False).encode()))
    assert _found(prepared, site) == [f"_site/pagefind/fragment/{fragment.name}:: teacher note from "
                                      "content/pages/x.md:9 leaks into the public site: '只在备注里写给老师的…'"]


def test_a_teacher_only_picture_is_found_by_its_bytes_under_any_name(planted):
    prepared, site, teacher = planted
    picture = next((teacher / "images").iterdir())
    assert not (site / "images").exists() or not list((site / "images").iterdir())
    shutil.copy(picture, site / "figures" / "renamed.bin")
    assert _found(prepared, site) == ["_site/figures/renamed.bin: picture content/pages/images/t.png is shown only "
                                      "in a teacher note but is published here"]


def test_teacher_markup_in_a_public_page_is_found(planted):
    prepared, site, _teacher = planted
    (site / "extra.html").write_text('<aside class="teacher-note" data-teacher>x</aside>', encoding="utf-8")
    (site / "more.html").write_text('<p data-teacher="1">x</p>', encoding="utf-8")
    assert _found(prepared, site) == ["_site/extra.html: teacher-only markup 'teacher-note' in the public site",
                                      "_site/more.html: teacher-only markup 'data-teacher' in the public site"]


def test_damaged_archives_are_read_as_they_are(planted):
    prepared, site, _teacher = planted
    (site / "broken.zip").write_bytes(b"PK\x03\x04" + CHINESE.encode() + b"\xff")
    (site / "broken.gz").write_bytes(b"\x1f\x8b" + b"\x00" * 20)
    (site / "odd.json").write_text('{"a": [1, 2', encoding="utf-8")
    assert _found(prepared, site) == []


# A fuzzed course: public prose from one vocabulary, teacher notes from both (a note may quote public
# text) and sentences only notes hold from the other; notes hold fences, quotes and lists whose lines
# look like closers. No note sentence may reach the public site, the check must stay silent on the
# built site and must name the note once one of its sentences is planted in a public file.
_PUBLIC_WORDS = ("cache", "layer", "token", "模", "型", "缓", "存", "注", "意", "力", "the", "reads", "每", "步")


_TEACHER_WORDS = ("whisper", "secret", "answer", "hint", "秘", "密", "提", "示", "悄", "话", "tell", "quietly")


def _sentence(words: tuple[str, ...]):
    return st.lists(st.sampled_from(words), min_size=8, max_size=12).map(
        lambda ws: "".join(w if not w.isascii() else f" {w} " for w in ws).strip().replace("  ", " ") + "。")


_CLOSER_LIKE = st.sampled_from(["::::", ":::", ":::::", "::::{teacher}", ":::{state} b1", "  ::::"])


@st.composite
def _note(draw, secret: str, quoted: str) -> str:
    blocks = [secret, quoted]
    for _i in range(draw(st.integers(0, 3))):
        fence = draw(st.sampled_from(["```", "~~~", "````"]))
        kind = draw(st.sampled_from(["fence", "quote", "list"]))
        lines = draw(st.lists(_CLOSER_LIKE, min_size=1, max_size=3))
        if kind == "fence":
            blocks.append("\n".join([fence, *lines, secret, fence]))
        elif kind == "quote":  # (an opener in a quote opens a directive there: closers only)
            blocks.append(f"> {secret}\n> " + "\n> ".join(line.strip() for line in lines if "{" not in line))
        else:
            blocks.append(f"- {secret}\n- {draw(_sentence(_TEACHER_WORDS))}")
    return "\n\n".join(draw(st.permutations(blocks)))


@st.composite
def _course(draw) -> tuple[str, str]:
    public = draw(_sentence(_PUBLIC_WORDS))
    secret = draw(_sentence(_TEACHER_WORDS))
    note = draw(_note(secret, public))
    state_note = draw(_note(draw(_sentence(_TEACHER_WORDS)), public))
    page = lesson(f"{public}\n\n:::{{state}} b0\n:title: 一\n:provenance: teaching\n\n{draw(_sentence(_PUBLIC_WORDS))}"
                  f"\n\n:::::{{teacher}}\n{state_note}\n:::::\n:::\n\n::::{{teacher}}\n{note}\n::::\n"
                  "\n实测的差是 {num}`exp.diff`。\n")  # a value it reproduces: the lesson has a download
    return page, secret


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(course=_course(), target=st.sampled_from(["x.html", "x.md", "downloads/x.zip"]))
def test_fuzzed_courses_keep_notes_out_and_the_check_finds_a_planted_one(course, target):
    page, secret = course
    with tempfile.TemporaryDirectory() as scratch:
        root = write_site(Path(scratch), {"x": page})
        prepared = prepare_site(root, fake_evidence(root / "figures"))  # no line inside a fence or quote ends a note
        site = root / "_site"
        files = render_site(prepared, teacher=False)
        writer.write_site(files, site)
        assert [name for name, text in _public_texts(files).items() if secret.rstrip("。") in text] == []
        assert _found(prepared, site) == []
        planted = site / target
        if target.endswith(".zip"):
            with zipfile.ZipFile(planted, "a") as bundle:
                bundle.writestr("planted.md", secret)
        else:
            planted.write_text(planted.read_text(encoding="utf-8") + secret, encoding="utf-8")
        found = _found(prepared, site)
        assert found and all("teacher note from content/pages/x.md:" in f for f in found), found


def test_a_code_block_left_open_in_a_note_is_named_where_it_took_the_closer(tmp_path):
    page = lesson(_STATE + "\n::::{teacher}\n```python\nprint('hint')\n::::\n\n" + SECRET + "\n")
    with pytest.raises(ContentError) as raised:
        prepare_site(write_site(tmp_path, {"x": page}), fake_evidence(tmp_path / "figures"))
    assert [str(p) for p in raised.value.problems] == [
        "content/pages/x.md:11: directive '{teacher}' is never closed: add a line '::::' after its content; line 14 "
        "is inside the code block that opens on line 12, so it closes nothing: close that code block before line 14"]


def test_a_bare_label_or_numref_to_a_heading_in_another_page_s_teacher_note_is_an_error(tmp_path):
    # As page#anchor it was caught; as a bare label, the public page's link read "一课 · Secret plan".
    other = lesson(_STATE + "\n::::{teacher}\n(secret)=\n## Secret plan\n::::\n")
    page = lesson(_STATE + "\n见 {ref}`secret`。\n\n又见 {numref}`secret`。\n")
    with pytest.raises(ContentError) as raised:
        prepare_site(write_site(tmp_path, {"x": page, "y": other}), fake_evidence(tmp_path / "figures"))
    assert [str(p) for p in raised.value.problems] == [
        f"content/pages/x.md:{line}: {{ref}} to '#secret', a heading inside a teacher note, would publish it: link to "
        "a public heading, or move the {ref} into the note" for line in (11, 13)]
