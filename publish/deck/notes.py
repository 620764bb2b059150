"""The presenter's notes: read from the teacher's guide (docs/teaching/02-NN.md) when a deck is built, never copied.

A note is named by a guide reference, ``"02-09#讨论题"`` (a whole section of a guide page) or
``"02-09#讨论题/2"`` (its 2nd list item). Which notes a slide gets:

- a vote: the item of its page's ``## 预测题答案`` that quotes its question (as tests/test_teaching_guide.py requires);
- a section's title slide (``NN-NN/title``): its page's ``## 常见误解``;
- any slide: the references its manifest entry names (``notes=`` in :mod:`publish.deck.decks`).

A reference that names no section or item is a :class:`~publish.deck.slides.DeckError` (the build names the slide).
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from ..notebooks import ROOT
from .slides import DeckError, Slide

__all__ = ["guide_dir", "section", "items", "resolve", "question_of", "slide_notes"]

_ITEM = re.compile(r"^(?:- |\d+\. )")


def guide_dir(notebooks: Path) -> Path | None:
    """docs/teaching next to the notebooks' folder (a checkout), or this checkout's; None when neither exists."""
    for d in (Path(notebooks).parent / "docs" / "teaching", ROOT / "docs" / "teaching"):
        if any(d.glob("02-*.md")):
            return d
    return None


@lru_cache(maxsize=64)
def _page(path: str, mtime: float) -> dict[str, str]:
    text = Path(path).read_text(encoding="utf-8")
    out = {}
    for part in re.split(r"^## ", text, flags=re.M)[1:]:
        head, _, body = part.partition("\n")
        out[head.strip()] = body.strip()
    return out


def section(guide: Path, page: str, heading: str) -> str:
    path = guide / f"{page}.md"
    if not path.exists():
        raise DeckError(f"the teacher's guide has no page {path.name} (in {guide})")
    sections = _page(str(path), path.stat().st_mtime)
    if heading not in sections:
        raise DeckError(f"{path.name} has no section '## {heading}' (it has: {', '.join(sections)})")
    return sections[heading]


def items(body: str) -> list[str]:
    """The top-level list items of a section (an item runs on over its indented lines)."""
    out: list[str] = []
    for line in body.split("\n"):
        if _ITEM.match(line):
            out.append(line)
        elif out and line.startswith((" ", "\t")) and line.strip():
            out[-1] += "\n" + line
        elif out and not line.strip():
            continue
        elif out:
            out.append(None)  # a paragraph after the list ends the item before it
    return [i for i in out if i is not None]


def resolve(guide: Path, ref: str) -> str:
    """The Markdown a reference names: ``"02-09#讨论题"`` or ``"02-09#讨论题/2"``."""
    m = re.fullmatch(r"(\d\d-\d\d)#([^/]+)(?:/(\d+))?", ref)
    if not m:
        raise DeckError(f"note reference {ref!r}: write 'NN-NN#section' or 'NN-NN#section/item number'")
    body = section(guide, m.group(1), m.group(2))
    if m.group(3) is None:
        return body
    found, k = items(body), int(m.group(3))
    if not 1 <= k <= len(found):
        raise DeckError(f"note reference {ref!r}: {m.group(1)}.md '## {m.group(2)}' has {len(found)} items")
    return found[k - 1]


def question_of(item: str) -> str:
    """A discussion item's question: its first bold text (the answer follows it)."""
    m = re.search(r"\*\*(.+?)\*\*", item)
    if not m:
        raise DeckError(f"the guide item {item[:60]!r}... has no bold question")
    return m.group(1)


def slide_notes(slide: Slide, guide: Path | None, question: str | None = None) -> list[str]:
    """The guide's Markdown for ``slide`` (a vote's ``question`` finds its answer). Empty without a guide."""
    if guide is None:
        return []
    notes = []
    if slide.kind == "vote" and question:
        answers = items(section(guide, slide.notebook, "预测题答案"))
        found = [a for a in answers if question in a]
        if len(found) != 1:
            raise DeckError(f"vote {slide.name!r}: {slide.notebook}.md '## 预测题答案' has {len(found)} items quoting "
                            f"its question 「{question}」 (the presenter's view shows that item)")
        notes.append(found[0])
    if slide.name.endswith("/title"):
        notes.append("**常见误解**\n\n" + section(guide, slide.notebook, "常见误解"))
    notes += [resolve(guide, ref) for ref in slide.notes]
    return notes


# -- A note's formulas for the presenter's window, which has no MathJax: TeX to HTML (Unicode, <sub>, <sup>). --

_GREEK = dict(zip(
    "alpha beta gamma delta epsilon varepsilon zeta eta theta lambda mu nu xi pi rho sigma tau phi varphi chi psi omega "
    "Gamma Delta Theta Lambda Pi Sigma Phi Psi Omega".split(), "αβγδεεζηθλμνξπρστφφχψωΓΔΘΛΠΣΦΨΩ"))
