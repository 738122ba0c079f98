"""agentwrap adapter for curl: curl's exit codes and HTTP statuses as problems, the response head as data.

Python rather than TOML because curl has no subcommands: what a run does depends on -X/-d/-T/-o (effects),
`curl -s` prints nothing on failure (the exit code alone must name the problem), whether a failed call is
safe to repeat depends on the HTTP method, and the response head (-i/-I/-v) is parsed into `data`.
"""

from __future__ import annotations

import os
import re
from http import HTTPStatus
from typing import Any

from agentwrap.adapters import _curl_parse as cp
from agentwrap.lazyre import lazy
from agentwrap.retry import retry_after_in
from agentwrap.sdk import Adapter, BaseAdapter, CapturedRun, CodeAction, Effects, Problem, Spec
from agentwrap.sdk import Interpretation as Reading  # one import line stays within 110 columns

#: The declarative part (rules, prompts, effects, noise, descriptor): data, validated like a user's.
SPEC_FILE = os.path.join(os.path.dirname(__file__), "curl.spec.toml")

#: Failures after which the server may have acted on the request: repeating it is safe only for idempotent methods.
_AMBIGUOUS = frozenset({"CURL_TIMEOUT", "CURL_EMPTY_REPLY", "CURL_SEND_ERROR", "CURL_RECV_ERROR", "CURL_PARTIAL_FILE",
                        "CURL_HTTP_SERVER_ERROR", "CURL_HTTP_ERROR", "CURL_HTTP_TIMEOUT"})
_IDEMPOTENT = frozenset({"GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"})
_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})
_CURL_MESSAGE = lazy(r"^curl: (?:\(\d+\)|option|try)", re.M)

#: What to do after an ambiguous failure of a non-idempotent request, in place of the rule's retry advice.
_MAY_HAVE_APPLIED = (
    "The server may have applied this {method} before the failure, and sending it again may repeat its "
    "effect (a second order, payment or message): check whether it took effect (GET the resource it "
    "creates or changes, or read the server's logs) and send it again only if it did not, or with the "
    "API's idempotency key if it has one.")


def _effects(inv: cp.Invocation) -> Effects:
    if inv.method in _SAFE_METHODS:
        return Effects(read_only=not inv.writes_local, destructive=False, idempotent=True, open_world=True)
    if inv.method in ("PUT", "DELETE"):  # replace or remove the remote resource: repeatable, not undoable
        return Effects(read_only=False, destructive=True, idempotent=True, open_world=True)
    if inv.method in ("POST", "PATCH"):
        return Effects(read_only=False, destructive=False, idempotent=False, open_world=True)
    return Effects(read_only=False, destructive=None, idempotent=None, open_world=True)


#: A 429 whose Retry-After this run did not show (no -i): how to learn the wait, not "wait retry_after".
_WAIT_NOT_SHOWN = (
    "The server is rate limiting. How long to wait is in its Retry-After header, which this run did not "
    "show: run it again with `-i` (or `-D -`) to see it, or let curl wait as the header says (`curl --retry "
    "3`, which honours Retry-After). Slow down.")
_HTTP_STATUS = lazy(r"\banswered HTTP (?P<status>\d{3})\b")


_EXIT_RULE = lazy(r"\^curl: \\\((\d+)\\\) ")  # a rule for `curl: (N) ...`, curl's message for exit N


# Options that write a local file (a trace, a cache, C source), read options from a file (`-K`), or send
# commands to the server (FTP/SFTP `-Q "DELE f"`): a GET with any of them is not read-only.
_WRITES_OR_ACTS = frozenset({"--trace", "--trace-ascii", "--libcurl", "--etag-save", "--hsts", "--alt-svc",
                             "--config", "-K", "--quote", "-Q"})


def _writes_or_acts(name: str, value: str | None) -> bool:
    if name in ("--stderr",):
        return value != "-"
    if name in ("--write-out", "-w"):
        return "%output{" in (value or "")  # curl 8.3: `%output{FILE}` sends what follows to FILE
    return name in _WRITES_OR_ACTS


def exit_code_rules(spec: Spec) -> dict[int, str]:
    """Exit status -> the code of the rule for curl's message of that status (the first rule wins): what
    names the problem when `curl -s` printed nothing. 22 is --fail's HTTP error, whatever the status."""
    out = {22: "CURL_HTTP_ERROR"}
    for rule in spec.rules:
        if match := _EXIT_RULE.match(rule.pattern.pattern):
            out.setdefault(int(match.group(1)), rule.code)
    return out


_SPEC = Spec.from_toml(SPEC_FILE)
_EXIT_CODES = exit_code_rules(_SPEC)


def _not_repeatable(problem: Problem, method: str) -> Problem:
    """An ambiguous failure of a POST/PATCH: not safe to repeat, and no action that sends it again.

    Each of these rules' actions re-runs the request (`curl --retry 3 ...`, `curl -S -i ...`), and curl's
    --retry re-sends a POST after a 5xx (curl 7.88 does, three times for `--retry 3`): only someone who
    knows whether the first one took effect may decide to send it again.
    """
    return problem._replace(safe_to_retry=False, code_actions=(),
                            suggested_fix=_MAY_HAVE_APPLIED.format(method=method))


def _header_wait(run: CapturedRun) -> float | None:
    """The wait the final response's Retry-After asks for (seconds or an HTTP-date), else one in prose."""
    head = cp.response(run.stdout_text, run.stderr_text)
    wait = cp.retry_after(head["headers"], run.started_epoch) if head else None
    return wait if wait is not None else retry_after_in(run.stdout_text + "\n" + run.stderr_text)


