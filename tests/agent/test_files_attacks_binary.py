"""Issue 9 items 6–8 through the real `agent-tui run` binary (the tool-level tests are in tests/tools):
a FIFO, a hard link to an outside file, a megabyte one-line file and lines rg skips by default."""

from __future__ import annotations

import json
import os
import random
import string
import subprocess
import sys
from pathlib import Path

from tests.agent.helpers import make_repo
from tests.support.fake_openai import Reply

BIN = str(Path(sys.executable).with_name("agent-tui"))


def test_fifo_hard_link_huge_line_and_rg_blind_spots(tmp_path: Path, fake_llm) -> None:
    root = make_repo(tmp_path / "proj")
    os.mkfifo(root / "pipe.txt")
    outside = tmp_path / "outside.txt"
    outside.write_text("outside original\n")
    os.link(outside, root / "linked.txt")
    rnd = random.Random(7)
    (root / "minified.js").write_text("".join(rnd.choice(string.ascii_lowercase + "./") for _ in range(1_000_000))
                                      + "NEEDLE_LONG\n")
    (root / "latin1.txt").write_bytes("caf\xe9 NEEDLE_LATIN\n".encode("latin-1"))
    fake_llm.script(
        Reply.tool_call("read_file", {"path": "pipe.txt"}),
        Reply.tool_call("read_file", {"path": "minified.js", "start_line": 1, "end_line": 1}),
        Reply.tool_call("read_file", {"path": "linked.txt"}),
        Reply.tool_call("write_file", {"path": "linked.txt", "content": "pwned\n"}),
        Reply.tool_call("edit_file", {"path": "linked.txt", "old_text": "outside original", "new_text": "pwned"}),
        Reply.tool_call("search", {"pattern": "NEEDLE_"}),
        Reply.tool_call("run_command", {"command": "python3 -c \"print('x/' * 100000)\""}),
        Reply.text("done"),
    )
    proc = subprocess.run([BIN, "run", "go", "--model", "openai/gpt-4o", "--api-base", fake_llm.base_url, "--json",
                           "--yes", "--workspace", str(root)], capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, OPENAI_API_KEY="sk-test-0123456789"), stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr[-3000:]
    done = [json.loads(line) for line in proc.stdout.splitlines() if '"tool_finished"' in line]
    assert len(done) == 7, [d["text"][:200] for d in done]
    fifo, huge, _read, write, edit, search, output = done
    assert fifo["is_error"] and "only regular files" in fifo["text"], fifo["text"]
    assert not huge["is_error"] and "1|" in huge["text"], huge["text"][:300]
    assert write["is_error"] and edit["is_error"], (write["text"], edit["text"])
    assert "hard link" in write["text"] and "hard link" in edit["text"]
    assert outside.read_text() == "outside original\n" and (root / "linked.txt").read_text() == "outside original\n"
    assert "NEEDLE_LONG" in search["text"] or "minified.js" in search["text"], search["text"]
    assert "latin1.txt" in search["text"] and "minified.js" in search["text"], search["text"]
    assert not output["is_error"] and "exit code 0" in output["text"], output["text"][:300]


def test_agents_md_linked_outside_the_project_is_never_sent(tmp_path: Path, fake_llm) -> None:
    """An AGENTS.md is pinned into every request: a repository's AGENTS.md linking to ~/.ssh/… or
    ~/.aws/credentials would send that file past the workspace guard the file tools keep."""
    root = make_repo(tmp_path / "proj")
    private = tmp_path / "outside-private.txt"
    private.write_text("OUTSIDE-PRIVATE-CONTENT-4242\n")
    (root / "AGENTS.md").symlink_to(private)
    (root / "docs").mkdir()
    (root / "docs" / "RULES.md").write_text("Use pnpm, never npm.\n")
    for sub, target in (("bad", private), ("good", root / "docs" / "RULES.md")):  # a link inside is fine
        (root / sub).mkdir()
        (root / sub / "AGENTS.md").symlink_to(target)
        (root / sub / "x.py").write_text("x = 1\n")
    fake_llm.script(Reply.tool_call("read_file", {"path": "bad/x.py"}), Reply.tool_call("read_file", {"path": "good/x.py"}),
                    Reply.text("done"))
    proc = subprocess.run([BIN, "run", "go", "--model", "openai/gpt-4o", "--api-base", fake_llm.base_url, "--json",
                           "--workspace", str(root)], capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, OPENAI_API_KEY="sk-test-0123456789"), stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr[-3000:]
    bodies = [r.raw.decode("utf-8", "replace") for r in fake_llm.requests]
    assert len(bodies) >= 2 and not any("OUTSIDE-PRIVATE-CONTENT-4242" in b for b in bodies)
    assert "Use pnpm, never npm." in bodies[-1], "a link inside the project still loads"
