"""Benchmarks (plain scripts that print numbers and write them to benchmarks/results.md; tests never assert on timings)."""
