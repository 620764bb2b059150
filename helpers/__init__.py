"""Shared math, plots, widgets and self-checks for the chapter 2 (Self-Attention) notebooks.

One small module per concept of the chapter:

- :mod:`helpers.softmax`      softmax, its Jacobian, entropy          (2.5-2.6)
- :mod:`helpers.projections`  Q = X W_Q, K = X W_K, V = X W_V          (2.3)
- :mod:`helpers.scores`       S = Q K^T, additive (Bahdanau) scores    (2.4)
- :mod:`helpers.attention`    softmax(Q K^T / sqrt(d_k) + M) V         (2.7)
- :mod:`helpers.masking`      the causal mask                          (2.10)
- :mod:`helpers.plotting`     labelled heatmaps and bar charts
- :mod:`helpers.checks`       self-checks for the exercises
- :mod:`helpers.predict`      predict-then-run questions (a locked answer, then the reveal)

Every array argument is validated; bad input raises ``TypeError``/``ValueError``
naming the argument and the shape it got.
"""

from .attention import AttentionResult, apply_mask, scaled_dot_product_attention, self_attention
from .masking import additive_from_boolean, causal_mask
from .projections import project_qkv
from .scores import additive_attention_scores, dot_product_scores
from .plotting import use_style
from .predict import predict_choice, predict_number
from .softmax import entropy, softmax, softmax_jacobian

__version__ = "0.1.0"

__all__ = [
    "AttentionResult",
    "additive_attention_scores",
    "additive_from_boolean",
    "apply_mask",
    "causal_mask",
    "dot_product_scores",
    "entropy",
    "predict_choice",
    "predict_number",
    "project_qkv",
    "scaled_dot_product_attention",
    "self_attention",
    "use_style",
    "softmax",
    "softmax_jacobian",
]
