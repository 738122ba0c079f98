"""Renderers: one envelope, several views (json, pretty, problem, jsonl)."""
