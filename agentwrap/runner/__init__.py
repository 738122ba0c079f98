"""The only package that spawns processes, reads terminals, or sends signals."""
