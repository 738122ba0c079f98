"""The safe-mutation protocol of CONTRACT section 9: read-only enforcement, the tools' own dry runs,
idempotency keys, plans that are applied only while the state they read still holds, and what a
mutating program may have left behind when it was stopped."""
