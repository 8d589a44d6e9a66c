"""Benchmarks and evaluations of curator (run them with `python -m evals.bench`)."""
