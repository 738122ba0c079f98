"""The paths of a compiler's problems, made absolute from the folder the compiler ran in.

A compiler prints paths relative to the folder it ran in, which is not the caller's under `make -C`, a
sub-make or `cd sub && make`. Where that folder is known, every path of a problem (location, edits, notes) is
made absolute from it, alike, so that the envelope can write them all from the caller's folder; texts (titles,
fixes) name the file from where the tool ran (`shown_path`). The detail keeps the compiler's own line.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from typing import Any

from agentwrap.adapters import compiler_diagnostics as gp
from agentwrap.sdk import CodeAction, Problem

#: The folder a path printed at an offset of the output is relative to (None: not known).
FolderAt = Callable[[int, str], str | None]


def rooted_path(file: str, folder: str | None) -> str:
    """`file` as printed, made absolute from `folder` (where the tool that printed it ran); as printed when it
    is absolute already, names no file (`<stdin>`, `<command-line>`) or the folder is not known."""
    if not folder or not file or os.path.isabs(file) or file.startswith(("<", "-")):
        return file
    return os.path.normpath(os.path.join(folder, file))


def shown_path(file: str, cwd: str | None) -> str:
    """`file` as a text names it: from where the tool ran when below it (`sub/x.c`), else as it is."""
    prefix = cwd.rstrip("/") + "/" if cwd else None
    return file[len(prefix):] if prefix and file.startswith(prefix) and len(file) > len(prefix) else file


def place(loc: dict[str, Any] | None, cwd: str | None) -> str:
    """`file:line:col` as a fix's text names it."""
    if not loc:
        return ""
    return ":".join(str(v) for v in {**loc, "file": shown_path(str(loc["file"]), cwd)}.values())


def rooted(problem: Problem, folder: str | None) -> Problem:
    """`problem` with each relative path made absolute from `folder`: its location, its edits and its related
    notes alike (a caller applies an edit where the location points). Commands keep their words: they rewrite
    the user's command line, whose other paths are relative to the same folder."""
    loc = problem.location
    if not folder or not loc or not loc.get("file"):
        return problem
    actions = tuple(_rooted_action(a, folder) for a in problem.code_actions)
    related = [_rooted_note(r, folder) for r in (problem.extra or {}).get("related", [])]
    extra = {**problem.extra, "related": related} if problem.extra and related else problem.extra
    location = {**loc, "file": rooted_path(str(loc["file"]), folder)}
    return problem._replace(location=location, code_actions=actions, extra=extra)


def _rooted_action(action: CodeAction, folder: str) -> CodeAction:
    if not action.edit or not action.edit.get("file"):
        return action
    return action._replace(edit={**action.edit, "file": rooted_path(str(action.edit["file"]), folder)})


def _rooted_note(note: dict[str, Any], folder: str) -> dict[str, Any]:
    file = (note.get("location") or {}).get("file")
    if not file:
        return note
    return {**note, "location": {**note["location"], "file": rooted_path(str(file), folder)}}


def rooted_diag(diag: gp.Diag, folder: str | None) -> gp.Diag:
    """`diag` with its file, its fix-its' files and its notes' made absolute from `folder`."""
    if not folder:
        return diag
    return dataclasses.replace(
        diag, file=rooted_path(diag.file, folder) if diag.file else diag.file,
        fixes=[dataclasses.replace(f, file=rooted_path(f.file, folder)) for f in diag.fixes],
        notes=[rooted_diag(n, folder) for n in diag.notes])
