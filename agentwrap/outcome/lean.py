"""What a model reads of a stream: the text less the lines that carry no fact (an adapter's noise rules,
a terminal's drawn layout) and less the lines that the summary, the problems or the data already say.
Pure text work: `agentwrap.outcome.bound` decides when it applies and within which budget."""

from __future__ import annotations

import json
from collections.abc import Collection, Iterator, Sequence
from typing import Any

from agentwrap.lazyre import lazy
from agentwrap.outcome.documents import documents
from agentwrap.outcome.patch import DROP, HUNK, OTHER
from agentwrap.outcome.patch import RULE as PATCH_RULE
from agentwrap.outcome.patch import kinds as patch_kinds
from agentwrap.problem import Problem

MARKER = ("… ", "[agentwrap")  # lines agentwrap wrote (elisions): never noise, never restated
_RULE_RUN = lazy(r"([=_~*#!-])\1{7,}")  # a drawn rule (pytest's ===== and _____ headers)
# What aligns a table's columns (pip list, ls): a run of blanks between cells, or a tab. A quoted name
# ('a  b', as ls writes it on a terminal) is matched first and kept as it is.
_CELL_GAP = lazy(r"""('[^']*'|"[^"]*")|(?<=\S)(?: {2,}|[ \t]*\t[ \t]*)(?=\S)""")
# A long listing's fields before the name (ls -l: mode, links, owner, group, size, date): the name after
# them may hold runs of blanks of its own (ls on a pipe does not quote it).
_LONG_FIELDS = lazy(r"^[-bcdlps][-rwxsStT]{9}[.+@]?\s+\d+\s+\S+\s+\S+\s+(?:\d+,\s+)?\d+\s+\S+\s+\d+\s+[\d:]+ ")
# A long listing's row once its fields are one space apart (`one_space_cells`): the fields an entry may share
# with every other entry, in ls's order, then its name, never changed. A device's size is `major, minor`.
_LONG_ROW = lazy(r"^(?P<mode>[-bcdlps][-rwxsStT]{9}[.+@]?) (?P<links>\d+) (?P<owner>\S+) (?P<group>\S+) "
                 r"(?P<size>(?:\d+, )?\d+) (?P<date>\S+ \d+ [\d:]+) (?P<name>.*)$")
LONG_FIELDS = ("mode", "links", "owner", "group", "size", "date")
KINDS = {"d": "directory", "-": "file", "l": "symlink"}  # a mode's first letter: the kinds said once apart
KIND_FIELDS = ("mode", "links", "size")  # what the entries of one kind often share (a directory's 4096)
SHARED_PREFIX = "[agentwrap: "
_PAD = lazy(r"(?<=\S) {8,}(?=\[\s*\d+%\]$)")  # padding that pushes a `[ 40%]` progress mark to the right edge
_WORD = lazy(r"[^\W_]+")
# How long a step took, and how far a run had got (pytest's `[ 38%]`): no fact for the next step
_TIMING = lazy(r"\b(?:in )?\d+(?:\.\d+)?(?:ms|s)\b|\[\s*\d+%\]")
# A line that only marks the line above it: python's `^^^^`, a compiler's `|  ^~~~`, a code frame's margin.
# marks under the line above: carets, and difflib's `?   ^ ++` line under a `- ` or `+ ` line of a diff (pytest's)
_MARKS = lazy(r"^\s*(?:[\^~|]+(?:\s+[\^~|]+)*|\?\s+[-+^][-+^ ]*)\s*$")
_FRAME = lazy(r"^[\s\u2500-\u257f]*[\u2500-\u257f][\s\u2500-\u257f]*$")  # a box's edge (terraform's `╷ │ ╵`)
# A line of source a tool quotes: a code frame's row (gcc's and rustc's `  12 |     x = foo(bar)`, babel's
# `> 12 | ...`), and the line under a header that names a file's line (python's `File "a.py", line 3, in f`,
# terraform's `on main.tf line 5:`, whose row is `   5:   x = var.n + 1`).
_CODE_ROW = lazy(r"^[\s│]*>?\s*\d+\s*[|│]\s*\S")
_SOURCE_HEADER = lazy(r'^\s*File "[^"]+", line \d+|^[\s│]*on \S+ line \d+')
_NUMBERED_ROW = lazy(r"^[\s│]*\d+:\s")
_CARETS = lazy(r"^[\s|│]*\^[\s^~]*$")  # a caret line: what it marks is the line above it


