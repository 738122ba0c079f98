"""What a Python exception means for an agent: code, category, retry facts and a fix (shared: used by `tracebacks`).

Also the import-name -> distribution-name table behind `pip install` suggestions for ModuleNotFoundError.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agentwrap.lazyre import lazy
from agentwrap.records import Value
from agentwrap.sdk import CodeAction, ProblemCode

if TYPE_CHECKING:
    from agentwrap.adapters.tracebacks import PyException

#: Import names whose distribution on PyPI has another name (the frequent surprises).
DISTRIBUTIONS = {
    "yaml": "PyYAML", "cv2": "opencv-python", "PIL": "Pillow", "sklearn": "scikit-learn", "bs4": "beautifulsoup4",
    "dateutil": "python-dateutil", "dotenv": "python-dotenv", "jwt": "PyJWT", "serial": "pyserial",
    "Crypto": "pycryptodome", "OpenSSL": "pyOpenSSL", "attr": "attrs", "gi": "PyGObject", "skimage": "scikit-image",
    "google.protobuf": "protobuf", "docx": "python-docx", "pptx": "python-pptx", "fitz": "PyMuPDF", "zmq": "pyzmq",
    "MySQLdb": "mysqlclient", "psycopg2": "psycopg2-binary", "git": "GitPython", "nacl": "PyNaCl", "dns": "dnspython",
    "websocket": "websocket-client", "magic": "python-magic", "slugify": "python-slugify", "jose": "python-jose",
    "multipart": "python-multipart", "socks": "PySocks", "usb": "pyusb", "ldap": "python-ldap", "kafka": "kafka-python",
    "telegram": "python-telegram-bot", "Levenshtein": "Levenshtein", "win32api": "pywin32", "distutils": "setuptools",
    "pkg_resources": "setuptools", "setuptools": "setuptools", "lxml": "lxml", "mpl_toolkits": "matplotlib",
}
#: Modules of the standard library that a Python build may lack: pip cannot provide them.
_STDLIB_OPTIONAL = {"tkinter": "python3-tk", "_tkinter": "python3-tk", "_sqlite3": "libsqlite3-dev",
                    "_ctypes": "libffi-dev", "_ssl": "libssl-dev", "_bz2": "libbz2-dev", "_lzma": "liblzma-dev",
                    "readline": "libreadline-dev", "_curses": "libncurses-dev", "_dbm": "libgdbm-dev"}
_NETWORK = {"ConnectionError", "ConnectionRefusedError", "ConnectionResetError", "ConnectionAbortedError",
            "TimeoutError", "gaierror", "URLError", "RemoteDisconnected", "ConnectTimeout", "ReadTimeout",
            "NewConnectionError", "MaxRetryError", "ConnectError", "SSLError", "SSLCertVerificationError",
            "IncompleteRead", "ProtocolError", "ClientConnectorError", "ServerDisconnectedError"}
_MODULE = lazy(r"No module named '?(?P<module>[\w.]+)'?(?P<not_package>; '[\w.]+' is not a package)?")
DOCS = "https://docs.python.org/3/library/exceptions.html#"
#: Every code `classify` can return, declared once (the fix of each occurrence names its own exception).
DECLARED: dict[str, ProblemCode] = {c.code: c for c in (
    ProblemCode(code="PYTHON_EXCEPTION", title="Uncaught Python exception", category="internal", status=500,
                safe_to_retry=False),
    ProblemCode(code="PYTHON_MODULE_NOT_FOUND", title="Python module not found", category="dependency", status=424,
                retryable=True, safe_to_retry=False),
    ProblemCode(code="PYTHON_IMPORT_ERROR", title="Python import failed", category="dependency", status=424,
                retryable=True, safe_to_retry=False),
    ProblemCode(code="PYTHON_SYNTAX_ERROR", title="Python syntax error", category="validation", status=422,
                safe_to_retry=False),
    ProblemCode(code="PYTHON_FILE_NOT_FOUND", title="File not found", category="not_found", status=404,
                safe_to_retry=False),
    ProblemCode(code="PYTHON_PERMISSION_DENIED", title="Operating system refused a file operation",
                category="authorization", status=403, safe_to_retry=False),
    ProblemCode(code="PYTHON_OS_ERROR", title="Operating system refused a file operation", category="validation",
                status=422, safe_to_retry=False),
    ProblemCode(code="PYTHON_NETWORK_ERROR", title="Network operation failed", category="network", status=503,
                retryable=True, safe_to_retry=False),
    ProblemCode(code="PYTHON_INTERRUPTED", title="Python program interrupted", category="partial_failure",
                status=499, retryable=True, safe_to_retry=False),
    ProblemCode(code="PYTHON_OUT_OF_MEMORY", title="Python ran out of memory", category="dependency", status=507,
                safe_to_retry=False),
    ProblemCode(code="PYTHON_ASSERTION_FAILED", title="Assertion failed", category="validation", status=422,
                safe_to_retry=False),
)}
CODES = tuple(DECLARED)


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)  # Value: eq, hash and repr written once
class ErrorInfo(Value):
    """One exception's facts: its declared code, and the fix, docs and actions of this occurrence."""

    declared: ProblemCode
    safe_to_retry: bool
    suggested_fix: str | None = None
    docs_url: str | None = None
    code_actions: tuple[CodeAction, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def code(self) -> str:
        return self.declared.code


def _info(code: str, fix: str | None, docs: str | None = None, actions: tuple[CodeAction, ...] = (), *,
          extra: dict[str, Any] | None = None, safe: bool | None = None) -> ErrorInfo:
    declared = DECLARED[code]
    return ErrorInfo(declared=declared, safe_to_retry=declared.safe_to_retry if safe is None else safe,
                     suggested_fix=fix, docs_url=docs, code_actions=actions, extra=extra or {})


def distribution_for(module: str) -> str | None:
    """The PyPI distribution that most likely provides `module`; None when pip is the wrong fix."""
    if module in DISTRIBUTIONS:
        return DISTRIBUTIONS[module]
    if "." in module or module in _STDLIB_OPTIONAL or module.startswith("_"):
        return None  # python names the first missing part: 'a.b' means a is there and lacks b
    return module


def module_not_found(message: str, installer: tuple[str, ...]) -> ErrorInfo | None:
    """ModuleNotFoundError facts from its message (`No module named 'yaml'`) with a pip action when apt."""
    match = _MODULE.search(message)
    if not match:
        return None
    module = match.group("module")
    top = module.split(".", 1)[0]
    extra: dict[str, Any] = {"module": module}
    actions: tuple[CodeAction, ...] = ()
    if match.group("not_package"):
        fix = f"'{top}' is a module, not a package: check the import path `{module}` (a local file may shadow it)."
    elif top in _STDLIB_OPTIONAL:
        fix = (f"'{top}' is part of the standard library but this Python was built without it: install the OS "
               f"package ({_STDLIB_OPTIONAL[top]} on Debian/Ubuntu) and use a Python built with it.")
        extra["os_package"] = _STDLIB_OPTIONAL[top]
    elif (dist := distribution_for(module)) is None:
        fix = (f"'{top}' is importable but has no '{module}': check the spelling and the installed version of "
               f"{top} (`{shlex.join(installer[:-1])} show {top}`).")
    else:
        extra["distribution"] = dist
        mapped = module in DISTRIBUTIONS
        fix = (f"Install the distribution that provides '{module}' ({dist}) into the interpreter that ran it: "
               f"`{shlex.join([*installer, dist])}`. If '{top}' is your own code, run from the project root "
               "or add its folder to PYTHONPATH instead.")
        # A name guessed from the import is never the preferred fix: PyPI names are first come, first served, and
        # an import name that is no distribution's may be anyone's (typosquatting); the agent checks it first.
        actions = (CodeAction(title=f"Install {dist} (provides module '{top}')", command=(*installer, dist),
                              applicability="maybe_incorrect",
                              is_preferred=mapped),)
        if not mapped:
            extra["distribution_guess"] = "the import name; a distribution may be named differently on PyPI"
    return _info("PYTHON_MODULE_NOT_FOUND", fix, DOCS + "ModuleNotFoundError", actions, extra=extra)


def installer_for(python: str) -> tuple[str, ...]:
    """`PY -m pip install` for the interpreter that ran the program (argv[0] when it is a python)."""
    base = python.rsplit("/", 1)[-1]
    exe = python if base.startswith("python") else "python3"
    return (exe, "-m", "pip", "install")


def classify(exc: PyException, *, python: str = "python3", nothing_ran: bool = False,
             cwd: str | None = None) -> ErrorInfo:
    """The facts for an uncaught exception. A script can do anything, so only a syntax error in the main
    script (nothing ran) is safe to retry. `cwd`: the folder the program ran in (a fix names a file under
    it relative to it, as the problem's location does)."""
    name = exc.short_type
    if name == "ModuleNotFoundError" and (info := module_not_found(exc.message, installer_for(python))):
        return info
    if name in ("SyntaxError", "IndentationError", "TabError"):
        # "Fix the SyntaxError at FILE:LINE: MESSAGE" would be the detail and the location again: no fix to say
        return _info("PYTHON_SYNTAX_ERROR", None, DOCS + name, safe=nothing_ran)
    if name == "ImportError":
        return _info("PYTHON_IMPORT_ERROR", "A name is missing from an installed module: usually a version mismatch "
                     "(upgrade or pin the package) or a circular import in your code.", DOCS + "ImportError")
    if name == "FileNotFoundError":
        path = _path(exc.message)
        what = f"'{path['path']}'" if path else "the file"
        return _info("PYTHON_FILE_NOT_FOUND",
                     f"Create {what} or pass the right path; a relative path resolves from the working directory "
                     "(`--cwd DIR`), not from the script's folder.", DOCS + "FileNotFoundError", extra=path)
    if name in ("PermissionError", "IsADirectoryError", "NotADirectoryError"):
        return _info("PYTHON_PERMISSION_DENIED" if name == "PermissionError" else "PYTHON_OS_ERROR",
                     "Check the path, its owner and mode; write to a folder you own.", DOCS + name,
                     extra=_path(exc.message))
    if name in _NETWORK:
        return _info("PYTHON_NETWORK_ERROR", "Check that the host is reachable and the service is up, then retry; "
                     "the script may have done part of its work already.")
    if name == "KeyboardInterrupt":
        return _info("PYTHON_INTERRUPTED", "The program was interrupted (SIGINT); check for partial effects before "
                     "running it again.", DOCS + "KeyboardInterrupt")
    if name == "MemoryError":
        return _info("PYTHON_OUT_OF_MEMORY", "Reduce the input or process it in chunks.", DOCS + "MemoryError")
    if name == "AssertionError":
        return _info("PYTHON_ASSERTION_FAILED",
                     "An `assert` in the program failed: read the condition at the location.")
    # Where the exception's kind says nothing the location and the message do not, there is no fix
    # (CONTRACT section 3: "fix the code at the location" is left out; `agentwrap explain` still has one).
    fix, extra = exception_fix(exc, cwd)
    docs = DOCS + name if name in _BUILTIN_DOCS else _JSON_DOCS if name == "JSONDecodeError" and fix else None
    return _info("PYTHON_EXCEPTION", fix, docs, extra=extra)


_JSON_DOCS = "https://docs.python.org/3/library/json.html#json.JSONDecodeError"
_BUILTIN_DOCS = {"KeyError", "AttributeError", "TypeError", "IndexError", "ZeroDivisionError", "ValueError",
                 "NameError", "UnboundLocalError", "RecursionError"}
_NONE = lazy(r"^(?:'NoneType' object (?:has no attribute '(?P<attr>\w+)'"
             r"|is not (?P<not>subscriptable|iterable|callable))"
             r"|cannot (?P<unpack>unpack) non-iterable NoneType object)")
_ATTRIBUTE = lazy(r"^(?:type object )?'(?P<type>[\w.]+)' object has no attribute '(?P<attr>\w+)'"
                  r"(?:\. Did you mean: '(?P<mean>\w+)'\?)?")
_MODULE_ATTRIBUTE = lazy(r"^module '(?P<module>[\w.]+)' has no attribute '(?P<attr>\w+)'"
                         r"(?:\. Did you mean: '(?P<mean>\w+)'\?)?(?P<rest>.*)$")
_ARGUMENTS = lazy(r"^(?P<func>[\w.<>]+)\(\) (?:takes (?P<takes>\d+|from \d+ to \d+) positional arguments? but "
                  r"(?P<given>\d+) (?:were|was) given"
                  r"|missing (?P<missing>\d+) required (?:positional|keyword-only) arguments?: (?P<names>.+)"
                  r"|got an unexpected keyword argument '(?P<keyword>\w+)'"
                  r"|got multiple values for argument '(?P<twice>\w+)')$")
_LITERAL = lazy(r"^(?:invalid literal for (?P<func>int|float)\(\) with base (?P<base>\d+): (?P<text>.+)"
                r"|could not convert string to (?P<to>float): (?P<text2>.+))$", flags=16)  # re.DOTALL
_UNDEFINED = lazy(r"^name '(?P<var>\w+)' is not defined(?:\. Did you mean: '(?P<mean>\w+)'\?"
                   r"|\. Did you forget to import '(?P<module>[\w.]+)'\?)?")
_UNPACK = lazy(r"^(?:too many|not enough) values to unpack \(expected (?P<expected>\d+)(?:, got (?P<got>\d+))?\)")
_JSON = lazy(r": line (?P<line>\d+) column (?P<column>\d+) \(char (?P<char>\d+)\)$")


def _at(exc: PyException, cwd: str | None) -> str:
    """` at FILE:LINE` for the exception's location in the user's code ("" without one); a file under `cwd`
    relative to it."""
    where = exc.location()
    if not where:
        return ""
    file, prefix = where["file"], (cwd or "").rstrip("/") + "/"
    return f" at {file[len(prefix):] if cwd and cwd != '/' and file.startswith(prefix) else file}:{where['line']}"


def _in_library(exc: PyException) -> bool:
    """Whether the exception was raised in library code below the user's frame (the location is a caller)."""
    where, innermost = exc.location(), exc.frames[-1] if exc.frames else None
    return bool(where and innermost and (innermost.file, innermost.line) != (where["file"], where["line"]))


def exception_fix(exc: PyException, cwd: str | None = None) -> tuple[str | None, dict[str, Any]]:
    """(fix, facts) for an uncaught exception whose kind says what to do; (None, {}) when only the location
    and the message could be repeated."""
    name, message = exc.short_type, exc.message.strip()
    first = message.splitlines()[0] if message else ""
    at = _at(exc, cwd)
    if name == "KeyError" and first:
        raised_in = exc.frames[-1].file if exc.frames else ""
        if (raised_in == "<frozen os>" or raised_in.endswith(("/os.py", "\\os.py"))) and first[:1] in "'\"":
            variable = first.strip("'\"")
            return (f"The environment variable {variable} is not set (read{at}): set it (`--env {variable}=VALUE`), "
                    f"or read it with `os.environ.get({first}, DEFAULT)`.", {"key": first})
        return (f"The key {first} is not in the mapping looked up{at}: use `.get({first}, DEFAULT)` or check "
                f"`{first} in ...` first, or find where the key should have been added (the keys the mapping "
                "holds are not in the traceback).", {"key": first})
    if name in ("AttributeError", "TypeError") and (none := _NONE.match(first)):
        use = f"`.{none['attr']}`" if none["attr"] else {"subscriptable": "indexing", "iterable": "iteration",
                                                         "callable": "a call", None: "unpacking"}[none["not"]]
        return (f"The value used{at} is None where {use} needs an object: trace where it was set (a function that "
                "returned None, `re.match`/`dict.get` that found nothing, a missing `return`), or guard it with "
                "`if VALUE is not None`.", {})
    if name == "AttributeError" and (attribute := _ATTRIBUTE.match(first)) and attribute["mean"]:
        return f"Use `.{attribute['mean']}` instead of `.{attribute['attr']}`{at}.", {}
    if name == "AttributeError" and (module := _MODULE_ATTRIBUTE.match(first)) and module["mean"]:
        return f"Use `{module['module']}.{module['mean']}` instead of `{module['module']}.{module['attr']}`{at}.", {}
    if name == "AttributeError" and module and not module["rest"]:
        return (f"The module '{module['module']}' that was imported has no '{module['attr']}': check the name, the "
                f"installed version, and that no file or folder of yours named {module['module'].split('.')[0]} "
                "shadows the module.", {})
    if name == "TypeError" and (call := _ARGUMENTS.match(first)):
        return _arguments_fix(exc, call, at), {"function": call["func"]}
    if name == "IndexError" and first.endswith("index out of range"):
        kind = first.split()[0]
        return (f"An index into a {kind}{at} is past its end (or the {kind} is empty): check the length first "
                "or fix the index or loop bounds; `sys.argv[N]` fails this way when the argument was not given.", {})
    if name == "ZeroDivisionError":
        return (f"A divisor{at} is zero: guard the division (a count, length or total that can be 0) or find why "
                "it is 0.", {})
    if name == "ValueError" and (literal := _LITERAL.match(message)):
        text = literal["text"] or literal["text2"]
        target = (f"a base-{literal['base']} integer" if literal["func"] == "int" else "a number")
        empty = " (empty text: a blank line, argument or field)" if text in ("''", '""') else ""
        return (f"The text {text}{empty} is not {target}: the value converted{at} came from input (an argument, "
                "a file, an environment variable): pass a number there, or catch ValueError to reject bad input.",
                {"text": text})
    if name == "ValueError" and (unpack := _UNPACK.match(first)):
        return (f"The unpacking{at} names {unpack['expected']} targets for {unpack['got'] or 'more'} values: match "
                "the names on the left to the number of items, or take the rest with a starred name "
                "(`first, *rest = ...`).", {})
    if name == "JSONDecodeError" and (spot := _JSON.search(first)):
        empty = (" Line 1 column 1 usually means empty input or text that is not JSON at all (an HTML error page, "
                 "a log line)." if spot["char"] == "0" else "")
        return (f"The input parsed{at} is not valid JSON at its line {spot['line']} column {spot['column']} (the "
                f"json module raised, not your code): check what was read or received there.{empty}",
                {"json_line": int(spot["line"]), "json_column": int(spot["column"])})
    if name == "NameError" and (undefined := _UNDEFINED.match(first)):
        if undefined["mean"]:
            return f"Use `{undefined['mean']}` instead of `{undefined['var']}`{at}.", {}
        if undefined["module"]:
            return f"Add `import {undefined['module']}` to the module that uses it{at}.", {}
        return (f"'{undefined['var']}' is used{at} before anything defines it: add the import or assignment that "
                "should define it, or fix the spelling.", {})
    if name == "UnboundLocalError" and (local := re.match(r"^cannot access local variable '(?P<var>\w+)'", first)):
        return (f"'{local['var']}' is assigned somewhere in its function, so it is local there and has no value "
                f"yet{at}: assign it before this use on every path, or declare it `global {local['var']}` "
                f"(`nonlocal` in a nested function) if the outer one is meant.", {})
    if name == "RecursionError":
        through = f" (it runs through {at[4:]})" if at else ""
        return (f"A recursion never reached its base case{through}: check the stopping condition, or make the "
                "function a loop if the input is simply that deep.", {})
    return None, {}


def _arguments_fix(exc: PyException, call: Any, at: str) -> str:
    func = call["func"]
    if call["takes"] is not None:
        plural = "" if call["given"] == "1" else "s"
        mismatch = f"passes {call['given']} positional argument{plural} where {func}() takes {call['takes']}"
        hint = (" (a method defined without `self`?)" if call["takes"] == "0" and call["given"] == "1"
                and "." in func else " (a method's count includes `self`)" if "." in func else "")
    elif call["missing"] is not None:
        mismatch, hint = f"leaves out {call['names']} that {func}() requires", ""
    elif call["keyword"] is not None:
        mismatch, hint = f"passes the keyword `{call['keyword']}=` that {func}() does not accept", ""
    else:
        mismatch, hint = f"gives '{call['twice']}' to {func}() both by position and by keyword", ""
    if _in_library(exc):
        reached = f" (reached from {at[4:]})" if at else ""
        return (f"A call made in library code{reached} {mismatch}{hint}: a function you passed to it as a "
                "callback may have the wrong signature.")
    return f"The call{at} {mismatch}{hint}: match the call to {func}()'s signature."


def _path(message: str) -> dict[str, Any]:
    match = re.search(r"\[Errno \d+\] [^:]+: '(?P<path>[^']+)'", message)
    return {"path": match.group("path")} if match else {}
