import pytest


@pytest.fixture(scope="session")
def gamma_normal_data():
    """N = 2000 scores from a Gamma/truncated-Normal mixture, 20 labels (read only)."""
    # Imported here, not at the top: pytest-xdist's controller loads this file but runs no
    # test, and tests.helpers imports spe (about a second).
    from tests.helpers import hide_labels, simulate_scores

    z, y = simulate_scores("gamma", "truncnorm", [0.3, 2.0, 0.1, 0.7, 0.1], 2000, seed=11)
    return z, y, hide_labels(y, 20, seed=12)


_FRESH_IMPORT = """
import json, sys, warnings
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always", FutureWarning)
    import spe
print(json.dumps({"future_warnings": [str(w.message) for w in caught if issubclass(w.category, FutureWarning)],
                  "modules": sorted(sys.modules)}))
"""


@pytest.fixture(scope="session")
def fresh_import_of_spe():
    """``import spe`` in a fresh interpreter, run once for the tests that check what it does:
    {"future_warnings": [messages], "modules": [every module it loaded]}."""
    import json
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", _FRESH_IMPORT], check=False, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)
