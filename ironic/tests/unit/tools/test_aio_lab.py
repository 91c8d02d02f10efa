"""tools/aio_lab.py: the IPMI lab is skipped, saying why, without ipmitool."""

from __future__ import annotations

import shutil

from ironic.tests.unit.tools import load_tool

lab = load_tool("aio_lab")


def test_ipmi_lab_skipped_without_ipmitool(monkeypatch, capsys):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert lab._ipmi_count(2) == 0
    out = capsys.readouterr().out
    assert "ipmitool is not installed" in out
    assert "tools/install-system-deps.sh" in out


def test_ipmi_lab_kept_with_ipmitool(monkeypatch, capsys):
    monkeypatch.setattr(shutil, "which", lambda name: "/usr/bin/" + name)
    assert lab._ipmi_count(2) == 2
    assert lab._ipmi_count(0) == 0
    assert capsys.readouterr().out == ""