def words(text: str) -> list[str]:
    """The words of `text` a restatement is judged by: lower case, digits kept, single letters left out."""
    return [w.lower() for w in _WORD.findall(text) if len(w) > 1 or w.isdigit()]


class Said:
    """What problems and data already say: their words, and the output lines a problem was read from."""

    def __init__(self) -> None:
        self.words: set[str] = set()
        self.lines: set[str] = set()
        self.pairs: set[tuple[str, str]] = set()  # words side by side in one text: where a number stands
        self.counted: set[tuple[str, int]] = set()  # a word with a number after it (1) or before it (-1)
        self.quoted: set[str] = set()  # lines a problem's evidence or the data carry verbatim, stripped
        self.lists: set[frozenset[str]] = set()  # the data's lists of names (apt's plan.remove), as sets

    def update(self, words: Sequence[str]) -> None:
        self.words.update(words)
        pairs = list(zip(words, words[1:], strict=False))
        self.pairs.update(pairs)
        self.counted.update((a, 1) for a, b in pairs if b.isdigit())
        self.counted.update((b, -1) for a, b in pairs if a.isdigit())

    def __bool__(self) -> bool:
        return bool(self.words or self.lines)


def facts_said(problems: Sequence[Problem], data: Any, summary: str = "") -> Said:
    """What the summary, problems and data already say: a line made of their words, or one a problem was
    read from, restates a fact."""
    said = Said()
    said.update(words(summary))
    for p in problems:
        # A command line a problem quotes (npm's failed script, `echo "Error: no test specified" && exit 1`)
        # says what was run, not what it printed: its words state no fact of the output.
        extra = p.extra or {}
        commands = [v for k, v in extra.items() if k == "command" and isinstance(v, str) and " " in v.strip()]
        detail = p.detail
        for command in commands:
            detail = detail.replace(command, " ")
        said.update(words(detail))
        said.update(words(p.matched))
        for line in p.matched.splitlines():
            if line.strip():  # as printed, and as layout tidying shows it (pytest's full-width banners)
                said.lines.update((line.strip(), tidy(line).strip()))
        loc = p.location or {}
        said.update(words(" ".join(str(v) for v in loc.values())))
        stated = {k: v for k, v in extra.items() if not (k == "command" and v in commands)}
        said.update(words(json.dumps(stated, default=str, ensure_ascii=False)))  # evidence, context
        said.quoted.update(line.strip() for text in _strings(p.extra) for line in text.splitlines())
    if data is not None:
        said.update(words(json.dumps(data, default=str)))
        said.quoted.update(line.strip() for text in _strings(data) for line in text.splitlines())
        said.lists.update(_name_lists(data))
    return said


def restates(line: str, said: Said) -> bool:
    """A line a problem was read from, or whose words (nearly) all appear in the facts already given
    (pytest's `FAILED id - msg`). A line of fewer than two words restates only when a problem was read
    from it: a diff's `+`, a closing `}` or a caret under a line that stays are part of what they stand in."""
    if line.strip() in said.lines:
        return True
    found = words(_TIMING.sub(" ", line))
    if len(found) < 2 or not said:  # a line of no words (a diff's `+`, a closing `}`) says no fact either
        return False
    new = sum(1 for w in found if w not in said.words)
    return (new == 0 or (len(found) >= 8 and new * 10 <= len(found))) and _numbers_placed(found, said)


def _numbers_placed(found: Sequence[str], said: Said) -> bool:
    """Whether no number of a line stands beside a word that the facts given put beside another number:
    words are judged as a set, so `expected 3 got 4` would restate a detail `expected 4 got 3` without
    this. A number beside words the facts never count (a table's columns) is judged by its words."""
    for i, word in enumerate(found):
        if not word.isdigit():
            continue
        before, after = found[i - 1] if i else "", found[i + 1] if i + 1 < len(found) else ""
        if (before, word) in said.pairs or (word, after) in said.pairs:
            continue
        if (before, 1) in said.counted or (after, -1) in said.counted:
            return False
    return True


def _strings(node: Any) -> Iterator[str]:
    """The strings of a problem's extra members (its evidence: the source line a tool quoted), or of data."""
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for value in node.values():
            yield from _strings(value)
    elif isinstance(node, list | tuple):
        for item in node:
            yield from _strings(item)


