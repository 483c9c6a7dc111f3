"""Teacher material stays out of the public site: the note is one container whatever it holds, a
near-miss spelling of a directive is an error, and the leak check finds teacher text in any public file."""

from __future__ import annotations

import io
import zipfile

import pytest
from sitekit import fake_evidence, lesson, write_site

from site_builder import ContentError, prepare_site, render_site, search

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
    ("```{teacher}\n" + SECRET + "\n```\n", "```{teacher}", "write ':::{teacher}'"),
    ("~~~{teacher}\n" + SECRET + "\n~~~\n", "~~~{teacher}", "write ':::{teacher}'"),
    ("::: {teacher}\n" + SECRET + "\n:::\n", "::: {teacher}", "write ':::{teacher}'"),
    (":::: {teacher}\n" + SECRET + "\n::::\n", ":::: {teacher}", "write '::::{teacher}'"),
    ("::{teacher}\n" + SECRET + "\n::\n", "::{teacher}", "write ':::{teacher}'"),
    (":::teacher\n" + SECRET + "\n:::\n", ":::teacher", "write ':::{teacher}'"),
    ("    ::::{teacher}\n    " + SECRET + "\n    ::::\n", "::::{teacher}", "write '::::{teacher}' at the start"),
    ("\t::::{teacher}\n\t" + SECRET + "\n\t::::\n", "::::{teacher}", "write '::::{teacher}' at the start"),
    ("Text before.\n     ::::{teacher}\n" + SECRET + "\n::::\n", "::::{teacher}", "write '::::{teacher}'"),
    ("```{more}\nmore\n```\n", "```{more}", "write ':::{more}'"),
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
