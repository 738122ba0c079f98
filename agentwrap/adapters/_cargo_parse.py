"""rustc's human diagnostics as located problems, with suggestions as edits; cargo test results and build summaries.

Locations are the primary span rustc prints after `-->`, the same line and column as the first primary span of
`--message-format=json`. Suggested code is reconstructed from the rendered suggestion (inline `help: ...: `x``,
`+++` insertion markers, `-`/`+` line diffs). The human output does not say how certain rustc is, so an edit is
`machine_applicable` only for the help messages rustc marks MachineApplicable (listed below), `has_placeholders` when
the new code holds one (`<item>`, `/* Type */`), else `maybe_incorrect` (clippy's `cargo clippy --fix` count in
data.warnings says how many it would apply itself).
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from agentwrap.lazyre import lazy
from agentwrap.sdk import CodeAction, Problem, ProblemCode, problem

_HEADER = lazy(r"^(?P<level>error|warning)(?:\[(?P<code>[A-Za-z0-9_]+)\])?: (?P<msg>.+)$")
_ARROW = lazy(r"^ *--> (?P<file>.+?):(?P<line>\d+):(?P<column>\d+)$")
_SRC = lazy(r"^(?P<gutter> *(?P<n>\d+) *)(?P<sep>[|+-])(?: (?P<src>.*))?$")
_BAR = lazy(r"^(?P<gutter> *)\|(?: (?P<marks>.*))?$")
_NOTE = lazy(r"^ *= (?P<kind>note|help): (?P<text>.+)$")
_HELP = lazy(r"^(?P<kind>help|note): (?P<text>.+)$")
_GOES_ON = lazy(r"^ {4,}(?![\d ]*\|)\S")  # a note's next line, aligned under its text (not a `|` gutter)
_LINT = lazy(r"#\[(?:warn|deny|forbid)\((?P<lint>[\w:]+)\)\]")
_INLINE = lazy(r"help: (?P<msg>.+): `(?P<repl>[^`]*)`$")
_END = lazy(r"^(?:error|warning): (?:could not compile|`[^`]+` \(.+\) generated|aborting due|build failed)"
                  r"|^(?:Some errors have|For more information about)")
#: help messages whose suggestions rustc marks MachineApplicable (checked against --message-format=json)
MACHINE = re.compile(r"^(?:if this is intentional, prefix it with an underscore|remove this `mut`|consider borrowing"
                     r" here|you can convert an? `\w+` to an? `\w+` and panic if the converted value doesn't fit|"
                     r"remove these parentheses|remove the unnecessary)")
# A suggestion with a placeholder for the user to fill (`for <item> in &v`, `/* Type */`): rustc and clippy
# mark it HasPlaceholders. `<item>` after a word is a generic (`Vec<i32>`), not a placeholder.
_PLACEHOLDER = re.compile(r"(?<![\w:>])<[a-z][\w ]*>|/\* [^*]+ \*/")
# `help:` lines that are no fix: the lint's page (its docs_url) and how to silence the lint
_DOCS_HELP = re.compile(r"^for further information visit (?P<url>https?://\S+)$")
# a note that only says the lint's level is its default one: `lint` names it, and nothing set it anywhere
_DEFAULT_LEVEL = re.compile(r"^note: `#\[(?:warn|deny|forbid)\([\w:]+\)\]`(?: \(part of `#\[\w+\([\w:]+\)\]`\))? "
                            r"on by default$")
_OVERRIDE_HELP = re.compile(r"^to override `-[DF] \S+` add `#\[allow\((?P<lint>[\w:]+)\)\]`$")
RUSTC_DOCS = "https://doc.rust-lang.org/error_codes/{code}.html"
LINT_DOCS = "https://doc.rust-lang.org/rustc/lints/listing/index.html"


class Edit(NamedTuple):
    file: str
    line: int
    column: int
    end_line: int
    end_column: int
    text: str

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"file": self.file, "line": self.line, "column": self.column}
        if (self.end_line, self.end_column) == (self.line, self.column):
            out["insert"] = self.text
        else:
            out.update(end_line=self.end_line, end_column=self.end_column, replace=self.text)
        return out


def _end_column(block: list[str], line: int, column: int) -> int | None:
    """Where the primary span's `^^^` run ends (exclusive), when it starts exactly at the arrow's column."""
    for i, text in enumerate(block[:-1]):
        src, bar = _SRC.match(text), _BAR.match(block[i + 1])
        if src and src.group("sep") == "|" and int(src.group("n")) == line and bar:
            marks = block[i + 1][len(src.group("gutter")) + 2:]
            if len(marks) >= column and marks[column - 1] == "^" and (column == 1 or marks[column - 2] != "^"):
                n = len(marks[column - 1:]) - len(marks[column - 1:].lstrip("^"))
                if n > 1:
                    return column + n
                # one caret is also how rustc draws an empty span: certain only past the end of the line
                return column if column > len(src.group("src") or "") else None
            return None
    return None


def _labels(block: list[str], i: int) -> list[tuple[int, int, str]]:
    """(column, end column, label) of each run of `^` or `-` under the source row `block[i]`: its label is
    the text after the last run on that row, or the text a run's `|` connector leads down to (rustc puts
    a label there when another run's label is on the row: `----^` over `|` over `help: remove this `mut``);
    '' for a run without one."""
    src = _SRC.match(block[i])
    if not src:
        return []
    offset = len(src.group("gutter")) + 2
    rows = []
    for follow in block[i + 1:]:
        if not _BAR.match(follow):
            break
        rows.append(follow[offset:])
    if not rows:
        return []
    runs = [(m.start(), m.end()) for m in re.finditer(r"\^+|-+", rows[0])]
    if not runs or rows[0][:runs[0][0]].strip():
        return []  # a multi-line span's drawing (`|_____^`), no runs under this row's own text
    out = []
    for k, (a, b) in enumerate(runs):
        label = ""
        if k == len(runs) - 1 and rows[0][b:b + 1] == " ":
            label = rows[0][b:].strip()
        else:
            for row in rows[1:]:
                if len(row) <= a or row[a] == " ":
                    break
                if row[a] != "|":
                    label = row[a:].strip() if a == 0 or row[a - 1] == " " else ""
                    break
        out.append((a + 1, b + 1, label))
    return out


# a label that asks to take out what it marks (`help: remove this `mut``): rustc suggests "" for its span
_REMOVE = re.compile(r"^remove\b")


def _inline_edits(block: list[str], file: str) -> list[tuple[str, Edit]]:
    """`^^^^ help: prefix it with an underscore: `_x``: the replacement for the span the label sits on;
    `---- help: remove this `mut``: the span taken out."""
    out = []
    for i, text in enumerate(block[:-1]):
        src = _SRC.match(text)
        if not src or src.group("sep") != "|":
            continue
        n = int(src.group("n"))
        for col, end, label in _labels(block, i):
            if not label.startswith("help: "):
                continue
            inline = _INLINE.match(label)
            if inline:
                if end == col + 1:  # one caret: an empty span or one character? Only past the line's end is sure
                    if col <= len(src.group("src") or ""):
                        continue
                    end = col
                out.append((inline.group("msg"), Edit(file, n, col, n, end, inline.group("repl"))))
            elif _REMOVE.match(label[len("help: "):]) and (src.group("src") or "")[col - 1:end - 1].strip():
                out.append((label[len("help: "):], Edit(file, n, col, n, end, "")))
    return out


def _diff_edit(chunk: list[str], file: str) -> Edit | None:
    """One rendered suggestion: `N |` new line + `+++` markers, or `N -` old / `N +` new lines."""
    rows = [(m, chunk[i + 1] if i + 1 < len(chunk) else "") for i, line in enumerate(chunk) if (m := _SRC.match(line))]
    if not rows:
        return None
    old = [(int(m.group("n")), m.group("src") or "") for m, _ in rows if m.group("sep") == "-"]
    new = [(int(m.group("n")), m.group("src") or "") for m, _ in rows if m.group("sep") == "+"]
    if not old and not new:
        if len(rows) != 1:
            return None
        m, marker = rows[0]
        marks = marker[len(m.group("gutter")) + 2:] if _BAR.match(marker) else ""
        runs = list(re.finditer(r"\++", marks))
        if len(runs) != 1:
            return None
        start, stop = runs[0].span()
        n = int(m.group("n"))
        return Edit(file, n, start + 1, n, start + 1, (m.group("src") or "")[start:stop])
    if old and [n for n, _ in old] != list(range(old[0][0], old[0][0] + len(old))):
        return None
    if new and [n for n, _ in new] != list(range(new[0][0], new[0][0] + len(new))):
        return None
    if not old:  # whole new lines inserted before line N
        return Edit(file, new[0][0], 1, new[0][0], 1, "".join(t + "\n" for _, t in new))
    a, b = "\n".join(t for _, t in old), "\n".join(t for _, t in new)
    p = 0
    while p < min(len(a), len(b)) and a[p] == b[p]:
        p += 1
    s = 0
    while s < min(len(a), len(b)) - p and a[len(a) - 1 - s] == b[len(b) - 1 - s]:
        s += 1
    if not new:  # whole lines removed
        return Edit(file, old[0][0], 1, old[-1][0] + 1, 1, "")
    (line, col), (end_line, end_col) = _pos(a, p, old[0][0]), _pos(a, len(a) - s, old[0][0])
    return Edit(file, line, col, end_line, end_col, b[p:len(b) - s])


def _pos(text: str, offset: int, first_line: int) -> tuple[int, int]:
    before = text[:offset]
    return first_line + before.count("\n"), offset - (before.rfind("\n") + 1) + 1


def _suggestions(block: list[str], file: str) -> list[tuple[str, Edit]]:
    out = _inline_edits(block, file)
    i = 0
    while i < len(block):
        m = _HELP.match(block[i])
        if m and m.group("kind") == "help" and i + 1 < len(block) and _BAR.match(block[i + 1]):
            j = i + 2
            while j < len(block) and (_SRC.match(block[j]) or _BAR.match(block[j])) and not _HELP.match(block[j]):
                j += 1
            edit = _diff_edit(block[i + 2:j], file)
            if edit:
                out.append((m.group("text").rstrip(":"), edit))
            i = j
        else:
            i += 1
    return out


_SOURCE = lazy(r"^\s*\d+ \| ")


def rustc_diagnostics(text: str, tool: str, exit_code: int | None) -> list[Problem]:
    lines = text.splitlines()
    starts = [i for i, ln in enumerate(lines) if _HEADER.match(ln) or _END.match(ln)]
    found: list[Problem] = []
    lint_seen: dict[str, str] = {}
    for k, start in enumerate(starts):
        head = _HEADER.match(lines[start])
        arrow = _ARROW.match(lines[start + 1]) if head and start + 1 < len(lines) else None
        if not head or not arrow or _END.match(lines[start]):
            continue
        block = lines[start + 1:starts[k + 1] if k + 1 < len(starts) else len(lines)]
        problem = _problem(head, arrow, block, tool, exit_code, lint_seen)
        # the problem stands for its whole block; the source line and its caret stay as evidence
        found.append(problem._replace(matched="\n".join([lines[start], *block]),
                                      extra={**(problem.extra or {}), **_evidence(block)}))
        if len(found) >= 200:
            break
    return found


def _evidence(block: list[str], limit: int = 16) -> dict[str, list[str]]:
    """The diagnostic's own snippet, from its first `N | source` line: every source line rustc printed and
    the lines of marks and labels under them (`- value moved here`, `^ value borrowed here after move`),
    as printed, less the empty `|` rows; up to `limit` lines. A snippet of another file (`::: path`) and
    the notes after it are not the primary file's."""
    first = next((i for i, line in enumerate(block) if _SOURCE.match(line)), None)
    if first is None:
        return {}
    rows: list[str] = []
    for line in block[first:]:
        bar = _BAR.match(line)
        if bar and not (bar.group("marks") or "").strip(" |"):
            continue  # an empty row, or one of connectors only (`|` leading a label down to its own row)
        if not (_SRC.match(line) or bar or _ELIDED.match(line)):
            break
        rows.append(line.rstrip())
    return {"evidence": rows[:limit]}


