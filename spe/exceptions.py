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
    """The MAP fit failed from every starting point.

    Raised by :func:`spe.fit` (and the score-model fits under it) when no score model
    could be fitted; the message joins each model's reason.

    See Also
    --------
    spe.mixture.fit_map : the multistart MAP search that can fail.

    Examples
    --------
    >>> from spe.exceptions import FitError
    >>> issubclass(FitError, ValueError)
    True
    >>> try:
    ...     raise FitError("mixture: no start converged")
    ... except ValueError as exc:
    ...     print(exc)
    mixture: no start converged
    """


class InputError(ValueError):
    """A table that cannot be read as scores and labels; the message names the place.

    See Also
    --------
    InputWarning : something in the input was skipped or assumed, not refused.

    Examples
    --------
    >>> from spe.exceptions import InputError
    >>> from spe.scores import load_scores
    >>> try:
    ...     load_scores("no-such-file.csv", "score")
    ... except InputError as exc:
    ...     print(exc)
    file not found: no-such-file.csv
    """


class StateError(ValueError):
    """A state file is unreadable, corrupted, or belongs to another data set.

    Raised when ``spe label`` (or :class:`spe.assessment.Assessor`) resumes from a state
    file; the file is left untouched.

    Examples
    --------
    >>> from spe.exceptions import StateError
    >>> issubclass(StateError, ValueError)
    True
    """


class CLIError(Exception):
    """A user-facing error of the command line: printed as one line, exit status 2.

    Examples
    --------
    :func:`spe.cli.main` catches it, prints ``spe: error: ...`` to standard error and
    returns 2:

    >>> from spe.cli import main
    >>> main(["fit", "no-such-file.csv", "--score-col", "score"])
    2
    """


class ElicitationStopped(Exception):
    """An oracle stopped metric elicitation (``spe elicit``: the user typed q; answers so far are saved).

    Examples
    --------
    An oracle (a callable answering comparisons) raises it to end the session:

    >>> from spe.exceptions import ElicitationStopped
    >>> def oracle(a, b):
    ...     raise ElicitationStopped
    >>> try:
    ...     oracle(None, None)
    ... except ElicitationStopped:
    ...     print("stopped; answers so far kept")
    stopped; answers so far kept
    """


class SamplingWarning(UserWarning):
    """Importance weights were unreliable and a fallback or caveat applies.

    See Also
    --------
    spe.sampling.psis : the Pareto k-hat diagnostic behind it.

    Examples
    --------
    >>> import warnings
    >>> from spe.exceptions import SamplingWarning
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", SamplingWarning)  # silence it around a call
    """


class LabelCheckWarning(UserWarning):
    """A score model that carries weight predicts the labeled items badly.

    See Also
    --------
    spe.pooling.check_labels, spe.pooling.warn_if_contradicted

    Examples
    --------
    >>> import warnings
    >>> from spe.exceptions import LabelCheckWarning
    >>> from spe.pooling import LabelCheck, warn_if_contradicted
    >>> bad = LabelCheck(observed=9, expected=1.2, lower=0, upper=3, p_value=0.001, n_labeled=10)
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_if_contradicted({"mixture": bad}, {"mixture": 0.8})
    >>> caught[0].category.__name__
    'LabelCheckWarning'
    """


class InputWarning(UserWarning):
    """Something in the input was skipped or assumed; the message says what.

    Examples
    --------
    Rows with a blank score are skipped when a table is read, with this warning:

    >>> import warnings
    >>> from spe.exceptions import InputWarning
    >>> issubclass(InputWarning, UserWarning)
    True
    """


class InconsistentAnswersWarning(UserWarning):
    """Some answers are impossible for any metric of the family (noise, or another family).

    See Also
    --------
    spe.elicitation.elicit_metric

    Examples
    --------
    >>> from spe.exceptions import InconsistentAnswersWarning
    >>> issubclass(InconsistentAnswersWarning, UserWarning)
    True
    """
