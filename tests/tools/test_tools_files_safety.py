"""Writes are atomic and never go through hard links; reads open regular files only; long
lines and non-UTF-8 lines are searched; the active-file re-read stays inside the workspace."""

from __future__ import annotations

import asyncio
import errno
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from agent_tui.core.activefiles import ActiveFiles
from agent_tui.tools.search_backends import NO_RG_ENV, rg_binary
from agent_tui.tools.shaping_text import ERROR_RE, error_lines

from .fakes import Call

OLD = "".join(f"line {i}\n" for i in range(1, 20001))


async def _read(call: Call, path: str) -> None:
    """Read every line, range after range (write_file overwrites only a file seen whole)."""
    start = 1
    while True:
        result = await call("read_file", path=path, start_line=start)
        assert not result.is_error, result.text
        last = result.meta["range"][1]
        if last >= result.meta["total_lines"]:
            return
        start = last + 1


async def test_hard_linked_target_is_refused_and_outside_file_unchanged(
    ws: Path, tmp_path: Path, call: Call
) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("precious\n")
    os.link(outside, ws / "linked.txt")
    await _read(call, "linked.txt")
    for tool, args in (
        ("write_file", {"content": "overwritten\n"}),
        ("edit_file", {"old_text": "precious", "new_text": "changed"}),
    ):
        result = await call(tool, path="linked.txt", **args)
        assert result.is_error and "2 hard links" in result.text, result.text
    assert outside.read_text() == "precious\n"


async def test_write_keeps_mode_and_leaves_no_temp_files(ws: Path, call: Call) -> None:
    script = ws / "run.sh"
    script.write_text("#!/bin/sh\necho old\n")
    script.chmod(0o750)
    await _read(call, "run.sh")
    result = await call("edit_file", path="run.sh", old_text="echo old", new_text="echo new")
    assert not result.is_error, result.text
    assert script.read_text() == "#!/bin/sh\necho new\n"
    assert script.stat().st_mode & 0o777 == 0o750
    assert sorted(p.name for p in ws.iterdir()) == ["run.sh"]


