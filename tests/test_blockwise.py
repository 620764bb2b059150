"""Blockwise (online-softmax) attention must equal the plain path, with less memory.

The reference is always ``scaled_dot_product_attention`` (the plain T x T path) or an
independent float64 computation written here; block sizes are drawn small so that
every test crosses many tiles and ragged last blocks.
"""

import subprocess
import sys
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from helpers import causal_mask, scaled_dot_product_attention
from helpers.core.blockwise import blockwise_attention

ROOT = Path(__file__).resolve().parents[1]
TOL = {np.float64: dict(rtol=1e-10, atol=1e-10), np.float32: dict(rtol=2e-4, atol=2e-5)}


@st.composite
def problems(draw, max_t=24, dtype=np.float64, spread=3.0):
    lead = tuple(draw(st.lists(st.integers(1, 3), max_size=2)))
    tq, tk = draw(st.integers(1, max_t)), draw(st.integers(1, max_t))
    dk, dv = draw(st.integers(1, 6)), draw(st.integers(1, 5))
    el = st.floats(-spread, spread, allow_nan=False, width=32)
    Q = draw(arrays(dtype, lead + (tq, dk), elements=el))
    K = draw(arrays(dtype, lead + (tk, dk), elements=el))
    V = draw(arrays(dtype, lead + (tk, dv), elements=el))
    return Q, K, V


blocks = st.tuples(st.integers(1, 9), st.integers(1, 9))


@given(problems(), blocks)
def test_equals_plain_path_without_mask(p, b):
    Q, K, V = p
    out = blockwise_attention(Q, K, V, block_size=b[0], query_block=b[1])
    ref = scaled_dot_product_attention(Q, K, V).output
    assert out.shape == ref.shape and out.dtype == ref.dtype
    np.testing.assert_allclose(out, ref, **TOL[np.float64])


@given(problems(dtype=np.float32), blocks)
def test_equals_plain_path_float32(p, b):
    Q, K, V = p
    out = blockwise_attention(Q, K, V, block_size=b[0], query_block=b[1])
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, scaled_dot_product_attention(Q, K, V).output, **TOL[np.float32])


@given(problems(spread=40.0), blocks, st.sampled_from([None, 1.0, 3.0]))
def test_large_scores_move_the_shift_and_stay_exact(p, b, scale):
    # Scores up to ~|40*40*6*3| force the lazy shift to move (and the old terms to be rescaled).
    Q, K, V = p
    out = blockwise_attention(Q, K, V, scale=scale, block_size=b[0], query_block=b[1])
    ref = scaled_dot_product_attention(Q, K, V, scale=scale).output
    np.testing.assert_allclose(out, ref, rtol=1e-8, atol=1e-8)


@given(problems(), blocks, st.data())
def test_equals_plain_path_with_boolean_and_additive_masks(p, b, data):
    Q, K, V = p
    tq, tk = Q.shape[-2], K.shape[-2]
    # Mask shape: (T_q, T_k) or the full batch shape; every row keeps at least one key.
    shape = data.draw(st.sampled_from([(tq, tk), Q.shape[:-2] + (tq, tk)]))
    allowed = data.draw(arrays(np.bool_, shape))
    keep = data.draw(arrays(np.intp, shape[:-1], elements=st.integers(0, tk - 1)))
    np.put_along_axis(allowed, keep[..., None], True, axis=-1)
    for mask in (allowed, np.where(allowed, data.draw(st.sampled_from([0.0, -0.5])), -np.inf)):
        out = blockwise_attention(Q, K, V, mask=mask, block_size=b[0], query_block=b[1])
        ref = scaled_dot_product_attention(Q, K, V, mask=mask).output
        np.testing.assert_allclose(out, ref, **TOL[np.float64])


@given(problems(), blocks)
def test_causal_flag_equals_the_lower_triangular_mask(p, b):
    Q, K, V = p
    tril = np.tril(np.ones((Q.shape[-2], K.shape[-2]), dtype=bool))  # j <= i, also for T_q != T_k
    out = blockwise_attention(Q, K, V, causal=True, block_size=b[0], query_block=b[1])
    ref = scaled_dot_product_attention(Q, K, V, mask=tril).output
    np.testing.assert_allclose(out, ref, **TOL[np.float64])


def test_causal_square_equals_chapter_causal_mask_and_can_combine_with_a_mask():
    rng = np.random.default_rng(0)
    Q, K, V = rng.normal(size=(3, 2, 37, 8))
    M = causal_mask(37)  # additive 0 / -inf
    ref = scaled_dot_product_attention(Q, K, V, mask=M).output
    np.testing.assert_allclose(blockwise_attention(Q, K, V, causal=True, block_size=8, query_block=5), ref,
                               **TOL[np.float64])
    band = np.tril(np.ones((37, 37), dtype=bool), k=-3) | np.eye(37, dtype=bool)
    both = scaled_dot_product_attention(Q, K, V, mask=band & (M == 0)).output
    np.testing.assert_allclose(blockwise_attention(Q, K, V, mask=band, causal=True, block_size=6), both,
                               **TOL[np.float64])


