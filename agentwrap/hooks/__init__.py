"""Agent hosts' command hooks: reading their JSON, deciding what can be routed through agentwrap."""
