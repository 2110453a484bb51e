"""Warnings and errors spe raises, importable from one place (as in ``sklearn.exceptions``)."""


class SamplingWarning(UserWarning):
    """Importance weights were unreliable and a fallback or caveat applies."""
