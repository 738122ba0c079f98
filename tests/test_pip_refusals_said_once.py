"""pip refusals said by their problems, not again by the text pip prints for them.

pip asked a question PIP_NO_INPUT refused (`pip uninstall NAME` without -y): pip prints its own traceback for
it, which the PIP_CONFIRMATION_REQUIRED problem says in a line; the concise text keeps what would be removed
and leaves pip's internals out (fixtures/pip/uninstall-prompt, fixtures/python/m-pip-uninstall-prompt). PEP
668's refusal (fixtures/pip/install-externally-managed) is said by PIP_EXTERNALLY_MANAGED alike."""

from __future__ import annotations

import pytest
from conftest import ROOT

from agentwrap import fixtures, registry
from agentwrap.render import views


@pytest.mark.parametrize(("adapter", "name"), [("pip", "uninstall-prompt"), ("python", "m-pip-uninstall-prompt")])
def test_the_refused_prompt_is_said_once_without_pips_traceback(adapter: str, name: str) -> None:
    case = next(c for c in fixtures.cases(ROOT / "fixtures", adapter) if c.name == name)
    concise = views.concise(fixtures.replay_record(registry.builtin(adapter), case))
    assert concise["error"]["code"] == "PIP_CONFIRMATION_REQUIRED"
    assert concise["error"]["code_actions"][0]["command"][-1] == "-y"
    output = concise.get("output", {})
    assert "Would remove:" in output["stdout"]["text"]
    assert "stderr" not in output  # `ERROR: Exception:`, the traceback through pip/_internal, `raise Exception(`


def test_pep_668_is_said_by_its_problem_not_again_by_the_os_text() -> None:
    # the OS's multi-paragraph refusal (apt, venv, pipx, --break-system-packages) is what the problem says
    case = next(c for c in fixtures.cases(ROOT / "fixtures", "pip") if c.name == "install-externally-managed")
    concise = views.concise(fixtures.replay_record(registry.builtin("pip"), case))
    assert concise["error"]["code"] == "PIP_EXTERNALLY_MANAGED"
    assert "venv" in concise["error"]["suggested_fix"]
    assert "externally-managed-environment" not in concise.get("output", {}).get("stderr", {}).get("text", "")
