"""TeX → MathML at build time, plus the math font the MathML is drawn with.

`render_math` wraps latex2mathml 3.81.1 and repairs the places where its
output differs from what TeX would typeset (upright names, operator spacing,
upright capital Greek, limits under \\max in display) so that Chromium's native
MathML, drawn with STIX Two Math, looks like TeX. TeX it cannot render faithfully
raises `MathError` instead of producing a silently wrong formula. The font it is drawn with
is mathfont.py's.
"""

from __future__ import annotations

import functools
import re
import xml.etree.ElementTree as ET

from latex2mathml import exceptions as l2m_errors
from latex2mathml.converter import convert as _l2m_convert

from site_builder.vocabulary.i18n import _
from site_builder.vocabulary.urls import URL_ATTRIBUTES, allowed_url

MATHML_NS = "http://www.w3.org/1998/Math/MathML"
THIN = "0.1667em"  # TeX \, : the space between an operator name and its argument
MEDIUM = "0.2222em"  # TeX \: : the space around a binary operator


class MathError(ValueError):
    """TeX that this renderer cannot turn into faithful MathML."""


# Environments latex2mathml turns into a real <mtable>. `aligned` is not one of
# them (it writes a raw "&"), so it is rewritten to `split`, which latex2mathml
# lays out exactly like aligned: right/left column pairs, no gap.
_ENVIRONMENTS = frozenset({"matrix", "pmatrix", "bmatrix", "Bmatrix", "vmatrix", "Vmatrix", "cases", "array", "split"})
_ENV_REWRITES = {"aligned": "split"}

# Named operators. In TeX both kinds are upright Op atoms; the limit kind puts
# its subscript underneath in display style.
_FUNCTION_NAMES = frozenset(["arccos", "arcsin", "arctan", "arg", "cos", "cosh", "cot", "coth", "csc", "deg", "dim",
                             "exp", "hom", "ker", "lg", "ln", "log", "sec", "sin", "sinh", "tan", "tanh"])
_LIMIT_NAMES = frozenset(["det", "gcd", "inf", "lim", "max", "min", "Pr", "sup", "argmax", "argmin",
                          "arg\u2009max", "arg\u2009min", "lim\u2006inf", "lim\u2006sup"])
# Ordinary symbols latex2mathml emits as <mo> (which would get operator spacing).
_ORD_SYMBOLS = frozenset("\u22a4\u22a5\u2205\u221e\u2207")
# Symbols latex2mathml emits as <mi> that are relations, binaries or fences in TeX.
_MI_TO_MO = {"~": "\u223c", "\u00b1": "\u00b1", "\u2213": "\u2213"}
_FENCES = frozenset("\u27e8\u27e9\u230a\u230b\u2308\u2309")
_OPENERS = frozenset("([{\u27e8\u230a\u2308")
_CLOSERS = frozenset(")]}\u27e9\u230b\u2309")
# Binary operators Chromium spaces by less than TeX's 4mu (it gives × and · 3mu).
_BINARY = frozenset("\u00d7\u00f7\u00b1\u2213\u2217\u2218\u2219\u22c5\u2297\u2295\u2299\u2212+")
# Large operators: Chromium adds a thin space before them even after a relation.
_LARGE_OPS = frozenset("\u2211\u220f\u2210\u22c3\u22c2\u2a01\u2a02\u222b\u222c\u222d\u222e")
_SCRIPTED = frozenset({"msub", "msup", "msubsup", "munder", "mover", "munderover"})
# In TeX | ‖ / are Ord atoms: no space around them (Chromium's dictionary adds some).
_TIGHT = frozenset("|\u2016/")
_NAMED_SPACES = {"negativethinmathspace": "-0.1667em", "thinmathspace": THIN, "mediummathspace": MEDIUM,
                 "thickmathspace": "0.2778em"}

