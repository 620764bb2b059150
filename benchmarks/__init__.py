"""Benchmarks (plain scripts that print numbers; tests never assert on timings)."""
