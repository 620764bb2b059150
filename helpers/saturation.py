"""Softmax saturation and the sqrt(d_k) scaling (chapter 2.5): one import for the notebook.

The work lives in three modules, one concern each:

- :mod:`helpers.saturation_view` — pure numbers (arrays in, arrays out): the fixed draw,
  :func:`saturation_state`, the many-seed bank and its medians and rates;
- :mod:`helpers.saturation_experiment` — the measured experiments: rates against d_k,
  the chapter's table, a tiny learning problem;
- :mod:`helpers.saturation_widget` — the live explorer and the static figure (they only draw).

This module re-exports their public names.
"""

from .saturation_experiment import *  # noqa: F401,F403
from .saturation_view import *  # noqa: F401,F403
from .saturation_widget import *  # noqa: F401,F403
from . import saturation_experiment, saturation_view, saturation_widget  # noqa: E402

__all__ = [*saturation_view.__all__, *saturation_experiment.__all__, *saturation_widget.__all__]
