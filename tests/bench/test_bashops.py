"""Reads, writes and edits are recognised in the bash commands mini-swe-agent ran."""

from __future__ import annotations

import pytest

from agent_tui.bench.bashedits import EditOp, parse_edits, regex_literal
from agent_tui.bench.bashops import (
    ReadOp,
    WriteOp,
    grep_blocks,
    parse_copies,
    parse_grep_read,
    parse_read,
    parse_reverts,
    parse_write,
    strip_line_numbers,
)


@pytest.mark.parametrize(
    ("cmd", "expected"),
    [
        ("cat src/a.py", ReadOp("/testbed/src/a.py", 1, True, False)),
        ("cd /testbed && cat -n src/a.py", ReadOp("/testbed/src/a.py", 1, True, True)),
        ("sed -n '120,180p' pkg/mod.py", ReadOp("/testbed/pkg/mod.py", 120, False, False)),
        ("head -50 ./pkg/mod.py", ReadOp("/testbed/pkg/mod.py", 1, False, False)),
        ("head -n 50 pkg/mod.py", ReadOp("/testbed/pkg/mod.py", 1, False, False)),
        ("nl -ba pkg/mod.py | sed -n '10,20p'", ReadOp("/testbed/pkg/mod.py", 10, False, True)),
        ("cd /other && cat x.py", ReadOp("/other/x.py", 1, True, False)),
        ("cat ./pkg/mod.py | head -200", ReadOp("/testbed/pkg/mod.py", 1, False, False)),
        ("cat pkg/mod.py | sed -n '158,194p'", ReadOp("/testbed/pkg/mod.py", 158, False, False)),
        ("cat -n pkg/mod.py | head -n 40", ReadOp("/testbed/pkg/mod.py", 1, False, True)),
        ("nl -ba pkg/mod.py | head -30", ReadOp("/testbed/pkg/mod.py", 1, False, True)),
    ],
)
def test_reads(cmd: str, expected: ReadOp) -> None:
    assert parse_read(cmd, "/testbed") == expected


@pytest.mark.parametrize(
    "cmd",
    ["cat a.py b.py", "cat a.py | grep x", "cat a.py | head -5 | grep x", "cat a.py | tail -5",
     "head -c 100 a.py", "head -n x a.py", "cat *.py", "grep -n foo a.py", "cat a.py && cat b.py", "ls src",
     "cat patch", "cat > a.py << 'EOF'\nx\nEOF"],
)
def test_not_reads(cmd: str) -> None:
    assert parse_read(cmd, "/testbed") is None


def test_heredoc_writes() -> None:
    body = "def f():\n    return 1\n"
    assert parse_write(f"cat > src/a.py << 'EOF'\n{body}EOF", "/t") == WriteOp("/t/src/a.py", body)
    assert parse_write(f"cat <<EOF > b.py\n{body}EOF\n", "/t") == WriteOp("/t/b.py", body)
    assert parse_write("cat a.py", "/t") is None


def test_sed_substitution_edits() -> None:
    cmd = "cd /testbed && sed -i 's/if not isinstance(data, collections.Mapping):/if not isinstance(data, Mapping):/' m.py"
    assert parse_edits(cmd, "/") == [
        EditOp("/testbed/m.py", "if not isinstance(data, collections.Mapping):", "if not isinstance(data, Mapping):", True)
    ]
    (op,) = parse_edits(r"sed -i 's/np\.Inf/np.inf/g' pvlib/x.py", "/t")
    assert (op.old, op.new, op.literal) == ("np.Inf", "np.inf", True)
    (op,) = parse_edits("sed -i 's|a/b/c|d|' f.py", "/t")
    assert op.old == "a/b/c"
    assert parse_edits("sed -i '863,866d' f.py", "/t") == []


