"""git_status, git_diff and git_log on real temporary repositories."""

from __future__ import annotations

import re
from pathlib import Path

import git
import pytest

from agent_tui.tools.git_tools import format_branch, parse_status

from .fakes import Call, FakeContext

AUTHOR = git.Actor("Ada Tester", "ada@example.com")


def commit(repo: git.Repo, files: dict[str, str], message: str) -> None:
    root = Path(repo.working_tree_dir or ".")
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    repo.index.add(list(files))
    repo.index.commit(message, author=AUTHOR, committer=AUTHOR)


@pytest.fixture
def repo(ws: Path) -> git.Repo:
    r = git.Repo.init(ws, initial_branch="main")
    commit(r, {"a.py": "one\ntwo\n", "docs/readme.md": "# Docs\n"}, "Initial commit")
    commit(r, {"a.py": "one\ntwo\nthree\n"}, "Add three to a.py")
    commit(r, {"docs/readme.md": "# Docs\nMore.\n"}, "Expand docs")
    return r


async def test_status_groups_changes(ws: Path, repo: git.Repo, call: Call) -> None:
    (ws / "a.py").write_text("one\nTWO\nthree\n")  # unstaged modification
    (ws / "new.py").write_text("x\n")
    repo.index.add(["new.py"])  # staged addition
    (ws / "scratch.txt").write_text("?")  # untracked
    (ws / "docs/readme.md").unlink()  # unstaged deletion
    result = await call("git_status")
    assert result.text.splitlines() == [
        "On branch main",
        "Staged (1):",
        "  added: new.py",
        "Not staged (2):",
        "  modified: a.py",
        "  deleted: docs/readme.md",
        "Untracked (1):",
        "  scratch.txt",
    ]


async def test_status_clean(repo: git.Repo, call: Call) -> None:
    result = await call("git_status")
    assert result.text == "On branch main\nWorking tree clean."


async def test_diff_unstaged_staged_and_path(ws: Path, repo: git.Repo, call: Call) -> None:
    (ws / "a.py").write_text("one\nTWO\nthree\n")
    (ws / "docs/readme.md").write_text("# Docs\nChanged.\n")
    result = await call("git_diff")
    assert re.search(r"^ a\.py +\| 2 \+-$", result.text, re.M)
    assert "2 files changed" in result.text
    assert "-two\n+TWO" in result.text and "+Changed." in result.text
    assert result.meta["diff"].startswith("diff --git a/a.py b/a.py")
    only_docs = await call("git_diff", path="docs")
    assert "+Changed." in only_docs.text and "TWO" not in only_docs.text
    nothing_staged = await call("git_diff", staged=True)
    assert nothing_staged.text.startswith("No staged changes. There are unstaged changes")
    repo.index.add(["a.py"])
    staged = await call("git_diff", staged=True)
    assert "+TWO" in staged.text and "Changed." not in staged.text


async def test_large_diff_is_shaped_with_handle(
    ws: Path, repo: git.Repo, call: Call, ctx: FakeContext
) -> None:
    (ws / "a.py").write_text("".join(f"generated line {i} with some words\n" for i in range(4000)))
    result = await call("git_diff")
    assert result.handle is not None
    assert result.shaped_tokens <= 6000
    stored = ctx.results.get(result.handle)
    assert stored is not None and "+generated line 3999 with some words" in stored


async def test_log_one_line_per_commit_and_path_filter(repo: git.Repo, call: Call) -> None:
    result = await call("git_log")
    lines = result.text.splitlines()
    assert len(lines) == 3
    assert lines[0].endswith("Ada Tester: Expand docs")
    assert lines[2].endswith("Ada Tester: Initial commit")
    assert lines[0].split()[0] == repo.head.commit.hexsha[:8]
    limited = await call("git_log", n=1)
    assert len(limited.text.splitlines()) == 1
    for_a = await call("git_log", path="a.py")
    assert [line.split(": ", 1)[1] for line in for_a.text.splitlines()] == [
        "Add three to a.py",
        "Initial commit",
    ]


async def test_empty_repo(ws: Path, call: Call) -> None:
    git.Repo.init(ws, initial_branch="trunk")
    assert (await call("git_log")).text == "No commits yet."
    status = await call("git_status")
    assert status.text == "On branch trunk (no commits yet)\nWorking tree clean."


async def test_not_a_repo_is_clear(call: Call) -> None:
    for name in ("git_status", "git_diff", "git_log"):
        result = await call(name)
        assert result.is_error and result.text.startswith("Not a git repository"), name


async def test_git_path_outside_refused(repo: git.Repo, call: Call) -> None:
    result = await call("git_log", path="../elsewhere")
    assert result.is_error and "Refused" in result.text


def test_parse_status_renames_and_conflicts() -> None:
    raw = "## main...origin/main [ahead 2, behind 1]\0R  new.py\0old.py\0UU both.py\0MM mixed.py\0"
    branch, groups = parse_status(raw)
    assert format_branch(branch) == "On branch main (origin/main, ahead 2, behind 1)"
    assert groups["Staged"] == ["renamed: old.py -> new.py", "modified: mixed.py"]
    assert groups["Not staged"] == ["modified: mixed.py"]
    assert groups["Conflicts"] == ["both.py"]
