"""Secret redaction for everything agentwrap shows or stores (CONTRACT section 2: "No secret ever appears").

The hot path sees tens of megabytes of build output holding no secret, so cheap regexes (stage 1,
`secret_scan`) pick the lines that may hold one and the precise, slower patterns here (stage 2) run on those
lines only; which names hold a secret is `secret_names`'. Only PEM private
keys span lines: ``Redactor.redact`` remembers an unfinished key between calls.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import partial
from typing import Any, NamedTuple

from agentwrap import secret_scan
from agentwrap.batch import Batch
from agentwrap.lazyre import lazy
from agentwrap.secret_names import is_secret_name, name_words

REDACTED = "[REDACTED]"

# `password: str` in source code is a type, not a value.
# A value that continues as an expression (`= prefix + str(x)`, `= '%s' % x`) or is a plain lowercase
# name assigned with spaces (`token = nextchar`) is source code.
_OPERATOR_AFTER = lazy(r"[ \t]+(?:[-+*/%|&](?:[ \t]|$)|if\b|or\b|and\b)|\.[A-Za-z_]")
_WORDS = frozenset({"pass", "password", "passwd", "secret", "token", "user", "name"})
_PROSE_AFTER = lazy(r" [a-z]{2,} [a-z]")
_CODE_VALUE = lazy(r"[a-z_][a-z_.]*")
_TYPE_NAMES = frozenset({"str", "bytes", "int", "bool", "string", "String", "Optional", "SecretStr", "Any", "None"})
# What follows `password:` in a status line, not a password (`passwd: Not found`, `Password: incorrect`)
_STATUS_WORDS = frozenset({"not", "invalid", "incorrect", "required", "missing", "denied", "wrong", "empty",
                           "expired", "unchanged", "changed", "updated", "mismatch", "rejected", "accepted"})
# Values that stand for a secret without being one: `password=<your password>`, `--token TOKEN`, `$PASS`,
# and an empty input field (pinentry's `Passphrase: ________`).
_PLACEHOLDER = lazy(
    r"\[REDACTED\]|\**|_{2,}|[A-Z][A-Z_-]{0,15}|[xX]{3,}|<[^>]*>|\$(?:[A-Z_][A-Z0-9_]*|[({].*)?|\{\{.*\}\}"
    r"|(?i:null|none|true|false)"
)


# Stage 2. Every quantifier is bounded, so a multi-megabyte line stays linear.
_PEM_BEGIN = r"-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----"
_PEM_MARK = r"-----(?:BEGIN|END)[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----"
_PEM_INLINE = lazy(f"({_PEM_BEGIN})(.*?)(?={_PEM_MARK}|$)")
_PEM_OPEN = lazy(f"{_PEM_BEGIN}(?!.*{_PEM_MARK})")
# Base64 lines and armour headers (Proc-Type, DEK-Info, a PGP Version or Comment), maybe indented or quoted.
_PEM_BODY = lazy(r"[ \t>#|+\"'*]*(?:[A-Za-z0-9+/=]{1,200}|[A-Z][\w-]{1,15}: .*)?(?:\\n)?[\",]?\s*")
_B64_RUN = lazy(r"[A-Za-z0-9+/]{16}")
_WHOLE = lazy(r"(?s).+")
_TOKEN_LIKE = lazy(r"(?=\S{0,4096}\d|\S{20})\S{8,}")  # not a prose word: "Authorization: required"
_AUTH_HEADER = lazy(
    r"(?i)(\b(?:proxy-)?authorization\\?[\"']?[ \t]*[:=][ \t]*\\?[\"']?[ \t]*)"
    r"((?:bearer|basic|token|digest|negotiate|ntlm|bot|apikey|aws4-hmac-sha256)[ \t]+)?([^\s\"'<>\\]{1,4096})"
)
_COOKIE = lazy(r"(?i)(\b(?:set-)?cookie[ \t]*:[ \t]*)([^\r\n]{1,8192})")
_COOKIE_PAIR = lazy(r"(?i)(?<![^;,\s])(?!(?:path|domain|expires|max-age)=)[^=;,\s]+=([^;,\s\"']+)")
_BEARER = lazy(r"(?i)\bbearer[ \t]+(?=[\w.~+/=-]{0,4096}[0-9._~+/-])([\w.~+/=-]{8,4096})", re.ASCII)
_URL_CRED = lazy(
    r"(?<![A-Za-z0-9+.-])([A-Za-z][A-Za-z0-9+.-]{0,30}://)([^\s:/?#@\"'<>]{0,256})"
    r"(?::([^\s?#\"'<>@]{1,1024}))?@"
)
_SLACK_HOOK = lazy(r"(hooks\.slack\.com/(?:services|workflows|triggers)/)([A-Za-z0-9/_+-]{8,512})")
_TOKENS = lazy(
    r"(?:(?<![A-Za-z0-9])|(?<=%[0-9A-Fa-f]{2}))(?:gh[pousr]_[A-Za-z0-9]{30,255}|github_pat_[A-Za-z0-9_]{30,255}"
    r"|gl(?:pat|dt|rtr?|ptt|ft|imt|agent|oas|cbt|soat|ffct|wt)-[\w-]{20,255}(?:\.[\w-]{1,64}){0,2}"
    r"|(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])|ABSK[A-Za-z0-9+/]{100,400}={0,2}|GR1348941[\w-]{20,64}|xox[abposre]-[A-Za-z0-9-]{10,255}|xapp-\d-[\w-]{10,255}"
    r"|[sr]k_(?:live|test)_[A-Za-z0-9]{10,255}|whsec_[A-Za-z0-9+/=]{20,255}"
    # OpenAI / Anthropic: the digit and capital lookaheads keep kebab-case names like sk-learn-... out.
    r"|sk-(?:ant-[a-z]{1,8}\d{0,4}-|proj-|svcacct-|admin-)?(?=[\w-]{0,255}\d)(?=[\w-]{0,255}[A-Z])"
    r"[\w-]{20,255}"
    r"|AIza[\w-]{35,64}|npm_[A-Za-z0-9]{30,255}|pypi-Ag[\w-]{40,255}"
    r"|eyJ[\w-]{5,4096}\.eyJ[\w-]{5,8192}\.[\w-]{0,4096})",
    re.ASCII,
)
_VALUE = (
    r"(?:\"(?P<dq>(?:[^\"\\\r\n]|\\.){1,4096})\"|'(?P<sq>[^'\r\n]{1,4096})'|`(?P<bq>[^`\r\n]{1,4096})`|\\\"(?P<eq>.{1,4096}?)\\\""
    r"|(?P<v>(?!=)[^\s\"'`,;&<>(){}\[\]\\]{1,4096}))"
)
_LABEL = lazy(
    r"(?<![\w.-])(?P<kq>\\?[\"']?)(?P<key>[\w.-]{1,128}+)(?P=kq)"
    r"(?:[ \t]+(?:string|String|str|\[\]byte))?"
    r"(?P<sep>[ \t]*(?:=>|:::=|::=|:=|\?=|\.=|=(?!=)|:|(?<=[\"']),)[ \t]*)" + _VALUE,
    re.ASCII,
)
_OPTION = lazy(
    r"(?:\b(?:mysql\w{0,10}|mariadb)\b[^\n]{0,300}?[ \t]-p(?P<a>[^\s'\"]{1,256})"
    r"|\bsshpass[ \t]+-p[ \t]*(?P<b>\S{1,256})|\bredis-cli\b[^\n]{0,300}?[ \t]-a[ \t]+(?P<c>\S{1,256})"
    r"|\blogin\b[^\n]{0,300}?[ \t]-p[ \t]+(?P<d>\S{1,256})"
    r"|(?<![\w-])-u[ \t]+[^\s:]{1,128}:(?P<e>[^\s@]{1,4096})(?=\s|$)"
    r"|(?im:^[ \t]*(?:machine[ \t]+\S+[ \t]+)?(?:login[ \t]+\S+[ \t]+)?password[ \t]+)(?P<f>[^\s=:]\S{0,255}))"
)
# curl's user options in a command line: `-u U:P`, `-uU:P`, `-sSu U:P`, `--user=U:P`, `--proxy-user U:P`, `-U`.
_CURL_USER = lazy(
    r"\bcurl\b[^\n]{0,300}?[ \t](?:-[A-Za-z]{0,6}?[uU][ \t]*|--(?:proxy-)?user(?:=|[ \t]+))[\"']?"
    r"[^\s:\"']{1,128}:(?P<v>[^\s\"']{1,4096})"
)
_XML_BLOCK = lazy(r"<(?P<key>[\w:.-]{1,64})>[ \t]*\r?\n[ \t]*(?P<v>[^<\s]{1,4096})[ \t]*\r?\n[ \t]*</(?P=key)>")
_XML = lazy(r"<(?P<key>[\w:.-]{1,64})>(?P<v>[^<\s]{1,4096})</(?P=key)>")
_ENV_LIST = lazy(r"(?m)^([ \t]*-?[ \t]*name:[ \t]*[\"']?(?P<key>[\w.-]{1,128})[\"']?[ \t]*\r?\n"
                 r"[ \t]*value:[ \t]*)[\"']?(?P<v>[^\s\"']{1,4096})")
_FLAG = lazy(r"(?<![\w-])(?P<key>--?(?!no-)[A-Za-z][A-Za-z0-9-]{0,64}+)[ \t]+(?=[^\s-])" + _VALUE)


def _not_an_option_value(value: str) -> bool:
    value = value.rstrip("`'\"") or value  # `-u USER:PASSWORD` quoted in prose or a fix
    word = value.rstrip("),;.").lower() in _WORDS
    odd_start = not value[0].isalnum() and value[0] not in "$@!#%^*_.~"
    return len(value) < 4 or word or odd_start or bool(_PLACEHOLDER.fullmatch(value))


def _is_code(m: re.Match[str], key: str, value: str, sep: str, *, bare: bool) -> bool:
    """Source code in a traceback or a listing is not a secret: `token = token`, `api_key = os.getenv(...)`,
    `token = nextchar`, `key = 'prefix' + str(x)`, `password: str`."""
    if bare:
        if m.string[m.end() : m.end() + 1] in ("(", "[") or value in key or _names_the_key(key, value):
            return True
        if len(value) < 20 and " =" in sep and _CODE_VALUE.fullmatch(value):
            return True
    if value.startswith(("self.", "this.")) or value.rstrip(",)|") in _TYPE_NAMES:
        return True
    if len(value) < 4 and (value.isdigit() or value[0] == "%"):
        return True
    return bool(_OPERATOR_AFTER.match(m.string, m.end()))


def _names_the_key(key: str, value: str) -> bool:
    """`token = self.token`, `password = password_input`, `apiKey: apiKeyValue`: a name built of the key's
    words is code. `token: prodtoken2024` only holds the word: a value (a kubeconfig's, a .env file's)."""
    words = {w.lower() for w in name_words(value) if w}
    last = name_words(key)[-1].lower()
    return bool(last) and last in words


class _ArgvRule(NamedTuple):
    short: dict[str, str]  # a letter -> how its value is hidden ("pair", "pct", "whole")
    long: dict[str, str]  # --name -> the same
    takes: str = ""  # other short options of the program that take a value (they end a cluster: `-o FILE`)
    attached_only: str = ""  # short letters whose value counts only attached (mysql's -pP; -p alone prompts)
    options_first: bool = False  # its options end at the first operand, the command it runs (sshpass ssh -p 22)


# The password options of programs an argv names; `--password VALUE` and `--password=VALUE` are everyone's
# (their name says it). Short options are the program's own: `ssh -p 22` is a port, `mysql -P 3306` too.
_CURL = _ArgvRule({"u": "pair", "U": "pair"}, {"--user": "pair", "--proxy-user": "pair"},
                  takes="AbcCdDeEFHKmoPQrtTwxXYyz")
_MYSQL = _ArgvRule({"p": "whole"}, {}, attached_only="p")
_ARGV_SECRETS: dict[str, _ArgvRule] = {
    "curl": _CURL,
    **dict.fromkeys(("mysql", "mariadb", "mysqldump", "mysqladmin", "mysqlimport", "mysqlshow", "mysqlcheck",
                     "mysqlpump", "mariadb-dump", "mariadb-admin"), _MYSQL),
    "sshpass": _ArgvRule({"p": "whole"}, {}, options_first=True),
    "redis-cli": _ArgvRule({"a": "whole"}, {"--pass": "whole"}, takes="hpnsu", options_first=True),
    "smbclient": _ArgvRule({"U": "pct"}, {"--user": "pct"}),
}


def _argv_value(word: str, rule: _ArgvRule) -> tuple[str | None, str | None, int]:
    """Whether `word` is one of `rule`'s password options: (how, the value when attached, where it starts);
    how None: it is not; value None: the value is the next word."""
    if word.startswith("--"):
        name, eq, value = word.partition("=")
        how = rule.long.get(name)
        if how is None:
            return None, None, 0
        return (how, value, len(name) + 1) if eq else (how, None, 0)
    for k, letter in enumerate(word[1:], 1):  # a cluster of flags: curl -sSu U:P, -sSuU:P
        how = rule.short.get(letter)
        if how is not None:
            rest = word[k + 1:]
            if letter in rule.attached_only:
                return (how, rest, k + 1) if rest else (None, None, 0)
            return (how, rest, k + 1) if rest else (how, None, 0)
        if letter in rule.takes:  # the rest, or the next word, is that option's value
            return ("value", None, 0) if k == len(word) - 1 else (None, None, 0)
        if not letter.isalpha():
            return None, None, 0
    return None, None, 0


def _placeholders_named(action: dict[str, Any]) -> dict[str, Any]:
    """A code action whose command lost a secret to redaction cannot be run as it stands: it has placeholders."""
    command = action.get("command")
    lost = isinstance(command, list) and any(isinstance(w, str) and REDACTED in w for w in command)
    if lost and action.get("applicability") != "has_placeholders":
        action = {**action, "applicability": "has_placeholders"}
    return action


class Redactor:
    """Replaces secrets with REDACTED; one per run, so `count` and the PEM state belong to one stream."""

    def __init__(self, literals: Iterable[str] = ()) -> None:
        # Longest first, so a secret containing another is replaced whole. Literals under 4 characters
        # (a "y" reply) or inside the marker itself would shred ordinary output, so they are dropped.
        self._literals = sorted({s for s in literals if len(s) >= 4 and s not in REDACTED}, key=len)[::-1]
        self._in_pem = False
        self.count = 0
        # Calls left without the prefilter: a stream dense with its literals (pytest's PASSED lines, URLs)
        # stays so, and there the one extra pass buys nothing.
        self._dense_left = 0
        self._hide_match = partial(self._hide, group=0)
        # (lowercase substrings one of which the line must hold, pattern, replacement), in order.
        self._rules: tuple[tuple[tuple[str, ...], re.Pattern[str], Callable[[re.Match[str]], str]], ...] = (
            (("private key",), _PEM_INLINE, self._pem_inline),
            (("authorization",), _AUTH_HEADER, self._auth_header),
            (("cookie",), _COOKIE, lambda m: m[1] + _COOKIE_PAIR.sub(lambda p: self._hide(p, 1), m[2])),
            (("bearer",), _BEARER, lambda m: self._hide(m, 1)),
            (("@",), _URL_CRED, self._url_cred),
            (("hooks.slack",), _SLACK_HOOK, lambda m: self._hide(m, 2)),
            (("",), _TOKENS, self._hide_match),
            (("=", ":", ","), _LABEL, self._label),
            (("-",), _FLAG, self._label),
            (("-p", "-a", "-u", "password"), _OPTION, self._option),
            (("curl",), _CURL_USER, self._option),
            ((">",), _XML, self._tagged),
        )  # fmt: skip

    def redact(self, text: str, batch: Batch | None = None) -> str:
        """`text` with its secrets hidden; `batch`, made of `text`, lends the forms of it others share.
        Text holding no secret comes back as the same object."""
        out, self._in_pem = self._redact(text, self._in_pem, batch)
        return out

    def redact_obj(self, obj: Any) -> Any:
        if isinstance(obj, str):
            return self._redact(obj, False)[0]  # each string stands alone: no PEM state between them
        if isinstance(obj, dict):
            out = {k: self._labelled(k, v) for k, v in obj.items()}
            return _placeholders_named(out) if "command" in out and "title" in out else out
        if isinstance(obj, list | tuple):  # an argv: the element after "--password" is the secret
            flags = [None] + [f if str(f)[:1] == "-" and "=" not in str(f) else None for f in obj]
            items = [self._labelled(flag, v) for flag, v in zip(flags, obj, strict=False)]
            if any(isinstance(v, str) and v.rsplit("/", 1)[-1] in _ARGV_SECRETS for v in items):
                items = self._argv_options(items)
            return type(obj)(items)
        return obj

    def _argv_options(self, argv: list[Any]) -> list[Any]:
        """The password options of the programs named in an argv (`curl -u U:P`, `mysql -pP`, `sshpass -p P`),
        in every spelling: `-u U:P`, `-uU:P`, `-sSu U:P`, `--user=U:P`, `--user U:P`. Read per program, so that
        `ssh -p 22` and `mysql -p DB` (-p alone prompts) keep their values."""
        out, rules, i = list(argv), None, 0
        while i < len(out):
            word = out[i]
            if not isinstance(word, str):
                i += 1
                continue
            name = word.rsplit("/", 1)[-1]
            if name in _ARGV_SECRETS and not word.startswith("-"):
                rules = _ARGV_SECRETS[name]
                i += 1
                continue
            if rules is not None and (word == "--" or not word.startswith("-")) and rules.options_first:
                rules = None  # the command it runs: its options are its own
            if rules is None or not word.startswith("-") or word == "--":
                i += 1
                continue
            how, value, at = _argv_value(word, rules)
            if how == "value":  # another option's value is the next word: not an operand, not a secret
                i += 2
                continue
            if how is not None and value is None and i + 1 < len(out) and isinstance(out[i + 1], str):
                value, at, i = out[i + 1], 0, i + 1  # the value is the next word
            if how is not None and value is not None:
                hidden = self._hidden_value(value, how)
                if hidden != value:
                    out[i] = out[i][:at] + hidden if at else hidden
            i += 1
        return out

    def _hidden_value(self, value: str, how: str) -> str:
        """`how`: "pair" hides what follows the first `:` (curl's user:password; no colon, curl prompts),
        "pct" what follows the first `%` (smbclient's user%password), "whole" the value."""
        sep = {"pair": ":", "pct": "%"}.get(how)
        if sep is not None:
            user, found, secret = value.partition(sep)
            if not found or not secret or _PLACEHOLDER.fullmatch(secret) or (secret.isdigit() and user.isdigit()):
                return value
            self.count += 1
            return f"{user}{sep}{REDACTED}"
        if value == REDACTED or _PLACEHOLDER.fullmatch(value):
            return value
        self.count += 1
        return REDACTED

    def _labelled(self, label: Any, value: Any) -> Any:
        if isinstance(label, str) and isinstance(value, str) and is_secret_name(label):
            return _WHOLE.sub(self._hide_match, value)  # {"password": "..."}: the whole value is the secret
        return self.redact_obj(value)

    def _redact(self, text: str, in_pem: bool, batch: Batch | None = None) -> tuple[str, bool]:
        for literal in self._literals:
            if literal in text:
                self.count += text.count(literal)
                text = text.replace(literal, REDACTED)
        # (a one-character test first: memchr rules out most text many times faster than a substring search)
        if ":" in text and "value:" in text and "name:" in text:  # a Kubernetes env list: the name above
            text = _ENV_LIST.sub(self._env_list, text)
        if "<" in text and "</" in text:  # an XML element with its value on a line of its own
            text = _XML_BLOCK.sub(self._tagged, text)
        out: list[str] = []
        pos, in_pem = self._pem_body(text, 0, out) if in_pem else (0, False)
        spans, dense = secret_scan.scan(text, prefilter=not self._dense_left, batch=batch)
        self._dense_left = secret_scan.DENSE_SKIP if dense else max(0, self._dense_left - 1)
        for start, end in spans:
            if start < pos:
                continue  # already consumed as a PEM body
            out.append(text[pos:start])
            line = text[start:end]
            out.append(self._redact_line(line))
            pos = end
            if _PEM_OPEN.search(line):
                pos, in_pem = self._pem_body(text, end, out)
        out.append(text[pos:])
        return self._formats("".join(out), batch), in_pem

    def _formats(self, text: str, batch: Batch | None = None) -> str:
        """Tokens recognisable without a label (gitleaks' format rules), in any line."""
        from agentwrap import secret_formats  # its table loads on the first redaction, not at start-up

        raw = Batch.of(text, batch).utf8() if text.isascii() else None
        found = secret_formats.spans(text, raw=raw)
        if not found:
            return text
        self.count += len(found)
        pieces, last = [], 0
        for start, end in found:
            pieces += [text[last:start], REDACTED]
            last = end
        pieces.append(text[last:])
        return "".join(pieces)

    def _pem_body(self, text: str, pos: int, out: list[str]) -> tuple[int, bool]:
        """Turn key lines from `pos` into one REDACTED line; return (position, still inside the key)."""
        # The END marker or the first line that cannot be key material ends it: a stray BEGIN hides nothing.
        cur = pos
        while cur < len(text):
            end = text.find("\n", cur) + 1 or len(text)
            if "-----END" in text[cur:end] or not _PEM_BODY.fullmatch(text, cur, end):
                break
            cur = end
        if cur > pos:
            self.count += 1
            body = text[pos:cur]
            indent = body[: len(body) - len(body.lstrip(" \t"))]
            out.append(indent + REDACTED + ("\n" if body.endswith("\n") else ""))
        return cur, cur == len(text)  # ran out of text: the key goes on in the next chunk

    def _redact_line(self, line: str) -> str:
        low = line.lower()
        for hints, pattern, replace in self._rules:
            if any(hint in low for hint in hints):  # a candidate line usually needs one or two rules
                line = pattern.sub(replace, line)
        return line

    def _hide(self, m: re.Match[str], group: int | str) -> str:
        """Replace one group of the match with REDACTED, keeping the rest (the label) readable."""
        value = m.group(group)
        if value is None or _PLACEHOLDER.fullmatch(value):
            return m.group(0)
        self.count += 1
        whole, base = m.group(0), m.start()
        return whole[: m.start(group) - base] + REDACTED + whole[m.end(group) - base :]

    def _inner_labels(self, m: re.Match[str]) -> str:
        """`"config.ini": "API_TOKEN=..."`: a quoted value may hold assignments of its own."""
        # (and a bare one: `https://host/path?token=...` is read as the label `https` first)
        group = "dq" if m["dq"] is not None else "sq" if m["sq"] is not None else "v" if m["v"] is not None else ""
        inner = m[group] if group else ""
        if not inner or ("=" not in inner and ":" not in inner):
            return m.group(0)
        whole, base = m.group(0), m.start()
        start, end = m.start(group) - base, m.end(group) - base
        return whole[:start] + _LABEL.sub(self._label, inner.replace("\\n", "\n")).replace("\n", "\\n") + whole[end:]

    def _option(self, m: re.Match[str]) -> str:
        group = next(g for g in "abcdefv" if g in m.re.groupindex and m.group(g) is not None)
        value = m.group(group)
        if group in "ev" and value.isdigit() and len(value) < 8:  # -u 1000:1000 is a uid:gid
            return m.group(0)
        if _not_an_option_value(value):
            return m.group(0)  # `mysql -p,` in prose, `-u user:PASS` in a usage line
        netrc = m.group(0).lstrip().startswith(("machine", "login", "default"))
        if group == "f" and not netrc and not _TOKEN_LIKE.fullmatch(value):
            return m.group(0)  # "password combination." in a docstring
        return self._hide(m, group)

    def _tagged(self, m: re.Match[str]) -> str:
        return self._hide(m, "v") if is_secret_name(m["key"]) else m.group(0)

    def _env_list(self, m: re.Match[str]) -> str:
        return self._hide(m, "v") if is_secret_name(m["key"]) else m.group(0)

    def _pem_inline(self, m: re.Match[str]) -> str:
        # With no END on the line, hide only what looks like key material, not the `")` of source code.
        closed = m.string.startswith("-----END", m.end())
        return self._hide(m, 2) if m.group(2) and (closed or _B64_RUN.search(m.group(2))) else m.group(0)

    def _auth_header(self, m: re.Match[str]) -> str:
        # With no scheme the value must look like a token, so "Authorization: required" stays prose.
        return self._hide(m, 3) if m.group(2) or _TOKEN_LIKE.fullmatch(m.group(3)) else m.group(0)

    def _url_cred(self, m: re.Match[str]) -> str:
        password = m.group(3)
        if password is not None:
            if "/" in password and password.split("/", 1)[0].isdigit():
                return m.group(0)  # http://host:8080/path/@scope: a port and a path, not a password
            return self._hide(m, 3)  # https://user:[REDACTED]@host
        user = m.group(2)  # https://TOKEN@host, but not ssh://git@host
        return self._hide(m, 2) if _TOKEN_LIKE.fullmatch(user) or _TOKENS.fullmatch(user) else m.group(0)

    def _label(self, m: re.Match[str]) -> str:
        if not is_secret_name(m["key"]):  # first: most `name=value` pairs on a line are not secret
            return self._inner_labels(m)
        if m.string[m.start() - 1 : m.start()] == "/" and "=" not in m["sep"] and (m["v"] or "").isalpha():
            return m.group(0)  # `/etc/passwd: Permission denied`, `…/token: No such file`: a file's error
        found = m.groupdict()
        group = next(g for g in ("dq", "sq", "bq", "eq", "v") if found[g] is not None)
        value = found[group]
        sep = found.get("sep") or ""  # an option (--password X) has none
        if _is_code(m, found["key"], value, sep, bare=group == "v"):
            return m.group(0)
        if group == "v" and ":" in sep and "=" not in sep and _PROSE_AFTER.match(m.string, m.end()):
            return m.group(0)  # "password: The password for the login." is a sentence
        if group == "v" and ":" in sep and "=" not in sep and value.lower() in _STATUS_WORDS:
            return m.group(0)  # "passwd: Not found", "Password: incorrect": a status, not the password
        if "," in sep and m.string[m.start() - 1 : m.start()] != "(":
            return m.group(0)  # `"X_TOKEN", "..."` is a call's pair; `'Token', 'copy_context'` a list
        if not any(word in found["key"].upper() for word in ("PASS", "PWD")):
            # `password: x` in YAML is a value but `unexpected token: '}'` is prose: unless the key is
            # password-like, quoted (JSON) or assigned with '=', the value must look like a token.
            strict = "=" not in (found.get("sep") or " ") and not found.get("kq")
            # max_tokens=9 is a count, not a secret; a long number under a secret's name is an id that is
            numeric = value.replace(".", "").isdigit() and (len(value) < 12 or "." in value)
            if numeric or (strict and not _TOKEN_LIKE.fullmatch(value)):
                return m.group(0)
        return self._hide(m, group)


# --- values an adapter names (Interpretation.secrets) -------------------------------------------------------

MIN_NAMED = 4  # as for the literals above: a shorter value would shred ordinary output wherever it occurs


def named_forms(values: Iterable[str]) -> tuple[str, ...]:
    """The literals to hide for the values an adapter named: each value's lines (a key file's), longest first.

    Line by line, so hiding one never changes the number of lines of a text: an artifact's `--lines` ranges,
    which the inline text already printed, still point where they did."""
    found = {line.strip() for value in values if isinstance(value, str) for line in value.splitlines()}
    return tuple(sorted((v for v in found if len(v) >= MIN_NAMED and v not in REDACTED), key=len, reverse=True))


class Hider:
    """Hides the values an adapter named, in text and in any record, list or mapping holding text.

    Literal replacement only: the capture's Redactor has already read the text for the secrets it knows; these
    are the ones only the tool's own words mark (terraform's `"sensitive": true`, a Secret's `data:`)."""

    def __init__(self, values: Iterable[str]) -> None:
        self.literals = named_forms(values)
        self._pattern = re.compile("|".join(map(re.escape, self.literals))) if self.literals else None
        self.count = 0

    def __bool__(self) -> bool:
        return self._pattern is not None

    def text(self, text: str) -> str:
        if self._pattern is None or not text:
            return text
        out, n = self._pattern.subn(REDACTED, text)
        self.count += n
        return out if n else text

    def obj(self, value: Any) -> Any:
        """`value` with every string in it hidden: records (dataclasses), mappings (keys too), lists, tuples."""
        import dataclasses

        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {self.obj(k): self.obj(v) for k, v in value.items()}
        if isinstance(value, list | tuple) and not hasattr(value, "_fields"):
            return type(value)(self.obj(v) for v in value)
        if isinstance(value, tuple):  # a NamedTuple
            return type(value)(*(self.obj(v) for v in value))
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            changes = {f.name: self.obj(getattr(value, f.name)) for f in dataclasses.fields(value)}
            return dataclasses.replace(value, **changes)
        return value
