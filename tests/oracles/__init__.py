"""Tests of the pricing oracles (oracles/): exact ones against brute force."""