_ELIDED = lazy(r"^\.{3}$")


MANIFEST_INVALID = ProblemCode(code="CARGO_MANIFEST_INVALID", title="Invalid Cargo.toml", category="validation",
                               status=422, suggested_fix="Fix Cargo.toml at the location shown (TOML syntax or a "
                                                         "manifest key).")
RUSTC_WARNING = ProblemCode(code="RUSTC_WARNING", title="rustc warning", category="validation", status=422,
                            suggested_fix="Fix the code, or allow the lint if intended.")
RUSTC_ERROR = ProblemCode(code="RUSTC_ERROR", title="rustc error", category="validation", status=422,
                          suggested_fix="Fix the code at the location shown.")
# rustc names its errors itself (E0308): the problem's code is rustc's, one family declared here.
RUSTC_CODE = ProblemCode(code="RUSTC_EXXXX", title="rustc error", category="validation", status=422,
                         pattern=r"E\d{4}", suggested_fix="Run `rustc --explain CODE` for the rule and examples.")
CODES = (MANIFEST_INVALID, RUSTC_WARNING, RUSTC_ERROR, RUSTC_CODE)


def _notes(block: list[str]) -> list[str]:
    """rustc's `note: …` and `help: …` lines, each with the lines aligned under its text (an `expected type`
    note goes on with its `found enum` line), as cargo's JSON gives them: one note, lines joined by newlines."""
    notes: list[str] = []
    open_note = False
    for k, ln in enumerate(block):
        if m := _NOTE.match(ln) or _HELP.match(ln):
            notes.append(m.group("kind") + ": " + m.group("text"))
            open_note = True
            arrow = _ARROW.match(block[k + 1]) if k + 1 < len(block) and m.group("kind") == "note" else None
            if arrow:  # a note with a span of its own: where it points (JSON: the child's span)
                notes[-1] += f" (at {arrow.group('file')}:{arrow.group('line')}:{arrow.group('column')})"
        elif open_note and _GOES_ON.match(ln):
            notes[-1] += "\n" + ln.strip()
        else:
            open_note = False
    return notes


