"""Specifications of the grounding engine."""
