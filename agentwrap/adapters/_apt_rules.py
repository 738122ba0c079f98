"""apt/apt-get/dpkg problem rules and prompts (data). Rules are tried in order; the first error decides."""

from __future__ import annotations

from typing import Any

from agentwrap.spec import rule as _rule

_DPKG_LOCK_DOCS = "https://wiki.debian.org/Teams/Dpkg/FAQ#db-lock"
_WAIT = {"title": "Wait up to 2 minutes for the lock, then do the same", "applicability": "machine_applicable",
         "command": ["{prog}", "-o", "DPkg::Lock::Timeout=120", "{args...}"], "is_preferred": True}
_UPDATE = {"title": "Refresh the package lists", "command": ["apt-get", "update"], "applicability": "maybe_incorrect"}




RULES: list[dict[str, Any]] = [
    _rule("APT_NOT_ROOT",
          r"^E: Could not open lock file (?P<lock>\S+) - open \(13: Permission denied\)"
          r"|^dpkg: error: requested operation requires superuser privilege",
          "apt: must run as root", "authorization", 403, False, True,
          "Package changes need root: run it with sudo (or as root). Read-only commands (list, show, policy, "
          "install -s) work as any user.",
          code_actions=[{"title": "Run it as root", "command": ["sudo", "{argv...}"],
                         "applicability": "maybe_incorrect"}]),
    _rule("APT_LOCKED",
          r"^E: Could not get lock (?P<lock>\S+?)\.? (?:It is held by process (?P<pid>\d+)|- open \(11)",
          "apt: another package manager holds the lock", "conflict", 409, True, True,
          "Another apt, dpkg or unattended-upgrades run holds {lock}; wait for it to finish and retry. "
          "Never delete the lock file.", retry_after=10, docs_url=_DPKG_LOCK_DOCS, code_actions=[_WAIT]),
    _rule("DPKG_LOCKED",
          r"^dpkg: error: (?:dpkg (?:frontend )?lock (?:was locked by another process with pid (?P<pid>\d+)"
          r"|is locked by another process)|dpkg status database is locked by another process)",
          "dpkg: another package manager holds the lock", "conflict", 409, True, True,
          "Another apt or dpkg run is working; wait for it to finish and retry. Never delete the lock file.",
          retry_after=10, docs_url=_DPKG_LOCK_DOCS),
    _rule("APT_DPKG_INTERRUPTED", r"^E: dpkg was interrupted, you must manually run '(?P<command>[^']+)'",
          "apt: an earlier dpkg run was interrupted", "precondition", 412, True, True,
          "Finish the interrupted run first with `dpkg --configure -a` (as root), then retry.",
          code_actions=[{"title": "Finish configuring the interrupted packages",
                         "command": ["dpkg", "--configure", "-a"], "applicability": "maybe_incorrect",
                         "is_preferred": True}]),
    _rule("APT_PACKAGE_NOT_FOUND", r"^E: Unable to locate package (?P<package>\S+)",
          "apt: no such package", "not_found", 404, False, True,
          "Check the name with `apt-cache search --names-only {package}`; if it should exist, the package lists "
          "may be stale or missing (`apt-get update`), or the package is in a repository not configured here.",
          detail="no package named {package} in the configured repositories",
          code_actions=[{"title": "Search the package names", "applicability": "machine_applicable",
                         "command": ["apt-cache", "search", "--names-only", "{package}"]}, _UPDATE]),
    _rule("APT_NO_CANDIDATE", r"^E: Package '(?P<package>[^']+)' has no installation candidate",
          "apt: the package has no installable version", "not_found", 404, False, True,
          "The name is known (a virtual or obsolete package, or one another package replaced); "
          "`apt-cache policy {package}` and `apt-cache showpkg {package}` show what provides it."),
    _rule("APT_VERSION_NOT_FOUND", r"^E: Version '(?P<version>[^']+)' for '(?P<package>[^']+)' was not found",
          "apt: the requested version is not available", "not_found", 404, False, True,
          "`apt-cache policy {package}` lists the versions the repositories offer.",
          detail="version {version} of {package} is not in the configured repositories"),
    _rule("APT_UNMET_DEPENDENCIES",
          r"^The following packages have unmet dependencies:\s*\n\s*(?P<package>\S+) : (?P<relation>[A-Za-z-]+): "
          r"(?P<target>.+)",
          "apt: unmet dependencies or conflicts", "conflict", 409, False, True,
          "The requested set cannot be installed together: drop or replace the conflicting package, pin a "
          "version, or repair a half-installed system with `apt-get --fix-broken install`.",
          detail="{package} {relation}: {target}"),
    _rule("APT_FIX_BROKEN", r"^E: Unmet dependencies\. Try '(?P<command>apt(?:-get)? --fix-broken install)'",
          "apt: the installed packages have broken dependencies", "precondition", 412, True, True,
          "Repair the system first with `apt-get --fix-broken install` (review what it will install or remove).",
          code_actions=[{"title": "See how apt would repair the system (simulation)",
                         "command": ["apt-get", "--fix-broken", "install", "-s"],
                         "applicability": "machine_applicable"}]),
    _rule("APT_HASH_MISMATCH", r"^E: Failed to fetch (?P<url>\S+)\s+Hash Sum mismatch",
          "apt: downloaded file does not match the index (mirror out of sync)", "network", 502, True, True,
          "The mirror was mid-sync or a proxy altered the file: `apt-get update`, then retry; try another mirror "
          "if it persists.", code_actions=[_UPDATE]),
    _rule("APT_FETCH_FAILED", r"^E: Failed to fetch (?P<url>\S+)\s+(?!\s|Hash Sum mismatch)(?P<reason>.+)",
          "apt: could not download a package or index", "network", 502, True, True,
          "Check the network or proxy to the repository; a 404 means the package lists are stale: run "
          "`apt-get update` and retry.", detail="{url}: {reason}", code_actions=[_UPDATE]),
    _rule("APT_UPDATE_FAILED", r"\A(?![\s\S]*^(?:Hit|Get):\d)(?=[\s\S]*^Err:\d)",
          "apt: no package index could be downloaded", "network", 502, True, True,
          "Every repository failed (see the Err: lines): check the network, the proxy and the sources list; "
          "the package lists are stale or missing until an update succeeds.",
          subcommands=["update"], on_success=True,
          detail="apt could not download any package index; the package lists were not refreshed"),
    _rule("APT_INDEX_FETCH_FAILED", r"^W: Failed to fetch (?P<url>\S+)\s+(?P<reason>.+)",
          "apt: a repository index could not be downloaded (old one kept)", "partial_failure", 502, True, True,
          "apt kept the old index for this repository; check its URL and the network.",
          severity="warning", detail="{url}: {reason}"),
    _rule("APT_NO_RELEASE_FILE", r"^E: The repository '(?P<repository>[^']+)' (?:does not have a Release file|"
          r"is not signed|no longer has a Release file)",
          "apt: a configured repository is missing or unsigned", "precondition", 412, False, True,
          "Fix or remove the repository line for {repository} in /etc/apt/sources.list(.d); check the suite "
          "name and that the release is still published."),
    _rule("APT_NO_PUBKEY", r"NO_PUBKEY (?P<key>[0-9A-F]{8,40})",
          "apt: a repository's signing key is not installed", "precondition", 412, False, True,
          "Install the repository's signing key (its documentation gives the keyring file) and reference it "
          "with signed-by= in the sources entry."),
    _rule("APT_NO_SPACE", r"^E: You don't have enough free space in (?P<path>\S+?)\.?$",
          "apt: not enough free disk space", "precondition", 507, False, True,
          "Free space in {path} (`apt-get clean` removes cached archives) and retry.",
          code_actions=[{"title": "Remove cached package archives", "command": ["apt-get", "clean"],
                         "applicability": "maybe_incorrect"}]),
    _rule("APT_DPKG_FAILED",
          r"^Errors were encountered while processing:\s*\n\s*(?P<package>\S+)"
          r"|^E: Sub-process (?P<program>\S+) returned an error code \((?P<code>\d+)\)",
          "apt: dpkg failed while installing or removing packages", "partial_failure", 500, False, False,
          "A package's install script failed; read the lines above it, fix the cause, then run "
          "`dpkg --configure -a`. Some packages may already be changed."),
    _rule("APT_INVALID_OPERATION", r"^E: (?:Invalid operation (?P<operation>\S+)|Command line option .+)",
          "apt: unknown command or option", "usage", 400, False, True,
          "Check the command: apt-get install|remove|purge|update|upgrade|..., apt list|show|search|policy."),
    _rule("DPKG_NOT_INSTALLED",
          r"^dpkg-query: (?:package '(?P<package>[^']+)' is not installed|no packages found matching "
          r"(?P<pattern>\S+))",
          "dpkg: package not installed", "not_found", 404, False, True,
          "The package is not installed here; `apt-cache policy NAME` shows whether it can be installed."),
    _rule("DPKG_ARCHIVE_NOT_FOUND",
          r"^dpkg: error: cannot access archive '(?P<archive>[^']+)': No such file or directory",
          "dpkg: the .deb file does not exist", "not_found", 404, False, True,
          "Check the path to the .deb file; `apt-get install ./file.deb` also resolves its dependencies."),
    _rule("APT_INPUT_ABORTED", r"^Do you want to continue\? \[Y/n\] Abort\.",
          "apt: stopped at the confirmation prompt", "input_required", 428, True, True,
          "apt asked for confirmation and got no answer: review the plan (`-s`), then pass -y to approve it.",
          code_actions=[{"title": "Approve the listed changes", "command": ["{prog}", "-y", "{args...}"],
                         "applicability": "maybe_incorrect"}]),
]

