"""Tests of the leveraging boosters (leveraging/): LLM, LLD, bounded loss, MODABOOST, the losses."""
