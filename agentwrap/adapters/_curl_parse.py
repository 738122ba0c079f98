"""Pure helpers for the curl adapter: what an invocation will do (method, local writes) and the HTTP
response heads curl printed (`-i`, `-I`, `-D -`, `-v`)."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any, NamedTuple

from agentwrap.lazyre import lazy

# Short options that take a value (curl 7.x/8.x); the value may be glued on (`-XPOST`, `-sSX POST`).
_SHORT_WITH_VALUE = frozenset("AbcCdDeEFHKmoPQrtTuUwxXyYz")
_LONG_WITH_VALUE = frozenset({
    "--request", "--data", "--data-raw", "--data-binary", "--data-ascii", "--data-urlencode", "--json",
    "--form", "--form-string", "--upload-file", "--output", "--output-dir", "--dump-header", "--cookie",
    "--cookie-jar", "--header", "--proxy-header", "--user", "--proxy-user", "--user-agent", "--referer",
    "--url", "--max-time", "--connect-timeout", "--retry", "--retry-delay", "--retry-max-time", "--config",
    "--proxy", "--resolve", "--connect-to", "--cacert", "--capath", "--cert", "--key", "--write-out",
    "--limit-rate", "--max-redirs", "--range", "--interface", "--netrc-file", "--oauth2-bearer", "--stderr",
    "--trace", "--trace-ascii", "--continue-at", "--time-cond", "--max-filesize", "--variable", "--expand-url",
})
_BODY = frozenset({"--data", "--data-raw", "--data-binary", "--data-ascii", "--data-urlencode", "--json", "--form",
                   "--form-string"})
_LOCAL_WRITE = frozenset({"--output", "--remote-name", "--remote-name-all", "--cookie-jar", "--output-dir",
                          "--create-dirs", "--remote-header-name"})
_SHORT_LONG = {"X": "--request", "d": "--data", "F": "--form", "T": "--upload-file", "o": "--output",
               "O": "--remote-name", "c": "--cookie-jar", "D": "--dump-header", "I": "--head", "G": "--get",
               "i": "--include", "v": "--verbose", "u": "--user", "J": "--remote-header-name"}


class Invocation(NamedTuple):
    method: str  # the HTTP method curl will use (GET unless -X, -d, -F, -T or -I say otherwise)
    writes_local: bool  # -o, -O, -c, -D FILE: files on this machine are created or overwritten
    shows_headers: bool  # -i, -I, -D -: the response head is in stdout


def options(argv: list[str] | tuple[str, ...]) -> list[tuple[str, str | None, slice]]:
    """(long option name, value, the argv slice holding the option and its value), short forms translated."""
    out: list[tuple[str, str | None, slice]] = []
    i = 1
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            break
        if arg.startswith("--"):
            name, eq, glued = arg.partition("=")
            if eq:
                out.append((name, glued, slice(i, i + 1)))
            elif name in _LONG_WITH_VALUE and i + 1 < len(argv):
                out.append((name, argv[i + 1], slice(i, i + 2)))
                i += 1
            else:
                out.append((name, None, slice(i, i + 1)))
        elif arg.startswith("-") and len(arg) > 1:
            for j, flag in enumerate(arg[1:], 1):
                long = _SHORT_LONG.get(flag, f"-{flag}")
                if flag in _SHORT_WITH_VALUE:
                    if j + 1 < len(arg):
                        out.append((long, arg[j + 1:], slice(i, i + 1)))
                    elif i + 1 < len(argv):
                        out.append((long, argv[i + 1], slice(i, i + 2)))
                        i += 1
                    break
                out.append((long, None, slice(i, i + 1)))
        i += 1
    return out


def without_user(argv: list[str]) -> tuple[list[str], str] | None:
    """argv without its -u/--user option, and that option's value; None when there is none to take out.

    Only an option that stands alone (`-u bob`, `--user=bob`) is taken out, not one glued to other flags.
    """
    for name, value, where in options(argv):
        if name == "--user" and value is not None:
            words = argv[where]
            if words[0] in ("-u", "--user") or (words[0].startswith(("--user=", "-u")) and len(words) == 1):
                return argv[:where.start] + argv[where.stop:], value
    return None


def output_folder(argv: list[str] | tuple[str, ...]) -> str | None:
    """The folder the last `-o FILE` writes into (under `--output-dir DIR`), None when there is no -o or it
    writes into the working folder (which exists)."""
    output = folder = None
    for name, value, _ in options(argv):
        if name == "--output" and value and value != "-":
            output = value
        elif name == "--output-dir" and value:
            folder = value
    if output is None:
        return None
    found = os.path.join(folder or "", os.path.dirname(output))
    return found if found not in ("", ".") else None


def invocation(argv: list[str] | tuple[str, ...]) -> Invocation:
    method: str | None = None
    body = upload = head = get = writes = shows = False
    for name, value, _ in options(argv):
        if name == "--request" and value:
            method = value.upper()
        elif name in _BODY:
            body = True
        elif name == "--upload-file":
            upload = True
        elif name == "--head":
            head = shows = True
        elif name == "--get":
            get = True
        elif name == "--include":
            shows = True
        elif name == "--dump-header":
            shows = shows or value == "-"
            writes = writes or value != "-"
        elif name in _LOCAL_WRITE:
            writes = True
    if method is None:
        method = "HEAD" if head else "PUT" if upload else "POST" if body and not get else "GET"
    return Invocation(method, writes, shows)


_STATUS = lazy(r"^(?:< )?HTTP/(?P<version>\d(?:\.\d)?) (?P<status>\d{3})(?: (?P<reason>.*))?$")
_HEADER = lazy(r"^(?:< )?(?P<name>[A-Za-z0-9!#$%&'*+.^_`|~-]+):[ \t]*(?P<value>.*)$")
_SECRET_HEADERS = frozenset({"set-cookie", "authorization", "proxy-authorization", "cookie", "x-api-key"})


def response_heads(text: str, *, verbose: bool = False) -> list[dict[str, Any]]:
    """Each response head in `text`: curl's -i/-I output (heads first, then the body) or -v (`< ` lines)."""
    heads: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    for raw in text.splitlines():
        line = raw.rstrip()
        if verbose and not line.startswith("<"):
            continue
        status = _STATUS.match(line)
        if status:
            current = {"http_version": status["version"], "http_status": int(status["status"]),
                       "reason": (status["reason"] or "").strip(), "headers": {}}
            heads.append(current)
            continue
        if current is None:
            if not verbose:
                break  # -i output starts with a head; anything else is a body
            continue
        if line in ("", "<"):
            current = None  # the head ended; with -i the body (or the next head) follows
            continue
        header = _HEADER.match(line)
        if header:
            name = header["name"].lower()
            value = "[REDACTED]" if name in _SECRET_HEADERS else header["value"].strip()
            previous = current["headers"].get(name)
            current["headers"][name] = f"{previous}, {value}" if previous else value
    return heads


