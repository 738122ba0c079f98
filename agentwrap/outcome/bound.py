"""Bound: the one owner of the inline budget. What stays inline, for each detail level, and what goes to
an artifact. Pure but for the artifact store: nothing here reads a process.

Two texts come out per stream. `text` (standard): the capture's bounded text, shrunk to a quarter of the
budget when an adapter already turned the output into facts. `lean` (concise): `text` less the lines
that carry no fact (the adapter's noise rules, rule lines, padding) and less the lines that `data` or
`problems` already say, so each fact reaches a model once. The complete text always stays in an
artifact, so nothing is lost; `agentwrap artifact show` reads it back.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from agentwrap.artifacts import ArtifactError, ArtifactRef, ArtifactStore
from agentwrap.capture import MEDIA_TYPE, StreamResult
from agentwrap.lazyre import lazy
from agentwrap.outcome.lean import Said, lean_text
from agentwrap.outcome.record import Stream
from agentwrap.problem import Problem, rebased, with_files

HEAD_SHARE = 0.3
EXPLAINED_SHARE = 4  # a stream whose facts are in data or problems keeps a quarter of the budget inline
DATA_SHARE = 2  # parsed data may use twice the stream budget
# Item fields that name an item: a cut list keeps these for every item before it drops any item.
IDENTITY = ("sha", "abbrev", "id", "name", "nodeid", "file", "path", "package", "version", "subject", "title", "ref",
            "line", "code", "status", "kind")


def _fit(lines: list[str], budget: int) -> list[str]:
    kept, used = [], 0
    for line in lines:
        size = len(line.encode("utf-8", "replace"))
        if used + size > budget:
            break
        kept.append(line)
        used += size
    return kept


def keep_whole(result: StreamResult, store: ArtifactStore | None) -> ArtifactRef | None:
    """The stream's artifact, written now if the capture did not need one (the text is whole inline)."""
    if result.artifact is not None or store is None or not result.text:
        return result.artifact
    try:
        writer = store.create(media_type=MEDIA_TYPE)
        writer.write(result.text.encode("utf-8", "replace"))
        return writer.close()
    except (ArtifactError, OSError):
        return None


def head_and_tail(text: str, budget: int, artifact: str | None, why: str) -> tuple[str, int]:
    """`text` within about `budget` bytes: its head and tail around an elision line; and the lines cut."""
    if len(text.encode("utf-8", "replace")) <= budget:
        return text, 0
    lines = text.splitlines(keepends=True)
    head = _fit(lines, int(budget * HEAD_SHARE))
    tail = list(reversed(_fit(list(reversed(lines[len(head):])), budget - sum(len(x) for x in head))))
    omitted = len(lines) - len(head) - len(tail)
    where = f"; full text: agentwrap --agent artifact show {artifact}" if artifact else ""
    return "".join(head) + f"… {omitted} lines not shown{why}{where}\n" + "".join(tail), omitted


def shrink(result: StreamResult, budget: int, store: ArtifactStore | None) -> StreamResult:
    """`result` with at most about `budget` bytes inline, its full text kept in an artifact."""
    if len(result.text.encode("utf-8", "replace")) <= budget:
        return result
    ref = keep_whole(result, store)
    if ref is None:
        return result  # nowhere to keep the full text: keep it inline rather than lose it
    text, omitted = head_and_tail(result.text, budget, ref.id, ": the adapter's problems and data hold the facts")
    omitted = max(result.lines - (len(text.splitlines()) - 1), omitted)
    return result._replace(text=text, truncated=True, omitted_lines=omitted, artifact=ref)


