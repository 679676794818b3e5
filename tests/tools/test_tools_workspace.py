"""The path guard and binary detection, directly and through the tools."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent_tui.tools.workspace import WorkspaceError, read_text, relative, resolve, split_lines

from .fakes import Call, FakeContext


def test_inside_paths_resolve_to_relative(ws: Path) -> None:
    (ws / "src").mkdir()
    (ws / "src" / "a.py").write_text("x = 1\n")
    assert relative(ws, resolve(ws, "src/a.py")) == "src/a.py"
    assert relative(ws, resolve(ws, "./src/../src/a.py")) == "src/a.py"
    assert relative(ws, resolve(ws, str(ws / "src" / "a.py"))) == "src/a.py"
    assert relative(ws, resolve(ws, ".")) == "."


def test_dotdot_escape_refused(ws: Path) -> None:
    (ws.parent / "secret.txt").write_text("s")
    with pytest.raises(WorkspaceError, match=r"escapes the workspace with '\.\.'"):
        resolve(ws, "../secret.txt")
    with pytest.raises(WorkspaceError, match="escapes"):
        resolve(ws, "src/../../secret.txt")


def test_absolute_outside_refused(ws: Path) -> None:
    with pytest.raises(WorkspaceError, match="absolute path outside the workspace"):
        resolve(ws, "/etc/passwd")


def test_symlink_pointing_outside_refused(ws: Path) -> None:
    outside = ws.parent / "outside"
    outside.mkdir()
    (outside / "x.txt").write_text("secret")
    os.symlink(outside, ws / "link")
    os.symlink(outside / "x.txt", ws / "file_link")
    with pytest.raises(WorkspaceError, match="symlink that points outside"):
        resolve(ws, "link/x.txt")
    with pytest.raises(WorkspaceError, match="symlink"):
        resolve(ws, "file_link")


def test_symlink_inside_allowed(ws: Path) -> None:
    (ws / "real.txt").write_text("ok\n")
    os.symlink(ws / "real.txt", ws / "alias.txt")
    _, rel, text = read_text(ws, "alias.txt")
    assert rel == "real.txt" and text == "ok\n"


async def test_tools_refuse_escapes_with_error_results(ws: Path, call: Call) -> None:
    outside = ws.parent / "outside"
    outside.mkdir()
    (outside / "x.txt").write_text("secret")
    os.symlink(outside / "x.txt", ws / "leak.txt")
    for name, args in [
        ("read_file", {"path": "../outside/x.txt"}),
        ("read_file", {"path": "/etc/passwd"}),
        ("read_file", {"path": "leak.txt"}),
        ("write_file", {"path": "../evil.txt", "content": "x"}),
        ("list_dir", {"path": ".."}),
        ("search", {"pattern": "secret", "path": "../outside"}),
    ]:
        result = await call(name, **args)
        assert result.is_error, (name, args)
        assert "Refused" in result.text
        assert "secret" not in result.text.replace("'secret'", "")
    assert not (ws.parent / "evil.txt").exists()


async def test_binary_file_refused_with_size_and_type(
    ws: Path, call: Call, ctx: FakeContext
) -> None:
    (ws / "img.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 100)
    result = await call("read_file", path="img.png")
    assert result.is_error
    assert (
        "binary file" in result.text and "108 bytes" in result.text and "PNG image" in result.text
    )
    assert ctx.reads == []


async def test_undecodable_file_refused(ws: Path, call: Call) -> None:
    (ws / "latin.txt").write_bytes("café".encode("latin-1"))
    result = await call("read_file", path="latin.txt")
    assert result.is_error and "not UTF-8 text" in result.text and "4 bytes" in result.text
    assert "non-UTF-8 encoding" in result.text


async def test_missing_file_suggests_close_names(ws: Path, call: Call) -> None:
    (ws / "config.py").write_text("")
    result = await call("read_file", path="confg.py")
    assert result.is_error and "No such file" in result.text and "config.py" in result.text


def test_split_lines_handles_crlf_and_final_newline() -> None:
    assert split_lines("a\r\nb\r\n") == ["a", "b"]
    assert split_lines("a\nb") == ["a", "b"]
    assert split_lines("") == []
    assert split_lines("\n") == [""]