def _name_lists(node: Any) -> Iterator[frozenset[str]]:
    """Every list of strings in `node` (the data), as a set; and every list of items each with a `name` (apt's
    `remove: [{name, version}]`), as the set of their names."""
    if isinstance(node, dict):
        for value in node.values():
            yield from _name_lists(value)
    elif isinstance(node, list | tuple):
        if node and all(isinstance(item, str) for item in node):
            yield frozenset(node)
        if node and all(isinstance(item, dict) and isinstance(item.get("name"), str) for item in node):
            yield frozenset(item["name"] for item in node)
        for item in node:
            yield from _name_lists(item)


def source_lines(lines: Sequence[str]) -> set[int]:
    """The indices of the lines that quote a program's source: a code frame's rows, the line under a
    traceback's `File "...", line N` or terraform's `on FILE line N`, and a line with a caret line under it.
    The fix edits such a line: it leaves the text only when a problem carries it verbatim."""
    found = {i for i, line in enumerate(lines) if _CODE_ROW.match(line)}
    for i, line in enumerate(lines[:-1]):
        if _SOURCE_HEADER.match(line):
            found.add(i + 1)
            below = i + 2  # terraform quotes a block over several numbered rows
            while below < len(lines) and _NUMBERED_ROW.match(lines[below]):
                found.add(below)
                below += 1
        elif _CARETS.match(lines[i + 1]) and line.strip():
            found.add(i)
    return found


def _headed(lines: Sequence[str], quoting: set[int]) -> dict[int, int]:
    """Each source line under a header naming its file's line (`File "...", line N, in f`, terraform's `on
    FILE line N`) with that header, both ways: a frame's two lines are one fact."""
    pairs: dict[int, int] = {}
    for i, line in enumerate(lines[:-1]):
        if i + 1 in quoting and _SOURCE_HEADER.match(line) and not _SOURCE_HEADER.match(lines[i + 1]):
            pairs[i], pairs[i + 1] = i + 1, i
    return pairs


def _whole_documents(lines: Sequence[str], said: Said | None) -> dict[int, bool]:
    """For each line of a document printed over several lines (JSON, YAML, TOML), whether it goes: a
    document goes whole when every line of it that says something restates, and at least one does; else it
    stays whole, byte for byte."""
    kept: dict[int, bool] = {}
    for start, end in documents(lines):
        body = lines[start:end]
        drop = said is not None and any(restates(line, said) for line in body) and all(
            restates(line, said) or len(words(line)) < 2 for line in body)
        kept.update(dict.fromkeys(range(start, end), drop))
    return kept


def _quoted(line: str, said: Said) -> bool:
    """Whether a source line is carried verbatim: a problem was read from it or quotes it, or data holds it."""
    body = line.strip()
    return body in said.lines or body in said.quoted or body.lstrip("│ ").strip() in said.quoted


def tidy(line: str) -> str:
    """A line without the layout a wide terminal adds: drawn rules shortened, padding and trailing blanks."""
    line = _RULE_RUN.sub(lambda m: m.group(1) * 3, line.rstrip())
    return _PAD.sub("  ", line)


def one_space_cells(line: str) -> str:
    """A table row with its cells one space apart: alignment is many bytes, and tokens, of no fact."""
    if m := _LONG_FIELDS.match(line):
        return _gaps(m.group(0)) + line[m.end():]
    return _gaps(line)


def said_once(lines: list[str]) -> list[str]:
    """A long listing with the fields that every entry has alike (one owner, one group) stated once, in a
    line before the listing, and left out of each row; then the fields every entry of one kind has alike
    (each directory's mode and size, each file's mode and one link), the row keeping the mode's first
    letter (`d`, `-`, `l`) for its kind. `lines` as they were when nothing is alike or when saying it once
    would not be shorter. Names, and every field that differs, stay as ls wrote them."""
    rows = [(i, m) for i, line in enumerate(lines) if (m := _LONG_ROW.match(line))]
    if len(rows) < 2:
        return lines
    alike = _alike([m for _, m in rows], LONG_FIELDS)
    by_kind: dict[str, list[str]] = {}
    for kind in KINDS:
        group = [m for _, m in rows if m.group("mode")[0] == kind]
        if len(group) >= 2:
            by_kind[kind] = [f for f in _alike(group, KIND_FIELDS) if f not in alike]
    best = lines
    for kinds in ({}, {k: v for k, v in by_kind.items() if v}):
        if alike or kinds:
            out = _say_once(lines, rows, alike, kinds)
            if sum(map(len, out)) + len(out) < sum(map(len, best)) + len(best):
                best = out
    return best


