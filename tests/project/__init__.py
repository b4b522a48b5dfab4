"""Tests of the project as a whole: docs pages, recipes, layering, packaging, the studies."""
