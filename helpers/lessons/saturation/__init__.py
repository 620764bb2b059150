"""Softmax saturation and the sqrt(d_k) scaling (chapter 2.5), one concern per module:

- :mod:`~helpers.lessons.saturation.view` — pure numbers (arrays in, arrays out): the fixed
  draw, :func:`saturation_state`, the many-seed bank and its medians and rates;
- :mod:`~helpers.lessons.saturation.experiment` — the measured experiments: rates against
  d_k (the explorer's seeds, or many exact draws of the scores), the chapter's table, a tiny
  learning problem;
- :mod:`~helpers.lessons.saturation.widget` — the live explorer and the static figure (they
  only draw).

Notebooks read these names as ``H.saturation.<name>``.
"""

from .experiment import (TrainingRun, draw_scores, learning_trials, learning_trials_many, query_loss_and_grad,
                         sampled_saturation_rates, saturation_rates, saturation_table, train_query)
from .view import (D_K_OPTIONS, D_MAX, DEFAULT_T, INV_TEMP_RANGE, SATURATED, BankSummary, ModeView,
                   SaturationView, bank_summary, fixed_draw, jacobian_norm, saturation_state, score_bank)
from .widget import (PRESETS, SCALED_COLOR, UNSCALED_COLOR, SaturationExplorer, SaturationFigure, bar_verts,
                     encode_jpeg, readout_html, saturation_explorer, score_limit, small_multiples)

__all__ = [
    "D_K_OPTIONS", "D_MAX", "INV_TEMP_RANGE", "DEFAULT_T", "SATURATED", "ModeView", "SaturationView",
    "BankSummary", "jacobian_norm", "fixed_draw", "saturation_state", "score_bank", "bank_summary",
    "saturation_rates", "draw_scores", "sampled_saturation_rates", "saturation_table", "TrainingRun", "query_loss_and_grad", "train_query", "learning_trials", "learning_trials_many",
    "UNSCALED_COLOR", "SCALED_COLOR", "PRESETS", "SaturationFigure", "SaturationExplorer", "saturation_explorer",
    "small_multiples", "score_limit", "bar_verts", "readout_html", "encode_jpeg",
]
