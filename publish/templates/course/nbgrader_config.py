"""nbgrader configuration of the graded lab (copied by publish/course.py from publish/templates/course/).

Its parameters (the course id, the hidden-test delimiters, the feedback template's folder name) are
read from ``course.json`` beside this file, which publish/course.py writes with it.
"""

import atexit
import base64
import html
import io
import json
import logging
import os
import re
import shutil
import sys
import tempfile
import warnings
from xml.etree import ElementTree

import nbgrader
from jinja2 import pass_context
from latex2mathml.converter import convert_to_element as _tex_to_mathml
from nbconvert.exporters import HTMLExporter
from nbconvert.filters.markdown_mistune import IPythonRenderer, MarkdownWithMath
from nbconvert.preprocessors import Preprocessor
from nbgrader.api import MissingEntry
from nbgrader.converters import Autograde, GenerateFeedback
from nbgrader.preprocessors import OverwriteCells
from sqlalchemy.exc import SAWarning
from traitlets import Bool

c = get_config()  # noqa: F821  (nbgrader's config loader provides it)

_HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(_HERE, "course.json"), encoding="utf-8") as _file:
    COURSE = json.load(_file)

# nbgrader 0.9's gradebook builds a new submission's rows before it adds them to the session (it does,
# two lines later: nbgrader/api.py, update_or_create_submission); SQLAlchemy 2 warns about the
# reverse relationship in between. Only that warning, with its exact wording, is silenced.
warnings.filterwarnings(
    "ignore", category=SAWarning,
    message=r"Object of type <Submitted(Assignment|Notebook)> not in session, add operation along "
            r"'(Student|Assignment|Notebook)\.submissions' will not proceed")

# nbgrader runs the `alembic` command (its database migrations) from PATH; put this environment's
# scripts first so `.venv/bin/nbgrader ...` works without activating the environment.
os.environ["PATH"] = os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")

c.CourseDirectory.course_id = COURSE["course_id"]
# Grade only what the release shows: the solution region is dropped without a stub, because each
# exercise cell keeps its own stub (`raise NotImplementedError`) above the region.
c.ClearSolutions.code_stub = {"python": ""}
# Each notebook runs top to bottom at autograde time; the slowest cell (the capstone's check) takes seconds.
c.Execute.timeout = 300
# Stop each grading kernel at once when its notebook has run (every output is already collected), rather
# than asking it to shut itself down. ipykernel 7's own shutdown can race between its threads' sockets and
# print "Uncaught exception in ZMQStream callback ... ZMQError: Socket operation on non-socket" into the
# teacher's terminal (seen once in CI, with ipykernel 7.4.0 and pyzmq 27.3.0); a kernel that is stopped runs
# no shutdown code. It also saves about 3 s per submission of five notebooks.
c.Execute.shutdown_kernel = "immediate"
if os.name == "posix":
    # Talk to each grading kernel over local socket files, not over TCP: no port is opened on a
    # shared lab machine, and ipykernel (>= 7.4) has no reason to warn about unencrypted traffic.
    # The socket path must be absolute (the kernel runs in the notebook's folder) and short, and one folder per
    # nbgrader process: two runs at once (a CI run beside a teacher's) would otherwise pick the same kernel-N
    # socket and each kernel reject the other's messages ("Invalid Signature"). Removed when nbgrader exits.
    _sockets = tempfile.mkdtemp(prefix="nbgrader-ipc-")          # mode 0700
    atexit.register(shutil.rmtree, _sockets, ignore_errors=True)
    c.KernelManager.transport = "ipc"
    c.KernelManager.ip = os.path.join(_sockets, "kernel")


class OverwriteCellsKnowingHiddenTests(OverwriteCells):
    """nbgrader's OverwriteCells, without its false alarm on every untouched test cell.

    nbgrader stores a test cell's checksum before it removes the hidden tests, so a test cell
    exactly as released always "has changed" at autograde time (nbgrader issue 1961). This
    subclass stays silent only when the submitted cell is the released one; any other change is
    reported as before. Either way the test cell is restored from the gradebook, hidden tests included.
    """

    def preprocess_cell(self, cell, resources, cell_index):
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        self._as_released = False
        if grade_id is not None:
            try:
                source = self.gradebook.find_source_cell(grade_id, self.notebook_id, self.assignment_id)
            except MissingEntry:
                pass
            else:
                self._as_released = cell.source == _without_hidden_tests(source.source)
        return super().preprocess_cell(cell, resources, cell_index)

    def report_change(self, name, attr, old, new):
        if attr == "checksum" and self._as_released:
            return
        super().report_change(name, attr, old, new)


