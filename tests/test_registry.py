"""One registration path: built-ins, the user folder and entry points all end in the same check."""

from __future__ import annotations

import textwrap

import pytest
from conftest import ROOT, aw

from agentwrap import registry, sdk

_PLUGIN = """
    from agentwrap import sdk

    class Plug(sdk.BaseAdapter):
        spec = sdk.Spec.from_dict({"name": "plug", "matches": ["echo"], "descriptor": {"purpose": "plugged"}},
                                  __file__)

    ADAPTER = Plug()
"""


def _site(tmp_path, group: str, value: str):
    site = tmp_path / "site"
    (site / "plug-1.0.dist-info").mkdir(parents=True)
    (site / "plug.py").write_text(textwrap.dedent(_PLUGIN))
    (site / "plug-1.0.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: plug\nVersion: 1.0\n")
    (site / "plug-1.0.dist-info" / "entry_points.txt").write_text(f"[{group}]\necho = {value}\n")
    return {"PYTHONPATH": f"{ROOT}:{site}", "AGENTWRAP_CACHE_DIR": str(tmp_path / "cache")}


def test_the_sdk_names_the_versioned_group():
    assert sdk.ENTRY_POINT_GROUP == registry.ENTRY_POINT_GROUP_V1 == "agentwrap.adapters.v1"


def test_a_v1_entry_point_names_an_instance(tmp_path):
    answer = aw("--", "echo", "hi", env=_site(tmp_path, "agentwrap.adapters.v1", "plug:ADAPTER"))
    assert answer.env["command"]["adapter"] == "plug"
    assert answer.env["warnings"] == []


def test_a_v1_entry_point_naming_a_class_is_refused_with_a_warning(tmp_path):
    answer = aw("--", "echo", "hi", env=_site(tmp_path, "agentwrap.adapters.v1", "plug:Plug"))
    assert answer.env["command"]["adapter"] != "plug"
    (warning,) = [w for w in answer.env["warnings"] if w["code"] == "ADAPTER_LOAD_FAILED"]
    assert "agentwrap.adapters.v1" in warning["message"] and "not an adapter instance" in warning["message"]


def test_the_unversioned_group_still_takes_a_class(tmp_path):
    answer = aw("--", "echo", "hi", env=_site(tmp_path, "agentwrap.adapters", "plug:Plug"))
    assert answer.env["command"]["adapter"] == "plug"


def test_a_user_file_whose_adapter_is_not_one_is_a_warning(tmp_path):
    folder = tmp_path / "adapters"
    folder.mkdir()
    (folder / "echo.py").write_text("ADAPTER = object()\n")
    answer = aw("--", "echo", "hi", env={"AGENTWRAP_ADAPTER_DIR": str(folder)})
    (warning,) = [w for w in answer.env["warnings"] if w["code"] == "ADAPTER_LOAD_FAILED"]
    assert "not an adapter instance" in warning["message"]


@pytest.mark.parametrize("name", registry.names())
def test_every_builtin_passes_the_same_check(name):
    adapter = registry.builtin(name)
    assert registry.accepted(adapter, name) is adapter
