"""list_dir and search: noise skipped, .gitignore honoured, grouped output with totals."""

from __future__ import annotations

import shutil
from pathlib import Path

import git
import pytest

from agent_tui.tools import fs_list
from agent_tui.tools.search_backends import NO_RG_ENV, parse_rg_lines, search_python

from .fakes import Call

needs_rg = pytest.mark.skipif(shutil.which("rg") is None, reason="ripgrep not installed")


def make_project(root: Path, with_git: bool) -> None:
    """A small project with noise folders and ignored files."""
    if with_git:
        git.Repo.init(root)
    (root / ".gitignore").write_text("build/\n*.log\n!keep.log\n")
    for rel, text in {
        "src/app.py": "import os\n\ndef handler():\n    return 'needle'\n",
        "src/util/helpers.py": "NEEDLE = 1\n# needle in a comment\n",
        "tests/test_app.py": "def test_needle():\n    assert True\n",
        "README.md": "A needle in the readme\n",
        "build/out.py": "needle = 'built'\n",
        "debug.log": "needle in a log\n",
        "keep.log": "kept needle\n",
        "node_modules/pkg/index.js": "needle\n",
        ".venv/lib/x.py": "needle\n",
        "src/__pycache__/app.cpython.pyc": "needle\n",
    }.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    if with_git:
        (root / ".git" / "needle.txt").write_text("needle\n")


@pytest.mark.parametrize("with_git", [True, False], ids=["git", "no-git"])
async def test_list_dir_skips_noise_and_ignored(ws: Path, call: Call, with_git: bool) -> None:
    make_project(ws, with_git)
    result = await call("list_dir")
    text = result.text
    assert not result.is_error
    for absent in (".git/", "node_modules", ".venv", "__pycache__", "build/", "debug.log"):
        assert f"\n  {absent}" not in text and f"  {absent}" not in text.split("[not shown")[0]
    assert "  src/  (1 dirs, 1 files)" in text
    assert "    util/  (0 dirs, 1 files)" in text  # depth 2: shown with counts, not expanded
    assert "helpers.py" not in text
    assert "    app.py" in text and "  keep.log" in text and "  README.md" in text
    assert "node_modules/" in result.meta["hidden"] and "build/" in result.meta["hidden"]
    assert "debug.log" in result.meta["hidden"]


async def test_list_dir_depth_and_cap(
    ws: Path, call: Call, monkeypatch: pytest.MonkeyPatch
) -> None:
    for i in range(30):
        (ws / f"f{i:02}.txt").write_text("x")
    (ws / "a" / "b" / "c").mkdir(parents=True)
    (ws / "a" / "b" / "c" / "deep.txt").write_text("x")
    deep = await call("list_dir", depth=3)
    assert "      c/  (0 dirs, 1 files)" in deep.text and "deep.txt" not in deep.text
    monkeypatch.setattr(fs_list, "MAX_ENTRIES", 10)
    capped = await call("list_dir", depth=1)
    assert "… 21 more entries omitted" in capped.text
    assert capped.meta["omitted"] == 21


async def test_list_dir_on_file_and_missing(ws: Path, call: Call) -> None:
    (ws / "f.txt").write_text("x")
    assert "is a file" in (await call("list_dir", path="f.txt")).text
    assert "No such file" in (await call("list_dir", path="nope")).text


@pytest.mark.parametrize("with_git", [True, False], ids=["git", "no-git"])
async def test_search_python_fallback_grouped_with_total(
    ws: Path, call: Call, monkeypatch: pytest.MonkeyPatch, with_git: bool
) -> None:
    monkeypatch.setenv(NO_RG_ENV, "1")
    make_project(ws, with_git)
    result = await call("search", pattern="needle")
    assert result.meta["backend"] == "python"
    text = result.text
    assert text.startswith("6 matches in 5 files for 'needle' in .:")
    assert (
        "./ (2)\n  README.md\n    1: A needle in the readme\n  keep.log\n    1: kept needle" in text
    )
    assert "src/ (1)\n  app.py\n    4: return 'needle'" in text
    assert "src/util/ (2)\n  helpers.py\n    1: NEEDLE = 1\n    2: # needle in a comment" in text
    for noise in ("built", "in a log", "index.js", "node_modules", ".venv", "pycache"):
        assert noise not in text
    assert result.handle is None