def test_float32_stays_float32_and_other_dtypes():
    rng = np.random.default_rng(1)
    Q, K, V = (rng.normal(size=(50, 16)).astype(np.float32) for _ in range(3))
    out = blockwise_attention(Q, K, V, block_size=7)
    assert out.dtype == np.float32
    out16 = blockwise_attention(Q.astype(np.float16), K.astype(np.float16), V.astype(np.float16))
    assert out16.dtype == np.float32  # float16 is computed and returned in float32, as by the plain path
    np.testing.assert_allclose(out16, scaled_dot_product_attention(Q, K, V).output, atol=5e-3)
    ints = blockwise_attention(np.eye(3, dtype=int), np.eye(3, dtype=int), np.arange(9).reshape(3, 3))
    assert ints.dtype == np.float64
    np.testing.assert_allclose(ints, scaled_dot_product_attention(np.eye(3), np.eye(3), np.arange(9.0).reshape(3, 3)).output)


def test_float32_inputs_are_never_computed_in_float64():
    # If any step promoted to float64 (np.sqrt(d_k) is a float64 scalar in numpy 2), the
    # result would be float64 or would agree with a float64 reference far better than float32 can.
    rng = np.random.default_rng(2)
    Q, K, V = (rng.normal(size=(64, 64)).astype(np.float32) for _ in range(3))
    out = blockwise_attention(Q, K, V, block_size=16)
    ref64 = scaled_dot_product_attention(*(x.astype(np.float64) for x in (Q, K, V))).output
    err = np.abs(out - ref64).max()
    assert out.dtype == np.float32
    assert 1e-9 < err < 1e-4


def test_huge_values_fall_back_to_an_exact_shift_without_overflow():
    # acc sums e^shift-lag * v over all keys; with |v| ~ 1e30 in float32 a lag of e^20 would overflow.
    rng = np.random.default_rng(3)
    Q, K = (rng.normal(size=(40, 4)).astype(np.float32) for _ in range(2))
    V = (rng.normal(size=(40, 3)) * 1e30).astype(np.float32)
    with np.errstate(over="raise"):
        out = blockwise_attention(Q * 6, K * 6, V, block_size=4, query_block=8)
    ref = scaled_dot_product_attention(Q * 6, K * 6, V).output
    assert np.all(np.isfinite(out))
    np.testing.assert_allclose(out, ref, rtol=1e-3, atol=1e26)


def _error(fn, *args, **kwargs):
    with pytest.raises((TypeError, ValueError)) as info:
        fn(*args, **kwargs)
    return info.type, str(info.value)


@pytest.mark.parametrize(
    "args, kwargs",
    [
        ((np.ones((3, 4)), np.ones((5, 3)), np.ones((5, 2))), {}),  # d_k mismatch
        ((np.ones((3, 4)), np.ones((5, 4)), np.ones((6, 2))), {}),  # T_k mismatch
        ((np.ones(4), np.ones((5, 4)), np.ones((5, 2))), {}),  # Q 1-D
        ((np.ones((2, 3, 4)), np.ones((3, 5, 4)), np.ones((3, 5, 2))), {}),  # batch mismatch
        ((np.ones((3, 4)), np.full((5, 4), np.nan), np.ones((5, 2))), {}),  # NaN
        ((np.ones((3, 4)), np.ones((5, 4)), np.ones((5, 2), dtype=bool)), {}),  # boolean V
        ((np.ones((3, 4)), np.ones((0, 4)), np.ones((0, 2))), {}),  # no keys
        ((np.ones((3, 4)), np.ones((5, 4)), np.ones((5, 2))), {"scale": -1.0}),
        ((np.ones((3, 4)), np.ones((5, 4)), np.ones((5, 2))), {"scale": "big"}),
        ((np.ones((3, 4)), np.ones((5, 4)), np.ones((5, 2))), {"mask": np.ones((3, 5), dtype=int)}),
        ((np.ones((3, 4)), np.ones((5, 4)), np.ones((5, 2))), {"mask": np.ones((5, 3), dtype=bool)}),
        ((np.ones((3, 4)), np.ones((5, 4)), np.ones((5, 2))), {"mask": np.full((3, 5), np.inf)}),
        ((np.ones((3, 4)), np.ones((5, 4)), np.ones((5, 2))), {"mask": np.eye(3, 5, k=3, dtype=bool)}),  # row 2 dead
        ((np.ones((3, 4)), np.ones((5, 4)), np.ones((5, 2))), {"mask": np.zeros((3, 5), dtype=bool)}),
    ],
)
def test_same_errors_as_the_plain_path(args, kwargs):
    assert _error(blockwise_attention, *args, **kwargs) == _error(scaled_dot_product_attention, *args, **kwargs)


