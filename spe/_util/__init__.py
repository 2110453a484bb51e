"""Small helpers every room may use: seeds, BLAS threads, progress bars, state files."""
