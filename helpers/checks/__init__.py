"""Self-checks for the exercises: ``from helpers.checks import check_softmax``.

Each ``check_*`` runs a learner's function (or value) on hidden cases and prints
a pass line, or the first failing case with a hint. It never prints the answer.
"""

from .core import Case, CheckResult, check_array, run_check
from .softmax_checks import check_softmax

__all__ = ["Case", "CheckResult", "check_array", "run_check", "check_softmax"]
