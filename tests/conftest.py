"""Shared pytest configuration.

Hypothesis runs derandomized (the same examples every run) so CI never flakes on a
new random draw; set HYPOTHESIS_PROFILE=explore locally to search more widely.
"""

import os

from hypothesis import HealthCheck, settings

settings.register_profile("ci", derandomize=True, deadline=None, max_examples=60,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("explore", deadline=None, max_examples=1000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
