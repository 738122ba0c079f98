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
             ("Raise the limit with `--timeout` (e.g. `--timeout 10m`); where an agent host's hook set it, raise "
              "the host's own limit for the call instead (Claude Code's Bash `timeout`, up to 10 minutes).",
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
              "SIGSEGV or SIGABRT is a crash in the program: check its version and input.",
              "SIGTERM, SIGHUP or SIGINT was sent from outside (a supervisor, a time limit, a person): run it "
              "again if nobody meant to stop it.")),
    CodeInfo("COMMAND_TIMED_OUT", "command-timed-out", "Command ran past its own time limit",
             "The command line gave the command a time limit (`timeout 30 pytest`) and the command was still "
             "running when it ran out, so `timeout` ended it (exit status 124). Not agentwrap's --timeout.",
             "timeout", 504, None, True, False,
             ("Give the command more time (a longer `timeout` limit), or find what it waited on: the network, "
              "a lock, a prompt, a test that hangs.",
              "Run a long operation with `agentwrap --detach` and `agentwrap op wait` instead of a time limit.")),
    CodeInfo("COMMAND_FAILED", "command-failed", "Program failed",
             "The program exited with a non-zero status and no adapter rule explained why.",
             "dependency", 502, None, False, False,
             ("Read `detail` and the last lines of the output.",
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
             "--read-only was given and the adapter classes this invocation as mutating, or nothing can classify it "
             "(an unknown counts as mutating). Nothing was run.",
             "authorization", 403, 125, False, True,
             ("Run the read-only alternative named in code_actions (the tool's own dry run) to see what it "
              "would do.",
              "Drop --read-only if the change is intended.")),
    CodeInfo("IDEMPOTENCY_CONFLICT", "idempotency-conflict", "Idempotency key reused with other inputs",
             "The --idempotency-key was recorded for a different argv, cwd, adapter or --stdin input; the detail "
             "names each difference. Nothing was run.",
             "conflict", 409, 125, False, True,
             ("Use a new key for a different invocation.",)),
    CodeInfo("IDEMPOTENCY_IN_PROGRESS", "idempotency-in-progress", "Idempotency key's first run still going",
             "A run with this --idempotency-key and the same inputs has started and not finished; it was not "
             "started again. Its operation_id says where to wait for the result.",
             "conflict", 409, 125, True, True,
             ("Wait for the first run with `agentwrap op wait ID`, or repeat the call later to replay its result.",)),
    CodeInfo("ARTIFACT_NOT_FOUND", "artifact-not-found", "No such artifact",
             "The artifact id is malformed, or no artifact with that id is kept in the cache directory "
             "(artifacts expire after 7 days; the detail says when one has expired).",
             "not_found", 404, 125, False, True,
             ("Run the command again to produce a fresh artifact.",
              "Copy the id from the `artifacts` list or an `output.*.artifact` field of an envelope.")),
    CodeInfo("ARTIFACT_DAMAGED", "artifact-damaged", "Artifact content damaged",
             "The artifact's content file no longer has the size (or, when small, the sha256) it was stored "
             "with: cut short by a full disk, or changed since. No page of it is served, since none can be "
             "trusted to be what the program printed.",
             "internal", 500, 125, False, True,
             ("Run the command again to produce a fresh artifact.",
              "Check the free space of the cache directory (`AGENTWRAP_CACHE_DIR` or ~/.cache/agentwrap).")),
    CodeInfo("OPERATION_NOT_FOUND", "operation-not-found", "No such operation",
             "The operation id is malformed, or no operation with that id is kept in the state directory "
             "(finished operations are pruned after 7 days).",
             "not_found", 404, 125, False, True,
             ("Run `agentwrap op list` to see the operations kept here.",)),
    CodeInfo("OPERATION_RUNNING", "operation-running", "Operation still running",
             "The operation has not finished: its result is not there yet (`op result`), or `op wait` reached "
             "its --timeout first. Nothing was stopped.",
             "timeout", 504, 125, True, True,
             ("Wait again with `agentwrap op wait ID --timeout DUR`.",
              "Read what it printed so far with `agentwrap op events ID --after SEQ`.")),
    CodeInfo("OPERATION_LOST", "operation-lost", "Operation lost",
             "The process supervising the operation ended without recording a result (killed, crashed, or the "
             "machine restarted). What the program did before that is unknown.",
             "partial_failure", 500, 125, True, False,
             ("Check with a read-only command whether the change happened before running it again.",
              "`agentwrap op events ID` shows what it printed before it was lost.")),
    CodeInfo("PLAN_UNSUPPORTED", "plan-unsupported", "No plan for this command",
             "agentwrap makes plans only for commands whose tool has a dry run and whose state a planner can "
             "fingerprint (see `agentwrap plan` in docs/operations.md), or the state could not be read.",
             "usage", 400, 125, False, True,
             ("Run the tool's own read-only form yourself, or run the command with --idempotency-key.",)),
    CodeInfo("PLAN_NOT_FOUND", "plan-not-found", "No such plan",
             "The plan id is malformed or unknown here (expired plans are kept a day, then pruned).",
             "not_found", 404, 125, False, True,
             ("Make a new plan with `agentwrap plan -- PROGRAM ARGS`.",)),
    CodeInfo("PLAN_EXPIRED", "plan-expired", "Plan expired",
             "The plan is older than its expiry; the state it read may have changed. Nothing was run.",
             "precondition", 412, 125, True, True,
             ("Plan again with `agentwrap plan -- PROGRAM ARGS` and apply the new plan.",)),
    CodeInfo("PLAN_DRIFT", "plan-drift", "State changed since the plan",
             "The state the plan depends on (refs, versions, serials) is not what it was when planned; the "
             "detail names each change. Nothing was run.",
             "precondition", 412, 125, True, True,
             ("Plan again against the current state, review the new effects, then apply that plan.",)),
    CodeInfo("PLAN_HASH_MISMATCH", "plan-hash-mismatch", "Plan is not the one approved",
             "--expect-hash does not match the plan's digest: the plan applied would not be the plan reviewed. "
             "Nothing was run.",
             "precondition", 412, 125, False, True,
             ("Pass the digest that `agentwrap plan` printed for this plan_id.",)),
    CodeInfo("PLAN_ENV_MISMATCH", "plan-env-mismatch", "--env is not the plan's",
             "A plan binds its --env: a secret-named value is kept only as a digest and must be given to apply "
             "again with the planned value; a plain value is kept and used again. One was missing, had another "
             "value, or was not in the plan (the detail names which). Nothing was run.",
             "precondition", 412, 125, False, True,
             ("Pass each name in `env_to_pass_again` with its planned value: "
              "`agentwrap apply PLAN_ID --env NAME=VALUE`; a different --env needs a new plan.",)),
    CodeInfo("PLAN_ALREADY_APPLIED", "plan-already-applied", "Plan already applied",
             "A plan runs once; this one was applied before. Nothing was run.",
             "conflict", 409, 125, False, True,
             ("Plan again if the change is needed again.",)),
    CodeInfo("VERIFICATION_FAILED", "verification-failed", "Postcondition not met",
             "The program reported success, but the read-only check of what it should have changed says "
             "otherwise; `verification.checks` has the expected and actual values.",
             "partial_failure", 502, 1, True, False,
             ("Read verification.checks, find out what happened with the check's command, then plan again.",)),
    CodeInfo("REQUEST_INVALID", "request-invalid", "Invalid request document",
             "The JSON request given with --input does not match `agentwrap schema request`, or names a "
             "duration, regex, directory, file or adapter that does not work. Every such error is listed in "
             "`invalid_params` (a JSON pointer and a reason each). Nothing was run.",
             "validation", 422, 125, False, True,
             ("Fix each member named in invalid_params and send the request again.",)),
    CodeInfo("CONFIG_CONFLICT", "config-conflict", "Configuration file holds what agentwrap did not write",
             "`agentwrap init` would have to overwrite or remove content it did not write (an entry edited by "
             "hand, a file of the same name, a value of another shape, a file it cannot parse), so it changed "
             "nothing.",
             "conflict", 409, 125, False, True,
             ("Read `detail` for the file and the entry; edit or remove it by hand, then run the command again.",
              "Run with --dry-run to see the exact change agentwrap would make.")),
    CodeInfo("EXTRA_NOT_INSTALLED", "extra-not-installed", "Optional dependency not installed",
             "The feature needs an optional extra of agentwrap (such as `mcp` or `otel`) that is not installed "
             "in this Python environment.",
             "dependency", 503, 125, False, True,
             ("Install the extra named in `detail`, e.g. `pip install 'agentwrap[mcp]'`.",)),
    CodeInfo("ADAPTER_TEST_FAILED", "adapter-test-failed", "Adapter fixtures failed",
             "`agentwrap adapter test` replayed the captured fixtures and at least one case failed: its envelope "
             "did not match the reviewed .expected.json, one of its files is missing or unreadable, or the "
             "adapter emitted a problem code it does not declare.",
             "validation", 422, 1, False, True,
             ("Read each failed case's `mismatches` in `data.cases`: fix the adapter, or review and update "
              "the .expected.json.",
              "Declare every code the adapter emits (a Python adapter's `codes`, a TOML rule's `code`).")),
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
    "BINARY_OUTPUT": "The program wrote binary data (NUL or many control bytes); it was removed from text, and a "
                     "stream a third or more of whose bytes were not text is not shown at all.",
    "ARTIFACT_UNAVAILABLE": "The artifact directory could not be written; only the inline text is kept.",
    "TREE_ENDED": "Descendants were still running after the program exited; agentwrap ended them.",
    "PROMPT_ANSWERED": "A prompt was answered with a reply authorised by --answer.",
    "REDACTED": "Secrets were removed from the output.",
    "DATA_TRUNCATED": "Parsed data was longer than the envelope's budget; its longest lists were cut, each item "
                      "first to its identity, then items, counted in `<key>_omitted`.",
    "DATA_PARTIAL": "The output was too long for the adapter to read whole; data comes from its head and tail.",
    "PROBLEMS_TRUNCATED": "More problems were found than an envelope holds; the count of those left out is given.",
    "LINES_TRUNCATED": "normalize: lines longer than 256 KiB were read up to that length (memory stays flat).",
    "ADAPTER_LOAD_FAILED": "An adapter (user folder, plugin or built-in) could not be loaded; the run used another.",
    "ADAPTER_CONFLICT": "Two adapters of the user folder claim the same name or program; the first in file-name "
                        "order serves it (`agentwrap adapter list` says which).",
    "ADAPTER_FAILED": "An adapter raised an error reading the run; the generic verdict was used instead.",
    "OUTPUT_EVENTS_LIMITED": "The jsonl stream stopped emitting output events at its budget; "
                             "the final envelope holds the bounded output and artifact.",
    "OUTPUT_EVENTS_WITHHELD": "The jsonl stream sent no output events: the command prints secrets its adapter names "
                              "only after reading the whole output; the final envelope holds it with them hidden.",
    "SHELL_NOT_PARSED": "A shell line could not be parsed into commands; it ran unchanged and its output was read "
                        "with the generic adapter.",
    "SHELL_NOT_TRACED": "A shell line ran unchanged, without the per-command trace (not bash, or the line uses "
                        "what the trace is made of); only a one-command line is read by that command's adapter.",
    "PIPE_HID_FAILURE": "A stage of a pipeline failed although the line's status (its last stage's) says success.",
    "SHELL_EARLIER_FAILURE": "A command of a shell line failed and the line went on; the line's status is a later "
                             "command's.",
    "SHELL_NEGATED_SUCCESS": "A shell line failed because a command it negated with `!` succeeded (`! grep -q x f` "
                             "found x).",
    "UNKNOWN_FIELDS": "A name given to --fields matched nothing in this envelope; the fields that exist are "
                      "shown.",
}

BY_CODE: dict[str, CodeInfo] = {c.code: c for c in _CODES}


def lookup(code: str) -> CodeInfo | None:
    return BY_CODE.get(code.upper())
