"""Which outputs and values a local terraform state marks sensitive, for `terraform output NAME`, `show`
and `state show` (whose text prints a value the state marks sensitive in clear wherever the provider copied
it into an attribute it does not mark: terraform_data's `output`).

`output -raw NAME` (and `output NAME`, `output -json NAME`) prints one value bare: nothing in the text says
the configuration marked it sensitive. The state the command read does say it (`"sensitive": true` beside the
value). `output` changes nothing, so the state read after the run is the one the program read. Live runs only
(`CapturedRun.cwd`): a replayed fixture's folder is not this machine's.

The state is found as terraform finds a local one: `-chdir=DIR`, then `output -state=PATH`, else the
backend saved by `init` (`.terraform/terraform.tfstate`: a `local` backend's `path` and `workspace_dir`),
the selected workspace (`TF_WORKSPACE`, `.terraform/environment`), `terraform.tfstate` by default. A remote
backend, a data dir moved by `TF_DATA_DIR`, or a state that is not plain JSON (OpenTofu's encrypted one)
leave it unknown: `None`, and the caller treats the printed value as secret.
"""

from __future__ import annotations

import json
import os
from typing import Any

MAX_STATE_BYTES = 64 << 20


def outputs(argv: tuple[str, ...], cwd: str) -> dict[str, Any] | None:
    """The state's `outputs` ({name: {"value", "sensitive", ...}}), or None when it cannot be read for sure."""
    state = document(argv, cwd)
    found = state.get("outputs") if isinstance(state, dict) else None
    return found if isinstance(found, dict) else None


def document(argv: tuple[str, ...], cwd: str) -> Any:
    """The whole local state the command read (`show`, `state show` print its values), or None."""
    if os.environ.get("TF_DATA_DIR"):
        return None
    base, rest = cwd, list(argv[1:])
    while rest and rest[0].startswith("-"):  # global options come before the subcommand
        option = rest.pop(0)
        if option.startswith("-chdir="):
            base = os.path.join(base, option.removeprefix("-chdir="))
    path = _option(rest, "-state")
    path = os.path.join(base, path) if path else _default_state(base)
    return _read_json(path) if path else None


def _option(args: list[str], name: str) -> str | None:
    for i, arg in enumerate(args):
        if not arg.startswith("-"):
            continue  # a word (`state show`'s `state`) is no option
        if arg.lstrip("-") == name.lstrip("-") and i + 1 < len(args):
            return args[i + 1]
        if arg.partition("=")[0].lstrip("-") == name.lstrip("-") and "=" in arg:
            return arg.partition("=")[2]
    return None


def _default_state(base: str) -> str | None:
    data_dir = os.path.join(base, ".terraform")
    backend = _read_json(os.path.join(data_dir, "terraform.tfstate"))
    config: dict[str, Any] = {}
    if backend is not None:
        saved = backend.get("backend") if isinstance(backend, dict) else None
        if not isinstance(saved, dict) or saved.get("type") != "local":
            return None  # a remote backend: the state is not in this folder
        saved_config = saved.get("config")
        config = saved_config if isinstance(saved_config, dict) else {}
    elif os.path.exists(os.path.join(data_dir, "terraform.tfstate")):
        return None  # there, but unreadable: which backend is not known
    workspace = os.environ.get("TF_WORKSPACE") or _read_text(os.path.join(data_dir, "environment")) or "default"
    if workspace != "default":
        return os.path.join(base, config.get("workspace_dir") or "terraform.tfstate.d", workspace,
                            "terraform.tfstate")
    return os.path.join(base, config.get("path") or "terraform.tfstate")


def _read_text(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read(4096).strip() or None
    except (OSError, UnicodeDecodeError):
        return None


def _read_json(path: str) -> Any:
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_STATE_BYTES + 1)
        return None if len(data) > MAX_STATE_BYTES else json.loads(data)
    except (OSError, ValueError):
        return None
