"""The causal view of 2.10: the pure causal_view_state() and the widget that only draws."""

import warnings

import matplotlib
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from helpers import causal_mask, scaled_dot_product_attention
from helpers.lessons.causal_view import CausalViewPlot, causal_view_state, causal_widget

matplotlib.use("Agg")


def causal_weights(T, seed=0):
    X = np.random.default_rng(seed).normal(size=(T, 3))
    return scaled_dot_product_attention(X, X, X, mask=causal_mask(T)).weights


def test_causal_view_state_hand_checked_lower_triangular_example():
    A = np.array([[1.0, 0.0, 0.0], [0.25, 0.75, 0.0], [0.5, 0.2, 0.3]])
    v = causal_view_state(2, A)
    assert v.t == 2
    assert v.visible.tolist() == [0, 1] and v.hidden.tolist() == [2]
    assert v.allowed.tolist() == [True, True, False]
    assert v.row.tolist() == [0.25, 0.75, 0.0]
    assert v.leaked == 0.0


@pytest.mark.parametrize("T", [1, 2, 5, 9])
def test_first_and_last_positions(T):
    A = causal_weights(T)
    first, last = causal_view_state(1, A), causal_view_state(T, A)
    assert first.visible.tolist() == [0] and first.hidden.tolist() == list(range(1, T))
    assert first.row[0] == 1.0  # token 1 can only attend to itself
    assert last.visible.tolist() == list(range(T)) and last.hidden.size == 0
    assert last.leaked == 0.0 and np.array_equal(last.row, A[-1])


def test_visible_count_grows_by_one_and_matches_the_mask():
    T = 6
    A = causal_weights(T)
    allowed = causal_mask(T, boolean=True)
    for t in range(1, T + 1):
        v = causal_view_state(t, A)
        assert v.visible.size == t and v.visible.size + v.hidden.size == T
        assert np.array_equal(v.allowed, allowed[t - 1])
        assert v.leaked == 0.0


def test_bidirectional_weights_report_their_leak():
    A = np.full((4, 4), 0.25)
    assert causal_view_state(1, A).leaked == pytest.approx(0.75)
    assert causal_view_state(3, A).leaked == pytest.approx(0.25)
    assert causal_view_state(4, A).leaked == 0.0


def test_causal_view_state_returns_a_copy_of_the_row():
    A = causal_weights(3)
    v = causal_view_state(3, A)
    v.row[:] = 0
    assert A[2].sum() == pytest.approx(1.0)


@pytest.mark.parametrize("t", [0, 5, -1])
def test_out_of_range_position(t):
    with pytest.raises(ValueError, match="1..T = 1..4"):
        causal_view_state(t, causal_weights(4))


@pytest.mark.parametrize("t", [1.0, True, "2"])
def test_non_integer_position(t):
    with pytest.raises(TypeError, match="t must be an integer"):
        causal_view_state(t, causal_weights(4))


@pytest.mark.parametrize("bad, msg", [
    (np.ones((2, 3)) / 3, "square"),
    (np.ones((3, 3)), "summing to 1"),
    (np.array([[1.5, -0.5], [0.5, 0.5]]), "non-negative"),
    (np.ones(3), "2-D"),
])
def test_bad_weights(bad, msg):
    with pytest.raises(ValueError, match=msg):
        causal_view_state(1, bad)


def test_plot_updates_in_place_without_new_artists_or_warnings():
    T = 5
    A = causal_weights(T)
    fig = Figure()
    FigureCanvasAgg(fig)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plot = CausalViewPlot(A, list("abcde"), fig=fig, t=1)
        n_axes, n_patches = len(fig.axes), len(plot.ax_bar.patches)
        for t in (T, 1, 3, T):
            view = plot.update(t)
            fig.canvas.draw()
            assert view.t == t
            heights = [b.get_height() for b in plot.bars]
            assert np.array_equal(heights, A[t - 1])
            assert plot.row_box.get_y() == t - 1.5
            assert plot.future.get_width() == T - t
            assert plot.future_text.get_visible() == (t < T)
    assert len(fig.axes) == n_axes and len(plot.ax_bar.patches) == n_patches


def test_plot_rejects_wrong_number_of_labels():
    fig = Figure()
    with pytest.raises(ValueError, match="one entry per token"):
        CausalViewPlot(causal_weights(3), ["a", "b"], fig=fig)


def test_the_heatmap_annotations_can_be_turned_off_and_the_argument_is_checked():
    # The lecture deck's slider (2.10 on a slide) draws no numbers in the heatmap: annotate=False.
    assert CausalViewPlot(causal_weights(4), list("abcd"), fig=Figure()).ax_map.texts        # default: T <= 8
    assert not CausalViewPlot(causal_weights(4), list("abcd"), fig=Figure(), annotate=False).ax_map.texts
    assert not causal_widget(causal_weights(4), list("abcd"), annotate=False).plot.ax_map.texts
    with pytest.raises(TypeError, match="annotate"):
        CausalViewPlot(causal_weights(4), list("abcd"), fig=Figure(), annotate="no")


def test_widget_slider_redraws_the_same_figure():
    T = 4
    A = causal_weights(T)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        box = causal_widget(A, ["w1", "w2", "w3", "w4"])
        slider, image, caption = box.children
        fig = box.plot.fig
        assert slider.min == 1 and slider.max == T and slider.value == 1
        first = image.value
        assert first[:8] == b"\x89PNG\r\n\x1a\n"
        assert "能看到：<b>w1</b>" in caption.value  # the readout is Chinese, like the notebook
        slider.value = T
        assert image.value != first and box.plot.fig is fig
        assert "w1, w2, w3, w4" in caption.value
        slider.value = 1
        assert box.plot.view.t == 1


@given(st.integers(1, 12), st.data())
def test_causal_view_state_partitions_the_keys_for_any_position(T, data):
    t = data.draw(st.integers(1, T))
    A = causal_weights(T, seed=T)
    v = causal_view_state(t, A)
    assert np.array_equal(np.sort(np.concatenate([v.visible, v.hidden])), np.arange(T))
    assert np.all(v.visible < t) and np.all(v.hidden >= t)       # 0-based index j is token j+1
    assert v.leaked == 0.0 and np.isclose(v.row[v.visible].sum(), 1.0)


def test_widget_caption_escapes_token_labels():
    box = causal_widget(causal_weights(2), ["<s>", "a&b"], t=2)
    caption = box.children[2].value
    assert "&lt;s&gt;, a&amp;b" in caption and "<s>" not in caption


def test_the_old_generic_name_is_gone():
    import helpers.lessons.causal_view as cv

    assert not hasattr(cv, "compute") and "causal_view_state" in cv.__all__


def test_a_note_says_where_the_weights_come_from_above_both_panels():
    # 2.10 draws random-projection weights: the figure (static and slider) must say they carry no meaning
    note = "随机 W_Q、W_K 算出的权重（无语义）"
    box = causal_widget(causal_weights(4), ["w1", "w2", "w3", "w4"], t=2, note=note)
    fig = box.plot.fig
    assert fig._suptitle is not None and fig._suptitle.get_text() == note
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    top = fig._suptitle.get_window_extent(renderer)
    for ax in fig.axes:                          # above every panel and its title, inside the figure
        assert top.y0 >= ax.get_tightbbox(renderer).y1 - 1
    assert top.y1 <= fig.bbox.y1 + 1
    fig2 = Figure()
    FigureCanvasAgg(fig2)
    assert CausalViewPlot(causal_weights(3), list("abc"), fig=fig2).fig._suptitle is None   # no note unless asked