def _alike(rows: Sequence[Any], fields: Sequence[str]) -> list[str]:
    found = [f for f in fields if len({m.group(f) for m in rows}) == 1]
    if "size" in found and "," in rows[0].group("size"):
        found.remove("size")  # a device's `major, minor` would read as two fields: it stays in the rows
    return found


def _say_once(lines: list[str], rows: list[tuple[int, Any]], alike: list[str],
              by_kind: dict[str, list[str]]) -> list[str]:
    first = rows[0][1]
    clauses = [f"every entry has {', '.join(f'{f} {first.group(f)}' for f in alike)}"] if alike else []
    for kind, fields in by_kind.items():
        m = next(m for _, m in rows if m.group("mode")[0] == kind)
        clauses.append(f"every {KINDS[kind]} ({kind}) has {', '.join(f'{f} {m.group(f)}' for f in fields)}")
    out = list(lines)
    for i, m in rows:
        kind = m.group("mode")[0]
        said = set(alike) | set(by_kind.get(kind, ()))
        cells = [kind] if "mode" in said and "mode" not in alike else []
        out[i] = " ".join([*cells, *(m.group(f) for f in LONG_FIELDS if f not in said), m.group("name")])
    out.insert(rows[0][0], SHARED_PREFIX + "; ".join(clauses) + "]")
    return out


def _gaps(text: str) -> str:
    return _CELL_GAP.sub(lambda m: m.group(1) or " ", text)


def _listed_item(lines: Sequence[str], at: int, said: Said) -> bool:
    """An item line of a heading's indented list when the data holds that list whole, the same names
    (apt's `The following packages will be REMOVED:` then `  bc`, or `  bc*` for a purge, is
    data.plan.remove): its words alone may be too few to count as said (one name), and a name the data
    holds in another list (a removed package also on hold) says nothing of this list."""
    if not said.lists or not lines[at][:1].isspace() or not lines[at].strip():
        return False
    top = at
    while top > 0 and lines[top - 1][:1].isspace() and lines[top - 1].strip():
        top -= 1
    if top == 0 or lines[top - 1][:1].isspace() or not lines[top - 1].rstrip().endswith(":"):
        return False
    end = at
    while end + 1 < len(lines) and lines[end + 1][:1].isspace() and lines[end + 1].strip():
        end += 1
    names = frozenset(w.rstrip("*") for line in lines[top:end + 1] for w in line.split())
    return names in said.lists


def _without_empty_headers(lines: list[str], out: list[str], source: list[int]) -> tuple[list[str], list[int], int]:
    """A heading (`The following NEW packages will be installed:`) whose indented lines all went as
    restatements goes with them: alone it says nothing, and its list is in the data or the problems."""
    kept = set(source)
    empty: set[int] = set()
    for index in source:
        line = lines[index]
        if not line.rstrip().endswith(":") or line[:1].isspace():
            continue
        below = index + 1
        while below < len(lines) and lines[below][:1].isspace() and lines[below].strip():
            below += 1
        if below > index + 1 and not kept & set(range(index + 1, below)):
            empty.add(index)
    if not empty:
        return out, source, 0
    pairs = [(line, i) for line, i in zip(out, source, strict=True) if i not in empty]
    return [line for line, _ in pairs], [i for _, i in pairs], len(empty)


_CLOSER = lazy(r"^\s*[\]})]+[,;]?\s*$")  # `}`, `],`, `});`: a line that only closes


def _without_empty_brackets(lines: list[str], out: list[str], source: list[int]) -> tuple[list[str], list[int], int]:
    """A printed object's brackets without what they held (node's `requireStack: [` ... `]` and the error's
    closing `}` once its members and opening line went as restatements): they say nothing alone."""
    kept = set(source)
    drop: set[int] = set()
    # one pass: each open bracket with the count of what stays inside it (lines, and inner pairs' lines)
    stack: list[list[int]] = []
    for index, line in enumerate(lines):
        if _CLOSER.match(line):
            for _ in range(sum(line.count(c) for c in "]})")):
                if not stack:
                    break
                start, inside = stack.pop()
                if index in kept and not inside:  # what it held went (its members may stay)
                    drop |= {start, index}
                if stack:
                    stack[-1][1] += (start in kept and start not in drop) + inside
            if stack and index in kept and index not in drop:
                stack[-1][1] += 1
        elif line.rstrip().endswith(("[", "{", "(")):
            stack.append([index, 0])
        elif stack and index in kept:
            stack[-1][1] += 1
    drop &= kept
    if not drop:
        return out, source, 0
    pairs_kept = [(line, i) for line, i in zip(out, source, strict=True) if i not in drop]
    return [line for line, _ in pairs_kept], [i for _, i in pairs_kept], len(drop)


