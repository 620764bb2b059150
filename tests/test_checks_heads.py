"""The 2.11 self-checks: each head's share of the output, grouped-query attention and the receptive field of a
stack of sliding-window blocks. Correct variants pass; the classic wrong answers fail, named.

Expected values here are computed independently of helpers.checks: per-head loops, and for the receptive field
a real stack of small blocks whose input tokens are perturbed one at a time."""

import numpy as np

from check_verdicts import check_table

from helpers.checks import check_grouped_query_attention, check_head_contributions, check_receptive_field


# ---- exercise 1: each head's share ------------------------------------------------------------------------

def parts_loop(heads, W_O):
    h, _, d_v = heads.shape
    return np.stack([heads[i] @ W_O[i * d_v:(i + 1) * d_v] for i in range(h)])


def parts_einsum(heads, W_O):
    h, _, d_v = heads.shape
    return np.einsum("htd,hdo->hto", heads, W_O.reshape(h, d_v, -1))


def parts_list(heads, W_O):
    return [head @ rows for head, rows in zip(heads, np.split(W_O, len(heads), axis=0))]


def parts_by_masking(heads, W_O):
    # zero every other head in the concatenation, then apply the whole W_O: the same share
    h, T, d_v = heads.shape
    out = []
    for i in range(h):
        kept = np.zeros_like(heads)
        kept[i] = heads[i]
        out.append(np.concatenate(list(kept), axis=1) @ W_O)
    return np.array(out, dtype=np.float32)


def _merged(heads):
    return np.concatenate(list(heads), axis=1)


test_contributions_accept, test_contributions_reject = check_table(
    check_head_contributions, [parts_loop, parts_einsum, parts_list, parts_by_masking], {
        "column blocks of W_O": (lambda hd, W: np.stack([hd[i] @ W[:, i * hd.shape[2]:(i + 1) * hd.shape[2]]
                                                         for i in range(len(hd))]), "一段列"),
        "every h-th row": (lambda hd, W: np.stack([hd[i] @ W[i::len(hd)] for i in range(len(hd))]), "每隔 h 行"),
        "the total split evenly": (lambda hd, W: np.stack([_merged(hd) @ W / len(hd)] * len(hd)), "平均分给了各头"),
        "divided by h": (lambda hd, W: parts_loop(hd, W) / len(hd), "多除了一个 h"),
        "blocks reversed": (lambda hd, W: parts_loop(hd[::-1], W)[::-1], "对错了位"),
        "the merged output itself": (lambda hd, W: _merged(hd) @ W, "形状"),
    })


def test_the_shares_sum_to_the_multi_head_output():
    # the property the exercise rests on, checked on the helpers' own multi-head attention
    import helpers as H

    rng = np.random.default_rng(5)
    X, W_Q, W_K, W_V, W_O = (rng.normal(size=s) for s in [(6, 8), (8, 8), (8, 8), (8, 12), (12, 5)])
    res = H.multi_head_self_attention(X, W_Q, W_K, W_V, W_O, n_heads=4)
    heads = np.stack([res.weights[i] @ (X @ W_V)[:, 3 * i:3 * (i + 1)] for i in range(4)])
    assert np.allclose(parts_loop(heads, W_O).sum(axis=0), res.output)
    assert check_head_contributions(parts_loop)


# ---- exercise 2: grouped-query attention ---------------------------------------------------------------------

