"""What the benchmarks share: import the module that holds the name.

* ``benchmarks.harness.metrics``: the truth's metrics and interval scores (PR-curve area,
  band coverage, interval score, exact AP / AUROC / accuracy / ECE, Beta intervals);
* ``benchmarks.harness.cases``: the real score sets (``../shared/data``, or
  ``$SPE_SHARED_DATA``) and the digits cases, subsampled and seeded; SSME's split;
* ``benchmarks.harness.fits``: the methods' fit options, a quiet ``spe.fit``, ssme-lite;
* ``benchmarks.harness.report``: Markdown tables, marked blocks in RESULTS.md and the
  docs, run stamps (date, commit, package versions).
"""
