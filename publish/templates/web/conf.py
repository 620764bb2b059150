"""The Sphinx configuration of the web edition (copied by publish/web.py from publish/templates/web/).

Beside it in the staged Sphinx project: ``web-edition.json`` (its parameters, written by publish/web.py)
and ``search-zh.js`` (the search's query splitter for Chinese, see ``ChineseWithPhrases``).
"""

import json
import os

from sphinx.search import languages
from sphinx.search.zh import SearchChinese

_HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(_HERE, "web-edition.json"), encoding="utf-8") as _file:
    _PARAMETERS = json.load(_file)

project = "Self-Attention（第 2 章）"
author = "self-attention-notebooks"
copyright = "MIT"
language = "zh_CN"
root_doc = _PARAMETERS["root_doc"]
extensions = ["myst_nb"]
exclude_patterns = ["_build"]
suppress_warnings = ["myst.header", "misc.highlighting_failure"]
nb_execution_mode = "off"          # pages show the committed outputs
nb_ipywidgets_js = {}              # no require.js / widget manager from a CDN (widgets are stills)
nb_merge_streams = True
nb_code_prompt_show = "显示代码"    # the fold of a solution or a prediction's code
nb_code_prompt_hide = "隐藏代码"
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence"]
# The notebooks are written for Jupyter's markdown, where $$...$$ inside a paragraph is display maths
# (2.5 writes its scaled score so); MyST's default reads it as text, and the rest of that paragraph's
# dollars then pair up wrongly: its prose came out as one broken formula.
myst_dmath_double_inline = True
myst_update_mathjax = False
myst_heading_anchors = 3
mathjax_path = "mathjax/MathJax.js?config=TeX-AMS-MML_HTMLorMML-full"
mathjax2_config = {
    "tex2jax": {"inlineMath": [["\\(", "\\)"]], "displayMath": [["\\[", "\\]"]],
                "processEscapes": False, "processClass": "math", "ignoreClass": "document"},
    # undefinedFamily: the family of a character MathJax's fonts lack (Chinese in \text{...}); MathJax's own
    # default plus the site's Chinese font (web-edition.css) before the generic serif.
    "HTML-CSS": {"availableFonts": [], "preferredFont": None, "webFont": "STIX-Web", "imageFont": None,
                 "undefinedFamily": "STIXGeneral,'Arial Unicode MS','CH02 Noto Sans SC',serif",
                 "linebreaks": {"automatic": True}},
    "CommonHTML": {"linebreaks": {"automatic": True}},
    "MathMenu": {"showLocale": False},
    "menuSettings": {"zoom": "None"},
}
html_theme = "sphinx_book_theme"
html_title = "Self-Attention：Q/K/V 与缩放点积（第 2 章）"
html_static_path = ["_static"]
# The Chinese font (web-edition.css; written into _static after Sphinx, by publish/web.py ship_chinese_font) is
# preloaded: Chromium left text laid out while it was still loading (a bold toctree caption) in boxes.
html_css_files = ["web-edition.css", ("ch02-noto-sans-sc.woff", {"rel": "preload", "as": "font", "type": "font/woff",
                                                                 "crossorigin": "anonymous"})]
html_copy_source = False
html_show_sourcelink = False
html_search_language = "zh"
html_last_updated_fmt = None
html_theme_options = {
    "home_page_in_toc": True,
    "show_navbar_depth": 1,
    "use_download_button": False,
    "use_fullscreen_button": False,
    "use_repository_button": False,
    "show_toc_level": 2,
    "navigation_with_keys": False,
}


class ChineseWithPhrases(SearchChinese):
    """Sphinx's Chinese search (jieba cuts the pages into words) with search-zh.js as its query splitter.

    Sphinx cuts the query only at spaces, so a phrase typed as one run ("缩放点积") matched nothing;
    search-zh.js also cuts each unknown run of Chinese into the longest words the index holds.
    """

    with open(os.path.join(_HERE, "search-zh.js"), encoding="utf-8") as _file:
        js_splitter_code = _file.read()


languages["zh"] = ChineseWithPhrases