def test_dead_rows_are_reported_with_their_batch_index():
    mask = np.ones((2, 4, 6), dtype=bool)
    mask[1, 2] = False
    Q, K, V = np.ones((2, 4, 3)), np.ones((2, 6, 3)), np.ones((2, 6, 2))
    with pytest.raises(ValueError, match=r"1 query row \(at \(batch..., row\) \(1, 2\)\)"):
        blockwise_attention(Q, K, V, mask=mask, block_size=4, query_block=3)


@pytest.mark.parametrize("kwargs, exc", [
    ({"block_size": 0}, ValueError), ({"query_block": -1}, ValueError),
    ({"block_size": 2.5}, TypeError), ({"causal": "yes"}, TypeError),
])
def test_bad_block_arguments(kwargs, exc):
    with pytest.raises(exc, match=next(iter(kwargs))):
        blockwise_attention(np.ones((3, 4)), np.ones((5, 4)), np.ones((5, 2)), **kwargs)


def test_peak_memory_is_blockwise_not_quadratic():
    # Deterministic: tracemalloc counts numpy's allocations, which depend only on the shapes.
    T, d, bk, bq = 2048, 16, 256, 64
    rng = np.random.default_rng(4)
    Q, K, V = (rng.normal(size=(T, d)).astype(np.float32) for _ in range(3))
    tracemalloc.start()
    try:
        blockwise_attention(Q, K, V, block_size=bk, query_block=bq, causal=True)
        blockwise_attention(Q, K, V, block_size=bk, query_block=bq)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        scaled_dot_product_attention(Q, K, V)
        _, plain_peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    scores_bytes = T * T * 4  # the T x T float32 matrix the plain path must hold (16 MiB)
    # Copies of Q*scale and [V | 1], the output and small per-row arrays: ~4 T (d + 1) floats;
    # plus a score tile and its causal-diagonal boolean mask (twice, for slack).
    linear = 4 * T * (d + 1) * 4 + 2 * bq * bk * (4 + 1)
    assert plain_peak >= scores_bytes
    assert peak <= linear < scores_bytes / 8


def test_benchmarks_help_and_smallest_figure_run():
    # Subprocesses with cwd = the repository, so `benchmarks` (not an installed package) is importable.
    res = subprocess.run([sys.executable, "-m", "benchmarks", "--help"], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert "--quick" in res.stdout
    code = (
        "from benchmarks.attention import measure, report\n"
        "rows = measure(sizes=(32,), d_k=8, repeats=1, torch_too=False)\n"
        "assert {r['path'] for r in rows} == {'plain', 'blockwise'}, rows\n"
        # Durations are reported, never asserted on (a loaded machine may take any time).
        "assert all(r['peak_bytes'] > 0 and r['max_abs_err'] < 1e-5 and 'seconds' in r for r in rows)\n"
        "print(report(rows, gemm=100.0, d_k=8))\n"
    )
    res = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert "blockwise" in res.stdout and "x plain" in res.stdout


def test_the_tiled_path_keeps_no_state_and_starts_no_threads():
    import threading

    rng = np.random.default_rng(5)
    Q, K, V = (rng.normal(size=(256, 8)) for _ in range(3))
    before = threading.active_count()
    blockwise_attention(Q, K, V, block_size=64, query_block=32)
    assert threading.active_count() == before
    import helpers.core.blockwise as bw

    state = {name: v for name, v in vars(bw).items() if not name.startswith("__")}
    assert not [name for name, v in state.items() if type(v).__name__ in ("ThreadPoolExecutor", "dict", "lock", "ThreadpoolController")]


@pytest.mark.parametrize("causal", [False, True])
def test_block_size_is_an_option_of_scaled_dot_product_attention(causal):
    rng = np.random.default_rng(6)
    Q, K, V = (rng.normal(size=(2, 40, 8)) for _ in range(3))
    plain = scaled_dot_product_attention(Q, K, V, causal=causal)
    fast = scaled_dot_product_attention(Q, K, V, causal=causal, block_size=16)
    assert fast.weights is None
    np.testing.assert_allclose(fast.output, plain.output, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(fast.output, blockwise_attention(Q, K, V, block_size=16, causal=causal), rtol=0, atol=0)
