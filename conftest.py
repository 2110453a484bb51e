"""pytest configuration shared by the tests and the doctests of ``spe``.

Docstring examples follow the numpydoc convention: ``numpy as np`` and ``spe`` are
imported, and NumPy prints scalars the legacy way (``0.5``, not ``np.float64(0.5)``).
"""

import os

# One BLAS and OpenMP thread per test process: pytest-xdist already runs a worker per core,
# and tests that call numerical code below spe.fit (which bounds BLAS itself) or start
# Python subprocesses would otherwise run a thread pool per worker on top of it. The
# variables reach the workers and the subprocesses started after this; threadpoolctl
# bounds the pools already loaded.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

threadpool_limits(limits=1)

collect_ignore_glob = ["spe/**/__main__.py", "spe/__main__.py", "docs/*", "examples/*", "benchmarks/*", "tools/*"]


@pytest.fixture(autouse=True)
def _doctest_namespace(doctest_namespace):
    import spe

    doctest_namespace["np"] = np
    doctest_namespace["spe"] = spe
    with np.printoptions(legacy="1.25"):
        yield
