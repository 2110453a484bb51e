"""``python -m spe ...``: the ``spe`` command."""

import sys

from .cli import main

sys.exit(main())