async def test_search_truncation_stores_full_list(
    ws: Path, call: Call, ctx: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(NO_RG_ENV, "1")
    (ws / "many.txt").write_text("".join(f"hit {i}\n" for i in range(30)))
    result = await call("search", pattern="hit", max_results=5)
    assert result.text.startswith("30 matches in 1 file ")
    assert "(showing the first 5)" in result.text
    assert "25 more matches not shown" in result.text and result.handle
    stored = ctx.results.get(result.handle)  # type: ignore[attr-defined]
    assert stored is not None and stored.splitlines()[29] == "many.txt:30: hit 29"


async def test_search_options(ws: Path, call: Call, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(NO_RG_ENV, "1")
    make_project(ws, with_git=False)
    smart = await call("search", pattern="NEEDLE")  # capitals: case-sensitive
    assert smart.meta["total"] == 1
    globbed = await call("search", pattern="needle", glob="*.py")
    assert "README" not in globbed.text and globbed.meta["total"] == 4
    regex = await call("search", pattern=r"def \w+\(\)", regex=True)
    assert regex.meta["total"] == 2
    bad = await call("search", pattern="(", regex=True)
    assert bad.is_error and "Invalid regular expression" in bad.text
    literal = await call("search", pattern="(")
    assert not literal.is_error and literal.meta["total"] == 2
    none = await call("search", pattern="zzz-absent")
    assert "No matches for 'zzz-absent'" in none.text


def test_python_backend_skips_binary(ws: Path) -> None:
    (ws / "blob.bin").write_bytes(b"needle\x00\x01")
    (ws / "t.txt").write_text("needle\n")
    hits = search_python(ws, ws, "needle", None, False)
    assert [h.path for h in hits] == ["t.txt"]


def test_parse_rg_lines_reads_hits(ws: Path) -> None:
    lines = [
        str(ws / "a.py").encode() + b"\x003:x = needle\n",
        str(ws / "b.txt").encode() + b"\x0012:caf\xe9 needle\r\n",
        str(ws / "c.bin").encode() + b"\x00binary file matches (found NUL)\n",
        b"../outside.py\x001:needle\n",
    ]
    hits = parse_rg_lines(lines, ws.resolve(), ws.resolve())
    assert [(h.path, h.line, h.text) for h in hits] == [
        ("a.py", 3, "x = needle"),
        ("b.txt", 12, "caf\ufffd needle"),
    ]


@needs_rg
@pytest.mark.parametrize("with_git", [True, False], ids=["git", "no-git"])
async def test_search_ripgrep_matches_fallback(
    ws: Path, call: Call, monkeypatch: pytest.MonkeyPatch, with_git: bool
) -> None:
    make_project(ws, with_git)
    monkeypatch.delenv(NO_RG_ENV, raising=False)
    with_rg = await call("search", pattern="needle")
    assert with_rg.meta["backend"] == "rg"
    monkeypatch.setenv(NO_RG_ENV, "1")
    fallback = await call("search", pattern="needle")
    assert with_rg.text == fallback.text


def test_fallback_runs_a_backtracking_pattern_in_linear_time(ws: Path) -> None:
    """`(a+)+$` against a long line of a's ending in b: Python's backtracking `re` takes exponential
    time (minutes at 40 characters), which held up the tool; RE2 answers at once, and correctly."""
    (ws / "trap.txt").write_text("a" * 40 + "b\n" + "aaa\n")
    hits = search_python(ws, ws, r"(a+)+$", None, True)
    assert [(h.line, h.text) for h in hits] == [(2, "aaa")]


def test_fallback_numbers_lines_as_a_line_by_line_search_does(ws: Path) -> None:
    text = "héllo world\r\nsecond\n\nworld again world\nlast world"
    (ws / "t.txt").write_text(text, newline="")
    lines = text.split("\n")
    for pattern in ["world", "^$", "^", r"d\s*$", r"o\s+w", "W", r"\s+s"]:
        expected = [(n, line.rstrip("\r")) for n, line in enumerate(lines, 1)
                    if __import__("re").search(pattern, line, 0 if any(c.isupper() for c in pattern) else 2)]
        got = [(h.line, h.text) for h in search_python(ws, ws, pattern, None, True)]
        assert got == expected, pattern  # a match never spans two lines: `\s+s` finds no "\nsecond"


async def test_fallback_refuses_what_ripgrep_refuses_with_the_same_message(
    ws: Path, call: Call, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Look-around and backreferences are not ripgrep's syntax: the fallback said nothing and searched
    with them, ripgrep found nothing (its error was not shown). Both paths now say why."""
    (ws / "t.txt").write_text("foo bar\n")
    for backend in ("1", ""):
        if backend:
            monkeypatch.setenv(NO_RG_ENV, backend)
        else:
            monkeypatch.delenv(NO_RG_ENV, raising=False)
        for pattern in (r"(?<=foo )bar", r"(o)\1"):
            result = await call("search", pattern=pattern, regex=True)
            assert result.is_error and "ripgrep's: no look-around or backreferences" in result.text, result.text


@pytest.mark.parametrize("backend", ["", "1"])
async def test_a_glob_or_a_path_never_reaches_the_agents_folder_or_gits(
        ws: Path, call: Call, monkeypatch: pytest.MonkeyPatch, backend: str) -> None:
    """In ripgrep the later --glob wins: the model's '*' re-included .agent-tui/ (the store's logs) and
    node_modules; a path inside .agent-tui/ or .git/ was searched as given."""
    make_project(ws, with_git=True)
    (ws / ".agent-tui" / "logs").mkdir(parents=True)
    (ws / ".agent-tui" / "logs" / "srv.log").write_text("needle from the agent's log\n")
    if backend:
        monkeypatch.setenv(NO_RG_ENV, backend)
    else:
        monkeypatch.delenv(NO_RG_ENV, raising=False)
    for glob in ("*", "**", "*.log"):
        found = await call("search", pattern="needle", glob=glob)
        assert ".agent-tui" not in found.text and "node_modules" not in found.text and ".git/" not in found.text, \
            (glob, found.text)
    for path in (".agent-tui", ".agent-tui/logs", ".git", "./.git/"):
        refused = await call("search", pattern="needle", path=path)
        assert refused.is_error and "search never looks into" in refused.text, (path, refused.text)


async def test_a_shipped_gitignore_that_is_a_link_or_huge_is_not_read(ws: Path, call: Call) -> None:
    """A seventh audit: outside a git repository the root .gitignore was read whole, following links: a link to
    ``/proc/self/pagemap`` failed every list_dir, a sparse 2 GiB file ran it out of memory.  Such a file is not
    applied (a listing shows more, never fails), and a sane one still is."""
    (ws / "src").mkdir()
    (ws / "src" / "app.py").write_text("x = 1\n")
    (ws / "debug.log").write_text("log\n")
    (ws / ".gitignore").symlink_to("/proc/self/pagemap")
    result = await call("list_dir")
    assert not result.is_error and "app.py" in result.text, result.text
    (ws / ".gitignore").unlink()
    with open(ws / ".gitignore", "wb") as f:
        f.truncate(2 << 30)  # sparse: no disk used, 2 GiB to read
    result = await call("list_dir")
    assert not result.is_error and "app.py" in result.text and "debug.log" in result.text, result.text
    (ws / ".gitignore").unlink()
    (ws / ".gitignore").write_text("*.log\n")
    result = await call("list_dir")
    assert "app.py" in result.text and "debug.log" in result.meta["hidden"], result.text