def response(stdout: str, stderr: str) -> dict[str, Any] | None:
    """The final response's facts, and the statuses before it (redirects, 100 Continue)."""
    heads = response_heads(stdout) or response_heads(stderr, verbose=True)
    if not heads:
        return None
    final = dict(heads[-1])
    if len(heads) > 1:
        final["previous_statuses"] = [h["http_status"] for h in heads[:-1]]
    return final


def retry_after(headers: dict[str, str], started_epoch: float | None = None) -> float | None:
    """Seconds the response's Retry-After asks to wait: `Retry-After: 37`, or an HTTP-date (RFC 9110
    10.2.3) counted from the response's own Date header (the adapter reads a finished run, so "now" is when
    the server answered, by the server's clock). With no Date (RFC 9110 6.6.1 lets a server leave it out)
    the date counts from `started_epoch`, when the run started: before the answer, so the wait is a little
    longer than asked, never shorter. None when it is absent, unreadable, or a date with nothing to count
    from."""
    value = (headers.get("retry-after") or "").strip()
    if value.isdigit():
        return float(value)
    until, sent = _http_date(value), _http_date(headers.get("date") or "")
    if until is None:
        return None
    if sent is not None:
        return max(0.0, (until - sent).total_seconds())
    if started_epoch is not None:
        return max(0.0, round(until.timestamp() - started_epoch, 3))
    return None


def _http_date(text: str) -> datetime | None:
    """An HTTP-date, in UTC: the obsolete forms (RFC 850, asctime) carry no zone and are GMT too, and a
    naive one would neither subtract from an aware one nor count from the epoch."""
    try:
        when = parsedate_to_datetime(text) if text.strip() else None
    except (TypeError, ValueError):
        return None
    return when.replace(tzinfo=UTC) if when is not None and when.tzinfo is None else when
