"""`agent-tui init` through the real binary and the fake model server: the same task as the TUI's
/init, the draft shown as a diff before anything is written, --yes or a typed 'y' to write it, an
existing AGENTS.md never replaced unseen, and no other write allowed."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.agent.helpers import make_repo
from tests.support.binary import agent_tui
from tests.support.fake_openai import FakeOpenAI, Reply
from tests.support.fixtures import FAKE_MODEL

DRAFT = "# AGENTS.md\n\n## Build and test\n- python -m pytest -q\n"
OLD = "# AGENTS.md\n\n- old rule: use nose\n"


def _init(root: Path, fake: FakeOpenAI, *args: str, stdin: int | None = subprocess.DEVNULL
          ) -> subprocess.CompletedProcess[str]:
    return agent_tui(root, "init", *args, "--model", FAKE_MODEL, "--api-base", fake.base_url, stdin=stdin)


def _script(fake: FakeOpenAI, *first: Reply) -> None:
    fake.script(*first, Reply.tool_call("write_file", {"path": "AGENTS.md", "content": DRAFT}), Reply.text("Drafted."))


def test_init_yes_shows_the_diff_and_writes_the_draft(tmp_path: Path, fake_llm: FakeOpenAI) -> None:
    root = make_repo(tmp_path / "proj")
    _script(fake_llm, Reply.tool_call("list_dir", {"path": "."}))
    proc = _init(root, fake_llm, "--yes")
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "+++ b/AGENTS.md" in proc.stdout and "+## Build and test" in proc.stdout
    assert (root / "AGENTS.md").read_text() == DRAFT
    task = next(m["content"] for m in fake_llm.requests[0].messages if m["role"] == "user")
    assert "Write an AGENTS.md" in task and "never invent commands" in task, "the TUI's /init task"


def test_init_never_replaces_an_existing_agents_md_unseen(tmp_path: Path, fake_llm: FakeOpenAI) -> None:
    root = make_repo(tmp_path / "proj")
    (root / "AGENTS.md").write_text(OLD)
    _script(fake_llm, Reply.tool_call("read_file", {"path": "AGENTS.md"}))
    proc = _init(root, fake_llm)  # no --yes, no terminal to ask
    assert proc.returncode == 1
    assert "-- old rule: use nose" in proc.stdout and "+## Build and test" in proc.stdout, "the diff is shown"
    assert "pass --yes" in proc.stdout
    assert (root / "AGENTS.md").read_text() == OLD
    task = next(m["content"] for m in fake_llm.requests[0].messages if m["role"] == "user")
    assert "exists already" in task


def test_init_asks_at_the_terminal(tmp_path: Path, fake_llm: FakeOpenAI) -> None:
    root = make_repo(tmp_path / "proj")
    (root / "AGENTS.md").write_text(OLD)
    _script(fake_llm, Reply.tool_call("read_file", {"path": "AGENTS.md"}))
    master, slave = os.openpty()
    try:
        os.write(master, b"y\n")
        proc = _init(root, fake_llm, stdin=slave)
    finally:
        os.close(slave)
        os.close(master)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    diff_at, ask_at = proc.stdout.index("+## Build and test"), proc.stdout.index("Write AGENTS.md? [y/N]")
    assert diff_at < ask_at, "the diff comes before the question"
    assert (root / "AGENTS.md").read_text() == DRAFT


def test_init_refuses_any_other_write(tmp_path: Path, fake_llm: FakeOpenAI) -> None:
    root = make_repo(tmp_path / "proj")
    # a path whose second line reads as the diff header of AGENTS.md: the write would create conftest.py
    disguised = "x\n+++ b/AGENTS.md\n/../../conftest.py"
    _script(fake_llm, Reply.tool_call("write_file", {"path": "evil.sh", "content": "rm -rf ~\n"}),
            Reply.tool_call("write_file", {"path": disguised, "content": "import os\n"}))
    proc = _init(root, fake_llm, "--yes")
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert proc.stdout.count("refused write_file") == 1 and not (root / "evil.sh").exists()
    # the disguised path cannot be written at all: refused before anyone is asked (tools' own check)
    assert "holds the control character" in proc.stdout
    assert not (root / "conftest.py").exists()
    assert (root / "AGENTS.md").read_text() == DRAFT


def test_init_with_demo_says_it_needs_a_model_and_touches_nothing(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "proj")
    proc = agent_tui(root, "init", "--demo", stdin=subprocess.DEVNULL)
    assert proc.returncode == 2, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "init needs a model" in proc.stderr and "agent-tui --demo" in proc.stderr
    assert not (root / "AGENTS.md").exists()
