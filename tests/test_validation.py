"""Every bad input named in the foundation issue gets a message a learner can act on."""

import numpy as np
import pytest

from helpers import causal_mask, project_qkv, scaled_dot_product_attention as sdpa

rng = np.random.default_rng(0)
Q = rng.normal(size=(4, 3))
K = rng.normal(size=(5, 3))
V = rng.normal(size=(5, 2))


@pytest.mark.parametrize(
    "args, kwargs, exc, pattern",
    [
        # wrong ndim
        ((Q[0], K, V), {}, ValueError, r"Q must have at least 2 dimensions .*\(\.\.\., T_q, d_k\).*got 1-D \(shape \(3,\)"),
        ((Q, K, V[0]), {}, ValueError, r"V must have at least 2 dimensions.*shape \(2,\)"),
        # d_k mismatch between Q and K
        ((Q, K[:, :2], V), {}, ValueError, r"d_k mismatch.*Q \(4, 3\) \(d_k=3\) and K \(5, 2\) \(d_k=2\)"),
        # T_k mismatch between K and V
        ((Q, K, V[:4]), {}, ValueError, r"T_k mismatch.*K \(5, 3\) \(T_k=5\) and V \(4, 2\) \(T_k=4\)"),
        # mask of the wrong shape
        ((Q, K, V), {"mask": causal_mask(4)}, ValueError, r"mask must have shape \(T_q, T_k\) = \(4, 5\).*shape \(4, 4\)"),
        ((Q, K, V), {"mask": np.ones((3, 4, 5), bool)}, ValueError, r"leading dimensions \(3,\) do not fit"),
        # non-numeric arrays
        ((np.array([["a", "b"]]), K, V), {}, TypeError, r"Q must be a numeric array.*dtype <U1"),
        ((Q.astype(object), K, V), {}, TypeError, r"Q must be a numeric array.*dtype object"),
        ((Q > 0, K, V), {}, TypeError, r"Q must be a real-valued numeric array.*boolean"),
        ((Q + 0j, K, V), {}, TypeError, r"Q must be real-valued.*complex"),
        (([[1, 2], [3]], K, V), {}, TypeError, r"Q must be a numeric array"),
        # d_k = 0
        ((np.zeros((4, 0)), np.zeros((5, 0)), V), {}, ValueError, r"d_k must be at least 1.*Q \(4, 0\)"),
        # NaN / inf in inputs
        ((Q, np.where(K > 1, np.nan, K), V), {}, ValueError, r"K contains \d+ NaN and 0 inf.*first is at index"),
        ((Q, K, np.full((5, 2), np.inf)), {}, ValueError, r"V contains 0 NaN and 10 inf"),
        # masks: ambiguous integer, NaN, +inf
        ((Q, K, V), {"mask": np.ones((4, 5), int)}, TypeError, r"integer dtype.*ambiguous"),
        ((Q, K, V), {"mask": np.full((4, 5), np.nan)}, ValueError, r"additive mask.*NaN or \+inf"),
        ((Q, K, V), {"mask": np.array(["x"] * 20).reshape(4, 5)}, TypeError, r"mask must be boolean or float"),
        # scale
        ((Q, K, V), {"scale": -1.0}, ValueError, r"scale must be finite and >= 0"),
        ((Q, K, V), {"scale": "0.5"}, TypeError, r"scale must be a real number"),
        ((Q, K, V), {"scale": True}, TypeError, r"scale must be a real number"),
        # batch dims never broadcast
        ((Q[None], K, V), {}, ValueError, r"leading \(batch\) dimensions must match exactly.*Q \(1, 4, 3\), K \(5, 3\)"),
        # no keys
        ((Q, np.zeros((0, 3)), np.zeros((0, 2))), {}, ValueError, r"at least one key"),
    ],
)
def test_attention_bad_input(args, kwargs, exc, pattern):
    with pytest.raises(exc, match=pattern):
        sdpa(*args, **kwargs)


@pytest.mark.parametrize(
    "args, exc, pattern",
    [
        ((np.ones(4), np.ones((4, 2)), np.ones((4, 2)), np.ones((4, 2))), ValueError, r"X must have at least 2 dimensions"),
        ((np.ones((3, 4)), np.ones((5, 2)), np.ones((4, 2)), np.ones((4, 2))), ValueError, r"W_Q must have d_model=4 rows.*shape \(5, 2\)"),
        ((np.ones((3, 4)), np.ones((4, 2)), np.ones((4, 3)), np.ones((4, 2))), ValueError, r"W_Q \(4, 2\) and W_K \(4, 3\)"),
        ((np.ones((3, 4)), np.ones((4, 2)), np.ones((4, 2)), np.ones((4, 2, 1))), ValueError, r"W_V must be 2-D"),
    ],
)
def test_projection_bad_input(args, exc, pattern):
    with pytest.raises(exc, match=pattern):
        project_qkv(*args)


# ---- a novice's non-array input is named by what it is, not by the dtype numpy made of it (review) -----------

@pytest.mark.parametrize("x, says", [
    ("x", "got a str ('x')"),
    (None, "got None"),
    (["a", "b"], "got a list holding str"),
    ([1.0, None], "got a list holding NoneType and float"),
    ({"a": 1}, "got a dict ({'a': 1})"),
    (np.array(["a"]), "got an array with shape (1,), dtype <U1"),
], ids=["str", "None", "list of str", "list with None", "dict", "str array"])
def test_softmax_names_what_it_was_given(x, says):
    import helpers as H
    with pytest.raises(TypeError) as err:
        H.softmax(x)
    msg = str(err.value)
    assert msg.startswith("x must be a numeric array; ") and says in msg, msg
    if not isinstance(x, np.ndarray):
        assert "dtype" not in msg and "<U1" not in msg and "NoneType," not in msg


def test_unconvertible_input_message_has_no_stray_space():
    import helpers as H
    with pytest.raises(TypeError) as err:
        H.softmax([[1.0, 2.0], [3.0]])
    assert str(err.value).startswith("x must be a numeric array; could not convert it (")


@pytest.mark.parametrize("rows, says", [
    ([1], "for 1 query row (row 1);"),
    ([0, 1, 2], "for 3 query rows (rows 0, 1, 2);"),
    ([0, 1, 2, 3, 4, 5], "for 6 query rows (rows 0, 1, 2, 3, 4, ...);"),
], ids=["one", "three", "more than five"])
def test_dead_rows_are_listed_not_called_first(rows, says):
    from helpers import scaled_dot_product_attention
    T = 6
    mask = np.ones((T, T), dtype=bool)
    mask[rows] = False
    with pytest.raises(ValueError) as err:
        scaled_dot_product_attention(np.ones((T, 2)), np.ones((T, 2)), np.ones((T, 2)), mask=mask)
    msg = str(err.value)
    assert says in msg and "first" not in msg, msg
