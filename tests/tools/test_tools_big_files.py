"""Files too large to read whole: refused without reading them (sparse, growing, an active file grown huge),
yet a range of one is read, within bounds of bytes and time, and masked as a whole read would be."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent_tui.core.activefiles import ActiveFiles

from .fakes import Call


class _CountingRead:
    """os.read that counts the bytes it returns from the file ``path``."""

    def __init__(self, path: Path) -> None:
        self.bytes = 0
        self.inode = path.stat().st_ino
        self.real = os.read
        self.real_fstat = os.fstat

    def __call__(self, fd: int, n: int) -> bytes:
        data = self.real(fd, n)
        if self.real_fstat(fd).st_ino == self.inode:
            self.bytes += len(data)
        return data


async def test_huge_sparse_file_is_refused_without_reading_it(
    ws: Path, call: Call, monkeypatch: pytest.MonkeyPatch
) -> None:
    huge = ws / "huge.log"
    huge.write_bytes(b"")
    os.truncate(huge, 2 * 1024**3)  # sparse: no disk used
    counter = _CountingRead(huge)
    monkeypatch.setattr(os, "read", counter)
    for tool, args in (("read_file", {}), ("edit_file", {"old_text": "a", "new_text": "b"})):
        result = await call(tool, path="huge.log", **args)
        assert result.is_error, result.text
        assert "'huge.log' is too large to read whole (2,147,483,648 bytes" in result.text
    assert counter.bytes == 0
    assert huge.stat().st_size == 2 * 1024**3


def test_file_growing_past_the_limit_while_read_stops_at_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent_tui.core.safe_files import FileTooLargeError, read_regular

    path = tmp_path / "grows.log"
    path.write_bytes(b"x" * 10)
    assert read_regular(path, "grows.log", limit=10) == b"x" * 10
    os.truncate(path, 2 * 1024**3)
    real_fstat = os.fstat

    def fstat_before_growth(fd: int) -> os.stat_result:
        st = real_fstat(fd)
        return os.stat_result((st.st_mode, st.st_ino, st.st_dev, st.st_nlink, st.st_uid, st.st_gid, 10,
                               st.st_atime, st.st_mtime, st.st_ctime))

    counter = _CountingRead(path)
    monkeypatch.setattr(os, "fstat", fstat_before_growth)
    monkeypatch.setattr(os, "read", counter)
    with pytest.raises(FileTooLargeError, match="too large to read whole"):
        read_regular(path, "grows.log", limit=3 * 1024**2)
    assert counter.bytes == 3 * 1024**2 + 1


def test_active_file_grown_huge_is_dropped_without_reading_it(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (ws / "notes.txt").write_text("harmless\n")
    files = ActiveFiles(ws)
    files.note("notes.txt", "harmless\n", turn=1)
    os.truncate(ws / "notes.txt", 64 * 1024**2)  # over the limit; sparse
    counter = _CountingRead(ws / "notes.txt")
    monkeypatch.setattr(os, "read", counter)
    assert [af.path for af in files.refresh()] == ["notes.txt"]
    assert "content dropped" in files.render(files.files["notes.txt"])
    assert "too large to read whole" in files.render(files.files["notes.txt"])
    assert counter.bytes == 0


async def test_a_range_of_a_file_too_large_to_read_whole_is_read(ws: Path, call: Call) -> None:
    """A 6 MB log: the model asks for lines, not the whole file; the refusal sent it to a command that
    needs an approval each time."""
    key = "-----BEGIN OPENSSH PRIVATE KEY-----\n" + "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n" * 10 + \
          "-----END OPENSSH PRIVATE KEY-----\n"
    body = "".join(f"line {n} " + "x" * 60 + "\n" for n in range(1, 100_001))
    (ws / "big.log").write_text(key + body + "last line without newline")
    size = (ws / "big.log").stat().st_size
    assert size > 5_000_000
    result = await call("read_file", path="big.log", start_line=50_000, end_line=50_004)
    assert not result.is_error, result.text
    assert f"(lines 50000-50004; {size:,} bytes, too large to read whole)" in result.text
    assert "50000| line 49988 " in result.text and "50004| line 49992 " in result.text
    assert "50005|" not in result.text and "continue" not in result.text
    inside_key = await call("read_file", path="big.log", start_line=5, end_line=8)
    assert "b3BlbnNzaC1rZXkt" not in inside_key.text, "a key that starts above the range is still masked"
    tail = await call("read_file", path="big.log", start_line=100_010, end_line=100_020)
    assert "100013| last line without newline" in tail.text and "[end of file at line 100013]" in tail.text
    past = await call("read_file", path="big.log", start_line=200_000)
    assert past.is_error and "past the end of big.log (100,013 lines)" in past.text
    open_ended = await call("read_file", path="big.log", start_line=10)
    assert "[continue with start_line=" in open_ended.text and not open_ended.is_error
    whole = await call("read_file", path="big.log")
    assert whole.is_error and "Read a part of it with start_line/end_line" in whole.text


async def test_a_range_of_a_huge_file_reads_only_up_to_the_range(
    ws: Path, call: Call, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sparse 2 GB file of zero bytes is one line longer than any line cap: the read stops at the scan
    bound instead of reading (or holding) 2 GB."""
    huge = ws / "huge.bin"
    huge.write_bytes(b"head\n")
    os.truncate(huge, 2 * 1024**3)
    first = await call("read_file", path="huge.bin", start_line=1, end_line=1)
    assert not first.is_error and "1| head" in first.text
    deep = await call("read_file", path="huge.bin", start_line=3, end_line=3)
    assert deep.is_error and "MB into the file" in deep.text


async def test_a_token_straddling_a_long_lines_cut_is_masked_whole(ws: Path, call: Call) -> None:
    """A long line is cut for the model; the cut came before the redaction, so a token across it lost its
    tail, no longer matched its pattern, and its first part went out."""
    from agent_tui.tools.fs_read_big import MAX_LINE_BYTES

    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    (ws / "long.txt").write_text("x" * 6_000_000 + "\n" + "x" * (MAX_LINE_BYTES - 20) + token + "tail\n"
                                 + "token " + token + "\n" + "bin\0ary\n")
    result = await call("read_file", path="long.txt", start_line=1, end_line=3)
    assert not result.is_error, result.text
    assert "ghp_A1b2" not in result.text and "A1b2C3d4" not in result.text
    assert result.text.count("[line cut]") == 2 and "token [REDACTED:" in result.text
    binary = await call("read_file", path="long.txt", start_line=4, end_line=4)
    assert binary.is_error and "looks binary" in binary.text


async def test_a_range_of_many_long_lines_gathers_only_what_it_can_show(ws: Path, call: Call,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """100 lines of 60 KB: the range gathered all 2,200 lines it might show, 140 MB redacted, 25 s of CPU,
    to show one line.  What is gathered is bounded by bytes."""
    from agent_tui.core import redact_whole

    (ws / "wide.log").write_text(("w" * 60_000 + "\n") * 100)
    seen: list[int] = []
    real = redact_whole.redact_keeping_lines

    def counting(text: str) -> str:
        seen.append(len(text))
        return real(text)

    monkeypatch.setattr("agent_tui.tools.fs_read_big.redact_keeping_lines", counting)
    result = await call("read_file", path="wide.log", start_line=1)
    assert not result.is_error and "[continue with start_line=" in result.text
    assert seen and max(seen) < 400_000, seen
