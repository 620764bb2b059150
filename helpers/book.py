"""The chapter's 4-token worked example (2.8): one import for the notebooks (2.8, 2.12).

The work lives in three modules, one concern each:

- :mod:`helpers.book_printed` — the book's printed numbers as data (digits kept as
  strings, so the printed precision is part of the data) and the example's inputs;
- :mod:`helpers.book_compare` — the same quantities computed exactly, and the
  entry-by-entry comparison with the book (the audit table);
- :mod:`helpers.book_errata` — the counting rule and the errata summary/headline
  that 2.8, 2.12 and the README quote.

This module re-exports their public names.
"""

from .book_compare import *  # noqa: F401,F403
from .book_errata import *  # noqa: F401,F403
from .book_printed import *  # noqa: F401,F403
from . import book_compare, book_errata, book_printed  # noqa: E402

__all__ = [*book_printed.__all__, *book_compare.__all__, *book_errata.__all__]
