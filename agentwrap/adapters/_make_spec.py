"""The declarative part of the make adapter: descriptor, effects per target, prompts and make's own rules."""

from __future__ import annotations

from typing import Any

_LEVEL = r"^make(?:\[\d+\])?: "
_FAILED = _LEVEL + r"\*\*\* \[(?:(?P<file>[^:\]]+):(?P<line>\d+): )?(?P<target>[^\]]+)\] "
MANUAL = "https://www.gnu.org/software/make/manual/html_node/"
_CLEAN = {"read_only": False, "destructive": True, "idempotent": True, "open_world": False}
_PUBLISH = {"read_only": False, "destructive": False, "idempotent": False, "open_world": True}

SPEC: dict[str, Any] = {
    "name": "make",
    "matches": ["make", "gmake"],
    "has_subcommands": False,
    "descriptor": {
        "purpose": "Build targets with make; a failed recipe carries the compiler errors or traceback behind it.",
        "use_when": "Running make targets (build, test, install) in a project with a Makefile.",
        "do_not_use_when": "The project's real build tool (cargo, npm, pytest) can be called directly.",
        "returns": "gcc/clang diagnostics and tracebacks from the recipes (the first real error decides), make's "
                   "own problems (no rule, no makefile, syntax error, failed recipe) and data: failed targets, "
                   "up-to-date targets, directories, compiler error/warning counts.",
        "limitations": "Other tools' messages are recognised only when gcc-style or Python tracebacks; paths are "
                       "made absolute only for `make -C DIR` (recursive makes keep the compiler's relative paths).",
    },
    "env": {"MAKEFLAGS": ""},
    "noise": [{"pattern": r"^g?make(?:\[\d+\])?: (?:Entering|Leaving) directory "}],  # read for paths, then noise
    "concise_omit": ["directories", "failed_targets"],  # the problems locate each failed target
    "effects": {
        "default": {"read_only": False, "destructive": False, "idempotent": True, "open_world": False},
        "clean": _CLEAN, "distclean": _CLEAN, "mrproper": _CLEAN, "maintainer-clean": _CLEAN, "uninstall": _CLEAN,
        "deploy": _PUBLISH, "publish": _PUBLISH, "release": _PUBLISH, "upload": _PUBLISH, "push": _PUBLISH,
    },
    "prompts": [
        {"pattern": r"\[sudo\] password for|^Password:", "input_kind": "password",
         "suggested_fix": "A recipe runs sudo: run make as a user with the rights it needs, or allow that command "
                          "without a password (sudoers NOPASSWD); agentwrap never types passwords.",
         "code_actions": [{"title": "List the recipe commands without running them", "command": ["make", "-n",
                           "{args...}"], "applicability": "unspecified"}]},
        {"pattern": r"\[y/n\]|\(y/n\)|\[Y/n\]|\[y/N\]|\? *$", "input_kind": "confirmation",
         "suggested_fix": "A recipe asks a question: pass the answer the Makefile reads (often a variable such as "
                          "`make TARGET YES=1`, see the Makefile), or feed answers on standard input.",
         "code_actions": [{"title": "Run with standard input at end-of-file so the question fails at once",
                           "command": ["agentwrap", "--stdin", "/dev/null", "--", "{argv...}"],
                           "applicability": "maybe_incorrect"}]},
    ],
    "rules": [
        {"code": "MAKE_NO_RULE", "title": "make: no rule to make the target", "category": "not_found", "status": 404,
         "pattern": _LEVEL + r"\*\*\* No rule to make target [`'‘](?P<target>[^'’]+)['’](?:, needed by "
                    r"[`'‘](?P<needed_by>[^'’]+)['’])?\.",
         "retryable": False, "safe_to_retry": True, "detail": "make has no rule to make target '{target}'",
         "suggested_fix": "Check the target name (`make -qp | grep '^{target}:'` lists rules) or create the missing "
                          "file {target}.", "docs_url": MANUAL + "Error-Messages.html"},
        {"code": "MAKE_NO_MAKEFILE", "title": "make: no makefile here", "category": "precondition", "status": 412,
         "pattern": _LEVEL + r"\*\*\* No targets specified and no makefile found\.",
         "retryable": False, "safe_to_retry": True,
         "suggested_fix": "Run make in the folder that holds the Makefile (`make -C DIR`) or name it with `-f FILE`.",
         "code_actions": [{"title": "Run make in the project folder (replace <DIR>)",
                           "command": ["make", "-C", "<DIR>", "{args...}"], "applicability": "has_placeholders"}],
         "docs_url": MANUAL + "Makefile-Names.html"},
        {"code": "MAKE_SYNTAX_ERROR", "title": "make: makefile syntax error", "category": "validation", "status": 422,
         "pattern": r"^(?P<file>[^:\s]+):(?P<line>\d+): \*\*\* (?P<message>.+?)\.\s+Stop\.",
         "retryable": False, "safe_to_retry": True, "detail": "{file}:{line}: {message}",
         "suggested_fix": "Fix {file} line {line}; a 'missing separator' usually means the recipe is indented with "
                          "spaces instead of a tab.", "docs_url": MANUAL + "Error-Messages.html"},
        {"code": "MAKE_COMMAND_NOT_FOUND", "title": "make: a recipe command is not installed", "status": 424,
         "category": "dependency", "retryable": True, "safe_to_retry": True,
         "pattern": _LEVEL + r"(?P<command>[^:\s*]+): (?:No such file or directory|Command not found)$",
         "suggested_fix": "Install {command} or correct its name in the recipe (make ran it directly)."},
        {"code": "MAKE_COMMAND_NOT_FOUND", "title": "make: a recipe command is not installed", "status": 424,
         "category": "dependency", "retryable": True, "safe_to_retry": True,
         "pattern": r"^(?:/bin/|/usr/bin/)?(?:ba|da)?sh: (?:line )?(?:\d+: )?(?P<command>[^:\n]+): (?:command )?"
                    r"not found$",
         "suggested_fix": "Install {command} or correct its name in the recipe."},
        {"code": "MAKE_RECIPE_FAILED", "title": "make: a recipe failed", "category": "dependency", "status": 502,
         "pattern": _FAILED + r"Error (?P<status>\d+)", "retryable": False, "safe_to_retry": False,
         "detail": "the recipe for target '{target}' failed with status {status}",
         "suggested_fix": "Read the failing command's own error above this line and fix that; then re-run make.",
         "docs_url": MANUAL + "Errors.html"},
        {"code": "MAKE_RECIPE_KILLED", "title": "make: a recipe was killed by a signal", "category": "dependency",
         "status": 502, "retryable": True, "safe_to_retry": False,
         "pattern": _FAILED + r"(?P<signal>Killed|Terminated|Segmentation fault|Aborted|Interrupt|Bus error)",
         "detail": "the recipe for target '{target}' was ended: {signal}",
         "suggested_fix": "'Killed' is usually the out-of-memory killer: run with fewer jobs (`make -j1`); a "
                          "segmentation fault is a crash of the command the recipe ran."},
        {"code": "MAKE_USAGE", "title": "make: invalid option", "category": "usage", "status": 400,
         "pattern": r"^make: (?:invalid|unrecognized) option (?:-- )?[`'‘](?P<option>[^'’]+)['’]",
         "retryable": False, "safe_to_retry": True, "suggested_fix": "Remove or correct the option {option} "
         "(see `make --help`).", "docs_url": MANUAL + "Options-Summary.html"},
        {"code": "MAKE_CIRCULAR_DEPENDENCY", "title": "make: circular dependency dropped", "category": "validation",
         "status": 422, "severity": "warning", "retryable": False, "safe_to_retry": True,
         "pattern": _LEVEL + r"Circular (?P<from>\S+) <- (?P<to>\S+) dependency dropped\.",
         "suggested_fix": "Break the cycle between {from} and {to} in the Makefile's prerequisites."},
        {"code": "MAKE_OVERRIDING_RECIPE", "title": "make: a target has two recipes", "category": "validation",
         "status": 422, "severity": "warning", "retryable": False, "safe_to_retry": True,
         "pattern": r"^(?P<file>[^:\s]+):(?P<line>\d+): warning: overriding recipe for target [`'‘](?P<target>"
                    r"[^'’]+)['’]",
         "suggested_fix": "Keep one recipe for {target} ({file}:{line} replaces an earlier one)."},
        {"code": "MAKE_CLOCK_SKEW", "title": "make: file times are in the future", "category": "precondition",
         "status": 412, "severity": "warning", "retryable": False, "safe_to_retry": True,
         "pattern": _LEVEL + r"(?:warning: +Clock skew detected|Warning: File [`'‘](?P<file>[^'’]+)['’] has "
                    r"modification time)", "suggested_fix": "Fix the system clock or `touch` the files; the "
                    "build may be incomplete."},
    ],
}