def lean_text(text: str, noise: Sequence[Any], said: Said | None,
              layout: bool, patch: bool = False, columns: bool = False,
              kept: Collection[str] = ()) -> tuple[str, int, int, set[str]]:
    """`text` for a model: (lean text, noise lines dropped, restated lines dropped, noise rules that fired).
    `layout`: the tool draws for the terminal, so rules, padding and repeated blank lines are not content
    (never for a file's own text, which an agent edits by its exact lines). `patch`: the text holds
    unified diffs, whose hunks are kept byte for byte (`agentwrap.outcome.patch`). `columns`: the text is
    a table aligned with spaces (`pip list`), whose cells are then one space apart, and a long listing's
    fields alike on every entry are said once (`said_once`). `kept`: lines the adapter keeps (stripped, as
    printed) though a noise rule matches them or the facts seem to say them (a failed link's command line)."""
    out: list[str] = []
    keep = {line.strip() for line in kept}
    source: list[int] = []  # the index in `lines` of each line of `out`
    noisy = restated = 0
    fired: set[str] = set()
    lines = text.splitlines()
    # A diff's hunks are kept byte for byte wherever they are (`ruff format --diff`, not only git's
    # patches); only in a patch are the file headers its `diff --git` line says left out.
    kinds = patch_kinds(lines) if patch else [k if k == HUNK else OTHER for k in patch_kinds(lines, headed=True)]
    marked = False  # the last line was left out as a restatement: a line of marks under it goes with it
    whole = _whole_documents(lines, said)  # a line of a JSON document: whether the document goes
    quoting = source_lines(lines) if said is not None else set()
    paired = _headed(lines, quoting)

    def said_again(at: int) -> bool:
        line = lines[at]
        line = tidy(line) if layout else line
        line = one_space_cells(line) if columns else line
        if said is not None and _listed_item(lines, at, said):
            return True
        return said is not None and restates(line, said) and (at not in quoting or _quoted(line, said))
    for index, (line, kind) in enumerate(zip(lines, kinds, strict=True)):
        if index in whole and kind != HUNK:
            if whole[index]:
                restated += 1
            else:
                out.append(line)
                source.append(index)
            marked = whole[index]
            continue
        if kind == HUNK:
            out.append(line)
            source.append(index)
            marked = False
            continue
        if kind == DROP:
            noisy += 1
            fired.add(PATCH_RULE)
            continue
        if layout:
            line = tidy(line)
        if columns:
            line = one_space_cells(line)
        if line.startswith(MARKER) or line.strip() in keep:
            out.append(line)
            source.append(index)
            marked = False
            continue
        rule = next((n for n in noise if n.search(line)), None)
        drawn = len(line) >= 3 and not line.strip(line[0]) and not line[0].isalnum() and (
            layout or said is not None and len(line) >= 8 and line[0] in "=_*#-")  # a rule under a report
        if rule is not None or drawn:
            noisy += 1
            fired.add(rule.pattern if rule is not None else "drawn rule")
            continue
        # a header naming a file's line (a traceback's `File "x", line N, in f`) and the code line under it
        # go together or stay together: the code line alone would read as the frame above's
        pair = paired.get(index)
        again = said_again(index) and (pair is None or said_again(pair))
        if said is not None and (again or marked and _MARKS.match(line) or _FRAME.match(line)):
            restated += 1
            marked = True
            continue
        marked = False
        if layout and not line.strip() and (not out or not out[-1].strip()):
            continue  # one blank line is layout enough
        out.append(line)
        source.append(index)
    if said is not None:
        out, source, headers = _without_empty_headers(lines, out, source)
        out, source, brackets = _without_empty_brackets(lines, out, source)
        restated += headers + brackets
    if columns:
        out = said_once(out)
    while out and not out[-1].strip():
        out.pop()
    while out and not out[0].strip():
        out.pop(0)
    if not out:
        return "", noisy, restated, fired
    joined = "\n".join(out)
    return (joined + "\n" if text.endswith("\n") or layout else joined), noisy, restated, fired