#: TeX commands that stand for one character or word (``\top`` is the T of a transpose, as a superscript).
TEX_CHARS = {**_GREEK, "top": "T", "times": "×", "cdot": "·", "le": "≤", "leq": "≤", "ge": "≥", "geq": "≥",
             "ne": "≠", "neq": "≠", "approx": "≈", "sim": "∼", "to": "→", "rightarrow": "→", "Rightarrow": "⇒",
             "infty": "∞", "in": "∈", "sum": "Σ", "prod": "Π", "pm": "±", "ldots": "…", "dots": "…", "cdots": "⋯",
             "lVert": "‖", "rVert": "‖", "|": "‖", "circ": "°", "partial": "∂", "ell": "ℓ", "lceil": "⌈",
             "rceil": "⌉", "lfloor": "⌊", "rfloor": "⌋", "log": "log", "ln": "ln", "exp": "exp", "max": "max",
             "min": "min", "quad": " ", "qquad": "  ", ",": " ", ";": " ", ":": " ", " ": " ", "!": "", "left": "",
             "right": "", "big": "", "Big": "", "bigg": "", "Bigg": "", "{": "{", "}": "}", "%": "%", "_": "_", "#": "#"}
_FONTS = {"mathbb": {"R": "ℝ", "E": "𝔼", "N": "ℕ", "Z": "ℤ"}, "mathcal": {"N": "𝒩", "O": "𝒪", "L": "ℒ"}}
_WORDS = {"text", "mathrm", "operatorname", "mathbf", "mathit", "textbf", "boldsymbol"}
_TOKEN = re.compile(r"\\([A-Za-z]+|.)|([{}^_])|(\s+)|(.)", re.S)


def tex_html(tex: str) -> str:
    """Inline TeX as HTML a browser shows without MathJax: ``W_K^\\top`` -> ``W<sub>K</sub><sup>T</sup>``,
    ``\\sqrt{d_k}`` -> ``√d<sub>k</sub>``, ``\\frac{a}{b+c}`` -> ``a/(b+c)``, ``\\mathbb{R}`` -> ``ℝ``; Markdown
    characters come out as entities (the result goes into a note's Markdown). A command it does not know is
    kept with its backslash, so it shows (tests/test_deck_notes.py renders every note's formulas)."""
    tokens, after_word = [], False
    for m in _TOKEN.finditer(tex):
        if not (m.group(3) and after_word):  # TeX drops the spaces after a command word (``\\lVert x``)
            tokens.append((m.group(1), m.group(2), m.group(3), m.group(4)))
        after_word = bool(m.group(1) and m.group(1).isalpha()) or (after_word and bool(m.group(3)))
    pos = 0

    def esc(s: str) -> str:
        return "".join({"<": "&lt;", ">": "&gt;", "&": "&amp;", "*": "&#42;", "_": "&#95;", "|": "&#124;",
                        "`": "&#96;", "[": "&#91;", "]": "&#93;"}.get(c, c) for c in s)

    def group_raw() -> str:
        """The argument of a font command as plain text (``\\text{float32 最大值}``)."""
        nonlocal pos
        if pos < len(tokens) and tokens[pos][1] == "{":
            depth, out = 0, []
            while pos < len(tokens):
                cmd, sym, space, ch = tokens[pos]
                pos += 1
                if sym == "{":
                    depth += 1
                    if depth == 1:
                        continue
                elif sym == "}":
                    depth -= 1
                    if depth == 0:
                        break
                out.append(space or ch or sym or TEX_CHARS.get(cmd, cmd))
            return "".join(out)
        return atom() if pos < len(tokens) else ""  # one symbol: ``\\mathcal N``

    def seq(stop_at_brace: bool) -> str:
        nonlocal pos
        out = []
        while pos < len(tokens):
            cmd, sym, space, ch = tokens[pos]
            if sym == "}" and stop_at_brace:
                pos += 1
                break
            if sym in ("^", "_"):
                pos += 1
                arg = atom()
                out.append(f"<sup>{arg}</sup>" if sym == "^" else f"<sub>{arg}</sub>")
                continue
            out.append(atom())
        return "".join(out)

    def wrap(s: str, raw: str) -> str:  # parentheses around a numerator, denominator or root of several symbols
        return s if len(re.sub(r"<[^>]+>", "", s)) <= 1 or re.fullmatch(r"[\w.]+(<su[bp]>.*</su[bp]>)?", raw) else f"({s})"

    def atom() -> str:
        nonlocal pos
        if pos >= len(tokens):
            return ""
        cmd, sym, space, ch = tokens[pos]
        pos += 1
        if sym == "{":
            return seq(True)
        if sym == "}":
            return ""
        if space:
            return " "
        if ch is not None:
            return esc(ch)
        if cmd in _WORDS:
            return esc(group_raw())
        if cmd in _FONTS:
            arg = group_raw()
            return esc("".join(_FONTS[cmd].get(c, c) for c in arg))
        if cmd == "sqrt":
            arg = atom()
            return "√" + wrap(arg, arg)
        if cmd in ("frac", "tfrac", "dfrac"):
            num, den = atom(), atom()
            return f"{wrap(num, num)}/{wrap(den, den)}"
        if cmd in ("bar", "overline"):  # a mean: one letter takes a combining macron (s̄), more are overlined
            arg = atom()
            plain = re.sub(r"<[^>]+>", "", arg)
            return arg + "\u0304" if len(plain) == 1 and arg == plain else f'<span style="text-decoration:overline">{arg}</span>'
        if cmd == "xrightarrow":
            return f" —{atom()}→ "
        if cmd in ("underbrace", "overbrace"):
            body = atom()
            if pos < len(tokens) and tokens[pos][1] == "_":
                pos += 1
                return f"{body} ({atom()})"
            return body
        if cmd in TEX_CHARS:
            return esc(TEX_CHARS[cmd])
        return esc("\\" + cmd)

    return seq(False)
