"""Tests of the loop (colgen/): column generation against the full problem, its options, paths and pools."""
