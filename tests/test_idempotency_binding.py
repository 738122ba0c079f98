"""What an --idempotency-key is bound to beyond argv and cwd (CONTRACT section 9): --env, --answer and
--no-pty change what runs, so a reuse with other values is a conflict, never a replay of another run;
--timeout only bounds the wait, and a replayed failure says the key replays it."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

from tests.conftest import aw


def _key() -> str:
    return f"key-{uuid.uuid4()}"


def _deploy(log: Path) -> list[str]:
    return ["sh", "-c", f'echo deploying to $TARGET >> {log}; echo deployed $TARGET']


def test_another_env_value_with_the_key_is_a_conflict_not_a_replay(tmp_path: Path) -> None:
    key, log = _key(), tmp_path / "deploys.log"
    first = aw("--idempotency-key", key, "--env", "TARGET=prod", "--", *_deploy(log))
    assert first.code == 0 and first.text() == "deployed prod\n"
    other = aw("--idempotency-key", key, "--env", "TARGET=staging", "--", *_deploy(log))
    assert other.code == 125 and other.error is not None
    assert other.error["code"] == "IDEMPOTENCY_CONFLICT"
    assert "--env other value for TARGET" in other.error["detail"]
    assert "staging" not in other.error["detail"] and "prod" not in other.error["detail"]
    added = aw("--idempotency-key", key, "--env", "TARGET=prod", "--env", "EXTRA=1", "--", *_deploy(log))
    assert added.error is not None and "added EXTRA" in added.error["detail"]
    same = aw("--idempotency-key", key, "--env", "TARGET=prod", "--", *_deploy(log))
    assert same.code == 0 and same.env["replayed"] is True
    assert log.read_text() == "deploying to prod\n"  # ran once, for prod only


def test_the_key_record_holds_no_env_value_or_reply_in_clear(tmp_path: Path) -> None:
    import os

    key, secret = _key(), "s3cr3t-value-4711"
    aw("--idempotency-key", key, "--env", f"API_TOKEN={secret}", "--answer", f"x\\?={secret}", "--",
       "python3", "-c", "print(input('x? '))")
    records = Path(os.environ["AGENTWRAP_STATE_DIR"]) / "idempotency"
    texts = [p.read_text() for p in records.glob("*.json")]
    assert any('"API_TOKEN"' in t for t in texts)  # the name is bound
    assert not any(secret in t for t in texts)


def test_other_answer_rules_or_no_pty_with_the_key_are_a_conflict(tmp_path: Path) -> None:
    key = _key()
    ask = ["python3", "-c", "print(input('Continue? '))"]
    assert aw("--idempotency-key", key, "--answer", "Continue\\?=yes", "--", *ask).code == 0
    reply = aw("--idempotency-key", key, "--answer", "Continue\\?=no", "--", *ask)
    assert reply.error is not None and reply.error["code"] == "IDEMPOTENCY_CONFLICT"
    assert "--answer rules" in reply.error["detail"] and "yes" not in reply.error["detail"]
    no_pty = aw("--idempotency-key", key, "--no-pty", "--answer", "Continue\\?=yes", "--", *ask)
    assert no_pty.error is not None and "--no-pty" in no_pty.error["detail"]


def test_a_conflict_names_the_key_in_clear() -> None:
    key = _key()
    aw("--idempotency-key", key, "--", "true")
    other = aw("--idempotency-key", key, "--", "false")
    assert other.error is not None and key in other.error["detail"]


def test_a_replayed_timeout_says_the_key_replays_it_whatever_the_timeout(tmp_path: Path) -> None:
    key = _key()
    first = aw("--idempotency-key", key, "--timeout", "1", "--", "sleep", "5")
    assert first.error is not None and first.error["code"] == "TIMEOUT"
    again = aw("--idempotency-key", key, "--timeout", "30", "--", "sleep", "5")
    assert again.env["replayed"] is True and again.error is not None and again.error["code"] == "TIMEOUT"
    fix = again.error["suggested_fix"]
    assert "replays" in fix and "new key" in fix
    assert json.dumps(first.error["suggested_fix"])[1:-1] in json.dumps(fix)  # the first run's fix still said