def _without_hidden_tests(source):
    """The source as ClearHiddenTests releases it: the delimited lines (delimiters included) removed."""
    kept, hidden = [], False
    for line in source.split("\n"):
        if COURSE["begin_hidden"] in line:
            hidden = True
        elif COURSE["end_hidden"] in line:
            hidden = False
        elif not hidden:
            kept.append(line)
    return "\n".join(kept)


c.Autograde.sanitize_preprocessors = [
    OverwriteCellsKnowingHiddenTests if p is OverwriteCells else p
    for p in Autograde.class_traits()["sanitize_preprocessors"].default()
]

class FigureAltText(Preprocessor):
    """Give each figure of a feedback page a text alternative (nbconvert warns about every image without one)."""

    enabled = Bool(True)

    def preprocess_cell(self, cell, resources, cell_index):
        for output in cell.get("outputs", []):
            for mime in ("image/png", "image/jpeg"):
                if mime in output.get("data", {}):
                    shown = str(output["data"].get("text/plain", "")).strip("<>") or "a figure"
                    output.setdefault("metadata", {}).setdefault(mime, {}).setdefault(
                        "alt", f"{shown}, drawn by the code cell above")
        return cell, resources


c.GenerateFeedback.preprocessors = [*GenerateFeedback.class_traits()["preprocessors"].default(), FigureAltText]


# Feedback pages work offline and from wherever they are opened: nbgrader's feedback template loads
# MathJax from a CDN, and release_feedback hands each student the HTML file alone (no folder beside
# it), which JupyterLab shows without running its scripts. So the formulas are typeset here, as
# MathML that the browser draws itself, and the page loads no MathJax: the template of the course's
# templates/<COURSE["feedback_template"]> folder is nbgrader's feedback template with nbconvert's mathjax macro replaced.
def _mathml(tex, display, log):
    """MathML for one TeX formula; None (and a warning) if latex2mathml cannot typeset all of it."""
    try:
        element = _tex_to_mathml(tex, display=display)
    except Exception as exc:  # noqa: BLE001  (latex2mathml raises several kinds on TeX it cannot parse)
        log.warning("feedback page: formula not typeset (%s): %s", type(exc).__name__, tex)
        return None
    # HTML puts <math> in the MathML namespace itself; an explicit xmlns would come back as <ns0:math>
    # (not maths) from nbconvert's heading anchors, which re-serialise a heading with ElementTree.
    element.attrib.pop("xmlns", None)
    for node in element.iter():
        for name in [a for a in node.attrib if a == "href" or a.startswith("on")]:
            del node.attrib[name]        # as MathJax's Safe extension: no links or handlers from TeX
        node.text = html.unescape(node.text) if node.text else node.text
        node.tail = html.unescape(node.tail) if node.tail else node.tail
        if node.tag == "mo" and node.text and len(node.text) > 1 and node.text.isalpha() \
                and "movablelimits" not in node.attrib:
            node.tag = "mi"              # a name (\operatorname, \max): upright, no operator spacing
        if node.text and re.match(r"\\[A-Za-z]", node.text):
            log.warning("feedback page: formula not typeset (unknown command %s): %s", node.text, tex)
            return None
    return ElementTree.tostring(element, encoding="unicode")


class MathMLRenderer(IPythonRenderer):
    """nbconvert's markdown renderer with each formula as MathML (a formula it cannot typeset stays TeX, as code)."""

    log = logging.getLogger("nbgrader")

    def _formula(self, tex, display):
        return _mathml(tex, display, self.log) or f"<code>{self.escape_html(tex)}</code>"

    def block_math(self, body):
        return self._formula(body, "block")

    def inline_math(self, body):
        return self._formula(body, "inline")

    def latex_environment(self, name, body):
        return self._formula(f"\\begin{{{name}}}{body}\\end{{{name}}}", "block")