# \text{..}, \mathrm{..}, \operatorname{..} with brace-free content are taken
# out before conversion (latex2mathml neither escapes \text nor keeps
# \mathrm{x} upright) and put back as private-use placeholders.
_PROTECTED = re.compile(r"\\(text|mathrm|operatorname\*?)\s*\{([^{}\\]*)\}")
_PLACEHOLDER = re.compile("^\ue000([\ue100-\ue8ff])$")
_ENV = re.compile(r"\\(begin|end)\s*\{([^{}]*)\}")
_SIMPLE_REWRITES = (
    (re.compile(r"\\not\s*=|\\not\s*\\eq(?![A-Za-z])"), r"\\neq "),
    (re.compile(r"\\not\s*\\in(?![A-Za-z])"), r"\\notin "),
    (re.compile(r"\\arg(?![A-Za-z])"), r"\\operatorname{arg}"),
)
_L2M_MESSAGES = {
    l2m_errors.ExtraLeftOrMissingRightError: _(r"\left without a matching \right (or the reverse)"),
    l2m_errors.MissingEndError: _(r"\begin without a matching \end"),
    l2m_errors.NumeratorNotFoundError: _(r"\frac is missing its numerator"),
    l2m_errors.DenominatorNotFoundError: _(r"\frac is missing its denominator"),
    l2m_errors.MissingSuperScriptOrSubscriptError: _("'^' or '_' has nothing to attach to"),
    l2m_errors.DoubleSubscriptsError: _("double subscript: write x_{{ab}}, not x_a_b"),
    l2m_errors.DoubleSuperscriptsError: _("double superscript: write x^{{ab}}, not x^a^b"),
    l2m_errors.LimitsMustFollowMathOperatorError: _(r"\limits must follow an operator"),
}


@functools.lru_cache(maxsize=4096)
def render_math(tex: str, display: bool) -> str:
    """MathML for `tex`: `<math display="block" …>` or an inline `<math …>`.

    The TeX source is kept in `alttext`. Raises MathError for TeX that
    cannot be rendered faithfully; the message says what to change.
    """
    source = tex.strip()
    if not source:
        raise MathError(_("empty formula"))
    _check_braces(source)
    prepared, protected = _prepare(source)
    try:
        raw = _l2m_convert(prepared, display="block" if display else "inline")
    except tuple(_L2M_MESSAGES) as exc:
        raise MathError(_L2M_MESSAGES[type(exc)]) from None
    except Exception as exc:  # latex2mathml raises bare IndexError/KeyError on some input
        raise MathError(_("latex2mathml cannot convert this formula ({error})", error=type(exc).__name__)) from None
    root = _parse(raw)
    _restore(root, protected)
    _check_tree(root)
    _repair(root)
    return _serialize(root, source, display)


def math_problem(tex: str, display: bool = False) -> str:
    """Why ``tex`` cannot be rendered, as a message on one line (even for a multi-line ``$$`` block); ``''``
    when it can."""
    try:
        render_math(tex, display)
    except MathError as error:
        return _("cannot render math '{tex}': {error}", tex=" ".join(tex.split()), error=error.args[0])
    return ""


# ---------------------------------------------------------------- checks


def _check_braces(tex: str) -> None:
    depth = 0
    for brace in re.finditer(r"\\.|[{}]", tex, re.S):  # \{ \} \\ are literals, not grouping
        depth += {"{": 1, "}": -1}.get(brace.group(), 0)
        if depth < 0:
            raise MathError(_("unbalanced braces: '}}' at column {column} closes nothing", column=brace.start() + 1))
    if depth:
        raise MathError(_("unbalanced braces: {n} '{{' never closed", n=depth))


def _check_environments(tex: str) -> str:
    def replace(match: re.Match[str]) -> str:
        name = match.group(2).strip()
        name = _ENV_REWRITES.get(name, name)
        if name not in _ENVIRONMENTS:
            supported = ", ".join(sorted(_ENVIRONMENTS | set(_ENV_REWRITES)))
            raise MathError(_("unsupported environment '{name}' (supported: {supported})", name=name,
                              supported=supported))
        return f"\\{match.group(1)}{{{name}}}"

    return _ENV.sub(replace, tex)


def _check_tree(root: ET.Element) -> None:
    for node in root.iter():
        text = node.text or ""
        for name, url in node.attrib.items():
            if name in URL_ATTRIBUTES and not allowed_url(url):
                raise MathError(_("link '{url}' is not allowed: \\href takes an https:// URL or a page of this site",
                                  url=url))
        if node.tag in ("mi", "mo") and (command := re.match(r"\\[A-Za-z]+[^ ]*", text)):
            raise MathError(_("unknown command '{command}'", command=command.group()))
        if node.tag == "mi" and text in ("&", "}", "\\"):
            raise MathError(_("unexpected '{text}' outside an environment such as aligned", text=text) if text == "&"
                            else _("unexpected '{text}' here", text=text))
        if node.tag == "mspace" and node.get("linebreak"):
            raise MathError(_(r"line break '\\' outside an environment such as aligned"))
        if node.tag == "mpadded" and node.find("mtext") is not None:
            raise MathError(_(r"\not is only supported as \not= and \not\in"))


