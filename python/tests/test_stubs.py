"""The type stubs are in step with the module (mypy's stubtest)."""

import os
import pathlib
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).parent


def test_stubtest():
    if os.environ.get("CI") is None:
        pytest.importorskip("mypy")
    result = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "motion_viewer", "--allowlist", str(HERE / "stubtest-allowlist.txt")],
        capture_output=True,
        text=True,
        cwd=HERE,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_example_type_checks():
    if os.environ.get("CI") is None:
        pytest.importorskip("mypy")
    example = HERE.parent / "examples" / "summary.py"
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", str(example)],
        capture_output=True,
        text=True,
        cwd=HERE,
    )
    assert result.returncode == 0, result.stdout + result.stderr
