"""Edit another program's configuration file as a plan and an apply, and undo it byte for byte.

A `Plan` is the file's bytes now and after; nothing is written until `apply`. Applying backs the old
bytes up and records them in agentwrap's state folder (`init/` in `agentwrap.state`) with the digest
of what it wrote, then replaces the file atomically (a temporary file in the same folder, fsync,
rename; a symlinked file is written through to its target). Undoing (`plan_removal`) restores the
recorded bytes exactly when the file is still what agentwrap wrote; when it was edited since, only
agentwrap's own entry is taken out and the rest of the edit is kept.

Three kinds of edit: an entry appended to a list inside a JSON file the host shares with the user
(every other key kept, the file's indentation kept), a whole file of agentwrap's own, and a marked
block appended to a text file (AGENTS.md). Whatever agentwrap did not write is never overwritten:
such a plan raises `ConfigConflict` and nothing changes.
"""

from __future__ import annotations

import base64
import contextlib
import difflib
import hashlib
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentwrap import jsonsplice
from agentwrap.errors import AgentwrapError
from agentwrap.state import state_dir


class ConfigConflict(AgentwrapError):
    code = "CONFIG_CONFLICT"


@dataclass
class Plan:
    path: Path
    action: str  # create | update | unchanged | restore | remove | delete
    before: bytes | None
    after: bytes | None  # None: the file is deleted (or stays absent)
    notes: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def diff(self) -> str:
        old = (self.before or b"").decode("utf-8", "replace").splitlines(keepends=True)
        new = (self.after or b"").decode("utf-8", "replace").splitlines(keepends=True)
        lines = difflib.unified_diff(old, new, fromfile=str(self.path) if self.before is not None else "/dev/null",
                                     tofile=str(self.path) if self.after is not None else "/dev/null")
        return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


# --- reading ------------------------------------------------------------------------------------
def read_bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise ConfigConflict(f"{path} is a directory, not a configuration file") from None
    except OSError as exc:
        raise ConfigConflict(f"{path}: cannot read: {exc.strerror}") from None


def load_json(path: Path, data: bytes | None) -> dict[str, Any]:
    if data is None or not data.strip():
        return {}
    try:
        doc = json.loads(data)
    except ValueError as exc:
        raise ConfigConflict(f"{path} is not JSON that agentwrap can edit without losing something ({exc}); "
                             "it changed nothing", suggested_fix=f"Fix {path} or add the entry by hand "
                             "(run with --dry-run to see it).") from None
    if not isinstance(doc, dict):
        raise ConfigConflict(f"{path} holds {json_kind(doc)}, not an object; agentwrap changed nothing")
    return doc


def json_kind(value: Any) -> str:
    """What a JSON value is, in JSON's words (`null`, `a string`): the person reads their file, not Python's
    `NoneType` or `str`."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    kinds = ((str, "a string"), (int | float, "a number"), (list, "an array"), (dict, "an object"))
    return next((name for kind, name in kinds if isinstance(value, kind)), f"a {type(value).__name__}")


def indent_unit(like: bytes | None) -> int | str:
    """The file's indentation step (its first indented line's), two spaces for a new file."""
    for line in (like or b"").decode("utf-8", "replace").splitlines()[1:]:
        stripped = line.lstrip(" \t")
        if stripped and len(stripped) < len(line):
            lead = line[: len(line) - len(stripped)]
            return "\t" if lead.startswith("\t") else len(lead)
    return 2


def dump_json(doc: dict[str, Any], like: bytes | None) -> bytes:
    """The whole document in the file's own indentation, key order kept (when a splice cannot be done)."""
    out = json.dumps(doc, indent=indent_unit(like), ensure_ascii=False)
    return (out + ("" if like and not like.endswith(b"\n") else "\n")).encode()


