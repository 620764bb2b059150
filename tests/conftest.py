"""Shared pytest configuration.

Hypothesis runs derandomized (the same examples every run) so CI never flakes on a
new random draw; set HYPOTHESIS_PROFILE=explore locally to search more widely.
"""

import os
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("ci", derandomize=True, deadline=None, max_examples=60,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("explore", deadline=None, max_examples=1000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(scope="session")
def web_edition(tmp_path_factory):
    """The web edition, built once per run by the maintainer's command (``python -m publish web OUT``,
    widget stills and all) in its own process; ``(folder, the command's stdout)``. Shared by the
    build's tests (tests/test_web_edition_build.py) and the phone-sized browser test
    (tests/browser/test_web_edition.py), so a run builds the site once, not once per file."""
    pytest.importorskip("sphinx", reason='the web edition needs the editions extra: pip install -e ".[editions]"')
    out = tmp_path_factory.mktemp("web") / "site"
    done = subprocess.run([sys.executable, "-m", "publish", "web", str(out)], capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"the build failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return out, done.stdout