PROMPTS: list[dict[str, Any]] = [
    {"pattern": r"Do you want to continue\? \[Y/n\]", "input_kind": "confirmation",
     "suggested_fix": "apt wants approval because the plan installs extra packages or removes some: review it "
                      "(`-s` shows it without changing anything), then approve it with -y.",
     "code_actions": [
         {"title": "Approve the listed changes (-y); review the plan first", "command": ["{prog}", "-y", "{args...}"],
          "applicability": "maybe_incorrect", "is_preferred": True},
         {"title": "Show the plan without changing anything (simulation)", "command": ["{prog}", "-s", "{args...}"],
          "applicability": "machine_applicable"}]},
    {"pattern": r"\(Y/I/N/O/D/Z\) \[default=N\]", "input_kind": "selection",
     "suggested_fix": "dpkg asks what to do with a locally modified configuration file; choose a policy up front.",
     "code_actions": [
         {"title": "Keep local configuration files (take the package's where unmodified)", "applicability":
          "maybe_incorrect", "is_preferred": True,
          "command": ["{prog}", "-o", "Dpkg::Options::=--force-confdef", "-o", "Dpkg::Options::=--force-confold",
                      "{args...}"]}]},
    {"pattern": r"Yes, do as I say!", "input_kind": "text",
     "suggested_fix": "apt is about to remove essential packages, which can break the system: a person must "
                      "decide; do not automate this answer."},
]
