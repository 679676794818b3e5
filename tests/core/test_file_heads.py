"""A released file leaves its import lines in the block: found per language, carried, controlled."""

from __future__ import annotations

from pathlib import Path

from agent_tui.core.config import Settings
from agent_tui.core.engine import ContextEngine, EngineError
from agent_tui.core.file_heads import MAX_LINES, import_head
from agent_tui.core.items import State
from agent_tui.store.store import MemoryStore
from tests.core.core_helpers import call, request_text

PY = '''#!/usr/bin/env python3
"""The module's docstring.

It says what this is.
"""
from __future__ import annotations

import os
from urllib.parse import (
    quote,
    urljoin,
)
# a comment between imports
from django import template


def main():
    import json
    return 1
'''


def test_python_head_skips_the_docstring_and_follows_parentheses() -> None:
    head = import_head("pkg/mod.py", PY)
    assert head is not None
    assert head.startswith("from __future__ import annotations")
    assert "    urljoin,\n)" in head and head.endswith("from django import template")
    assert "docstring" not in head and "def main" not in head and "import json" not in head


def test_heads_of_other_languages() -> None:
    ex = ("defmodule Web.Live do\n  use Web, :live_view\n\n  alias Spotter.Services.{\n    Registry,\n    Tmux\n  }\n"
          "  require Logger\n  @impl true\n  def mount(_, _, s), do: {:ok, s}\nend\n")
    assert import_head("lib/live.ex", ex) == ("  use Web, :live_view\n\n  alias Spotter.Services.{\n    Registry,\n"
                                              "    Tmux\n  }\n  require Logger")
    go = 'package main\n\nimport (\n\t"fmt"\n\t"os"\n)\n\nfunc main() {}\n'
    assert import_head("main.go", go) == 'import (\n\t"fmt"\n\t"os"\n)'
    ts = "// header\nimport {\n  a,\n  b,\n} from './x';\nimport y from 'y';\nconst z = require('z');\n\nexport function f() {}\n"
    assert import_head("src/a.ts", ts) == "import {\n  a,\n  b,\n} from './x';\nimport y from 'y';\nconst z = require('z');"
    c = "#pragma once\n#include <stdio.h>\n#include \"x.h\"\n\nint main(void);\n"
    assert import_head("a.h", c) == '#include <stdio.h>\n#include "x.h"'
    rs = "#![allow(dead_code)]\nuse std::io;\npub mod util;\n\nfn main() {}\n"
    assert import_head("src/main.rs", rs) == "use std::io;\npub mod util;"


def test_no_head_for_unknown_kinds_files_without_imports_or_runaway_lines() -> None:
    assert import_head("README.md", "import this\n") is None
    assert import_head("Makefile", "include x.mk\n") is None
    assert import_head("a.py", "x = 1\nimport os\n") is None  # an import after code is not the head
    assert import_head("a.py", "import " + "x" * 1000 + "\n") is None
    many = "".join(f"import m{i}\n" for i in range(200))
    head = import_head("a.py", many)
    assert head is not None and head.count("\n") + 1 == MAX_LINES
    assert import_head("a.py", "from x import (\n" + "  a,\n" * 300) is None  # never closed: not a head


def _engine(tmp_path: Path, store: MemoryStore | None = None, session: str = "local") -> ContextEngine:
    return ContextEngine(Settings.default(window=16_384), workspace=tmp_path, store=store, session_id=session)


def _read_then_idle(eng: ContextEngine, tmp_path: Path, rel: str, body: str) -> None:
    (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / rel).write_text(body, encoding="utf-8")
    eng.add_user("look at the module")
    eng.add_assistant("Reading.", [call("r1", name="read_file", path=rel)])
    eng.add_tool_result("r1", "read_file", body, provenance={"path": rel})
    eng.note_file_read(rel, body)
    for step in range(eng.settings.memory.release_reads_after_steps + 2):
        eng.add_assistant(f"Step {step}.", [call(f"s{step}", command="ls")])
        eng.add_tool_result(f"s{step}", "run_command", "ok")
        eng.assemble()
    assert rel not in eng.files.files
    eng.compact(force=True)


