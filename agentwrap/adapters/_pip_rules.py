"""pip's problem table: declarative rules (one line of output each) and the facts of the codes built in Python."""

from __future__ import annotations

from typing import Any

from agentwrap.sdk import ProblemCode
from agentwrap.spec import rule as _rule

DOCS = "https://pip.pypa.io/en/stable/"

#: code: (title, category, status, retryable, safe_to_retry) for problems built by pip.py's diagnostics.
FACTS: dict[str, ProblemCode] = {c.code: c for c in (
    ProblemCode(code="PIP_NETWORK_ERROR", title="pip: package index unreachable", category="network", status=503,
                retryable=True),
    ProblemCode(code="PIP_NO_MATCHING_DISTRIBUTION", title="pip: no matching distribution", category="not_found",
                status=404),
    ProblemCode(code="PIP_DEPENDENCY_CONFLICT", title="pip: dependency conflict (ResolutionImpossible)",
                category="conflict", status=409),
    ProblemCode(code="PIP_EXTERNALLY_MANAGED", title="pip: externally managed environment (PEP 668)",
                category="precondition", status=412),
    ProblemCode(code="PIP_BUILD_FAILED", title="pip: building a package failed", category="dependency", status=502),
)}




RULES: list[dict[str, Any]] = [
    _rule("PIP_CONFIRMATION_REQUIRED", r"No input was expected \(\$PIP_NO_INPUT set\); question: "
          r"(?P<question>(?!User for|Password).+?)\s*$", "pip asked for confirmation", "input_required", 428, True,
          True, "pip asked '{question}' and PIP_NO_INPUT refused it; pass -y to confirm up front.",
          detail="pip asked '{question}' (refused: no input allowed); nothing was changed",
          code_actions=[{"title": "Run again, confirming with -y", "command": ["{argv...}", "-y"],
                         "applicability": "maybe_incorrect", "is_preferred": True}]),
    _rule("PIP_CREDENTIALS_REQUIRED", r"No input was expected \(\$PIP_NO_INPUT set\); question: "
          r"(?P<question>(?:User for|Password).*?)\s*$", "pip needs index credentials", "authentication", 401, True,
          True, "Provide the index credentials without a prompt: a keyring (`--keyring-provider import`), ~/.netrc, "
          "or credentials in the index URL (PIP_INDEX_URL).", detail="the package index asked for credentials "
          "('{question}')", docs_url=DOCS + "topics/authentication/"),
    _rule("PIP_PERMISSION_DENIED", r"^ERROR: Could not install packages due to an OSError: \[Errno 13\] Permission "
          r"denied: '(?P<path>[^']+)'", "pip: permission denied", "authorization", 403, False, True,
          "pip cannot write {path}: install into a virtual environment you own (`python3 -m venv .venv`), or for "
          "your user only with --user.", detail="permission denied writing {path}",
          code_actions=[{"title": "Install for the current user only (not possible inside a virtualenv)",
                         "command": ["{argv...}", "--user"], "applicability": "maybe_incorrect"}]),
    _rule("PIP_REQUIREMENTS_FILE_NOT_FOUND", r"^ERROR: Could not open requirements file: \[Errno 2\] No such file or "
          r"directory: '(?P<path>[^']+)'", "pip: requirements file not found", "not_found", 404, False, True,
          "Check the path of the requirements file ({path}); it is relative to the working directory.",
          detail="no requirements file {path}"),
    _rule("PIP_INVALID_REQUIREMENT", r"^ERROR: Invalid requirement: (?P<requirement>.+?)(?::.*)?$",
          "pip: invalid requirement", "validation", 422, False, True,
          "Write the requirement as NAME, NAME==VERSION or NAME>=VERSION (PEP 508); quote it in the shell.",
          detail="invalid requirement {requirement}", docs_url=DOCS + "reference/requirement-specifiers/"),
    _rule("PIP_UNKNOWN_COMMAND", r'^ERROR: unknown command "(?P<command>[^"]+)"(?: - maybe you meant '
          r'"(?P<suggestion>[^"]+)")?', "pip: unknown command", "usage", 400, False, True,
          "`pip help` lists the commands.", detail="pip has no command '{command}'"),
    _rule("PIP_NO_SUCH_OPTION", r"^no such option: (?P<option>\S+)", "pip: unknown option", "usage", 400, False, True,
          "Remove {option}; `pip help COMMAND` lists the options of each command.",
          detail="pip: no such option {option}"),
    _rule("PIP_REQUIRES_PYTHON", r"^ERROR: Package '(?P<package>[^']+)' requires a different Python: (?P<have>\S+) not "
          r"in '(?P<spec>[^']+)'", "pip: package needs another Python version", "precondition", 412, False, True,
          "{package} needs Python {spec} (this is {have}): use a matching interpreter or an older {package}.",
          detail="{package} requires Python {spec}; this is {have}"),
    _rule("PIP_HASH_MISMATCH", r"^ERROR: THESE PACKAGES DO NOT MATCH THE HASHES", "pip: hash mismatch", "validation",
          422, False, True, "A downloaded file differs from the pinned hash: re-lock the requirements or check the "
          "index for tampering; never drop --require-hashes to get past it.",
          docs_url=DOCS + "topics/secure-installs/"),
    _rule("PIP_NO_SPACE", r"\[Errno 28\] No space left on device", "pip: disk full", "dependency", 507, True, True,
          "Free disk space (pip's cache: `pip cache purge`) or set TMPDIR to a larger disk, then retry."),
    _rule("PIP_TLS_ERROR", r"CERTIFICATE_VERIFY_FAILED|SSLError\(", "pip: TLS certificate not trusted", "network", 502,
          False, True, "Trust the index's certificate (--cert FILE, PIP_CERT) or fix the system CA bundle."),
    _rule("PIP_PACKAGE_NOT_INSTALLED", r"^WARNING: Package\(s\) not found: (?P<packages>.+)$",
          "pip: package not installed", "not_found", 404, False, True,
          "{packages} is not installed in this environment: check the name or the interpreter (`pip --version`).",
          detail="not installed: {packages}"),
    _rule("PIP_SKIPPED_NOT_INSTALLED", r"^WARNING: Skipping (?P<package>\S+) as it is not installed\.$",
          "pip: nothing to uninstall", "not_found", 404, False, True,
          "{package} was not installed here, so nothing was removed.", severity="warning",
          detail="{package} is not installed; nothing removed"),
    _rule("PIP_BROKEN_REQUIREMENT", r"^(?P<package>\S+) (?P<version>\S+) (?:requires (?P<missing>\S+), which is not "
          r"installed|has requirement (?P<requirement>.+?), but you have (?P<have>.+?))\.$", "pip check: broken "
          "requirement", "conflict", 409, False, True, "Install or change the version named so {package} "
          "{version}'s requirement holds.", subcommands=["check"]),
    _rule("PIP_INCOMPATIBLE_INSTALLED", r"^(?P<package>\S+) (?P<version>\S+) requires (?P<requirement>.+?), but you "
          r"have (?P<have>.+?) which is incompatible\.$", "pip: installed versions are incompatible", "conflict", 409,
          False, True, "pip installed a version that breaks {package} {version}: pin {requirement} or upgrade "
          "{package}; `pip check` lists every break.", severity="warning"),
    _rule("PIP_SCRIPT_NOT_ON_PATH", r"^\s*WARNING: The (?:script|scripts) (?P<scripts>.+?) (?:is|are) installed in "
          r"'(?P<dir>[^']+)' which is not on PATH\.", "pip: installed script not on PATH", "precondition", 412, False,
          True, "Add {dir} to PATH, or run the script by its full path.", severity="warning"),
]
