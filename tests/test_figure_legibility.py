"""Figure text sizes as displayed: the measure behind the notebook lane's ``figures-legible`` check.

Every figure the notebooks and their widgets draw is checked in the notebook lane (notebooks/conftest.py):
the one execution of each notebook records, through matplotlib's ``FigureCanvasBase.print_figure`` -- the
call behind every inline plot, ``savefig`` and the widgets' PNG frames -- each figure's texts and their
sizes as displayed (:func:`helpers.ui.plotting.displayed_text_sizes`); any text below ``MIN_FONT_PT`` fails.
"""

from __future__ import annotations

from helpers.ui.plotting import displayed_text_sizes


def test_displayed_sizes_shrink_with_wide_figures():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3), dpi=100)
    ax.set_title("title", fontsize=12)
    assert ("title", 12.0) in displayed_text_sizes(fig)
    fig.set_size_inches(18, 3)  # 1800 px wide: shown at half size
    assert ("title", 6.0) in displayed_text_sizes(fig)
    plt.close(fig)
