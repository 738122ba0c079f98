"""Which names hold a secret (API_KEY, apiKey, x-api-key: yes; KEYBOARD, TOKEN_FILE: no), and the values of
such environment variables, which redaction then hides wherever they appear."""

from __future__ import annotations

import re
from collections.abc import Mapping

from agentwrap.lazyre import lazy
from agentwrap.percent import quoted

# Names whose value is a secret, matched on word parts so KEYBOARD, MONKEY and TOKENIZERS stay out.
SECRET_NAME = lazy(
    r"(?:^|[^A-Z0-9])(?:TOKEN|SECRETS?|PASSWORDS?|PASSWD|PASSPHRASE|CREDENTIALS?|CREDS|AUTHTOKEN|APIKEY"
    r"|(?:PRIVATE|API|ACCESS)_?KEY)(?:$|[^A-Z0-9])"
    r"|[^A-Z0-9](?:KEY(?:_DATA)?|PAT|PASS|PWD)$|(?:^|[^A-Z0-9])AUTH$|[A-Z0-9](?:PASSWORD|PASSWD|TOKEN)$"
)  # matched on upper-cased forms only: without IGNORECASE it compiles in a third of the time (~1.5 ms a run)
# ...except names that describe a secret rather than hold it (TOKEN_FILE is a path, TOKEN_TYPE a word).
_DESCRIBES = lazy(
    r"_(?:FILES?|PATH|DIR|TYPE|NAME|URL|URI|ENDPOINT|HOST|PORT|USER(?:NAME)?|LENGTH|LEN|SIZE|COUNT|LIMIT"
    r"|TTL|EXPIRY|EXPIRES(?:_AT|_IN)?|HEADER|PREFIX|FORMAT|MODE|ENV|VAR|HELPER|COMMAND|CMD|PROMPT|POLICY"
    r"|METHOD|SCOPES?|REQUIRED|ENABLED|DISABLED|STDIN)$"
)
_MAYBE_SECRET = lazy(r"tok|secret|pass|pwd|cred|key|pat|auth", re.IGNORECASE)
# Names every environment has that the prefilter above lets through (PATH holds "pat", PWD "pwd"): no
# secrets, answered without compiling SECRET_NAME (~1 ms of every run). A test holds them to the rule.
PLAIN_NAMES = frozenset(("PATH", "PWD", "OLDPWD", "MANPATH", "INFOPATH", "PYTHONPATH", "LD_LIBRARY_PATH"))
_CAMEL = lazy(r"([a-z0-9])([A-Z])")
_ACRONYM = lazy(r"([A-Z]+)([A-Z][a-z])")  # APIToken, DBPassword, NPMToken: API_Token
_NON_ALNUM = lazy(r"[^A-Za-z0-9]+")
_BORING = frozenset({"true", "false", "yes", "no", "none", "null", "nil", "undefined", "enabled", "disabled"})
_PATHLIKE = lazy(r"(?:~|\.{0,2})/[\w./-]*")
_WORD_PARTS = lazy(r"[^A-Za-z0-9]+|(?<=[A-Za-z])(?=[0-9])|(?<=[0-9])(?=[A-Za-z])")


def name_words(text: str) -> list[str]:
    """The words of a name in any spelling: apiKey, api_key and api-key2 all split at the same places."""
    return _WORD_PARTS.split(_CAMEL.sub(r"\1_\2", text))


def is_secret_name(name: str) -> bool:
    if name in PLAIN_NAMES or not _MAYBE_SECRET.search(name):  # most names: no need to normalise
        return False
    # apiKey, x-api-key and API_KEY all become API_KEY, so one pattern serves every spelling; the form
    # without camel-case splitting keeps PassWord whole.
    split = _ACRONYM.sub(r"\1_\2", _CAMEL.sub(r"\1_\2", name))
    forms = {_NON_ALNUM.sub("_", n).strip("_").upper() for n in (name, split)}
    return any(SECRET_NAME.search(form) and not _DESCRIBES.search(form) for form in forms)


def secret_values(environ: Mapping[str, str]) -> list[str]:
    """Values of secret-named variables worth redacting literally (len >= 6, no booleans, numbers, paths)."""
    found: set[str] = set()
    for name, value in environ.items():
        if not is_secret_name(name):
            continue
        # A multi-line value (a key file in a variable) may reach us one line at a time.
        for part in {value.strip(), *(value.splitlines() if "\n" in value else ())}:
            part = part.strip()
            boring = len(part) < 6 or part.lower() in _BORING or (part.isdigit() and len(part) < 12)
            if not boring and not _PATHLIKE.fullmatch(part) and not part.startswith("-----"):
                found.update((part, quoted(part, safe="")))  # the same secret inside a URL
    return sorted(found, key=len, reverse=True)
