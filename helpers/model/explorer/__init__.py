"""Your own sentence through all-MiniLM-L6-v2 (2.13): where does one token look, in one head or in all 72?

- :mod:`~helpers.model.explorer.view` — the numbers: :class:`SentenceCache` encodes a sentence once (per causal
  setting); :func:`attention_view` returns what the figure shows (the tokens as the tokenizer split them, the
  weights), raising :class:`ExplorerInputError` (with a Chinese ``.zh``) for input it cannot show;
- :mod:`~helpers.model.explorer.widget` — :class:`ExplorerFigure` and the panel :func:`attention_explorer`
  (they only draw).

Notebooks read these names as ``H.explorer.<name>``.
"""

from .view import MAX_TOKENS, AttentionView, ExplorerInputError, SentenceCache, attention_view
from .widget import AttentionExplorer, ExplorerFigure, attention_explorer

__all__ = ["MAX_TOKENS", "AttentionView", "ExplorerInputError", "SentenceCache", "attention_view",
           "AttentionExplorer", "ExplorerFigure", "attention_explorer"]
