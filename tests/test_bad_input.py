"""Issue 12, "bad input that gives a silent wrong answer": each case raises a clear error,
and the plain and blockwise paths validate the same way (same exception, same message)."""

import re
import warnings

import numpy as np
import pytest

import helpers as H
from helpers.core.blockwise import blockwise_attention

rng = np.random.default_rng(0)
T = 6
Q, K, V = (rng.standard_normal((T, 4)) for _ in range(3))


def plain(*args, **kwargs):
    return H.scaled_dot_product_attention(*args, **kwargs).output


def tiled(*args, **kwargs):
    return blockwise_attention(*args, block_size=2, query_block=3, **kwargs)


def option(*args, **kwargs):  # the fast path as an option of the same API
    return H.scaled_dot_product_attention(*args, block_size=2, **kwargs).output


PATHS = [plain, tiled, option]


def _error(fn, *args, **kwargs):
    with pytest.raises((TypeError, ValueError)) as info:
        fn(*args, **kwargs)
    return info.type, str(info.value)


@pytest.mark.parametrize("path", PATHS)
def test_float_zero_one_mask_is_rejected_and_a_boolean_one_is_suggested(path):
    with pytest.raises(ValueError, match=r"mask.*positive.*boolean mask") as info:
        path(Q, K, V, mask=np.tril(np.ones((T, T))))
    assert "np.tril(np.ones((T, T), dtype=bool))" in str(info.value)
    # One positive entry is enough; 0 / negative / -inf additive masks stay fine.
    tiny = np.zeros((T, T))
    tiny[2, 3] = 1e-3
    with pytest.raises(ValueError, match="mask"):
        path(Q, K, V, mask=tiny)
    ok = path(Q, K, V, mask=np.where(np.tri(T, dtype=bool), 0.0, -np.inf))
    np.testing.assert_allclose(ok, plain(Q, K, V, causal=True), rtol=1e-12, atol=1e-12)


def test_apply_mask_rejects_a_float_zero_one_mask_too():
    with pytest.raises(ValueError, match="mask"):
        H.apply_mask(np.zeros((T, T)), np.tril(np.ones((T, T))))


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_overflowing_scores_raise_the_same_clear_error_on_every_path(sign):
    big = [_error(path, Q * 1e200, sign * K * 1e200, V) for path in PATHS]
    assert len(set(big)) == 1, big
    exc, msg = big[0]
    assert exc is ValueError
    assert "scores" in msg and "Q" in msg and "K" in msg and "scale" in msg
    assert "x contains" not in msg and "masked" not in msg  # not softmax's internal name, no phantom mask


@pytest.mark.parametrize("path", PATHS)
def test_no_path_returns_nan_silently_for_overflowing_float32(path):
    Q32, K32 = (Q * 1e20).astype(np.float32), (K * 1e20).astype(np.float32)
    with pytest.raises(ValueError, match=r"scores Q K\^T \* scale overflow float32.*scale = "):
        path(Q32, K32, V.astype(np.float32))


def test_additive_from_boolean_rejects_non_float_dtypes():
    allowed = np.tri(3, dtype=bool)
    for dtype in (int, np.int64, np.int8, bool, np.uint8):
        with pytest.raises(TypeError, match="dtype"):
            H.additive_from_boolean(allowed, dtype=dtype)
    assert H.additive_from_boolean(allowed, dtype=np.float32).dtype == np.float32


@pytest.mark.parametrize("bad", ["yes", 1, 0, 1.0, None, "False"])
def test_flags_must_be_bool(bad):
    W = np.eye(4)
    with pytest.raises(TypeError, match="causal"):
        H.self_attention(Q, W, W, W, causal=bad)
    with pytest.raises(TypeError, match="causal"):
        H.scaled_dot_product_attention(Q, K, V, causal=bad)
    with pytest.raises(TypeError, match="causal"):
        blockwise_attention(Q, K, V, causal=bad)
    with pytest.raises(TypeError, match="boolean"):
        H.causal_mask(3, boolean=bad)


def test_numpy_bools_are_flags_too():
    W = np.eye(4)
    a = H.self_attention(Q, W, W, W, causal=np.True_).weights
    assert np.all(np.triu(a, 1) == 0)


def test_overflow_message_does_not_blame_a_mask_when_none_was_given():
    _, msg = _error(H.scaled_dot_product_attention, Q * 1e200, K * 1e200, V)
    assert not re.search(r"all keys are masked|mask removes", msg)


def test_float16_with_a_minus_1e9_mask_agrees_on_both_paths():
    Q16, K16, V16 = (x.astype(np.float16) for x in (Q, K, V))
    m = np.where(np.tri(T, dtype=bool), 0.0, -1e9)
    m[0] = -1e9  # a fully "masked" row: -1e9 damps, it does not remove
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        results = [path(Q16, K16, V16, mask=m) for path in PATHS]
    for r in results:
        assert r.dtype == np.float32 and np.all(np.isfinite(r))
        np.testing.assert_allclose(r, results[0], rtol=1e-5, atol=1e-5)
    # Row 0 got -1e9 everywhere: uniform weights over every key.
    np.testing.assert_allclose(results[0][0], V16.astype(np.float32).mean(axis=0), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    "args, kwargs",
    [
        ((Q, K, V), {"mask": np.zeros((T, T), dtype=int)}),
        ((Q, K, V), {"mask": np.ones((T, T - 1), dtype=bool)}),
        ((Q, K, V), {"mask": ~np.eye(T, dtype=bool) & np.tri(T, dtype=bool)}),  # row 0 has no key
        ((Q, K, V), {"scale": -1.0}),
        ((Q, K, V), {"scale": True}),
        ((Q, K[:, :3], V), {}),
        ((Q, K, V[:-1]), {}),
        ((Q, K, np.full_like(V, np.nan)), {}),
    ],
)
def test_plain_and_blockwise_raise_the_same_error(args, kwargs):
    errors = {_error(path, *args, **kwargs) for path in PATHS}
    assert len(errors) == 1, errors


from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.extra.numpy import arrays  # noqa: E402


@given(arrays(np.float64, (T, T), elements=st.floats(-1e3, 1e3)))
def test_any_float_mask_with_a_positive_entry_is_rejected_identically_else_accepted(m):
    if (m > 0).any():
        errors = {_error(path, Q, K, V, mask=m) for path in PATHS}
        assert len(errors) == 1 and next(iter(errors))[0] is ValueError
    else:
        outs = [path(Q, K, V, mask=m) for path in PATHS]
        for out in outs[1:]:
            np.testing.assert_allclose(out, outs[0], rtol=1e-9, atol=1e-12)
