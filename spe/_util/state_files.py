"""Session state on disk that never loses an answer: atomic replacement under a lock.

Saving writes a temporary file in the same folder, fsyncs it and renames it over the old
one, so a crash leaves either the old file or the new one, never half of one. The lock
(``STATE.lock``, exclusive) lets a saver merge answers another process saved meanwhile.
Used by labeling sessions (:mod:`spe.assessment`) and elicitation sessions.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


@contextlib.contextmanager
def locked(path: Path):
    """Hold an exclusive lock on ``STATE.lock``, and remove that file when done.

    The lock file is unlinked while still held, so none is left behind. A process that
    was waiting on the unlinked file then holds a lock nobody else can see: it checks that
    the path still names the file it locked and, if not, starts again.
    """
    lock = path.with_name(path.name + ".lock")
    try:
        import fcntl
    except ImportError:  # pragma: no cover - non-POSIX: atomic rename still protects the file
        yield
        return
    while True:
        fh = open(lock, "a+")
        try:
            fcntl.flock(fh, fcntl.LOCK_EX)
            try:
                same = os.stat(lock).st_ino == os.fstat(fh.fileno()).st_ino
            except FileNotFoundError:
                same = False
            if same:
                try:
                    yield
                finally:
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(lock)
                return
        finally:
            fh.close()


def atomic_write(path: Path, text: str):
    """Replace ``path`` with ``text`` atomically (temporary file, fsync, rename)."""
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise

