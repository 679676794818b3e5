"""The summary keeps, verbatim, the shell commands that may change files (``sed -i``, ``git checkout``,
``mv``/``cp``/``rm``): ``changes_files`` finds them with each alternative behind a word it needs, and
must find exactly what the one regex finds."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_tui.core.items import Category, ContextItem
from agent_tui.core.summary import _CHANGES, changes_files, file_changing_commands

PARTS = ["sed", "perl", "ruby", " -i", " -pi", "--in-place", "git ", "git\tcheckout", "checkout", "stash", "mv ",
         "cp\t", "rm ", "rmdir", "form", "; ", "&& ", "| ", "(", "\n", "\t", " ", "x", "'s/a/b/'", "file.py", "-e", "sedx"]


@settings(max_examples=600, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(PARTS), st.text(max_size=4)), max_size=14).map("".join))
def test_changes_files_finds_what_the_regex_finds(command: str) -> None:
    assert changes_files(command) == (_CHANGES.search(command) is not None)


def test_the_commands_kept_and_the_ones_left() -> None:
    def item(*commands: str) -> ContextItem:
        calls = [{"id": f"c{n}", "type": "function",
                  "function": {"name": "run_command", "arguments": json.dumps({"command": c})}}
                 for n, c in enumerate(commands)]
        return ContextItem(id="m1", category=Category.HISTORY, content="", tokens=0, role="assistant", tool_calls=calls)

    kept = file_changing_commands(item("sed -i 's/a/b/' x.py", "python -m pytest -q", "git checkout -- x.py",
                                       "cat > f.py << 'EOF'\nperformance = 'rm'\nEOF", "ls && rm -rf build"))
    assert kept == ["sed -i 's/a/b/' x.py", "git checkout -- x.py", "ls && rm -rf build"]
