"""The wrapper-level problem and warning codes every adapter inherits (CONTRACT section 3).

One table, read by the Problem factory, by `agentwrap explain` and by the JSON Schema tests, so a
code's title, category and retry facts are written down exactly once.
"""

from __future__ import annotations

from typing import NamedTuple


class CodeInfo(NamedTuple):
    code: str
    slug: str
    title: str
    meaning: str
    category: str
    status: int
    exit_code: int | None  # agentwrap's own exit code; None: the program's, or 128+N
    retryable: bool
    safe_to_retry: bool
    fixes: tuple[str, ...]


CATEGORIES = (
    "validation", "usage", "not_found", "authentication", "authorization", "conflict",
    "precondition", "rate_limit", "timeout", "network", "dependency", "input_required",
    "partial_failure", "internal",
)

_CODES = (
    CodeInfo("PROGRAM_NOT_FOUND", "program-not-found", "Program not found",
             "The program named on the command line is not on PATH (or the path does not exist).",
             "not_found", 404, 127, False, True,
             ("Check the spelling of the program name.",
              "Install the program, or give its full path.",
              "Run `agentwrap capabilities` to see which tools agentwrap knows.")),
    CodeInfo("NOT_EXECUTABLE", "not-executable", "Program is not executable",
             "The path exists but cannot be executed: it is a directory, lacks the execute bit, "
             "or has an unusable interpreter line.",
             "precondition", 403, 126, False, True,
             ("Make the file executable (`chmod +x FILE`) or run it through its interpreter.",
              "If it is a directory, name the program inside it.")),
    CodeInfo("TIMEOUT", "timeout", "Program exceeded the time limit",
             "The program was still running when --timeout expired; its whole process tree was ended.",
             "timeout", 504, 124, True, False,
             ("Raise the limit with `--timeout` (e.g. `--timeout 10m`).",
              "Use `--detach` and `agentwrap op wait` for long operations.",
              "Check whether the program was waiting on the network or a lock.")),
    CodeInfo("INPUT_REQUIRED", "input-required", "Program asked for input",
             "The program (or one of its descendants) waited for an answer on its terminal, or asked "
             "for an editor, a pager or credentials. agentwrap never answers unasked, so it ended "
             "the process tree.",
             "input_required", 428, 125, True, True,
             ("Use the program's own non-interactive flag or variable (see code_actions).",
              "Authorise a reply with `--answer 'REGEX=REPLY'`.")),
    CodeInfo("KILLED_BY_SIGNAL", "killed-by-signal", "Program was killed by a signal",
             "The program ended because of a signal it did not handle (a crash, the OOM killer, "
             "or a kill from outside).",
             "dependency", 502, None, True, False,
             ("SIGKILL with a large max_rss_bytes suggests the out-of-memory killer: reduce the input.",
              "SIGSEGV or SIGABRT is a crash in the program: check its version and input.")),
    CodeInfo("COMMAND_FAILED", "command-failed", "Program failed",
             "The program exited with a non-zero status and no adapter rule explained why.",
             "dependency", 502, None, False, False,
             ("Read `detail` and the salient lines of output.stderr.",
              "Fetch the full output with `agentwrap artifact show ID` when it was truncated.")),
    CodeInfo("INTERRUPTED", "interrupted", "Run was interrupted",
             "agentwrap received SIGINT, SIGTERM or SIGHUP and ended the program's whole process tree "
             "before it finished.",
             "partial_failure", 499, None, True, False,
             ("Run the command again when it is safe to; check for partial effects first.",)),
    CodeInfo("USAGE", "usage", "Invalid agentwrap invocation",
             "agentwrap's own arguments are wrong: an unknown or conflicting option, a bad value, "
             "or a feature that is not available.",
             "usage", 400, 125, False, True,
             ("Fix the option named in `detail`; see `agentwrap --help`.",)),
    CodeInfo("MUTATION_REFUSED", "mutation-refused", "Mutating command refused",
             "--read-only was given and the adapter classes this invocation as mutating.",
             "authorization", 403, 125, False, True,
             ("Drop --read-only if the change is intended.",)),
    CodeInfo("IDEMPOTENCY_CONFLICT", "idempotency-conflict", "Idempotency key reused with other inputs",
             "The --idempotency-key was recorded for a different argv, cwd or adapter.",
             "conflict", 409, 125, False, True,
             ("Use a new key for a different invocation.",)),
    CodeInfo("INTERNAL", "internal", "agentwrap failed",
             "agentwrap itself failed; this is a bug. The detail names the failure.",
             "internal", 500, 125, True, False,
             ("Retry once; if it persists, report the detail and request_id.",)),
)

#: Non-fatal conditions reported in `warnings` (never decide the run).
WARNINGS = {
    "OUTPUT_TRUNCATED": "A stream exceeded the inline budget; head, salient lines and tail are inline, "
                        "the complete text is in the named artifact.",
    "INVALID_UTF8": "The program wrote bytes that are not UTF-8; they are shown as U+FFFD.",
    "BINARY_OUTPUT": "The program wrote binary data (NUL or many control bytes); it was removed from text.",
    "ARTIFACT_UNAVAILABLE": "The artifact directory could not be written; only the inline text is kept.",
    "TREE_ENDED": "Descendants were still running after the program exited; agentwrap ended them.",
    "PROMPT_ANSWERED": "A prompt was answered with a reply authorised by --answer.",
    "REDACTED": "Secrets were removed from the output.",
    "DATA_TRUNCATED": "Parsed data was longer than the envelope's budget; its longest lists were cut and the "
                      "cuts counted in `<key>_omitted`.",
    "DATA_PARTIAL": "The output was too long for the adapter to read whole; data comes from its head and tail.",
    "PROBLEMS_TRUNCATED": "More problems were found than an envelope holds; the count of those left out is given.",
    "ADAPTER_LOAD_FAILED": "An adapter (user folder, plugin or built-in) could not be loaded; the run used another.",
    "ADAPTER_FAILED": "An adapter raised an error reading the run; the generic verdict was used instead.",
    "OUTPUT_EVENTS_LIMITED": "The jsonl stream stopped emitting output events at its budget; "
                             "the final envelope holds the bounded output and artifact.",
    "UNKNOWN_FIELDS": "A name given to --fields matched nothing in this envelope; the fields that exist are "
                      "shown.",
}

BY_CODE: dict[str, CodeInfo] = {c.code: c for c in _CODES}


def lookup(code: str) -> CodeInfo | None:
    return BY_CODE.get(code.upper())
