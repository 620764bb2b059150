"""The formula of chapter 2 and its parts: read these first.

    attention.py     softmax(Q K^T / sqrt(d_k) + M) V     scaled_dot_product_attention, self_attention (2.7)
    projections.py   Q = X W_Q, K = X W_K, V = X W_V        project_qkv (2.3)
    scores.py        S = Q K^T, additive scores             dot_product_scores, additive_attention_scores (2.4)
    softmax.py       exp(s - max s) / sum                   softmax, softmax_jacobian, entropy (2.5-2.6)
    masking.py       tril(ones) -> 0 / -inf                 causal_mask, additive_from_boolean (2.10)
    heads.py         split, attend per head, merge          multi_head_self_attention (2.11)
    blockwise.py     the same formula, one tile at a time   attention(..., block_size=...) (2.9)

Every input is checked once, on entry, by :mod:`helpers._validate` (the core raises nowhere else).

Notebooks reach all of it through ``import helpers as H`` (``H.softmax``, ``H.heads``, ...).
"""
