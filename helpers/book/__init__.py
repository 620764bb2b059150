"""The chapter's 4-token worked example as the book prints it, recomputed and audited (2.8, 2.12).

- :mod:`helpers.book.printed` — the book's printed numbers as data (digits kept as strings,
  so the printed precision is part of the data) and the example's inputs;
- :mod:`helpers.book.compare` — the same quantities computed exactly, and the entry-by-entry
  comparison with the book (the audit table);
- :mod:`helpers.book.errata` — the counting rule and the errata summary/headline that 2.8,
  2.12 and the README quote.

Notebooks read these names as ``H.book.<name>``.
"""

from .compare import (BookEntry, agrees_up_to_rounding, book_chain_values, compare_with_book, disagreements,
                      entry_name, exact_values, format_table, pad, CAUSE_TEXT)
from .errata import (ERRATA_RULE, ErrataSummary, ErrataValue, Slip, classify_entries, errata_headline,
                     errata_summary, errata_values, slip_count)
from .printed import BOOK_QUANTITIES, GIVEN_KEYS, BookQuantity, book_array, example_inputs, printed_decimals

__all__ = [
    "BookQuantity", "BOOK_QUANTITIES", "GIVEN_KEYS", "example_inputs", "printed_decimals", "book_array",
    "BookEntry", "exact_values", "book_chain_values", "agrees_up_to_rounding", "compare_with_book",
    "disagreements", "entry_name", "format_table", "pad", "CAUSE_TEXT",
    "ERRATA_RULE", "ErrataValue", "Slip", "ErrataSummary", "classify_entries", "errata_values",
    "errata_summary", "errata_headline", "slip_count",
]
