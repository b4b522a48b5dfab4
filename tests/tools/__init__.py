"""Tests of the consumers: the command line, the comparison, the catalog, export, plots, data sets."""
