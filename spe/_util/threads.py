"""One BLAS thread inside the hot loops.

The fit evaluates many small batched matrix products, where multi-threaded BLAS can only
contend for the cores on a busy machine (``benchmarks/threads.py`` measures both).
``threadpoolctl`` bounds the BLAS pool for the duration of a call and restores it
afterwards. The environment variable
``SPE_BLAS_THREADS`` sets another bound (an integer), or ``default`` for no bound
(``benchmarks/threads.py`` compares the two).
"""

from __future__ import annotations

import contextlib
import functools
import os

from threadpoolctl import threadpool_limits


def blas_limit():
    """The bound in force: an int, or None for BLAS's own default."""
    value = os.environ.get("SPE_BLAS_THREADS", "1").strip().lower()
    if value == "default":
        return None
    try:
        return max(1, int(value))
    except ValueError:
        raise ValueError(f"SPE_BLAS_THREADS must be a positive integer or 'default', got {value!r}") from None


def one_blas_thread(fn):
    """Decorator: run ``fn`` with the BLAS thread pool bounded (one thread by default)."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        limit = blas_limit()
        ctx = contextlib.nullcontext() if limit is None else threadpool_limits(limits=limit, user_api="blas")
        with ctx:
            return fn(*args, **kwargs)

    return wrapper
