"""Shell command lines: parsed by a real grammar, run by the real bash, read per command (CONTRACT 10)."""
