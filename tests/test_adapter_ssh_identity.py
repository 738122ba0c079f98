"""SSH_PERMISSION_DENIED's action offers `-i <KEY_FILE>` instead of the caller's refused key, never beside it:
ssh offers every -i it is given, so the refused key would still be tried first."""

from __future__ import annotations

from conftest import ROOT

from agentwrap import fixtures, registry


def test_the_refused_key_gives_way_to_the_placeholder():
    case = next(c for c in fixtures.cases(ROOT / "fixtures", "ssh") if c.name == "permission-denied")
    error = fixtures.replay_record(registry.builtin("ssh"), case).error
    assert error is not None and error.code == "SSH_PERMISSION_DENIED"
    command = error.code_actions[0].command
    assert command == ("ssh", "-i", "<KEY_FILE>", "-o", "IdentitiesOnly=yes", "-F", "/tmp/awssh/config",
                       "-o", "BatchMode=yes", "-p", "2222", "root@127.0.0.1", "true")  # was: also -i .../stranger


def test_every_spelling_of_an_identity_goes_and_the_remote_command_stays():
    from agentwrap.adapters.ssh import _without_identity

    ours = ("-i", "<KEY_FILE>", "-o", "IdentitiesOnly=yes")
    given = ("ssh", *ours, "-vi", "k", "-oIdentityFile=/x", "-o", "IdentityFile /y", "-ik2", "-p", "22", "h",
             "grep", "-i", "f")
    assert _without_identity(given) == ("ssh", *ours, "-v", "-p", "22", "h", "grep", "-i", "f")
    assert _without_identity(("scp", *ours, "-P", "2", "-i", "k", "a", "h:b")) == ("scp", *ours, "-P", "2",
                                                                                   "a", "h:b")