# ---------------------------------------------------------------- conversion


def _prepare(tex: str) -> tuple[str, list[tuple[str, str]]]:
    tex = _check_environments(tex)
    for pattern, replacement in _SIMPLE_REWRITES:
        tex = pattern.sub(replacement, tex)
    protected: list[tuple[str, str]] = []

    def protect(match: re.Match[str]) -> str:
        protected.append((match.group(1), match.group(2)))
        return "\\text{\ue000" + chr(0xE100 + len(protected) - 1) + "}"

    return _PROTECTED.sub(protect, tex), protected


def _parse(raw: str) -> ET.Element:
    if "<mi>&</mi>" in raw:
        raise MathError(_("unexpected '{text}' outside an environment such as aligned", text="&"))
    try:
        return ET.fromstring(raw.replace(f' xmlns="{MATHML_NS}"', "", 1))
    except ET.ParseError:
        # latex2mathml copies some characters (e.g. & or < inside nested \text) unescaped.
        raise MathError(_("latex2mathml produced malformed MathML; simplify \\text{{...}}")) from None


def _restore(root: ET.Element, protected: list[tuple[str, str]]) -> None:
    for node in root.iter("mtext"):
        match = _PLACEHOLDER.match(node.text or "")
        if not match:
            continue
        command, content = protected[ord(match.group(1)) - 0xE100]
        if command == "text":
            node.text = content.replace(" ", "\u00a0")  # keep TeX's visible spaces
        elif command == "mathrm":
            node.tag, node.text = "mi", "".join(content.split())  # math mode drops spaces
            if len(node.text) == 1:
                node.set("mathvariant", "normal")
        else:
            node.tag, node.text = "mo", "".join(content.split())
            node.set("data-op", "limit" if command.endswith("*") else "function")


# ---------------------------------------------------------------- repairs


def _repair(root: ET.Element) -> None:
    for node in list(root.iter()):
        _repair_token(node)
    for parent in list(root.iter()):
        _space_operator_names(parent)
        _space_binaries(parent)
        _space_inner(parent)
    _unspace_scripts(root, in_script=False)


def _repair_token(node: ET.Element) -> None:
    text = node.text or ""
    if node.tag == "mi" and len(text) == 1:
        if "\u0391" <= text <= "\u03a9" and "mathvariant" not in node.attrib:
            node.set("mathvariant", "normal")  # TeX sets capital Greek upright
        elif text in _MI_TO_MO:
            node.tag, node.text = "mo", _MI_TO_MO[text]
        elif text in _FENCES or text in _TIGHT:
            node.tag = "mo"
            node.set("stretchy", "false")
    if node.tag == "mo" and text == "\u00b7":
        node.text = "\u22c5"  # \cdot is DOT OPERATOR; U+00B7 is not a math operator
    if node.tag == "mo" and text in _LARGE_OPS:
        node.set("data-op", "large")
    if node.tag == "mo" and text in _ORD_SYMBOLS:
        node.tag = "mi"
        node.set("mathvariant", "normal")
    if node.tag == "mo" and text in _TIGHT and node.get("stretchy") != "true":
        node.attrib.update(lspace="0", rspace="0")
    if node.tag in ("mi", "mo") and "data-op" not in node.attrib:
        if text in _FUNCTION_NAMES:
            node.set("data-op", "function")
        elif text in _LIMIT_NAMES:
            node.set("data-op", "limit")
    if node.tag == "mspace" and node.get("width") in _NAMED_SPACES:
        node.set("width", _NAMED_SPACES[node.get("width", "")])