# --- planning -----------------------------------------------------------------------------------
def plan_json_entry(path: Path, key_path: tuple[str, ...], item: dict[str, Any], *, is_ours: Any) -> Plan:
    """Append `item` to the list at `key_path`; unchanged when it is there; a conflict when an entry of
    agentwrap's (`is_ours`) is there in another form, or a key on the way holds another kind of value."""
    before = read_bytes(path)
    doc = load_json(path, before)
    node: dict[str, Any] = doc
    for key in key_path[:-1]:
        child = node.setdefault(key, {})
        if not isinstance(child, dict):
            raise ConfigConflict(f"{path}: `{key}` holds {json_kind(child)}, not an object; agentwrap "
                                 "changed nothing")
        node = child
    entries = node.setdefault(key_path[-1], [])
    where = ".".join(key_path)
    if not isinstance(entries, list):
        raise ConfigConflict(f"{path}: `{where}` holds {json_kind(entries)}, not a list; agentwrap "
                             "changed nothing")
    if item in entries:
        return Plan(path, "unchanged", before, before, ["the hook is already installed"])
    for entry in entries:
        if is_ours(entry):
            raise ConfigConflict(
                f"{path}: `{where}` already holds an agentwrap entry in another form than agentwrap init writes "
                f"({json.dumps(entry)[:300]}); agentwrap will not overwrite it",
                suggested_fix=f"Remove or fix that entry in {path} by hand, then run the command again.")
    entries.append(item)
    if before is None or not before.strip():
        return Plan(path, "create" if before is None else "update", before, dump_json(doc, before))
    spliced = jsonsplice.add_to_list(before.decode(), key_path, item, indent_unit(before), doc)
    after = spliced.encode() if spliced is not None else dump_json(doc, before)
    return Plan(path, "update", before, after)


def plan_own_file(path: Path, text: str) -> Plan:
    before = read_bytes(path)
    after = text.encode()
    if before == after:
        return Plan(path, "unchanged", before, before, ["the file is already installed"])
    if before is not None:
        raise ConfigConflict(f"{path} exists and agentwrap did not write it (its content differs); agentwrap "
                             "will not overwrite it", suggested_fix=f"Move {path} away, or keep it and skip init.")
    return Plan(path, "create", None, after)


def plan_block(path: Path, block: str, begin: str, end: str) -> Plan:
    """Append a marked block to a text file (created if absent)."""
    before = read_bytes(path)
    text = (before or b"").decode("utf-8", "replace")
    if block in text:
        return Plan(path, "unchanged", before, before, ["the instructions are already there"])
    if begin in text or end in text:
        raise ConfigConflict(f"{path} holds an agentwrap block in another form than agentwrap init writes; "
                             "agentwrap will not overwrite it", suggested_fix=f"Edit or remove the block in {path}.")
    sep = "" if not text else ("\n" if text.endswith("\n") else "\n\n")
    return Plan(path, "create" if before is None else "update", before, (text + sep + block).encode())


def plan_removal(path: Path, *, json_entry: tuple[tuple[str, ...], dict[str, Any]] | None = None,
                 own_text: str | None = None, block: str | None = None) -> Plan:
    """Undo: the recorded bytes when the file is as agentwrap left it, else only agentwrap's part."""
    before = read_bytes(path)
    record = load_record(path)
    if record is not None and before is not None and _digest(before) == record["written_sha256"]:
        original = _decode(record.get("original"))
        return Plan(path, "restore" if original is not None else "delete", before, original,
                    ["the file is restored byte for byte to what it was before agentwrap init"])
    notes = ["the file changed since agentwrap init wrote it: only agentwrap's entry is removed"] if record else []
    if before is None:
        return Plan(path, "unchanged", None, None, ["nothing to remove: the file does not exist"])
    if own_text is not None:
        if before != own_text.encode():
            raise ConfigConflict(f"{path} is not the file agentwrap init wrote (it was edited); agentwrap will "
                                 "not delete it", suggested_fix=f"Delete {path} by hand if you no longer want it.")
        return Plan(path, "delete", before, None, notes)
    if block is not None:
        text = before.decode("utf-8", "replace")
        if block not in text:
            return Plan(path, "unchanged", before, before, ["no agentwrap block as init writes it was found"])
        start = text.index(block)
        head = text[:start]
        head = head[:-1] if head.endswith("\n\n") else head  # the blank line init put before the block
        rest = head + text[start + len(block):]
        return Plan(path, "remove", before, rest.encode() if rest else None, notes)
    assert json_entry is not None
    key_path, item = json_entry
    doc = load_json(path, before)
    if not _remove_entry(doc, key_path, item):
        return Plan(path, "unchanged", before, before, ["no agentwrap hook as init writes it was found"])
    spliced = jsonsplice.remove_from_list(before.decode("utf-8", "replace"), key_path, item, doc)
    return Plan(path, "remove", before, spliced.encode() if spliced is not None else dump_json(doc, before), notes)


