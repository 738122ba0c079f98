"""Durable operations (CONTRACT section 8): a run with an identity that outlives the process that
started it. `store` keeps each operation's folder, `launch` starts one, `supervisor` runs it,
`liveness` tells a running operation from a lost one."""
