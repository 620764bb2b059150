"""Shape flow (2.7) and the Q/K/V parameter count."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from helpers.lessons.shapes import ShapeStep, draw_shape_flow, qkv_parameter_count, shape_flow  # noqa: E402


def _arrays(T, d_model, d_k, d_v, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.normal(size=(T, d_model)), rng.normal(size=(d_model, d_k)),
            rng.normal(size=(d_model, d_k)), rng.normal(size=(d_model, d_v)))


def test_shape_list_for_distinct_dimensions():
    steps = shape_flow(*_arrays(5, 8, 3, 4))
    assert [(s.name, s.shape) for s in steps] == [
        ("X", (5, 8)), ("W_Q", (8, 3)), ("W_K", (8, 3)), ("W_V", (8, 4)),
        ("Q = X W_Q", (5, 3)), ("K = X W_K", (5, 3)), ("V = X W_V", (5, 4)),
        ("S = Q K^T", (5, 5)), ("S' = S/sqrt(d_k)", (5, 5)), ("A = softmax(S')", (5, 5)),
        ("output = A V", (5, 4)),
    ]
    assert [s.kind for s in steps] == ["input"] + ["parameter"] * 3 + ["computed"] * 7
    # With T, d_model, d_k, d_v all different, the six symbolic shapes (T, d_model),
    # (d_model, d_k), (d_model, d_v), (T, d_k), (T, d_v), (T, T) are six distinct tuples.
    assert len({s.shape for s in steps}) == len({s.symbolic for s in steps}) == 6


@given(T=st.integers(1, 7), d_model=st.integers(1, 7), d_k=st.integers(1, 7), d_v=st.integers(1, 7))
def test_symbolic_shapes_evaluate_to_the_real_ones(T, d_model, d_k, d_v):
    env = {"T": T, "d_model": d_model, "d_k": d_k, "d_v": d_v}
    for s in shape_flow(*_arrays(T, d_model, d_k, d_v)):
        dims = tuple(env[name.strip()] for name in s.symbolic.strip("()").split(","))
        assert dims == s.shape, s


def test_shape_flow_rejects_bad_input():
    X, W_Q, W_K, W_V = _arrays(5, 8, 3, 4)
    with pytest.raises(ValueError, match="X must be 2-D"):
        shape_flow(X[None], W_Q, W_K, W_V)
    with pytest.raises(ValueError, match="W_V must have d_model=8 rows"):
        shape_flow(X, W_Q, W_K, W_V[:7])
    with pytest.raises(ValueError, match="same number of columns d_k"):
        shape_flow(X, W_Q, W_K[:, :2], W_V)
    with pytest.raises(TypeError, match="X"):
        shape_flow([["a"]], W_Q, W_K, W_V)


def test_draw_shape_flow_labels_every_box_with_its_shape():
    steps = shape_flow(*_arrays(5, 8, 3, 4))
    fig, ax = plt.subplots()
    labels = draw_shape_flow(steps, ax=ax)
    try:
        assert len(labels) == 11
        texts = [t.get_text() for t in labels]
        assert texts[0] == "$X$\n(5, 8)\n$(T, d_{\\mathrm{model}})$"
        assert texts[6] == "$V$\n(5, 4)\n$(T, d_v)$"
        assert texts[-1] == "$\\mathrm{output}$\n(5, 4)\n$(T, d_v)$"
        assert all(t.get_fontsize() >= 10 for t in labels)
        assert len([c for c in ax.get_children() if type(c).__name__ == "Annotation"]) == 12  # arrows
    finally:
        plt.close(fig)


def test_draw_shape_flow_rejects_other_lists():
    with pytest.raises(ValueError, match="11 ShapeStep"):
        draw_shape_flow([ShapeStep("X", (1, 1), "(T, d_model)", "input")])
    plt.close("all")


def test_parameter_counts_by_hand():
    assert qkv_parameter_count(4, 2) == 3 * 4 * 2 == 24
    assert qkv_parameter_count(8, 3, 4) == 8 * 3 + 8 * 3 + 8 * 4 == 80
    assert qkv_parameter_count(768, 64) == 147_456                       # 3 * 768 * 64
    assert qkv_parameter_count(768, 64, n_heads=12) == 3 * 768 * 768 == 1_769_472
    assert qkv_parameter_count(768, 64, bias=True) == 147_456 + 192
    assert qkv_parameter_count(4096, 128, n_heads=32) == 3 * 4096 * 4096 == 50_331_648


def test_parameter_count_equals_the_real_arrays_sizes():
    _, W_Q, W_K, W_V = _arrays(1, 12, 5, 7)
    assert qkv_parameter_count(12, 5, 7) == W_Q.size + W_K.size + W_V.size


@pytest.mark.parametrize("kwargs, err", [
    (dict(d_model=0, d_k=2), ValueError), (dict(d_model=4, d_k=-1), ValueError),
    (dict(d_model=4.0, d_k=2), TypeError), (dict(d_model=4, d_k=True), TypeError),
    (dict(d_model=4, d_k=2, d_v=0), ValueError), (dict(d_model=4, d_k=2, n_heads=0), ValueError),
    (dict(d_model=4, d_k=2, bias="yes"), TypeError),
])
def test_parameter_count_validation(kwargs, err):
    with pytest.raises(err):
        qkv_parameter_count(**kwargs)