def test_a_released_file_leaves_its_imports_in_the_block_until_read_again(tmp_path: Path) -> None:
    eng = _engine(tmp_path)
    _read_then_idle(eng, tmp_path, "pkg/mod.py", PY)
    text = request_text(eng.assemble().messages)
    assert "from urllib.parse import (\n    quote," in text and "from django import template" in text
    assert "return 1" not in text  # only the head, not the file
    head = eng.get("h:pkg/mod.py")
    assert head.state == State.IN and "h:pkg/mod.py" in {it.id for it in eng.all_items()}
    # read again: the whole file is active, and the next block carries it once, without the head
    eng.add_assistant("Again.", [call("r2", name="read_file", path="pkg/mod.py")])
    eng.add_tool_result("r2", "read_file", PY, provenance={"path": "pkg/mod.py"})
    eng.note_file_read("pkg/mod.py", PY)
    eng.compact(force=True)
    blocks = [m["content"] for m in eng.assemble().messages if m["role"] == "system"]
    assert not any("its import lines as last read" in b for b in blocks)
    assert any("return 1" in b for b in blocks)


def test_the_user_evicts_a_head_or_pins_the_whole_file_back_and_the_task_end_drops_heads(tmp_path: Path) -> None:
    eng = _engine(tmp_path)
    _read_then_idle(eng, tmp_path, "pkg/mod.py", PY)
    gone = eng.evict("h:pkg/mod.py")
    assert gone.state == State.RELEASED
    assert "from django import template" not in request_text(eng.assemble().messages)  # the block froze again
    try:
        eng.evict("h:pkg/mod.py")
    except EngineError as exc:
        assert "not carried" in str(exc)
    else:
        raise AssertionError("evicting a head twice must say it is gone")

    _read_then_idle(eng, tmp_path, "pkg/other.py", "import os\n\nX = 1\n")
    pinned = eng.pin("h:pkg/other.py")  # pinning a head keeps the whole file
    assert pinned.id == "f:pkg/other.py" and eng.files.files["pkg/other.py"].pinned

    _read_then_idle(eng, tmp_path, "pkg/third.py", "import sys\n\nY = 2\n")
    assert eng.window.heads.items
    eng.end_task()
    assert not eng.window.heads.items


def test_a_resumed_session_carries_the_same_heads(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path / "m.db")
    eng = _engine(tmp_path, store, "s1")
    _read_then_idle(eng, tmp_path, "pkg/mod.py", PY)
    assert "from django import template" in request_text(eng.assemble().messages)
    again = _engine(tmp_path, MemoryStore(tmp_path / "m.db"), "s1")
    again.load(again.store.load_items("s1"))
    again.rebuild_block()
    assert "from django import template" in request_text(again.assemble().messages)
    assert again.get("h:pkg/mod.py").content == eng.get("h:pkg/mod.py").content


def test_evicting_an_active_file_takes_it_out_of_the_block_at_once(tmp_path: Path) -> None:
    """The block froze the file's text at the last event; the user's evict said "released" and the next
    requests still carried all of it, until a later event (a tester saw 1,119 tokens stay)."""
    eng = _engine(tmp_path)
    body = "".join(f"def func_{i}():\n    return {i}  # distinctive-{i}\n\n" for i in range(40))
    (tmp_path / "medium.py").write_text(body)
    eng.add_user("look at medium.py")
    eng.add_assistant("Reading.", [call("r1", name="read_file", path="medium.py")])
    eng.add_tool_result("r1", "read_file", body, provenance={"path": "medium.py"})
    eng.note_file_read("medium.py", body)
    eng.add_assistant("Next.", [call("s1", command="ls")])
    eng.add_tool_result("s1", "run_command", "ok")
    eng.compact(force=True)
    blocks = lambda: "\n".join(m["content"] for m in eng.assemble().messages if m["role"] == "system")  # noqa: E731
    assert "distinctive-33" in blocks(), "the block carries the active file"
    gone = eng.evict("f:medium.py")
    assert gone.state == State.RELEASED
    assert "distinctive-33" not in blocks(), "evicted: the block froze again without it"
    eng.restore("f:medium.py")
    assert "distinctive-33" in request_text(eng.assemble().messages), "restored: sent again"
