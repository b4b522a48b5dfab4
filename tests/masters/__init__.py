"""Tests of the masters (masters/): each formulation against an independent statement of its problem."""