def _waiting(problem: Problem, seconds: float) -> Problem:
    """A retryable problem the server said when to retry: the wait is a fact, and the fix's first step."""
    fix = problem.suggested_fix or ""
    if "retry_after" not in fix:
        fix = f"Wait retry_after seconds first (the server's Retry-After header). {fix}".rstrip()
    return problem._replace(retry_after=seconds, suggested_fix=fix)


def _wait_not_shown(problem: Problem, argv: tuple[str, ...]) -> Problem:
    """A 429 with no Retry-After in sight: no fix may point at a retry_after the problem does not have."""
    let_curl_wait = CodeAction(title="Let curl wait as Retry-After says, then retry (3 times at most)",
                               command=("curl", "--retry", "3", *argv[1:]), applicability="maybe_incorrect")
    actions = (let_curl_wait, *problem.code_actions)
    return problem._replace(suggested_fix=_WAIT_NOT_SHOWN, code_actions=actions)


def _status_line(status: int, data: Any) -> str:
    """`HTTP 503 Service Unavailable`: the reason curl printed (-i), else the standard one."""
    reason = data.get("reason") if isinstance(data, dict) and data.get("http_status") == status else None
    if not reason:
        try:
            reason = HTTPStatus(status).phrase
        except ValueError:
            reason = ""
    return f"HTTP {status} {reason}".rstrip()


class CurlAdapter(BaseAdapter):
    spec = _SPEC

    def argv_values(self, argv: list[str]) -> dict[str, str]:
        folder = cp.output_folder(argv)  # a failed write's action names the folder -o writes into
        return {"output_folder": folder} if folder else {}

    def effects(self, argv: list[str]) -> Effects:
        found = _effects(cp.invocation(argv))
        if found.read_only and any(_writes_or_acts(name, value) for name, value, _ in cp.options(argv)):
            return found._replace(read_only=False)
        return found

    def prompt_help(self, argv: list[str], prompt: str, input_kind: str) -> tuple[str | None, list[CodeAction]]:
        fix, actions = super().prompt_help(argv, prompt, input_kind)
        found = cp.without_user(list(argv)) if "host password" in prompt else None
        if found is not None:  # the host password prompt: -u USER without ':PASSWORD'
            rest, user = found
            actions.append(CodeAction(
                title=f"Read the credentials for {user} from a netrc file (replace <NETRC_FILE>)",
                command=(rest[0], "--netrc-file", "<NETRC_FILE>", *rest[1:]), applicability="has_placeholders",
                is_preferred=True))
            actions.append(CodeAction(
                title="Pass the password with the user name (replace <PASSWORD>)",
                command=(rest[0], "-u", f"{user}:<PASSWORD>", *rest[1:]), applicability="has_placeholders"))
        return fix, actions

    def parse(self, run: CapturedRun) -> Any:
        # The response head is a fact on failure too (a 429's Retry-After, a 401's WWW-Authenticate).
        return cp.response(run.stdout_text, run.stderr_text)

    def summarize(self, run: CapturedRun, data: Any) -> str | None:
        if not data:
            return None
        kind = data["headers"].get("content-type")
        return f"HTTP {data['http_status']} {data['reason']}".rstrip() + (f" ({kind})" if kind else "")

    def find_problems(self, run: CapturedRun) -> list[Problem]:
        problems = super().find_problems(run)
        if run.failed and run.exit_code is not None and not any(p.severity == "error" for p in problems):
            silent = self._from_exit_code(run)
            if silent is not None:
                problems.append(silent)
        method = cp.invocation(run.argv).method
        header_wait = _header_wait(run)
        out = []
        for p in problems:
            if p.code in _AMBIGUOUS and method not in _IDEMPOTENT:
                p = _not_repeatable(p, method)
            if p.retryable and p.retry_after is None and header_wait is not None:
                p = _waiting(p, header_wait)
            if p.code == "CURL_HTTP_RATE_LIMITED" and p.retry_after is None and len(run.argv) > 1:
                p = _wait_not_shown(p, run.argv)
            out.append(p)
        return out

    def interpret(self, run: CapturedRun) -> Reading:
        """A failed HTTP call's summary names its status (`curl: HTTP 503 Service Unavailable`): the titles of
        a range of statuses (`HTTP 5xx server error`) do not."""
        interp = super().interpret(run)
        error = interp.error
        status = _HTTP_STATUS.search(error.detail) if error and error.code.startswith("CURL_HTTP_") else None
        if status is None:
            return interp
        return interp._replace(summary=f"curl: {_status_line(int(status['status']), interp.data)}")

    def _from_exit_code(self, run: CapturedRun) -> Problem | None:
        """A problem from curl's exit code when it printed no message of its own (`curl -s`)."""
        assert self.spec is not None
        if len(run.argv) < 2 or _CURL_MESSAGE.search(run.text()):
            # a saved log (no real argv or exit code), or curl explained itself and no rule knew the message
            return None
        code = _EXIT_CODES.get(run.exit_code or 0)
        for rule in self.spec.rules:
            if rule.code == code:
                empty = re.compile("").match("")
                assert empty is not None
                problem = self.spec.problem(rule, empty, run)
                detail = f"curl exited with status {run.exit_code}: {rule.title.removeprefix('curl: ')}"
                return problem._replace(detail=detail)
        return None


ADAPTER: Adapter = CurlAdapter()
