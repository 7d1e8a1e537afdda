"""The two examples run as a user runs them, against a real server, and say what they stored."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def run(example: str, url: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SM_URL": url, "PYTHONPATH": str(EXAMPLES.parent)}
    env.pop("SM_API_TOKEN", None)
    return subprocess.run([sys.executable, str(EXAMPLES / example)], capture_output=True, text=True, env=env, timeout=60)


def test_sync_example(server):
    result = run("sync_example.py", server.url)
    assert result.returncode == 0, result.stderr
    assert "Lisbon" in result.stdout and "## " in result.stdout
    assert "search: turn" in result.stdout or "search: fact" in result.stdout


def test_async_example(server):
    result = run("async_example.py", server.url)
    assert result.returncode == 0, result.stderr
    assert "bruno: 1 turn(s)" in result.stdout and "Ana starts school" in result.stdout
    assert "chen: 1 turn(s)" in result.stdout and "shellfish" in result.stdout
    # Each user's search saw only their own memory.
    bruno = next(line for line in result.stdout.splitlines() if line.startswith("bruno:"))
    assert "shellfish" not in bruno


def test_an_example_says_what_went_wrong(closed_port):
    result = run("sync_example.py", f"http://127.0.0.1:{closed_port}/graphql")
    assert result.returncode == 1
    assert result.stderr.strip().startswith("NETWORK: cannot reach") and "connection refused" in result.stderr
