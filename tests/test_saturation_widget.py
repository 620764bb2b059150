"""The 2.5 explorer widget and static figure (helpers.saturation_widget): they only draw."""

import itertools
import warnings

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from helpers.ui.plotting import MIN_FONT_PT, displayed_text_sizes  # noqa: E402
from helpers.lessons.saturation.view import D_K_OPTIONS, INV_TEMP_RANGE, bank_summary, saturation_state, score_bank  # noqa: E402
from helpers.lessons.saturation.widget import (PRESETS, SaturationFigure, readout_html, saturation_explorer,  # noqa: E402
                                       small_multiples)

JPEG_MAGIC = b"\xff\xd8"


@pytest.fixture(scope="module")
def bank():
    return score_bank(16, 40)


def test_figure_renders_and_changes_with_the_view(bank):
    fig = SaturationFigure(T=16)
    s = bank_summary(bank, D_K_OPTIONS, 1.0)
    a = fig.render(saturation_state(16, 1.0, True, 0), s)
    b = fig.render(saturation_state(1024, 1.0, False, 0), s)
    assert a.startswith(JPEG_MAGIC) and b.startswith(JPEG_MAGIC) and a != b
    with pytest.raises(ValueError):
        fig.render(saturation_state(16, 1.0, True, 0, T=8), s)


def test_figure_text_is_legible_and_narrow():
    fig = SaturationFigure(T=16).fig
    assert fig.get_figwidth() <= 9
    assert min(size for _, size in displayed_text_sizes(fig)) >= MIN_FONT_PT
    for ax in fig.axes:
        assert ax.get_ylabel()


def test_all_slider_positions_render_without_warnings(bank):
    fig = SaturationFigure()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # matplotlib < 3.10.7 (allowed by the declared range) calls pyparsing's deprecated
        # camelCase API inside mathtext; that is matplotlib's warning, not the explorer's.
        warnings.filterwarnings("ignore", r"'\w+' (argument is )?deprecated", DeprecationWarning)
        with np.errstate(all="raise", under="ignore"):
            for inv_temp in INV_TEMP_RANGE:
                s = bank_summary(bank, D_K_OPTIONS, inv_temp)
                for d_k, divide in itertools.product(D_K_OPTIONS, (False, True)):
                    v = saturation_state(d_k, inv_temp, divide, 0)
                    assert fig.render(v, s).startswith(JPEG_MAGIC)
                    html = readout_html(v, s, 40)
                    assert "nan" not in html.lower() and "inf" not in html.lower()
    assert fig.n_full_draws <= 10  # one background per score-axis limit (1, 2, 5, 10, ...), not per move


def test_widget_controls_update_the_image_and_readout():
    ex = saturation_explorer(d_k=16, divide=True, seed=0)
    before = bytes(ex.image.value)
    assert before.startswith(JPEG_MAGIC)
    ex.d_k_slider.value = 1024
    assert ex.view.d_k == 1024 and bytes(ex.image.value) != before
    after = bytes(ex.image.value)
    ex.divide_checkbox.value = False
    assert ex.view.divide is False and bytes(ex.image.value) != after
    after = bytes(ex.image.value)
    ex.inv_temp_slider.value = 5.0
    assert ex.view.inv_temp == pytest.approx(5.0) and bytes(ex.image.value) != after
    assert ex.summary.inv_temp == pytest.approx(5.0)
    ex.seed_input.value = 7
    assert ex.view.seed == 7
    assert "最大权重" in ex.readout.value and "中位数" in ex.readout.value
    assert "1/τ" in ex.inv_temp_slider.description
    assert list(ex.d_k_slider.options) == list(D_K_OPTIONS)


def test_presets_and_reset():
    ex = saturation_explorer(d_k=64, inv_temp=1.0, divide=False, seed=3)
    for button, (name, (d_k, inv_temp, divide)) in zip(ex.preset_buttons, PRESETS.items()):
        button.click()
        assert (ex.view.d_k, ex.view.inv_temp, ex.view.divide) == (d_k, pytest.approx(inv_temp), divide), name
        assert ex.view.seed == 3
    ex.seed_input.value = 9
    ex.reset_button.click()
    assert (ex.view.d_k, ex.view.inv_temp, ex.view.divide, ex.view.seed) == (64, 1.0, False, 3)


def test_widget_rejects_values_off_the_sliders():
    with pytest.raises(ValueError):
        saturation_explorer(d_k=100)
    with pytest.raises(ValueError):
        saturation_explorer(inv_temp=50.0)