def _space_operator_names(parent: ET.Element) -> None:
    """TeX's Op spacing: a thin space after the name unless an opening fence follows,
    and a thin space before it after an ordinary atom."""
    children = list(parent)
    for index, child in enumerate(children):
        core = _base(child)
        if "data-op" not in core.attrib:
            continue
        kind = core.attrib.pop("data-op")
        before = index > 0 and _is_ordinary(children[index - 1])
        after = index + 1 < len(children) and not _opens(children[index + 1])
        if kind == "limit":
            child.tag = {"msub": "munder", "msubsup": "munderover"}.get(child.tag, child.tag)
            core.tag = "mo"
            core.set("movablelimits", "true")
        if kind in ("large", "limit"):
            core.attrib.update(lspace=THIN if before else "0", rspace=THIN if after else "0")
            continue
        core.tag = "mi"  # a function name: upright identifier + U+2061 FUNCTION APPLICATION
        core.attrib.pop("movablelimits", None)
        apply = ET.Element("mo", {"lspace": "0", "rspace": THIN if after else "0"})
        apply.text = "\u2061"
        position = list(parent).index(child)
        parent.insert(position + 1, apply)
        if before:
            parent.insert(position, ET.Element("mspace", {"width": THIN}))
    for node in parent:
        node.attrib.pop("data-op", None)


def _base(node: ET.Element) -> ET.Element:
    """The base of a scripted element (``x`` of ``x^2``); any other element itself."""
    return node[0] if node.tag in _SCRIPTED and len(node) else node


def _opens(node: ET.Element) -> bool:
    """An Open atom. A \\left…\\right group is Inner, which TeX does space from an Op."""
    return node.tag == "mo" and (node.text or "") in _OPENERS and node.get("fence") != "true"


def _is_ordinary(node: ET.Element) -> bool:
    """An atom after which TeX spaces a binary operator or an Op: not an operator
    (possibly with scripts) and not a space; | ‖ / and closing fences count."""
    node = _base(node)
    if node.tag == "mo":
        return (node.text or "") in _TIGHT or (node.text or "") in _CLOSERS
    return node.tag != "mspace"


def _is_inner(node: ET.Element) -> bool:
    """A \\left…\\right group, possibly with scripts (``\\left(a\\right)^2`` is one Inner atom raised)."""
    node = _base(node)
    return node.tag == "mrow" and len(node) > 0 and node[0].get("fence") == "true"


def _space_binaries(parent: ET.Element) -> None:
    """A binary operator between two operands gets TeX's medium space; one that
    follows an operator or opens the row is unary and gets none."""
    children = list(parent)
    for index, child in enumerate(children):
        if child.tag != "mo" or (child.text or "") not in _BINARY or "lspace" in child.attrib:
            continue
        binary = 0 < index < len(children) - 1 and _is_ordinary(children[index - 1])
        child.attrib.update(lspace=MEDIUM if binary else "0", rspace=MEDIUM if binary else "0")


def _space_inner(parent: ET.Element) -> None:
    """TeX puts a thin space between a \\left…\\right group and a neighbouring
    ordinary atom (`V\\left(x\\right)y`); Chromium puts none. Never inside a script element: its children are
    base and scripts, not a row (a space there would sit on the baseline as one more child)."""
    if parent.tag in _SCRIPTED:
        return
    for child in [c for c in parent if _is_inner(c)]:
        children = list(parent)
        index = children.index(child)
        if index + 1 < len(children) and _is_ordinary(children[index + 1]):
            parent.insert(index + 1, ET.Element("mspace", {"width": THIN}))
        if index > 0 and _is_ordinary(children[index - 1]):
            parent.insert(index, ET.Element("mspace", {"width": THIN}))


def _unspace_scripts(node: ET.Element, in_script: bool) -> None:
    """In script style TeX drops binary, relation and punctuation spaces;
    Chromium keeps them. Spaces this module chose explicitly stay."""
    if in_script and node.tag == "mo" and "lspace" not in node.attrib:
        node.attrib.update(lspace="0", rspace="0")
    for position, child in enumerate(node):
        _unspace_scripts(child, in_script or (node.tag in _SCRIPTED and position > 0))


def _serialize(root: ET.Element, source: str, display: bool) -> str:
    root.attrib = {"xmlns": MATHML_NS, **({"display": "block"} if display else {}), "alttext": " ".join(source.split())}
    # A single <mrow> child of <math> is redundant (math is an implied mrow).
    if len(root) == 1 and root[0].tag == "mrow" and not root[0].attrib:
        row = root[0]
        root.remove(row)
        root.extend(list(row))
    return ET.tostring(root, encoding="unicode", short_empty_elements=True)