def _problem(head: re.Match[str], arrow: re.Match[str], block: list[str], tool: str, exit_code: int | None,
             lint_seen: dict[str, str]) -> Problem:
    level, code, msg = head.group("level"), head.group("code"), head.group("msg")
    file, line, column = arrow.group("file"), int(arrow.group("line")), int(arrow.group("column"))
    location: dict[str, Any] = {"file": file, "line": line, "column": column}
    end = _end_column(block, line, column)
    if end is not None:
        location.update(end_line=line, end_column=end)
    notes = _notes(block)
    lint = next((m.group("lint") for n in notes if (m := _LINT.search(n))), None) or lint_seen.get(msg.split(":")[0])
    if lint:
        lint_seen[msg.split(":")[0]] = lint
    label = _primary_label(block, line, column)
    detail = f"{msg}: {label}" if label and label not in msg else msg
    actions = tuple(CodeAction(title=title, kind="edit", edit=edit.to_dict(), is_preferred=i == 0,
                               applicability=_applicability(title, edit.text))
                    for i, (title, edit) in enumerate(_suggestions(block, file)))
    helps = [n[len("help: "):] for n in notes if n.startswith("help: ")]
    lint_page = next((m.group("url") for h in helps if (m := _DOCS_HELP.match(h))), None)
    lint = lint or next((m.group("lint") for h in helps if (m := _OVERRIDE_HELP.match(h))), None)
    titles = {a.title for a in actions}
    # a fix is a help that says what to change: not the lint's page, not how to allow it, not the title of
    # an edit listed in code_actions; the notes leave out what the problem says elsewhere
    helps = [h for h in helps if not _DOCS_HELP.match(h) and not _OVERRIDE_HELP.match(h) and h not in titles]
    notes = [n for n in notes if n.removeprefix("help: ") in helps or not n.startswith("help: ")]
    if lint:
        notes = [n for n in notes if not _DEFAULT_LEVEL.match(n)]
    extra: dict[str, Any] = {"notes": notes[:10]} if notes else {}
    if code and code.startswith("E"):
        extra["rustc_code"] = code
    if lint or (code and not code.startswith("E")):
        extra["lint"] = lint or code
    if file.endswith("Cargo.toml"):
        declared, name = MANIFEST_INVALID, None
    elif level == "warning":
        declared, name = RUSTC_WARNING, None
    elif code and code.startswith("E"):
        declared, name = RUSTC_CODE, code
    else:
        declared, name = RUSTC_ERROR, None
    # rustc's `help:` is the fix; a coded error without one has its explanation as `docs_url` (the text
    # `rustc --explain CODE` prints), so it carries no fix that would point at the same page again
    # An edit in code_actions is the fix itself: a generic "fix the code" beside it says nothing.
    fix = helps[0] if helps and declared is not MANIFEST_INVALID else (None if name or actions else
                                                                       declared.suggested_fix)
    docs = lint_page or (LINT_DOCS if lint else None)
    if code and code.startswith("E"):
        docs = RUSTC_DOCS.format(code=code)
    return problem(tool, declared, detail, code=name, exit_code=exit_code, location=location, suggested_fix=fix,
                   docs_url=docs, code_actions=actions, severity="warning" if level == "warning" else "error",
                   extra=extra)


def _applicability(title: str, replacement: str) -> str:
    """How safe an edit is, from the rendered text only: rustc's known MachineApplicable helps, else one to
    review; one with a placeholder has to be filled in first."""
    if _PLACEHOLDER.search(replacement):
        return "has_placeholders"
    return "machine_applicable" if MACHINE.match(title) else "maybe_incorrect"


def _primary_label(block: list[str], line: int, column: int) -> str | None:
    for i, text in enumerate(block[:-1]):
        src = _SRC.match(text)
        if src and src.group("sep") == "|" and int(src.group("n")) == line:
            marks = block[i + 1][len(src.group("gutter")) + 2:]
            m = re.match(r"^\^+ +(?P<label>(?!help:)[^\s^|-].*)$", marks[column - 1:] if len(marks) >= column else "")
            return m.group("label").strip() if m else None
    return None
