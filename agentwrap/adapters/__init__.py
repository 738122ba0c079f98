"""Built-in adapters, one module or TOML file per tool family."""