def test_small_multiples_draw():
    import matplotlib.pyplot as plt

    fig = small_multiples((16, 1024), T=8)
    # two axes (unscaled above, scaled below), one group of T bars per d_k, labelled with its d_k
    assert len(fig.axes) == 2 and fig.get_figwidth() <= 9
    assert [len(ax.collections[0].get_paths()) for ax in fig.axes] == [2 * 8, 2 * 8]
    assert [t.get_text() for t in fig.axes[1].get_xticklabels()] == ["$d_k$ = 16", "$d_k$ = 1024"]
    # each group's largest weight is written over it: unscaled is sharper than scaled at d_k = 1024
    (u16, u1024), (s16, s1024) = ([float(t.get_text().split()[1]) for t in ax.texts] for ax in fig.axes)
    assert u1024 > s1024 and min(u16, u1024, s16, s1024) >= 1 / 8
    # the lower axes show the weights of the scaled scores, not "weight / sqrt(d_k)" (issue 20)
    assert "分数" in fig.axes[1].get_ylabel() and "分数" in fig.axes[0].get_ylabel()
    # fresh-eyes review: the dotted line at 1/T was explained nowhere in the figure or its caption
    for ax in fig.axes:
        ys = [seg[:, 1] for c in ax.collections[1:] for seg in c.get_segments()]
        assert len(ys) == 2 and np.allclose(ys, 1 / 8)            # one dotted line per group, at 1/T
    assert "点线：均匀 1/8" in fig._suptitle.get_text()
    assert min(size for _, size in displayed_text_sizes(fig)) >= MIN_FONT_PT
    plt.close(fig)


def test_benchmark_naive_baseline_draws_and_closes():
    import matplotlib.pyplot as plt

    from benchmarks.explorer import naive_figure_png

    n_before = len(plt.get_fignums())
    png = naive_figure_png(saturation_state(64, 1.0, False, 0), bank_summary(score_bank(16, 5), D_K_OPTIONS, 1.0))
    assert png.startswith(b"\x89PNG") and len(plt.get_fignums()) == n_before


def test_legend_sits_above_the_panels_and_names_the_ghost_bars():
    # inside the weights panel the legend hid the tallest bars (keys 1-2 at weight ~1)
    fig = SaturationFigure(T=16)
    fig.canvas.draw()
    assert not any(ax.get_legend() for ax in fig.fig.axes)
    (legend,) = fig.fig.legends
    labels = [t.get_text() for t in legend.get_texts()]
    assert "未缩放" in labels and any("空心" in s for s in labels)
    box = legend.get_window_extent(fig.canvas.get_renderer())
    for ax in fig.fig.axes:
        assert box.y0 >= ax.get_tightbbox(fig.canvas.get_renderer()).y1 - 1


def test_score_axis_fits_the_chosen_mode(bank):
    # divided by sqrt(d_k), the band and bars must stay readable at d_k = 1024 (the hollow unscaled bars,
    # ~30x larger, may run off the axis); unscaled, the axis still holds every unscaled bar
    fig = SaturationFigure(T=16)
    s = bank_summary(bank, D_K_OPTIONS, 1.0)
    for d_k in (1, 64, 1024):
        v = saturation_state(d_k, 1.0, True, 0)
        fig.render(v, s)
        lo, hi = fig.ax_s.get_ylim()
        assert hi <= 5 * max(np.abs(v.scaled.scores).max(), 1.0) and hi >= np.abs(v.scaled.scores).max()
        v = saturation_state(d_k, 1.0, False, 0)
        fig.render(v, s)
        assert fig.ax_s.get_ylim()[1] >= np.abs(v.unscaled.scores).max()


def test_the_readout_names_where_the_median_curve_is_in_each_layout():
    # full layout: the median curves are the lower-left panel; the 720p lecture layout shows two panels, the
    # median curves on the right (a deck review found the lecture readout still saying lower left)
    full = saturation_explorer(d_k=64, layout="full")
    lecture = saturation_explorer(d_k=64, layout="lecture")
    assert "（左下曲线）" in full.readout.value and "右侧" not in full.readout.value
    assert "（右侧曲线）" in lecture.readout.value and "左下" not in lecture.readout.value


def test_every_chinese_label_has_its_glyphs(caplog):
    """Chinese inside a mathtext string ("分数 $/\\sqrt{d_k}$") is drawn in the maths font, which has no CJK: a box,
    logged ("does not have a glyph"), not warned. Every text of both figures draws with no missing glyph."""
    import logging

    import matplotlib.pyplot as plt

    with warnings.catch_warnings(), caplog.at_level(logging.WARNING, logger="matplotlib"):
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", r"'\w+' (argument is )?deprecated", DeprecationWarning)  # matplotlib's, see above
        for fig in (SaturationFigure(T=16).fig, small_multiples((16, 1024), T=8)):
            fig.canvas.draw()
            plt.close(fig)
    assert not [r.getMessage() for r in caplog.records if "glyph" in r.getMessage()]
