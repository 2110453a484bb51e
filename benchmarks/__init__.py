"""spe's benchmarks, run from the repository root as ``python -m benchmarks.<name>``: see
benchmarks/README.md (what each answers, its run time, what it writes)."""
