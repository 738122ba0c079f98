"""A simulation's concise envelope says each fact once: apt -s prints an Inst/Remv line for every package its
announced lists name, so `plan.new/upgrade/remove` repeat `install`/`remove`, and `counts` repeats the
summary (an upgrade's `from_version` tells it from a new install); the lists only apt announces stay."""

from __future__ import annotations

from conftest import ROOT

from agentwrap import fixtures, registry
from agentwrap.render import views


def _concise(name: str) -> dict:
    case = next(c for c in fixtures.cases(ROOT / "fixtures", "apt") if c.name == name)
    return views.concise(fixtures.replay_record(registry.builtin("apt"), case))


def test_a_simulated_removal_says_bc_once():
    view = _concise("remove-one-simulated")
    assert view["data"] == {"simulated": True, "remove": [{"name": "bc", "version": "1.07.1-3+b1"}]}
    assert "output" not in view  # `The following packages will be REMOVED:` / `  bc` is data.remove
    assert "1 to remove, 143 not upgraded" in view["summary"]


def test_a_simulated_install_keeps_only_its_items_and_what_apt_alone_says():
    data = _concise("install-simulated")["data"]
    assert "plan" not in data and "counts" not in data
    assert [p["name"] for p in data["install"]] == ["libcaca0", "toilet-fonts", "toilet"]
    held = _concise("remove-held-simulated")["data"]
    assert held["plan"] == {"held_changed": ["jq"]}  # a hold apt overrides is said nowhere else


def test_a_real_run_keeps_its_plan():
    data = _concise("install-cowsay")["data"]  # what apt announced: no Inst line says it
    assert data["plan"] == {"new": ["cowsay", "libtext-charwidth-perl"]}
