"""``python -m spe.cli ...``: the ``spe`` command."""

import sys

from . import main

sys.exit(main())
