"""Shared math, plots, widgets and self-checks for the chapter 2 (Self-Attention) notebooks.

``import helpers as H`` gives the core of the chapter:

- ``H.project_qkv``                       Q = X W_Q, K = X W_K, V = X W_V        (2.3)
- ``H.dot_product_scores``,
  ``H.additive_attention_scores``         S = Q K^T, additive (Bahdanau) scores  (2.4)
- ``H.softmax``, ``H.softmax_jacobian``,
  ``H.entropy``                           softmax and its derivative             (2.5-2.6)
- ``H.scaled_dot_product_attention``,
  ``H.self_attention``, ``H.AttentionResult``,
  ``H.apply_mask``                        softmax(Q K^T / sqrt(d_k) + M) V       (2.7)
- ``H.causal_mask``, ``H.additive_from_boolean``   the causal mask                (2.10)
- ``H.use_style``, ``H.attention_heatmap``, ``H.weights_bar``, ``H.token_labels``
                                          projector-legible labelled figures
- ``H.predict_choice``, ``H.predict_number``   predict-then-run questions

Self-checks for the exercises: ``from helpers.checks import check_x`` (every check).
Deeper topics live in their own modules, reachable as attributes of ``H`` so a notebook
needs no extra import: ``H.heads``, ``H.blockwise``, ``H.cost``, ``H.timing``, ``H.geometry``,
``H.shapes``, ``H.normalization``, ``H.attention_properties``, ``H.causal_view``,
``H.contextual``, ``H.gradcheck``, ``H.soft_lookup``; and ``H.multi_head_self_attention``,
``H.gelu``, ``H.layer_norm`` for 2.11-2.12. Every array argument is validated (the shared
validators are in :mod:`helpers._validate`); bad input raises ``TypeError``/``ValueError``
naming the argument and the shape it got.
"""

from .attention import AttentionResult, apply_mask, scaled_dot_product_attention, self_attention
from .masking import additive_from_boolean, causal_mask
from .plotting import attention_heatmap, token_labels, use_style, weights_bar
from .predict import predict_choice, predict_number
from .projections import project_qkv
from .scores import additive_attention_scores, dot_product_scores
from .softmax import entropy, softmax, softmax_jacobian

from . import (  # noqa: E402  the deeper topics, as H.cost, H.timing, ...
    attention_properties,
    blockwise,
    book,
    causal_view,
    contextual,
    cost,
    encoder,
    environment,
    geometry,
    gradcheck,
    heads,
    normalization,
    plotting,
    real_model,
    saturation,
    shapes,
    soft_lookup,
    timing,
)
from .encoder import gelu, layer_norm  # noqa: E402  (2.11; not in __all__: the core list stays the README's)
from .heads import multi_head_self_attention  # noqa: E402  (2.11-2.12)

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
    "scaled_dot_product_attention",
    "self_attention",
    "softmax",
    "softmax_jacobian",
    "token_labels",
    "use_style",
    "weights_bar",
]
