"""git's prompt catalog: each prompt agentwrap may stop at, with git's own non-interactive way past it.

Editor prompts are told apart by the file git opens (COMMIT_EDITMSG, MERGE_MSG, TAG_EDITMSG, git-rebase-todo);
`{rest...}` stands for the user's arguments after the subcommand (spliced by git.py, editor flags removed).
"""

from __future__ import annotations

from typing import Any

_CREDENTIALS_FIX = ("git needs credentials for the remote. Configure a credential helper or a token "
                    "(`git config credential.helper ...`), or use an SSH remote with a loaded key; "
                    "a person may need to supply the secret.")
_EDITOR_FIX = "git wanted an editor for the message; pass the text on the command line instead."
PROMPTS: list[dict[str, Any]] = [
    {"pattern": r"git-rebase-todo", "input_kind": "editor", "subcommands": ["rebase"],
     "suggested_fix": "git wanted an editor for the interactive rebase's todo list; accept the generated list "
                      "(e.g. with --autosquash) or rebase non-interactively.",
     "code_actions": [
         {"title": "Accept the generated todo list unchanged", "is_preferred": True,
          "command": ["agentwrap", "--env", "GIT_SEQUENCE_EDITOR=true", "--", "git", "{args...}"],
          "applicability": "maybe_incorrect"},
         {"title": "Rebase non-interactively instead", "command": ["git", "rebase", "{rest...}"],
          "applicability": "maybe_incorrect"}]},
    {"pattern": r"COMMIT_EDITMSG", "input_kind": "editor", "subcommands": ["commit"], "suggested_fix": _EDITOR_FIX,
     "code_actions": [
         {"title": "Commit with the message on the command line", "is_preferred": True,
          "command": ["git", "commit", "-m", "<MESSAGE>", "{rest...}"], "applicability": "has_placeholders"},
         {"title": "Commit with the message read from a file",
          "command": ["git", "commit", "-F", "<FILE>", "{rest...}"], "applicability": "has_placeholders"},
         {"title": "Keep the prepared message (an --amend, or concluding a merge)",
          "command": ["git", "commit", "--no-edit", "{rest...}"], "applicability": "maybe_incorrect"}]},
    {"pattern": r"MERGE_MSG", "input_kind": "editor", "subcommands": ["merge", "pull"], "suggested_fix": _EDITOR_FIX,
     "code_actions": [
         {"title": "Merge with git's prepared merge message", "is_preferred": True,
          "command": ["git", "{subcommand}", "--no-edit", "{rest...}"], "applicability": "machine_applicable"},
         {"title": "Merge with your own message", "command": ["git", "{subcommand}", "-m", "<MESSAGE>", "{rest...}"],
          "applicability": "has_placeholders"}]},
    {"pattern": r"TAG_EDITMSG", "input_kind": "editor", "subcommands": ["tag"], "suggested_fix": _EDITOR_FIX,
     "code_actions": [
         {"title": "Create the annotated tag with its message on the command line", "is_preferred": True,
          "command": ["git", "tag", "-m", "<MESSAGE>", "{rest...}"], "applicability": "has_placeholders"}]},
    {"pattern": r"COMMIT_EDITMSG|MERGE_MSG", "input_kind": "editor", "subcommands": ["revert", "cherry-pick"],
     "suggested_fix": _EDITOR_FIX,
     "code_actions": [
         {"title": "Keep git's prepared message", "is_preferred": True,
          "command": ["git", "{subcommand}", "--no-edit", "{rest...}"], "applicability": "maybe_incorrect"}]},
    {"pattern": r"NOTES_EDITMSG", "input_kind": "editor", "subcommands": ["notes"], "suggested_fix": _EDITOR_FIX,
     "code_actions": [{"title": "Give the note on the command line", "is_preferred": True,
                       "command": ["git", "notes", "{rest...}", "-m", "<MESSAGE>"],
                       "applicability": "has_placeholders"}]},
    {"pattern": r"COMMIT_EDITMSG|\.git/", "input_kind": "editor", "subcommands": ["rebase", "am", "stash"],
     "suggested_fix": "git wanted an editor for a message it prepared; accept it unchanged.",
     "code_actions": [{"title": "Keep git's prepared message", "is_preferred": True,
                       "command": ["agentwrap", "--env", "GIT_EDITOR=true", "--", "git", "{args...}"],
                       "applicability": "maybe_incorrect"}]},
    {"pattern": r"^(?:Username|Password) for '", "input_kind": "credential", "subcommands": ["clone"],
     "suggested_fix": _CREDENTIALS_FIX,
     "code_actions": [
         {"title": "Configure a credential helper", "applicability": "has_placeholders", "is_preferred": True,
          "command": ["git", "config", "--global", "credential.helper", "<HELPER>"]},
         {"title": "Clone over SSH instead", "applicability": "has_placeholders",
          "command": ["git", "clone", "<SSH_URL>"]}]},
    {"pattern": r"^(?:Username|Password) for '", "input_kind": "credential", "suggested_fix": _CREDENTIALS_FIX,
     "code_actions": [
         {"title": "Configure a credential helper", "applicability": "has_placeholders", "is_preferred": True,
          "command": ["git", "config", "--global", "credential.helper", "<HELPER>"]},
         {"title": "Use an SSH URL for the remote", "applicability": "has_placeholders",
          "command": ["git", "remote", "set-url", "origin", "<SSH_URL>"]}]},
    {"pattern": r"Enter passphrase for key", "input_kind": "password",
     "suggested_fix": "ssh wants the key's passphrase; load the key into an agent first (`ssh-add KEY`).",
     "code_actions": [{"title": "Load the key into ssh-agent (a person types the passphrase)",
                       "command": ["ssh-add", "<KEY_FILE>"], "applicability": "has_placeholders"}]},
    {"pattern": r"continue connecting \(yes/no", "input_kind": "confirmation",
     "suggested_fix": "ssh does not know the host key. Verify the fingerprint, add it to ~/.ssh/known_hosts "
                      "(`ssh-keyscan HOST`), then retry.",
     "code_actions": [{"title": "Trust the host key on first use (only if the host is the one you expect)",
                       "command": ["agentwrap", "--env", "GIT_SSH_COMMAND=ssh -o StrictHostKeyChecking=accept-new",
                                   "--", "git", "{args...}"], "applicability": "maybe_incorrect"}]},
    {"pattern": r"\[y,n,q,a,d|Stage (?:this hunk|mode change|deletion|addition)|What now>", "input_kind": "selection",
     "subcommands": ["add", "clean", "checkout", "reset", "restore"],
     "suggested_fix": "Interactive selection needs a person; name the paths to act on instead.",
     "code_actions": [{"title": "Act on whole paths", "command": ["git", "{subcommand}", "--", "<PATH>"],
                       "applicability": "has_placeholders"}]},
]
