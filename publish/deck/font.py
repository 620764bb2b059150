"""Write the Chinese font the lecture decks ship with (a projector PC may have no CJK font, and the
deck fetches nothing from another host).

    python -m publish font                 # the source font from Debian's fonts-noto-cjk
    python -m publish font PATH            # or a copy of it / of the SC face alone (NotoSansCJKsc-Regular.otf)

Needs fontTools (``pip install -e ".[classroom]"``) and the source font: on Debian/Ubuntu
``apt-get install fonts-noto-cjk`` (it writes /usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc);
elsewhere pass the path of NotoSansCJK-Regular.ttc or NotoSansCJKsc-Regular.otf (the Noto CJK release).
Installing the system font makes the machine itself draw Chinese: to see the deck as a PC without a CJK
font does, the browser test hides such fonts from Chromium (tests/browser/test_lecture_deck.py).

Subsets Noto Sans CJK SC Regular (SIL Open Font License 1.1) to every CJK character and full-width
punctuation mark used in the notebooks, the helpers' Chinese messages and the teacher's guide (all its pages), the
3,755 characters of GB 2312 level 1 (room for edits) and ASCII; writes an OpenType file into the deck
template's static folder (the page names it "CH02 Noto Sans SC").
tests/test_lecture.py fails when a deck slide uses a character the font lacks: then run this again.
It also writes the figures' font, helpers/ui/fonts/NotoSansSC-ch02-plots.otf (the same face, CJK only, subset to
the plotting helpers and the notebooks' code cells); tests/test_plotting.py fails when a helper's figure has a
character it lacks.
"""

from __future__ import annotations

import sys
from pathlib import Path

from ..notebooks import ROOT, SHARE, series

SOURCE = Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")
OUT = SHARE / "jupyter" / "voila" / "templates" / "ch02-deck" / "static" / "NotoSansSC-ch02.otf"
FAMILY = "Noto Sans CJK SC"
#: The figures' Chinese (helpers.ui.plotting.use_style registers it with matplotlib): the same face, subset to the
#: characters of the plotting helpers and of the notebooks' code cells (what a figure's labels can say), ~100 KiB.
PLOT_OUT = ROOT / "helpers" / "ui" / "fonts" / "NotoSansSC-ch02-plots.otf"
PLOT_SOURCES = ("helpers/ui/plotting.py", "helpers/lessons/causal_view.py", "helpers/lessons/saturation/widget.py",
                "helpers/lessons/shapes.py", "helpers/model/explorer/widget.py")


def wanted_text() -> str:
    files = [*series(), *sorted((ROOT / "helpers").rglob("*.py")), *sorted((ROOT / "docs" / "teaching").glob("*.md"))]
    return "".join(p.read_text(encoding="utf-8") for p in files)


def plot_text() -> str:
    """Every character a figure of the series can draw: the plotting helpers' sources and the notebooks' code cells."""
    import json

    code = ["".join(c["source"]) for p in series() for c in json.loads(p.read_text(encoding="utf-8"))["cells"]
            if c["cell_type"] == "code"]
    return "".join((ROOT / f).read_text(encoding="utf-8") for f in PLOT_SOURCES) + "".join(code)


def write_subset(font, chars: str, out: Path) -> None:
    from fontTools import subset

    options = subset.Options()
    options.layout_features = ["*"]
    options.name_IDs = ["*"]
    options.notdef_outline = True
    sub = subset.Subsetter(options)
    sub.populate(unicodes=sorted({ord(c) for c in chars}))
    sub.subset(font)
    out.parent.mkdir(parents=True, exist_ok=True)
    font.save(str(out))
    print(f"wrote {out.relative_to(ROOT)}: {len(set(chars))} characters, {out.stat().st_size / 1024:.0f} KiB")


def gb2312_level1() -> str:
    """The 3,755 most common Simplified Chinese characters (GB 2312 level 1, rows 0xB0-0xD7): room for prose edits."""
    out = []
    for hi in range(0xB0, 0xD8):
        for lo in range(0xA1, 0xFF):
            try:
                out.append(bytes([hi, lo]).decode("gb2312"))
            except UnicodeDecodeError:
                pass
    return "".join(out)


def is_cjk(ch: str) -> bool:
    o = ord(ch)
    return (0x2E80 <= o <= 0x9FFF) or (0xF900 <= o <= 0xFAFF) or (0xFF00 <= o <= 0xFFEF) or (0x3000 <= o <= 0x303F) \
        or ch in "“”‘’…—·"


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if len(argv) > 1 or (argv and argv[0].startswith("-")):
        print(__doc__, file=sys.stderr)
        return 0 if argv and argv[0] in {"-h", "--help"} else 2
    try:
        from fontTools.ttLib import TTCollection, TTFont
    except ImportError:
        print('fontTools is missing: pip install -e ".[classroom]" (or pip install fonttools)', file=sys.stderr)
        return 2
    source = Path(argv[0]) if argv else SOURCE
    if not source.is_file():
        print(f"{source} is missing: apt-get install fonts-noto-cjk (Debian/Ubuntu), or pass the path of "
              "NotoSansCJK-Regular.ttc / NotoSansCJKsc-Regular.otf", file=sys.stderr)
        return 2
    fonts = TTCollection(str(source)).fonts if source.suffix.lower() in {".ttc", ".otc"} else [TTFont(str(source))]
    font = next((f for f in fonts if f["name"].getDebugName(1) == FAMILY), None)
    if font is None:
        print(f"{source} holds no face named {FAMILY!r}", file=sys.stderr)
        return 2
    ascii_ = "".join(chr(c) for c in range(0x20, 0x7F))
    write_subset(font, "".join(c for c in wanted_text() + gb2312_level1() if is_cjk(c)) + ascii_, OUT)
    # The figures' font holds CJK only: matplotlib draws Latin, digits and maths in DejaVu Sans and falls back to it.
    write_subset(TTFont(str(OUT)), "".join(c for c in plot_text() if is_cjk(c)), PLOT_OUT)
    return 0