def _remove_entry(doc: dict[str, Any], key_path: tuple[str, ...], item: dict[str, Any]) -> bool:
    chain: list[dict[str, Any]] = [doc]
    for key in key_path[:-1]:
        child = chain[-1].get(key)
        if not isinstance(child, dict):
            return False
        chain.append(child)
    entries = chain[-1].get(key_path[-1])
    if not isinstance(entries, list) or item not in entries:
        return False
    entries.remove(item)
    # Containers left empty by the removal go too (init created them along with the entry).
    if not entries:
        del chain[-1][key_path[-1]]
        for parent, key in zip(reversed(chain[:-1]), reversed(key_path[:-1]), strict=True):
            if parent[key]:
                break
            del parent[key]
    return True


# --- applying -----------------------------------------------------------------------------------
def apply(plan: Plan, *, host: str, scope: str) -> Path | None:
    """Write the plan: back up, write atomically, record (or forget) what was written. Returns the backup."""
    if not plan.changed:
        return None
    real = Path(os.path.realpath(plan.path))
    if plan.before is not None and not _writable(real):
        raise ConfigConflict(f"{plan.path} is read-only (mode {real.stat().st_mode & 0o777:04o}); agentwrap will "
                             "not replace a file you protected, and changed nothing",
                             suggested_fix=f"Make {plan.path} writable (chmod u+w) if the change is intended, or "
                             "make it by hand (run with --dry-run to see it).")
    backup = _backup(real, plan.before) if plan.before is not None else None
    removing = plan.action in ("restore", "delete", "remove")
    created: list[str] = []
    try:
        if plan.after is None:
            with contextlib.suppress(FileNotFoundError):
                real.unlink()
        else:
            _make_parents(real.parent, created)
            _atomic_write(real, plan.after)
    except OSError as exc:  # a folder that cannot hold the file, a full or read-only disk: undo the folders
        _remove_dirs([Path(d) for d in created])
        raise ConfigConflict(f"{plan.path}: cannot write: {exc.strerror or exc}; agentwrap changed nothing",
                             suggested_fix=f"Check that {real.parent} exists and can be written, then run the "
                             "command again (--dry-run shows the change).") from None
    if removing:
        record = load_record(plan.path)
        if plan.after is None and record is not None:
            _remove_dirs([Path(d) for d in record.get("created_dirs", [])])
        forget_record(plan.path)
    else:
        _save_record(plan.path, {"path": str(plan.path), "host": host, "scope": scope,
                                 "installed_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                                 "original": _encode(plan.before), "written_sha256": _digest(plan.after or b""),
                                 "created_dirs": created, "backup": str(backup) if backup else None})
    return backup


def _atomic_write(path: Path, data: bytes) -> None:
    mode = 0o644
    with contextlib.suppress(FileNotFoundError):
        mode = path.stat().st_mode & 0o7777
    tmp = path.with_name(f".{path.name}.agentwrap-{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, data)
        os.fchmod(fd, mode)
        os.fsync(fd)
    finally:
        os.close(fd)
    try:
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    with contextlib.suppress(OSError):
        dfd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


def _writable(path: Path) -> bool:
    """Whether the file may be replaced: a write bit is set (root's access() says yes to any file, so the
    mode is read too) and the user may write it."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return True
    return bool(mode & 0o222) and os.access(path, os.W_OK)


def _make_parents(folder: Path, created: list[str]) -> None:
    """Make the missing folders, outermost first; `created` gets each one made, deepest first."""
    missing = []
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    for path in reversed(missing):
        path.mkdir()
        created.insert(0, str(path))


def _remove_dirs(dirs: list[Path]) -> None:
    for folder in dirs:  # deepest first, as recorded; only folders left empty
        with contextlib.suppress(OSError):
            folder.rmdir()


def _records() -> Path:
    return state_dir() / "init"


def _key(path: Path) -> str:
    return hashlib.sha256(os.path.abspath(path).encode()).hexdigest()[:24]


def load_record(path: Path) -> dict[str, Any] | None:
    try:
        record = json.loads((_records() / f"{_key(path)}.json").read_text())
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) and "written_sha256" in record else None


def _save_record(path: Path, record: dict[str, Any]) -> None:
    folder = _records()
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    _atomic_write(folder / f"{_key(path)}.json", json.dumps(record, indent=1).encode())


def forget_record(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        (_records() / f"{_key(path)}.json").unlink()


def _backup(real: Path, data: bytes) -> Path:
    folder = _records() / "backups"
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    backup = folder / f"{_key(real)}-{stamp}-{real.name}"
    fd = os.open(backup, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)
    return backup


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _encode(data: bytes | None) -> str | None:
    return base64.b64encode(data).decode() if data is not None else None


def _decode(text: Any) -> bytes | None:
    return base64.b64decode(text) if isinstance(text, str) else None
