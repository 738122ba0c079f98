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
        actions = (CodeAction(title=f"Install {dist} (provides module '{top}')", command=(*installer, dist),
                              applicability="maybe_incorrect",
                              is_preferred=True),)
        if not mapped:
            extra["distribution_guess"] = "the import name; a distribution may be named differently on PyPI"
    return _info("PYTHON_MODULE_NOT_FOUND", fix, DOCS + "ModuleNotFoundError", actions, extra=extra)


def installer_for(python: str) -> tuple[str, ...]:
    """`PY -m pip install` for the interpreter that ran the program (argv[0] when it is a python)."""
    base = python.rsplit("/", 1)[-1]
    exe = python if base.startswith("python") else "python3"
    return (exe, "-m", "pip", "install")


def classify(exc: PyException, *, python: str = "python3", nothing_ran: bool = False) -> ErrorInfo:
    """The facts for an uncaught exception. A script can do anything, so only a syntax error in the main
    script (nothing ran) is safe to retry."""
    name = exc.short_type
    if name == "ModuleNotFoundError" and (info := module_not_found(exc.message, installer_for(python))):
        return info
    if name in ("SyntaxError", "IndentationError", "TabError"):
        where = f" at {exc.syntax['file']}:{exc.syntax['line']}" if exc.syntax else ""
        return _info("PYTHON_SYNTAX_ERROR",
                     f"Fix the {name}{where}: {exc.message.splitlines()[0] if exc.message else name}.",
                     DOCS + name, safe=nothing_ran)
    if name == "ImportError":
        return _info("PYTHON_IMPORT_ERROR", "A name is missing from an installed module: usually a version mismatch "
                     "(upgrade or pin the package) or a circular import in your code.", DOCS + "ImportError")
    if name == "FileNotFoundError":
        return _info("PYTHON_FILE_NOT_FOUND",
                     "Create the file or pass the right path; relative paths resolve from the working directory.",
                     DOCS + "FileNotFoundError", extra=_path(exc.message))
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
    return _info("PYTHON_EXCEPTION", f"The program raised {exc.type} and did not handle it: fix the code at the "
                 "location (the exception and its chain are in this problem).")


def _path(message: str) -> dict[str, Any]:
    match = re.search(r"\[Errno \d+\] [^:]+: '(?P<path>[^']+)'", message)
    return {"path": match.group("path")} if match else {}