def stream(result: StreamResult, analysed: tuple[str, bool], *, budget: int, store: ArtifactStore | None,
           explained: bool, parsed_whole: bool, noise: Sequence[Any], said: Said | None,
           layout: bool = False, patch: bool = False,
           columns: bool = False, kept: Sequence[str] = (),
           rewrites: Sequence[tuple[str, str]] = ()) -> tuple[Stream, set[str], ArtifactRef | None]:
    """The stream of the record: its standard text and its lean text, each within its budget. The lean
    text is filtered from `analysed` (what the adapter read: the whole output, or its head and tail, and
    whether it was whole), so what survives the noise rules and the facts already given is what the budget
    is spent on. `rewrites`: (text, lean) of other commands of a shell line, each read by its own adapter: where
    `analysed` holds that text once, its lean form stands in for it."""
    full_text, whole = analysed
    rewritten = False
    for printed, laid in rewrites:
        if printed != laid and printed.strip() and full_text.count(printed) == 1:
            full_text, rewritten = full_text.replace(printed, laid), True
    standard = shrink(result, max(256, budget // EXPLAINED_SHARE), store) if explained else result
    noisy = restated = 0
    fired: set[str] = set()
    filtered = parsed_whole or bool(noise) or layout or explained or patch or columns or rewritten
    if parsed_whole:
        lean, restated = "", result.lines  # the data holds every fact of this text
    elif filtered:
        lean, noisy, restated, fired = lean_text(full_text, noise, said if explained else None, layout,
                                                patch, columns, kept)
    else:
        lean = result.text  # the capture's own bound: head, salient lines, tail
    ref = standard.artifact
    if lean != result.text and ref is None:
        ref = keep_whole(result, store)  # dropped lines stay readable in the artifact
    cut = 0
    if filtered:
        lean_budget = max(256, budget // EXPLAINED_SHARE) if explained else budget
        lean, cut = head_and_tail(lean, lean_budget, ref.id if ref else None, "")
    lost = bool(cut) or (result.truncated and (not filtered or not whole))
    return Stream(text=standard.text, bytes=standard.bytes, lines=standard.lines, truncated=standard.truncated,
                  omitted_lines=standard.omitted_lines, artifact=ref.id if ref else None, lean=lean,
                  lean_cut=lost, noise_lines=noisy, restated_lines=restated), fired, ref


# --- problems -----------------------------------------------------------------------------------
def relative_files(problem: Problem, cwd: str | None) -> Problem:
    """`problem` with every `file` under the working directory written relative to it (`native/a.c`,
    not `/tmp/x/native/a.c`): shorter, and what the caller would type from where it ran the command."""
    if not cwd or cwd == "/":
        return problem
    prefix = cwd.rstrip("/") + "/"
    if prefix not in repr(problem):
        return problem
    return with_files(problem, lambda file: file[len(prefix):] if file.startswith(prefix) else file)


def rebased_files(problem: Problem, ran_in: str | None, cwd: str | None) -> Problem:
    """`problem` with every relative `file` (its location, its edits, its notes) taken from where the command
    ran (`cd sub && pytest` says `test_x.py`) to where the caller is (`sub/test_x.py`): a location and the
    edit that fixes it name one file."""
    if not ran_in or not cwd or ran_in == cwd:
        return problem
    return rebased(problem, ran_in)


# --- data ---------------------------------------------------------------------------------------
# The pieces a BPE tokenizer (o200k, cl100k) mostly makes of JSON: an escape (`\n`), a word with its leading
# space, up to three digits, a run of blanks, one to three marks (JSON's `","` and `":[` are one token each).
# Bytes are no stand-in: padding is many bytes and few tokens. Against o200k over the fixtures' data and text,
# up to three marks a piece picks the cheaper form 119 times in 120 (two marks: 113).
_PIECE = lazy(r"\\[nt\"\\/]| ?[A-Za-z]+| ?\d{1,3}|\s+(?!\S)|\s|[^\sA-Za-z\d]{1,3}")


def token_estimate(text: str) -> int:
    """About how many tokens `text` costs a model (within a few tens of percent; used to compare forms)."""
    return len(_PIECE.findall(text))


def cheaper_as_text(text: str, data: Any) -> bool:
    """Whether `text` costs a model fewer tokens than `data`, each as the envelope writes it (JSON)."""
    return token_estimate(json.dumps(text, ensure_ascii=False)) < token_estimate(
        json.dumps(data, ensure_ascii=False, separators=(",", ":")))


def text_rather_than_data(text: str, text_cut: bool, data: Any, data_cut: bool) -> bool:
    """For a command parsed whole, whether its concise envelope sends `text` rather than `data` (never both):
    the form that says every fact within the bound; when both do, the one that costs fewer tokens (`git log
    --oneline` reads cheaper as text); when neither does, the data, which keeps every item's identity before
    it leaves an item out, and counts what it left out."""
    if text_cut or data_cut:
        return not text_cut
    return cheaper_as_text(text, data)


def dropped_members(whole: Any, cut: Any) -> tuple[str, ...]:
    """The members the items of `whole`'s top-level lists lost in `cut` (`bound_data` keeps their identity):
    `commits.date` when each commit kept its abbrev and subject only."""
    if not isinstance(whole, dict) or not isinstance(cut, dict):
        return ()
    out: list[str] = []
    for key, items in whole.items():
        kept = cut.get(key)
        if not isinstance(items, list) or not isinstance(kept, list) or not kept:  # no item left to lack them
            continue
        had = {m: None for item in items if isinstance(item, dict) for m in item}
        has = {m for item in kept if isinstance(item, dict) for m in item}
        out += [f"{key}.{m}" for m in had if m not in has]
    return tuple(out)


def lean_data(data: Any, omit: Sequence[str], summary: str = "", shared: Sequence[str] = ()) -> Any:
    """`data` for a model: without the members the adapter leaves to problems (`omit`; `list.member` leaves a
    member out of each item of a top-level list: git log's full `sha`, which `abbrev` names, or out of a
    top-level map: apt's `plan.remove`, which its `remove` list says), the top-level
    words the summary already says (a commit's sha and subject), and empty, null, false or zero members,
    which say nothing a status or a count elsewhere does not. `shared`: members the data states once at
    its top when every item of its lists has them alike (git log's one author); the items leave them out."""
    def prune(node: Any, top: bool, alike: dict[str, Any], item_omit: frozenset[str] = frozenset()) -> Any:
        if isinstance(node, dict):
            out = {}
            for key, value in node.items():
                if top and (key in omit or key.removesuffix("_omitted") in omit) or key in item_omit:
                    continue
                if top and isinstance(value, str) and len(value) >= 3 and value in summary:
                    continue
                if top and (_counted(key, value, summary) or _flagged(key, value, summary)):
                    continue
                if key in alike and alike[key] == value:
                    continue
                if not top and key == "changes" and _summed(node, value):
                    continue
                if top and isinstance(value, list):
                    value = prune(value, False, said_once, per_item.get(key, frozenset()))
                elif top and isinstance(value, dict) and key in per_item:  # `plan.remove`: one member of a map
                    value = prune({k: v for k, v in value.items() if k not in per_item[key]}, False, {})
                else:
                    value = prune(value, False, {})
                if value in (None, [], {}, False, "", 0) and value is not True:
                    continue
                out[key] = value
            return out
        if isinstance(node, list):
            return [prune(item, False, alike, item_omit) for item in node]
        return node

    if data is None:
        return None
    said_once = {k: data[k] for k in shared if k in data} if isinstance(data, dict) else {}
    per_item: dict[str, frozenset[str]] = {}  # `commits.sha`: the member each item of `commits` leaves out
    for name in omit:
        if "." in name:
            key, member = name.split(".", 1)
            per_item[key] = per_item.get(key, frozenset()) | {member}
    pruned = prune(data, True, {})
    return pruned if pruned not in ({}, []) else None


def _summed(item: dict[str, Any], value: Any) -> bool:
    """A file's `changes` that is only its insertions plus its deletions (git's stat line): it adds nothing
    beside them. Where git scaled its +/- graph the split is unknown (null) and `changes` is the one count."""
    ins, dels = item.get("insertions"), item.get("deletions")
    return isinstance(value, int) and isinstance(ins, int) and isinstance(dels, int) and value == ins + dels


def _flagged(key: str, value: Any, summary: str) -> bool:
    """A true flag the summary names: `clean: true` beside "working tree clean" (not "not clean", "0 clean")."""
    word = re.escape(key).replace("_", "[ -]")  # `fast_forward` beside git's "fast-forward"
    return value is True and re.search(rf"(?<!\bno )(?<!\bnot )(?<!\d )\b{word}\b", summary) is not None


def _counted(key: str, value: Any, summary: str) -> bool:
    """A count the summary gives in words: `errors: 2` beside "2 errors", `checked: 4` beside "checked 4"."""
    if not isinstance(value, int) or isinstance(value, bool) or not summary:
        return False
    if key == "count":  # `count: 3` beside "3 commits"
        return re.match(rf"{value} \w", summary) is not None
    word = key.replace("_", " ")
    singular = " ".join(w.removesuffix("s") for w in word.split())  # `1 file changed`
    forms = (f"{value} {word}", f"{value} {word.removesuffix('s')}", f"{value} {singular}", f"{word} {value}")
    return any(re.search(rf"(?<![\w.]){re.escape(form)}\b", summary) for form in forms)


def bound_data(data: Any, budget: int) -> tuple[Any, int]:
    """`data` within about `budget` bytes of JSON. The largest list is cut first: its items first lose their
    detail (each keeps its identifying fields: a commit's sha and subject), then half of its items (the
    first ones kept), each cut counted in a sibling `<key>_omitted`; then the next largest. Returns the
    data and how many items were left out."""
    if data is None or _size(data) <= budget:
        return data, 0
    data = json.loads(json.dumps(data, default=str))  # a private copy to cut
    trimmed: set[int] = set()
    omitted = 0
    for _ in range(256):
        lists = _lists(data)
        if not lists or _size(data) <= budget:
            break
        parent, key = max(lists, key=lambda found: _size(found[0][found[1]]))
        items = parent[key]
        if id(items) not in trimmed:
            parent[key] = [_identity(item) for item in items]
            trimmed.add(id(parent[key]))
            continue
        keep = len(items) // 2 if len(items) > 3 else 0
        omitted += len(items) - keep
        parent[key] = items[:keep]
        trimmed.add(id(parent[key]))
        if isinstance(parent, dict) and isinstance(key, str):
            parent[f"{key}_omitted"] = parent.get(f"{key}_omitted", 0) + len(items) - keep
    return data, omitted


def _size(node: Any) -> int:
    return len(json.dumps(node, default=str))


def _identity(item: Any) -> Any:
    if not isinstance(item, dict):
        return item
    kept = {k: v for k, v in item.items() if k in IDENTITY and not isinstance(v, dict | list)}
    for key, value in kept.items():
        if isinstance(value, str) and len(value) > 120:
            kept[key] = value[:119] + "…"
    return kept or item


def _lists(node: Any) -> list[tuple[Any, Any]]:
    found: list[tuple[Any, Any]] = []
    if isinstance(node, dict):
        for key, value in node.items():
            if isinstance(value, list) and value:
                found.append((node, key))
            found.extend(_lists(value))
    elif isinstance(node, list):
        for item in node:
            found.extend(_lists(item))
    return found