# The pages' Chinese (the notebook's prose and the self-checks' messages, which are the feedback) must read on a
# PC without a Chinese font: each page embeds, as a data: URL, the subset of the course's font (COURSE["feedback_font"],
# the decks' subset of Noto Sans CJK SC, SIL Open Font License 1.1) to the characters outside ASCII that it shows.
# The family follows each stack's own fonts, so Latin text keeps its look: a character those fonts lack (every
# Chinese one, on such a PC) is drawn by the next family of the stack that has it, this one.
FEEDBACK_FONT_FAMILY = "CH02 Noto Sans SC"
_FONT_CSS = """<style type="text/css">
@font-face {{ font-family: "{family}"; src: url(data:font/otf;base64,{data}) format("opentype"); }}
body {{ font-family: "Helvetica Neue", Helvetica, Arial, "{family}", sans-serif; }}
pre, code, kbd, samp, div.output_area pre, div.output_text pre, .highlight pre {{
  font-family: Menlo, Monaco, Consolas, "Courier New", monospace, "{family}"; }}
</style>
"""


def _page_font_css(page):
    """The <style> that embeds the course font, subset to the characters of ``page`` outside ASCII ('' if none)."""
    from fontTools import subset
    from fontTools.ttLib import TTFont

    wanted = {ord(ch) for ch in html.unescape(page) if ord(ch) > 0x7E}
    if not wanted:
        return ""
    font = TTFont(os.path.join(_HERE, COURSE["feedback_font"]))
    options = subset.Options()
    # No OpenType features and no hinting: horizontal Chinese needs neither (vertical forms, proportional widths),
    # and they are half the size of a page's subset.
    options.layout_features = []
    options.hinting = False
    options.name_IDs = ["*"]                 # the licence and the names stay with the font
    options.notdef_outline = True
    options.ignore_missing_unicodes = True   # an emoji or a symbol the face lacks: the browser's own font draws it
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=sorted(wanted))
    subsetter.subset(font)
    buf = io.BytesIO()
    font.save(buf)
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    return _FONT_CSS.format(family=FEEDBACK_FONT_FAMILY, data=data)


class OfflineFeedbackExporter(HTMLExporter):
    """nbgrader's feedback exporter (HTMLExporter), its markdown rendered by MathMLRenderer, the page's Chinese
    drawn with the embedded course font (_page_font_css)."""

    def from_notebook_node(self, nb, resources=None, **kw):
        output, resources = super().from_notebook_node(nb, resources, **kw)
        css = _page_font_css(output)
        if css:
            head_end = output.find("</head>")
            output = output[:head_end] + css + output[head_end:] if head_end >= 0 else css + output
        return output, resources

    @pass_context
    def markdown2html(self, context, source):
        # As HTMLExporter.markdown2html (nbconvert 7), with the renderer above.
        cell = context.get("cell", {})
        renderer = MathMLRenderer(
            escape=False,
            attachments=cell.get("attachments", {}),
            embed_images=self.embed_images,
            path=context.get("resources", {}).get("metadata", {}).get("path", ""),
            anchor_link_text=self.anchor_link_text,
            exclude_anchor_links=self.exclude_anchor_links,
            **getattr(self, "lexer_options", {}),
        )
        renderer.log = self.log
        return MarkdownWithMath(renderer=renderer).render(source)


c.GenerateFeedback.exporter_class = OfflineFeedbackExporter
# Set both, so nbgrader keeps them (GenerateFeedback sets its own only when they are not configured):
# this course's template folder first, then nbgrader's, where the feedback template it extends lives.
c.HTMLExporter.template_name = COURSE["feedback_template"]
c.HTMLExporter.extra_template_basedirs = [
    os.path.join(_HERE, "templates"),
    os.path.join(os.path.dirname(os.path.abspath(nbgrader.__file__)), "server_extensions", "formgrader", "templates"),
]

# On a JupyterHub with the exchange, the default exchange root is /srv/nbgrader/exchange; set
# c.Exchange.root here if the hub uses another folder. A lab room without a hub needs no exchange.
