"""``python -m helpers.model fetch|check|path``: fetch, verify or locate all-MiniLM-L6-v2's files."""

import sys

from .cache import main

sys.exit(main())
