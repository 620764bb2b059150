"""Self-checks for the exercises: ``from helpers.checks import check_softmax`` (every check).

Each ``check_*`` runs a learner's function (or value) on hidden cases and prints
a pass line, or the first failing case with a hint (in Chinese). It never prints the answer.
Every module below lists its checks in ``__all__``; a test keeps this file complete.
"""

from .core import *  # noqa: F401,F403  (Case, CheckResult, run_check, check_array)
from .block_norms import *  # noqa: F401,F403
from .capstone import *  # noqa: F401,F403
from .causal_bug_hunt import *  # noqa: F401,F403
from .causal_example import *  # noqa: F401,F403
from .decode import *  # noqa: F401,F403
from .heads import *  # noqa: F401,F403
from .lookup import *  # noqa: F401,F403
from .masking import *  # noqa: F401,F403
from .position_bias import *  # noqa: F401,F403
from .masked_softmax import *  # noqa: F401,F403
from .padding import *  # noqa: F401,F403
from .score_scale import *  # noqa: F401,F403
from .score_shift import *  # noqa: F401,F403
from .projections import *  # noqa: F401,F403
from .properties import *  # noqa: F401,F403
from .real_model_checks import *  # noqa: F401,F403
from .reparam import *  # noqa: F401,F403
from .saturation import *  # noqa: F401,F403
from .softmax_checks import *  # noqa: F401,F403
from .temperature import *  # noqa: F401,F403
from .whole_formula import *  # noqa: F401,F403
from .worked_example import *  # noqa: F401,F403
from .written_test import *  # noqa: F401,F403

from . import (block_norms, capstone, causal_bug_hunt, causal_example, core, decode, heads, lookup, masked_softmax, masking, padding, position_bias, projections, properties, real_model_checks,  # noqa: E402
               reparam, saturation, score_scale, score_shift, softmax_checks, temperature, whole_formula, worked_example, written_test)

__all__ = sorted({name for mod in (block_norms, core, capstone, causal_bug_hunt, causal_example, position_bias, decode, heads, lookup, masked_softmax, masking, padding, projections, properties,
                                   real_model_checks, reparam, saturation, score_scale, score_shift, softmax_checks, temperature, whole_formula, worked_example, written_test)
                  for name in mod.__all__})
