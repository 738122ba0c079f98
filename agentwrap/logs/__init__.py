"""Saved CI logs to diagnostics (agentwrap normalize)."""
