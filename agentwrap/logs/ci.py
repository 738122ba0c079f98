"""CI log decorations: timestamps, group and section markers, workflow commands.

Works on chunks of whole lines with multi-line regexes (C speed): a 1 GB log is never split into a
Python list of lines. Step markers become sentinel lines (U+E000, a private-use character the
terminal cleaner keeps) so segmentation survives cleaning.
"""

from __future__ import annotations

from agentwrap.lazyre import lazy

MARK = "\ue000"  # starts a sentinel line: MARK + "step " + name, or MARK + "end"

# Timestamp prefixes: GitHub Actions (2024-01-01T12:34:56.1234567Z), Jenkins timestamper
# ([2024-01-01T12:34:56.123Z] or [12:34:56]), Azure/Buildkite-like ISO stamps, plain HH:MM:SS(.mmm).
_PREFIX = lazy(
    r"^(?:\ufeff)?(?:\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?[ \t]"
    r"|\[\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?\][ \t]?"
    r"|\[\d\d:\d\d:\d\d(?:\.\d+)?\][ \t]?|\d\d:\d\d:\d\d(?:\.\d{3})?[ \t])",
    8,  # re.MULTILINE
)
# Markers, matched after the prefixes are gone.
_GROUP = lazy(r"^(?:##\[group\]|::group::)(.*)$", 8)
_ENDGROUP = lazy(r"^(?:##\[endgroup\]|::endgroup::)[^\n]*$", 8)
# GitLab: section_start:1700000000:name[collapsed=true]\r\x1b[0KHeader text
_SECTION_START = lazy(r"^(?:\x1b\[0K)?section_start:\d+:([^\r\n\[]+)(?:\[[^\]\n]*\])?\r?(?:\x1b\[0K)?([^\n]*)$", 8)
_SECTION_END = lazy(r"^(?:\x1b\[0K)?section_end:\d+:[^\r\n]*\r?(?:\x1b\[0K)?$", 8)
# Jenkins pipeline stage markers: "[Pipeline] { (Build)" and the other [Pipeline] chatter.
_STAGE = lazy(r"^\[Pipeline\] \{ \((.*)\)$", 8)
_PIPELINE = lazy(r"^\[Pipeline\] [^\n]*$", 8)
# Workflow commands a step printed: keep the message, drop the command syntax.
_COMMAND = lazy(r"^(?:##\[(?:error|warning|notice|debug|command|section)\]|::(?:error|warning|notice|debug)"
                r"(?: [^:\n]*)?::)", 8)
_OTHER_COMMAND = lazy(r"^::(?:add-mask|set-output|save-state|stop-commands|add-matcher|remove-matcher|echo|"
                      r"add-path|set-env)[^\n]*$", 8)


def undecorate(chunk: str) -> str:
    """Remove CI decorations from a chunk of whole lines, turning step boundaries into sentinel lines."""
    if "\ufeff" in chunk[:1]:
        chunk = chunk[1:]
    chunk = _PREFIX.sub("", chunk)
    if "group" in chunk:
        chunk = _GROUP.sub(lambda m: f"{MARK}step {m.group(1).strip()}", chunk)
        chunk = _ENDGROUP.sub(f"{MARK}end", chunk)
    if "section_" in chunk:
        chunk = _SECTION_START.sub(lambda m: f"{MARK}step {(m.group(2) or m.group(1)).strip()}", chunk)
        chunk = _SECTION_END.sub(f"{MARK}end", chunk)
    if "[Pipeline]" in chunk:
        chunk = _STAGE.sub(lambda m: f"{MARK}step {m.group(1).strip()}", chunk)
        chunk = _PIPELINE.sub("", chunk)
    if "::" in chunk or "##[" in chunk:
        chunk = _COMMAND.sub("", chunk)
        chunk = _OTHER_COMMAND.sub("", chunk)
    return chunk