def test_python_replace_scripts() -> None:
    script = (
        "cat > fix.py << 'EOF'\n"
        "with open('src/s.py') as f:\n    c = f.read()\n"
        "old = '''    def run(self):\n        return 1\n'''\n"
        "c = c.replace(old, 'new')\n"
        "c = c.replace(\"x = 1\", \"x = 2\")\n"
        "EOF"
    )
    ops = parse_edits(script, "/t")
    assert [(o.path, o.old) for o in ops] == [
        ("/t/src/s.py", "    def run(self):\n        return 1\n"),
        ("/t/src/s.py", "x = 1"),
    ]
    inline = "python -c \"s=open('a.py').read(); open('a.py','w').write(s.replace('foo_bar', 'baz'))\""
    assert [(o.path, o.old) for o in parse_edits(inline, "/t")] == [("/t/a.py", "foo_bar")]
    regex = "python - <<'EOF'\nimport re\nopen('m.py')\nre.sub(r'(def _invoke\\(self, data\\):)', r'x', s)\nEOF"
    (op,) = parse_edits(regex, "/t")
    assert (op.old, op.literal) == ("def _invoke(self, data):", True)
    assert parse_edits("python - <<'EOF'\nthis is not python(\nEOF", "/t") == []


@pytest.mark.parametrize(
    ("pattern", "sed", "expected"),
    [
        ("hello world", True, ("hello world", True)),
        (r"foo\(bar\)", True, ("foobar", True)),
        ("foo(bar)", True, ("foo(bar)", True)),
        (r"foo\(bar\)", False, ("foo(bar)", True)),
        (r"(def f\(x\):)", False, ("def f(x):", True)),
        (r"timeout\s*=\s*30, retries", False, ("30, retries", False)),
        ("abc.*defghi", False, ("defghi", False)),
        ("x[0-9]+yyyy", False, ("yyyy", False)),
        ("^start$", True, ("start", True)),
        ("ab{2}cdef", False, ("cdef", False)),
    ],
)
def test_regex_literal(pattern: str, sed: bool, expected: tuple[str, bool]) -> None:
    assert regex_literal(pattern, sed=sed) == expected


def test_strip_line_numbers() -> None:
    assert strip_line_numbers("     1\tdef f():\n    12\t    pass") == "def f():\n    pass"


@pytest.mark.parametrize(
    ("cmd", "expected"),
    [
        ("git checkout pvlib/pvsystem.py  # Revert to original", ["/testbed/pvlib/pvsystem.py"]),
        ("git checkout -- a.py b/c.py", ["/testbed/a.py", "/testbed/b/c.py"]),
        ("cd /testbed && git checkout HEAD -- src/m.py 2>&1", ["/testbed/src/m.py"]),
        ("git checkout src/a.py 2>/dev/null || true", ["/testbed/src/a.py"]),
        ("git restore x.py", ["/testbed/x.py"]),
        ("git checkout v2.9.0 -- src/m.py", []),  # another revision: not the text the agent read
        ("git checkout -b topic", []),
        ("git checkout main", []),
    ],
)
def test_git_checkout_of_files_is_a_revert(cmd: str, expected: list[str]) -> None:
    assert parse_reverts(cmd, "/testbed") == expected


@pytest.mark.parametrize(
    ("cmd", "expected"),
    [
        ("cp ./pvlib/irradiance.py ./pvlib/irradiance.py.backup",
         [("/testbed/pvlib/irradiance.py", "/testbed/pvlib/irradiance.py.backup")]),
        ("cp ./pvlib/irradiance.py.backup ./pvlib/irradiance.py",
         [("/testbed/pvlib/irradiance.py.backup", "/testbed/pvlib/irradiance.py")]),
        ("cd src && cp -f a.py.bak a.py && python -m pytest", [("/testbed/src/a.py.bak", "/testbed/src/a.py")]),
        ("mv a.py.orig a.py 2>/dev/null", [("/testbed/a.py.orig", "/testbed/a.py")]),
        ("cp -r pkg pkg_copy", []),  # a tree, not one file
        ("cp a.py b.py /tmp/", []),  # several sources into a directory
        ("cp a.py /tmp/", []),
        ("cp *.py /tmp/x", []),
    ],
)
def test_cp_and_mv_of_one_file_onto_another(cmd: str, expected: list[tuple[str, str]]) -> None:
    assert parse_copies(cmd, "/testbed") == expected