def _softmax(S):
    e = np.exp(S - S.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def gqa_loop(X, W_Q, W_K, W_V, W_O, n_heads, n_kv_heads, group=lambda i, h, g: i // (h // g), scale=None):
    d_k, d_v = W_Q.shape[1] // n_heads, W_V.shape[1] // n_kv_heads
    outs = []
    for i in range(n_heads):
        g = group(i, n_heads, n_kv_heads)
        q, k = X @ W_Q[:, i * d_k:(i + 1) * d_k], X @ W_K[:, g * d_k:(g + 1) * d_k]
        v = X @ W_V[:, g * d_v:(g + 1) * d_v]
        outs.append(_softmax(q @ k.T / np.sqrt(scale or d_k)) @ v)
    return np.concatenate(outs, axis=1) @ W_O


def gqa_repeat_then_helpers(X, W_Q, W_K, W_V, W_O, n_heads, n_kv_heads):
    import helpers as H

    rep = n_heads // n_kv_heads
    Kh, Vh = (np.repeat(H.heads.split_heads(X @ W, n_kv_heads), rep, axis=0) for W in (W_K, W_V))
    out = H.scaled_dot_product_attention(H.heads.split_heads(X @ W_Q, n_heads), Kh, Vh).output
    return H.heads.merge_heads(out) @ W_O


def gqa_widen_the_weights(X, W_Q, W_K, W_V, W_O, n_heads, n_kv_heads):
    # repeat each key/value head's columns, then the series' multi-head attention
    import helpers as H

    rep = n_heads // n_kv_heads
    widen = lambda W: np.concatenate([b for b in np.split(W, n_kv_heads, axis=1) for _ in range(rep)], axis=1)
    return H.multi_head_self_attention(X, W_Q, widen(W_K), widen(W_V), W_O, n_heads=n_heads).output


def gqa_float32(*a):
    return gqa_loop(*(np.asarray(x, np.float32) for x in a[:5]), *a[5:]).astype(np.float32)


test_gqa_accepts, test_gqa_rejects = check_table(
    check_grouped_query_attention, [gqa_loop, gqa_repeat_then_helpers, gqa_widen_the_weights, gqa_float32], {
        "groups taken in turn (tile, not repeat)": (lambda *a: gqa_loop(*a, group=lambda i, h, g: i % g), "轮流"),
        "scaled by all query heads' width": (lambda *a: gqa_loop(*a, scale=a[1].shape[1]), "所有查询头的总宽度"),
        "no W_O": (lambda X, q, k, v, o, h, g: gqa_loop(X, q, k, v, np.eye(o.shape[0]), h, g), "漏了输出投影"),
        "1.04x": lambda *a: 1.04 * gqa_loop(*a),
    })


# ---- exercise 3: the receptive field of causal sliding-window blocks -------------------------------------------

def reach_closed_form(T, window, n_blocks):
    i, j = np.indices((T, T))
    return (i - j >= 0) & (i - j <= n_blocks * window)


def reach_by_paths(T, window, n_blocks):
    back = np.subtract.outer(np.arange(T), np.arange(T))
    band = ((back >= 0) & (back <= window)).astype(int)
    return np.linalg.matrix_power(band, n_blocks) > 0


def reach_lists(T, window, n_blocks):
    return [[0 <= i - j <= window * n_blocks for j in range(T)] for i in range(T)]


def reach_by_spreading(T, window, n_blocks):
    out = np.eye(T, dtype=bool)
    for _ in range(n_blocks):
        grown = out.copy()
        for s in range(1, window + 1):
            grown[s:] |= out[:-s]                  # row i now also holds what row i - s held
        out = grown
    return out


def reach_tril_triu(T, window, n_blocks):
    full = np.ones((T, T), dtype=bool)
    return np.tril(full) & np.triu(full, -n_blocks * window)


def symmetric_band(T, w, n):
    return np.abs(np.subtract.outer(np.arange(T), np.arange(T))) <= n * w


test_receptive_field_accepts, test_receptive_field_rejects = check_table(
    check_receptive_field, [reach_closed_form, reach_by_paths, reach_lists, reach_by_spreading, reach_tril_triu], {
        "2.9's symmetric band (causality forgotten)": (symmetric_band, "对称"),
        "the window counted forward": (lambda T, w, n: reach_closed_form(T, w, n).T, "方向反了"),
        "off by one (n * window - 1)": (lambda T, w, n: np.tril(np.ones((T, T), dtype=bool))
                                        & (np.subtract.outer(np.arange(T), np.arange(T)) < n * w), "边界差了一格"),
        "one block only": (lambda T, w, n: reach_closed_form(T, w, 1), "只算了一个 Block"),
        "the FFN counted as mixing": (lambda T, w, n: reach_closed_form(T, 2 * w, n), "逐行作用"),
        "one block less": (lambda T, w, n: reach_closed_form(T, w, n - 1), "少算了一个 Block"),
        "window ** n_blocks": (lambda T, w, n: reach_closed_form(T, 1, w ** n), "乘上去"),
        "the causal mask without the window": (lambda T, w, n: np.tril(np.ones((T, T), dtype=bool)), "窗口"),
        "0/1 integers, not booleans": (lambda T, w, n: reach_closed_form(T, w, n).astype(int), "布尔"),
    })


def _windowed_stack(X, window, n_blocks, params):
    """A real pre-LN stack: causal sliding-window attention (Mistral-style), LayerNorm, a ReLU FFN, residuals."""
    import helpers as H

    T = X.shape[0]
    back = np.subtract.outer(np.arange(T), np.arange(T))     # query i minus key j
    allowed = (back >= 0) & (back <= window)
    ln = lambda z: (z - z.mean(-1, keepdims=True)) / np.sqrt(z.var(-1, keepdims=True) + 1e-5)
    for W_Q, W_K, W_V, W_1, W_2 in params[:n_blocks]:
        z = ln(X)
        X = X + H.scaled_dot_product_attention(z @ W_Q, z @ W_K, z @ W_V, mask=allowed).output
        X = X + np.maximum(ln(X) @ W_1, 0.0) @ W_2
    return X


def test_the_expected_reach_is_what_a_real_stack_does():
    rng = np.random.default_rng(11)
    d, T = 6, 9
    params = [tuple(rng.normal(size=s) / np.sqrt(s[0]) for s in [(d, d)] * 3 + [(d, 4 * d), (4 * d, d)])
              for _ in range(4)]
    X = rng.normal(size=(T, d))
    for window, n_blocks in [(1, 1), (1, 3), (2, 2), (0, 4)]:
        base = _windowed_stack(X, window, n_blocks, params)
        seen = np.zeros((T, T), dtype=bool)
        for j in range(T):
            X2 = X.copy()
            X2[j] += rng.normal(size=d)              # not a constant shift: LayerNorm would remove that
            seen[:, j] = np.abs(_windowed_stack(X2, window, n_blocks, params) - base).max(axis=1) > 1e-12
        assert np.array_equal(seen, reach_closed_form(T, window, n_blocks)), (window, n_blocks)


# ---- review r3: the mistake named is the one made -------------------------------------------------------------

def _gqa_projected_by_the_helper(X, W_Q, W_K, W_V, W_O, n_heads, n_kv_heads):
    # what a learner writes after reading "Any helper of section 1 may be used": H.project_qkv refuses W_K narrower
    import helpers as H

    Q, K, V = H.project_qkv(X, W_Q, W_K, W_V)
    rep = n_heads // n_kv_heads
    Kh, Vh = (np.repeat(H.heads.split_heads(M, n_kv_heads), rep, axis=0) for M in (K, V))
    out = H.scaled_dot_product_attention(H.heads.split_heads(Q, n_heads), Kh, Vh).output
    return H.heads.merge_heads(out) @ W_O


_, test_review_contributions_reject = check_table(check_head_contributions, [], {
    # every head times the whole W_O: a shape error that a column block of W_O also raises; it must not be named that
    "heads @ W_O": (lambda hd, W: hd @ W, ["整个 W_O", "第 i 段行"]),
})
_, test_review_gqa_reject = check_table(check_grouped_query_attention, [], {
    "projected with H.project_qkv": (_gqa_projected_by_the_helper, ["project_qkv", "一样宽"]),
})
