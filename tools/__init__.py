"""Maintenance tools, run from the repository root as ``python -m tools.<name>``.

* ``tools.fingerprints``: hashes of spe's outputs for fixed seeds; ``--save`` before a
  refactoring and ``--compare`` after it proves that no number changed;
* ``tools.docs_blocks``: regenerates the printed output the README and the user guide
  quote (``--check``: exit 1 when a block is out of date; a test runs it);
* ``tools.api_reference``: regenerates ``docs/api.md`` from the rooms' ``__all__`` lists
  (``--check``: exit 1 when it is stale; a test runs it).
"""
