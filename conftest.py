"""pytest configuration shared by the tests and the doctests of ``spe``.

Docstring examples follow the numpydoc convention: ``numpy as np`` and ``spe`` are
imported, and NumPy prints scalars the legacy way (``0.5``, not ``np.float64(0.5)``).
"""

import numpy as np
import pytest

collect_ignore_glob = ["spe/**/__main__.py", "spe/__main__.py", "docs/*", "examples/*", "benchmarks/*", "tools/*"]


@pytest.fixture(autouse=True)
def _doctest_namespace(doctest_namespace):
    import spe

    doctest_namespace["np"] = np
    doctest_namespace["spe"] = spe
    with np.printoptions(legacy="1.25"):
        yield
