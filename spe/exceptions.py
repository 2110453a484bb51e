"""Every error and warning spe raises, defined in one place (as in ``sklearn.exceptions``).

Errors derive from :class:`ValueError` where the cause is a bad value the caller passed,
so ``except ValueError`` keeps working around any spe call.

Examples
--------
>>> import numpy as np
>>> import spe
>>> from spe.exceptions import InputError
>>> try:
...     spe.fit(np.array([0.1, 0.2]), np.array([0.0, 2.0]))
... except ValueError as exc:
...     print(type(exc).__name__)
ValueError
"""

__all__ = [
    "FitError", "InputError", "StateError", "CLIError", "ElicitationStopped",
    "SamplingWarning", "LabelCheckWarning", "InputWarning", "InconsistentAnswersWarning",
]


class FitError(ValueError):
    """The MAP fit failed from every starting point."""


class InputError(ValueError):
    """A table that cannot be read as scores and labels; the message names the place."""


class StateError(ValueError):
    """A state file is unreadable, corrupted, or belongs to another data set."""


class CLIError(Exception):
    """A user-facing error of the command line: printed as one line, exit status 2."""


class ElicitationStopped(Exception):
    """An oracle stopped metric elicitation (``spe elicit``: the user typed q; answers so far are saved)."""


class SamplingWarning(UserWarning):
    """Importance weights were unreliable and a fallback or caveat applies."""


class LabelCheckWarning(UserWarning):
    """A score model that carries weight predicts the labeled items badly."""


class InputWarning(UserWarning):
    """Something in the input was skipped or assumed; the message says what."""


class InconsistentAnswersWarning(UserWarning):
    """Some answers are impossible for any metric of the family (noise, or another family)."""
