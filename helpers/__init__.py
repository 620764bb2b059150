"""Shared math, plots, widgets and self-checks for the chapter 2 (Self-Attention) notebooks.

The folders show the architecture, read top-down:

    core/      the formula and its parts: attention, projections, scores, softmax, masking,
               heads, the tiled (blockwise) path
    lessons/   one module per lesson's tools (2.1 contextual ... 2.10 causal_view; saturation/ for 2.5)
    book/      the book's printed worked example, recomputed and audited (2.8, 2.12)
    model/     a real model for 2.13: weights cache, WordPiece tokenizer, numpy encoder
    ui/        what a learner sees and measures: plotting, predict-then-run, timing, environment
    checks/    self-checks for the exercises: ``from helpers.checks import check_x``
    _validate  every argument check of every package (and the formula's own), one module

``import helpers as H`` is the one door. The core is ``H.<function>``:

- ``H.project_qkv``                       Q = X W_Q, K = X W_K, V = X W_V        (2.3)
- ``H.dot_product_scores``,
  ``H.additive_attention_scores``         S = Q K^T, additive (Bahdanau) scores  (2.4)
- ``H.softmax``, ``H.softmax_jacobian``,
  ``H.entropy``, ``H.is_distribution``    softmax, its derivative, the row check (2.1, 2.5-2.6)
- ``H.scaled_dot_product_attention``,
  ``H.self_attention``, ``H.AttentionResult``,
  ``H.apply_mask``                        softmax(Q K^T / sqrt(d_k) + M) V       (2.7)
- ``H.causal_mask``, ``H.additive_from_boolean``   the causal mask                (2.10)
- ``H.use_style``, ``H.attention_heatmap``, ``H.weights_bar``, ``H.token_labels``
                                          projector-legible labelled figures
- ``H.predict_choice``, ``H.predict_number``,
  ``H.reveal``                            predict-then-run questions (keys out of sight) and their
                                          blind reveals (shown once the question is answered)
- ``H.recall_choice``, ``H.recall_number``   the retrieval warm-up that opens each lesson

and every other topic is one attribute, ``H.<topic>.<name>``, wherever it lives in the tree:
``H.heads``, ``H.blockwise`` (core); ``H.contextual``, ``H.soft_lookup``, ``H.gradcheck``,
``H.geometry``, ``H.cost``, ``H.saturation``, ``H.normalization``, ``H.shapes``,
``H.attention_properties``, ``H.causal_view`` (lessons); ``H.book``; ``H.encoder``,
``H.real_model``, ``H.explorer`` (model); ``H.plotting``, ``H.timing``, ``H.environment`` (ui); and
``H.multi_head_self_attention``, ``H.gelu``, ``H.layer_norm`` for 2.11-2.12. Bad input raises
``TypeError``/``ValueError`` naming the argument and the shape it got
(:mod:`helpers._validate`).
"""

from .core.attention import AttentionResult, apply_mask, scaled_dot_product_attention, self_attention
from .core.masking import additive_from_boolean, causal_mask
from .core.projections import project_qkv
from .core.scores import additive_attention_scores, dot_product_scores
from .core.softmax import entropy, is_distribution, softmax, softmax_jacobian
from .ui.plotting import attention_heatmap, token_labels, use_style, weights_bar
from .ui.predict import predict_choice, predict_number
from .ui.reveal import reveal
from .ui.warmup import recall_choice, recall_number

# The deeper topics, one attribute each (H.cost, H.timing, ...), wherever they live in the tree.
from . import book
from .core import blockwise, heads
from .lessons import (attention_properties, causal_view, contextual, cost, geometry, gradcheck, normalization,
                      saturation, shapes, soft_lookup)
from .model import encoder, explorer, real_model
from .ui import environment, plotting, timing

from .core.heads import multi_head_self_attention  # 2.11-2.12 (not in __all__: the core list stays the README's)
from .model.encoder import gelu, layer_norm  # 2.11

__version__ = "0.1.0"

__all__ = [
    "AttentionResult",
    "additive_attention_scores",
    "additive_from_boolean",
    "apply_mask",
    "attention_heatmap",
    "causal_mask",
    "dot_product_scores",
    "entropy",
    "predict_choice",
    "predict_number",
    "project_qkv",
    "reveal",
    "recall_choice",
    "recall_number",
    "scaled_dot_product_attention",
    "self_attention",
    "softmax",
    "softmax_jacobian",
    "token_labels",
    "use_style",
    "weights_bar",
]