@pytest.mark.parametrize(
    ("cmd", "expected"),
    [
        ('grep -n -B5 -A5 "def run" pkg/mod.py', "/testbed/pkg/mod.py"),
        ("grep -nA3 foo ./pkg/mod.py", "/testbed/pkg/mod.py"),
        ("cd /testbed && grep --line-number -C 2 foo pkg/mod.py", "/testbed/pkg/mod.py"),
        ("grep -n foo a.py b.py", None),  # several files: each line is prefixed with its file
        ("grep -rn foo .", None),
        ("grep -n foo a.py | head", None),
        ("grep foo a.py", None),  # no line numbers: the lines cannot be placed
        ("grep -c foo a.py", None),
        ("grep -on foo a.py", None),  # only the matching parts, not the lines
    ],
)
def test_one_file_grep_with_line_numbers_is_a_read_of_its_lines(cmd: str, expected: str | None) -> None:
    """What read_file(query=…) shows the product's model: the matching lines of one file, numbered."""
    assert parse_grep_read(cmd, "/testbed") == expected


def test_grep_output_becomes_runs_of_lines() -> None:
    out = "3-    a = 1\n4:    run()\n5-    b = 2\n--\n10-def x():\n11:    run()\n"
    assert grep_blocks(out) == [(3, "    a = 1\n    run()\n    b = 2"), (10, "def x():\n    run()")]


@pytest.mark.parametrize(("cmd", "want"), [
    ("sed -i -e 's/value_1_7/value_1_7b/' -e 's/foobar/barfoo/' pkg/mod_1.py",
     [("/testbed/pkg/mod_1.py", "value_1_7", "value_1_7b"), ("/testbed/pkg/mod_1.py", "foobar", "barfoo")]),
    ("sed -i '12s/old_name(/new_name(/' f.py", [("/testbed/f.py", "old_name(", "new_name(")]),
    ("sed -i '/def x/s/return None/return 0/' f.py", [("/testbed/f.py", "return None", "return 0")]),
    ("sed -i 's/first_one/1/; s/second_one/2/' a.py",
     [("/testbed/a.py", "first_one", "1"), ("/testbed/a.py", "second_one", "2")]),
    ("sed --in-place=.orig --expression='s/abcdef/x/' a.py", [("/testbed/a.py", "abcdef", "x")]),
    ("sed -n 's/abcdef/x/p' a.py", []),
    ("sed -i 's/return a;/return b;/' f.py", [("/testbed/f.py", "return a;", "return b;")]),
    ("sed -i 's/foo_bar/x;y/' f.py", [("/testbed/f.py", "foo_bar", "x;y")]),
    ("sed -i '1d;s/abcdefg/x/' y.py", [("/testbed/y.py", "abcdefg", "x")]),
    ("sed -i -e's/fixme_x/fixed_x/' a.py", [("/testbed/a.py", "fixme_x", "fixed_x")]),
    ("sed -i '' 's/abcdef/x/' b.py", [("/testbed/b.py", "abcdef", "x")]),
    ("python3 - <<'EOF'\np = 'pkg/mod.py'\ns = open(p).read()\nopen(p, 'w').write(s.replace('old_value_x', 'new_x'))\nEOF",
     [("/testbed/pkg/mod.py", "old_value_x", "new_x")]),
    ("python3 - <<'EOF'\nfrom pathlib import Path\nf = Path('pkg/m2.py')\nf.write_text(f.read_text().replace('alpha_b', 'g'))\nEOF",
     [("/testbed/pkg/m2.py", "alpha_b", "g")]),
])
def test_sed_options_and_scripts_that_name_their_file_once_are_edits(cmd: str, want: list[tuple[str, str, str]]) -> None:
    """A bench review: `sed -i -e A -e B f` read B as the file (`/testbed/s/foo/bar`), an address before `s` and
    a second command were missed, and a python script that opened its file through a name was no edit: the file's
    view stayed stale for the rest of the session."""
    assert [(o.path, o.old, o.new) for o in parse_edits(cmd, "/testbed")] == want
