"""edit_file and write_file: safe, exact, refused when stale, unread or ambiguous."""

from __future__ import annotations

from pathlib import Path

from agent_tui.core.hashing import content_hash

from .fakes import Call, FakeContext

CODE = "def greet(name):\n    print('hello', name)\n    return name\n\n\ndef other():\n    pass\n"


async def _read(call: Call, path: str) -> None:
    result = await call("read_file", path=path)
    assert not result.is_error, result.text


async def test_edit_success_writes_file_notes_and_returns_diff(
    ws: Path, call: Call, ctx: FakeContext
) -> None:
    (ws / "g.py").write_text(CODE)
    await _read(call, "g.py")
    result = await call(
        "edit_file",
        path="g.py",
        old_text="    print('hello', name)\n",
        new_text="    print('hi', name)\n    log(name)\n",
    )
    assert not result.is_error, result.text
    new = (ws / "g.py").read_text()
    assert new == CODE.replace(
        "    print('hello', name)\n", "    print('hi', name)\n    log(name)\n"
    )
    assert ctx.edits == [("g.py", new)]
    assert ctx.edit_kinds == ["edit"]
    assert ctx.last_seen_hash("g.py") == content_hash(new)
    assert "Edited g.py" in result.text and "+2 -1" in result.text
    assert "-    print('hello', name)" in result.text and "+    log(name)" in result.text
    diff = result.meta["diff"]
    assert diff.startswith("--- a/g.py\n+++ b/g.py\n@@")
    assert "+    print('hi', name)" in diff
    assert result.meta["path"] == "g.py"


async def test_second_edit_after_own_edit_needs_no_reread(ws: Path, call: Call) -> None:
    (ws / "g.py").write_text(CODE)
    await _read(call, "g.py")
    first = await call("edit_file", path="g.py", old_text="pass", new_text="return 1")
    second = await call("edit_file", path="g.py", old_text="return 1", new_text="return 2")
    assert not first.is_error and not second.is_error
    assert "return 2" in (ws / "g.py").read_text()


async def test_edit_refused_when_never_read(ws: Path, call: Call) -> None:
    (ws / "g.py").write_text(CODE)
    result = await call("edit_file", path="g.py", old_text="pass", new_text="return 1")
    assert result.is_error and "read 'g.py' first" in result.text
    assert (ws / "g.py").read_text() == CODE


async def test_edit_refused_when_changed_on_disk_after_read(ws: Path, call: Call) -> None:
    (ws / "g.py").write_text(CODE)
    await _read(call, "g.py")
    (ws / "g.py").write_text(CODE + "# someone else\n")
    result = await call("edit_file", path="g.py", old_text="pass", new_text="return 1")
    assert result.is_error and "changed on disk since you last read it" in result.text
    assert (ws / "g.py").read_text() == CODE + "# someone else\n"


async def test_edit_not_found_shows_nearest_lines_numbered(ws: Path, call: Call) -> None:
    lines = [f"value_{i} = compute({i})" for i in range(1, 60)]
    lines[29] = "result = transform(data, scale=2.5, offset=3)"
    (ws / "m.py").write_text("\n".join(lines) + "\n")
    await _read(call, "m.py")
    result = await call(
        "edit_file",
        path="m.py",
        old_text="result = transform(data, scale=2.0, offset=3)",
        new_text="x",
    )
    assert result.is_error
    assert "old_text was not found in m.py" in result.text
    assert "most similar line 30 is (98% similar)" in result.text
    assert "30| result = transform(data, scale=2.5, offset=3)" in result.text
    assert "29| value_29" in result.text  # one line of context around it


async def test_edit_not_found_whitespace_hint(ws: Path, call: Call) -> None:
    (ws / "w.py").write_text("if x:\n        y = 1\n        z = 2\n")
    await _read(call, "w.py")
    result = await call("edit_file", path="w.py", old_text="    y = 1\n    z = 2", new_text="y = 3")
    assert result.is_error and "only in whitespace/indentation" in result.text


async def test_ambiguous_edit_refused_with_count(ws: Path, call: Call) -> None:
    (ws / "d.py").write_text("x = 1\ny = 2\nx = 1\nz = 3\nx = 1\n")
    await _read(call, "d.py")
    result = await call("edit_file", path="d.py", old_text="x = 1", new_text="x = 9")
    assert result.is_error
    assert "occurs 3 times" in result.text and "lines 1, 3, 5" in result.text
    assert (ws / "d.py").read_text().count("x = 1") == 3
    everything = await call(
        "edit_file", path="d.py", old_text="x = 1", new_text="x = 9", replace_all=True
    )
    assert not everything.is_error and everything.meta["replacements"] == 3
    assert (ws / "d.py").read_text() == "x = 9\ny = 2\nx = 9\nz = 3\nx = 9\n"


