"""The browser edition's other half of the notebooks (``test_browser_edition.py`` runs the first half and the
site's structure): a file of its own, so that pytest-xdist (``--dist loadfile``) runs the two halves side by
side, about 30 s a notebook in Pyodide each. Both share one site build (``site_dir`` builds it once per run)."""

from __future__ import annotations

import pytest
from test_browser_edition import SERIES, builder, lite_context, run_as_committed, site, site_dir  # noqa: F401 (fixtures)

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("name", SERIES[1::2])
def test_notebook_runs_as_committed(lite_context, site, site_dir, widget_budget_s, name):  # noqa: F811 (fixtures)
    run_as_committed(lite_context, site, site_dir, widget_budget_s, name)


def test_the_two_halves_cover_the_series():
    assert sorted(SERIES[0::2] + SERIES[1::2]) == SERIES and len(SERIES) >= 14