async def test_disk_full_midway_leaves_the_old_file_intact(
    ws: Path, call: Call, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = ws / "big.txt"
    target.write_text(OLD)
    await _read(call, "big.txt")
    real_write = os.write
    calls = {"n": 0}

    def full_disk(fd: int, data: bytes | memoryview) -> int:
        calls["n"] += 1
        if calls["n"] > 1:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(fd, bytes(data[:4096]))  # a short write, then the disk is full

    monkeypatch.setattr(os, "write", full_disk)
    new = OLD.replace("line 10531", "line 10531 changed") + "x" * 100_000
    result = await call("write_file", path="big.txt", content=new)
    monkeypatch.setattr(os, "write", real_write)
    assert result.is_error
    assert "no space left" in result.text.lower() and "old content is intact" in result.text
    assert target.read_text() == OLD
    assert sorted(p.name for p in ws.iterdir()) == ["big.txt"]


def test_file_size_limit_in_a_real_process_leaves_the_old_file_intact(ws: Path) -> None:
    """RLIMIT_FSIZE makes the kernel refuse the write midway, as a full disk does."""
    target = ws / "data.txt"
    target.write_text(OLD)
    script = textwrap.dedent(
        f"""
        import asyncio, resource, signal
        from pathlib import Path
        from agent_tui.tools.builtin import builtin_registry
        from tests.tools.fakes import FakeContext
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, ({len(OLD) + 1000}, resource.RLIM_INFINITY))
        ctx = FakeContext(workspace=Path({str(ws)!r}))
        reg = builtin_registry()
        async def main():
            ctx.note_read("data.txt", Path({str(ws)!r}, "data.txt").read_text())  # seen whole (as _read does)
            r = await reg.run("write_file", {{"path": "data.txt", "content": "y" * 1_000_000}}, ctx)
            print(r.is_error, r.text)
        asyncio.run(main())
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("True Write failed"), done.stdout
    assert "old content is intact" in done.stdout
    assert target.read_text() == OLD
    assert sorted(p.name for p in ws.iterdir()) == ["data.txt"]


def _unblock_later(fifo: Path) -> threading.Timer:
    """Open the FIFO for writing after a while, so a read that blocked ends (and fails)."""

    def write_end() -> None:
        fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK) if _has_reader(fifo) else None
        if fd is not None:
            os.close(fd)

    timer = threading.Timer(20, write_end)
    timer.daemon = True
    timer.start()
    return timer


def _has_reader(fifo: Path) -> bool:
    try:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    except OSError:  # ENXIO: nobody is reading
        return False
    return True


@pytest.mark.parametrize("kind", ["fifo", "socket", "device-link"])
async def test_read_refuses_special_files_without_blocking(ws: Path, call: Call, kind: str) -> None:
    if kind == "fifo":
        os.mkfifo(ws / "special")
        _unblock_later(ws / "special")
    elif kind == "socket":
        import socket

        sock = socket.socket(socket.AF_UNIX)
        sock.bind(str(ws / "special"))
    else:
        (ws / "special").symlink_to("/dev/zero")
    result = await asyncio.wait_for(call("read_file", path="special"), timeout=60)
    assert result.is_error
    expected = {"fifo": "FIFO", "socket": "socket", "device-link": "outside the workspace"}[kind]
    assert expected in result.text, result.text


async def test_write_over_a_fifo_is_refused(ws: Path, call: Call) -> None:
    os.mkfifo(ws / "pipe")
    _unblock_later(ws / "pipe")
    result = await asyncio.wait_for(call("write_file", path="pipe", content="x"), timeout=60)
    assert result.is_error and "FIFO" in result.text


def test_active_file_swapped_for_outside_symlink_is_dropped(ws: Path, tmp_path: Path) -> None:
    secret = tmp_path / "id_rsa"
    secret.write_text("-----BEGIN OPENSSH PRIVATE KEY----- outside secret\n")
    (ws / "notes.txt").write_text("harmless\n")
    files = ActiveFiles(ws)
    files.note("notes.txt", "harmless\n", turn=1)
    (ws / "notes.txt").unlink()
    (ws / "notes.txt").symlink_to(secret)
    changed = files.refresh()
    assert [af.path for af in changed] == ["notes.txt"]
    af = files.files["notes.txt"]
    rendered = files.render(af)
    assert "outside secret" not in af.content and "outside secret" not in rendered
    assert "content dropped" in rendered and "outside the workspace" in rendered
    assert files.refresh() == []  # reported once


def test_active_file_swapped_for_fifo_is_dropped_without_blocking(ws: Path) -> None:
    (ws / "notes.txt").write_text("harmless\n")
    files = ActiveFiles(ws)
    files.note("notes.txt", "harmless\n", turn=1)
    (ws / "notes.txt").unlink()
    os.mkfifo(ws / "notes.txt")
    _unblock_later(ws / "notes.txt")
    files.refresh()
    assert "FIFO" in files.render(files.files["notes.txt"])


@pytest.mark.parametrize(
    "backend",
    [
        pytest.param(
            "rg", marks=pytest.mark.skipif(rg_binary() is None, reason="ripgrep not installed (.ci/run installs it)")
        ),
        "python",
    ],
)
async def test_search_finds_long_and_non_utf8_lines(
    ws: Path, call: Call, monkeypatch: pytest.MonkeyPatch, backend: str
) -> None:
    if backend == "rg":
        monkeypatch.delenv(NO_RG_ENV, raising=False)
    else:
        monkeypatch.setenv(NO_RG_ENV, "1")
    (ws / "long.min.js").write_text("var a=1;" * 20_000 + "needle();" + "b" * 100_000 + "\n")
    (ws / "latin1.txt").write_bytes(b"caf\xe9 au lait: needle\n")
    (ws / "plain.txt").write_text("a needle\n")
    result = await call("search", pattern="needle")
    assert not result.is_error, result.text
    assert result.meta["backend"] == backend
    assert result.meta["total"] == 3, result.text
    for name in ("long.min.js", "latin1.txt", "plain.txt"):
        assert name in result.text
    assert len(result.text) < 3000


def test_error_pattern_still_finds_what_it_found() -> None:
    lines = [
        "src/app/main.py:12: in test_x",
        '  File "/x/y.py", line 3, in <module>',
        "ValueError: bad",
        "FAILED tests/test_a.py::test_b",
        "all good here",
        "see docs.md for details",
    ]
    assert error_lines(lines) == [0, 1, 2, 3]
    assert ERROR_RE.search("a" * 10 + ".py:3")


async def test_read_only_file_is_refused_and_left_untouched(ws: Path, call: Call) -> None:
    target = ws / "a.txt"
    target.write_text("keep me\n")
    target.chmod(0o444)
    await _read(call, "a.txt")
    for tool, args in (
        ("edit_file", {"old_text": "keep me", "new_text": "changed"}),
        ("write_file", {"content": "overwritten\n"}),
    ):
        result = await call(tool, path="a.txt", **args)
        assert result.is_error and "'a.txt' is read-only (mode 0444)" in result.text, result.text
        assert "ask the user" in result.text
    assert target.read_text() == "keep me\n"
    assert target.stat().st_mode & 0o777 == 0o444
    assert sorted(p.name for p in ws.iterdir()) == ["a.txt"]
    target.chmod(0o644)
    result = await call("edit_file", path="a.txt", old_text="keep me", new_text="changed")
    assert not result.is_error, result.text
    assert target.read_text() == "changed\n"



@pytest.mark.parametrize("how", ["in place", "by rename", "deleted"])
async def test_a_save_by_the_user_while_the_edit_is_written_is_never_overwritten(
    ws: Path, call: Call, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    """The new text is written and synced to a temp file before the rename (on a slow disk, a while):
    an editor saving the file meanwhile lost that save to the rename."""
    target = ws / "app.py"
    target.write_text("x = 1\ny = 2\n")
    await _read(call, "app.py")
    real_fsync = os.fsync
    saved = {"done": False}

    def user_saves_meanwhile(fd: int) -> None:
        if not saved["done"]:
            saved["done"] = True
            if how == "in place":
                target.write_text("x = 1\ny = 3  # the user's fix\n")
            elif how == "by rename":
                (ws / "app.py.swp").write_text("x = 1\ny = 3  # the user's fix\n")
                os.replace(ws / "app.py.swp", target)
            else:
                target.unlink()
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", user_saves_meanwhile)
    result = await call("edit_file", path="app.py", old_text="x = 1", new_text="x = 10")
    monkeypatch.setattr(os, "fsync", real_fsync)
    assert result.is_error and "nothing was overwritten" in result.text and "Read it again" in result.text
    if how == "deleted":
        assert not target.exists() and "was deleted" in result.text
    else:
        assert target.read_text() == "x = 1\ny = 3  # the user's fix\n" and "changed on disk" in result.text
    assert [p.name for p in ws.iterdir()] == ([] if how == "deleted" else ["app.py"]), "no temp file left"


async def test_a_file_created_by_the_user_while_write_file_creates_it_is_kept(
    ws: Path, call: Call, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = ws / "notes.md"
    real_fsync = os.fsync

    def user_creates_it(fd: int) -> None:
        if not target.exists():
            target.write_text("the user's notes\n")
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", user_creates_it)
    result = await call("write_file", path="notes.md", content="the agent's notes\n")
    monkeypatch.setattr(os, "fsync", real_fsync)
    assert result.is_error and "was created" in result.text
    assert target.read_text() == "the user's notes\n"


def test_a_fifo_made_at_a_new_files_name_meanwhile_is_refused_without_blocking(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check before the rename opened the target to compare it: a FIFO made there while the text
    was written (by a command still running, say) blocked that open until a writer came, holding up
    the app (the write tools run on its event loop)."""
    import threading

    from agent_tui.tools import fs_atomic
    from agent_tui.tools.workspace import WorkspaceError

    target = ws / "new.txt"
    real_fsync = os.fsync

    def fifo_made_meanwhile(fd: int) -> None:
        if not target.exists():
            os.mkfifo(target)
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fifo_made_meanwhile)
    outcome: list[BaseException | None] = []

    def write() -> None:
        try:
            fs_atomic.atomic_write(target, b"hello\n", "new.txt", expected=None)
            outcome.append(None)
        except BaseException as exc:  # noqa: BLE001  (reported below)
            outcome.append(exc)

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    thread.join(5)
    if thread.is_alive():
        with open(target, "wb"):  # (lets the blocked open go on, so the test ends)
            pass
        thread.join(5)
        pytest.fail("the check before the rename blocked on the FIFO")
    assert isinstance(outcome[0], WorkspaceError) and "was created" in str(outcome[0])
    assert target.is_fifo() and [p.name for p in ws.iterdir()] == ["new.txt"], "no temp file left"