async def test_edit_preserves_crlf(ws: Path, call: Call, ctx: FakeContext) -> None:
    (ws / "win.txt").write_bytes(b"one\r\ntwo\r\nthree\r\n")
    await _read(call, "win.txt")
    result = await call("edit_file", path="win.txt", old_text="two\nthree", new_text="2\n3")
    assert not result.is_error, result.text
    assert (ws / "win.txt").read_bytes() == b"one\r\n2\r\n3\r\n"
    assert ctx.edits[-1][1] == "one\r\n2\r\n3\r\n"


async def test_edit_rejects_noop_and_empty(ws: Path, call: Call) -> None:
    (ws / "a.txt").write_text("abc\n")
    await _read(call, "a.txt")
    assert (
        "identical" in (await call("edit_file", path="a.txt", old_text="abc", new_text="abc")).text
    )
    assert "empty" in (await call("edit_file", path="a.txt", old_text="", new_text="x")).text


async def test_write_new_file_creates_parents(ws: Path, call: Call, ctx: FakeContext) -> None:
    result = await call("write_file", path="pkg/sub/new.py", content="a = 1\nb = 2\n")
    assert not result.is_error, result.text
    assert (ws / "pkg/sub/new.py").read_text() == "a = 1\nb = 2\n"
    assert "Created pkg/sub/new.py (2 lines" in result.text
    assert ctx.edits == [("pkg/sub/new.py", "a = 1\nb = 2\n")]
    assert ctx.edit_kinds == ["create"]  # the engine may let a file the agent only wrote go when idle


async def test_write_over_unread_file_refused(ws: Path, call: Call) -> None:
    (ws / "keep.txt").write_text("precious\n")
    result = await call("write_file", path="keep.txt", content="gone\n")
    assert result.is_error and "read 'keep.txt' first" in result.text
    assert (ws / "keep.txt").read_text() == "precious\n"


async def test_write_over_read_file_allowed_with_diff(ws: Path, call: Call, ctx: FakeContext) -> None:
    (ws / "keep.txt").write_text("old line\n")
    await _read(call, "keep.txt")
    result = await call("write_file", path="keep.txt", content="new line\n")
    assert not result.is_error
    assert (ws / "keep.txt").read_text() == "new line\n"
    assert "Overwrote keep.txt: +1 -1" in result.text
    assert ctx.edit_kinds == ["write"]  # a file that existed is not the agent's creation
    assert "-old line" in result.meta["diff"] and "+new line" in result.meta["diff"]


async def test_write_over_stale_file_refused(ws: Path, call: Call) -> None:
    (ws / "keep.txt").write_text("v1\n")
    await _read(call, "keep.txt")
    (ws / "keep.txt").write_text("v2\n")
    result = await call("write_file", path="keep.txt", content="v3\n")
    assert result.is_error and "changed on disk" in result.text
    assert (ws / "keep.txt").read_text() == "v2\n"


async def test_write_to_directory_refused(ws: Path, call: Call) -> None:
    (ws / "dir").mkdir()
    result = await call("write_file", path="dir", content="x")
    assert result.is_error and "is a directory" in result.text


async def test_write_tools_refuse_hooks_and_config_git_runs_from_the_work_tree(ws: Path, call: Call) -> None:
    """The hooks folder core.hooksPath names and a config file .git/config includes: the user's
    next git command would run what a write put there."""
    import subprocess

    subprocess.run(["git", "init", "-q"], cwd=ws, check=True)
    subprocess.run(["git", "config", "core.hooksPath", ".husky/_"], cwd=ws, check=True)
    subprocess.run(["git", "config", "include.path", "../.gitconfig"], cwd=ws, check=True)
    (ws / ".husky" / "_").mkdir(parents=True)
    (ws / ".husky" / "pre-commit").write_text("npm test\n")
    (ws / ".gitconfig").write_text("[user]\n\tname = dev\n")
    await _read(call, ".husky/pre-commit")
    await _read(call, ".gitconfig")
    for path, what in ((".husky/pre-commit", "hooks folder"), (".husky/_/post-checkout", "hooks folder"),
                       (".gitconfig", "a config file")):
        result = await call("write_file", path=path, content="touch pwned\n")
        assert result.is_error and what in result.text and "ask the user" in result.text, result.text
    result = await call("edit_file", path=".gitconfig", old_text="dev", new_text="dev\n[core]\n\tfsmonitor = x")
    assert result.is_error and "config file git uses" in result.text
    assert (ws / ".husky" / "pre-commit").read_text() == "npm test\n"
    assert (ws / ".gitconfig").read_text() == "[user]\n\tname = dev\n"
    assert not (ws / ".husky" / "_" / "post-checkout").exists()
    ok = await call("write_file", path="src/app.py", content="print(1)\n")  # other files stay writable
    assert not ok.is_error, ok.text
