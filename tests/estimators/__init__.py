"""Tests of the scikit-learn classifiers over column generation (estimators/)."""
