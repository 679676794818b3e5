"""Active files: protected past the history cap, re-read when changed on disk, released when idle."""

from __future__ import annotations

import os
from pathlib import Path

from agent_tui.core.config import Settings
from agent_tui.core.engine import ContextEngine
from agent_tui.core.hashing import content_hash
from agent_tui.core.items import State
from agent_tui.core.pairing import check_pairing
from tests.core.core_helpers import call, filler, request_text


def make(tmp_path: Path, window: int = 16_384) -> ContextEngine:
    return ContextEngine(Settings.default(window=window), workspace=tmp_path)


def write(root: Path, rel: str, text: str, mtime: float | None = None) -> str:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")
    if mtime is not None:
        os.utime(p, (mtime, mtime))
    return text


def test_active_file_is_protected_past_the_history_cap(tmp_path: Path) -> None:
    eng = make(tmp_path, window=8_192)
    body = write(tmp_path, "src/app.py", "def main():\n    return 42\n" * 40)
    eng.add_user("Refactor src/app.py")
    eng.add_assistant("Reading it.", [call("r1", name="read_file", path="src/app.py")])
    eng.add_tool_result("r1", "read_file", body, provenance={"path": "src/app.py"})
    eng.note_file_read("src/app.py", body)
    eng.note_file_edit("src/app.py", body)  # edited in this task: kept however many steps pass
    # Many steps of big outputs in the same task: history overflows and is compacted...
    for step in range(30):
        eng.add_assistant(f"Step {step}.", [call(f"s{step}", command="pytest")])
        eng.add_tool_result(f"s{step}", "run_command", filler(f"out{step}", 400), scope="session")
        asm = eng.assemble()
        # ...but the file's latest content is always there (a file note, then the compaction block).
        assert body in request_text(asm.messages)
        assert any(t.item_id == "f:src/app.py" and t.included and "active file" in t.reason for t in asm.trace)
        assert check_pairing(asm.messages) == []
    assert any(c.ok for c in eng.compactions)
    assert eng.items["t1"].state == State.SUMMARISED  # the read's output left, the file stayed
    # Compaction never drops it; the user can release it by hand (evict), and the trace says so.
    released = eng.evict("f:src/app.py")
    assert released.state == State.RELEASED
    asm = eng.assemble()
    assert body not in asm.messages[0]["content"]
    assert any(t.item_id == "f:src/app.py" and not t.included and "released by the user" in t.reason
               for t in asm.trace)


def test_latest_content_wins_after_an_edit(tmp_path: Path) -> None:
    eng = make(tmp_path)
    eng.add_user("Edit it")
    eng.note_file_read("a.py", "x = 1\n")
    eng.note_file_edit("a.py", "x = 2\n")
    text = request_text(eng.assemble().messages)
    assert "x = 2" in text and "x = 1" not in text
    assert eng.last_seen_hash("a.py") == content_hash("x = 2\n")


def test_file_changed_on_disk_is_reread_and_flagged(tmp_path: Path) -> None:
    eng = make(tmp_path)
    old = write(tmp_path, "lib.py", "VERSION = 1\n", mtime=1_000_000)
    eng.add_user("Bump the version")
    eng.note_file_read("lib.py", old)
    assert "VERSION = 1" in request_text(eng.assemble().messages)
    new = write(tmp_path, "lib.py", "VERSION = 2  # changed by someone else\n", mtime=1_000_050)
    asm = eng.assemble()
    # the old copy stays where it was sent (append-only); a file note after it carries the new text
    notes = [eng.items[i] for i in eng.order if eng.items[i].provenance.get("note") == "file"]
    assert new in notes[-1].content and "VERSION = 1" not in notes[-1].content
    assert "changed on disk" in notes[-1].content and notes[-1].content in request_text(asm.messages)
    # The edit tool compares against what the model saw: an assembly alone (the gauge, /threshold during a
    # turn) shows the model nothing, so a call already on its way, made from the old text, is still refused ...
    assert eng.last_seen_hash("lib.py") == content_hash(old)
    # ... and once the request goes to the model, its answer may be based on the new text.
    eng.request_sent(asm)
    assert eng.last_seen_hash("lib.py") == content_hash(new)


def test_same_size_same_mtime_change_is_not_missed_by_hash(tmp_path: Path) -> None:
    eng = make(tmp_path)
    write(tmp_path, "b.py", "A = 1\n", mtime=2_000_000)
    eng.add_user("x")
    eng.note_file_read("b.py", "A = 1\n")
    write(tmp_path, "b.py", "A = 2\n", mtime=2_000_010)  # same size, newer mtime
    assert "A = 2" in request_text(eng.assemble().messages)


def test_deleted_file_is_marked_stale(tmp_path: Path) -> None:
    eng = make(tmp_path)
    body = write(tmp_path, "gone.py", "print('bye')\n")
    eng.add_user("x")
    eng.note_file_read("gone.py", body)
    (tmp_path / "gone.py").unlink()
    asm = eng.assemble()
    assert "DELETED on disk" in request_text(asm.messages)
    assert eng.get("f:gone.py").state == State.STALE


def test_released_after_idle_turns_and_at_end_task(tmp_path: Path) -> None:
    eng = make(tmp_path)
    after = eng.settings.memory.release_files_after
    eng.add_user("turn 1")
    eng.note_file_read("idle.py", "IDLE = True\n")
    eng.note_file_read("busy.py", "BUSY = True\n")
    eng.add_assistant("Read both.")
    for t in range(2, 2 + after):
        eng.add_user(f"turn {t}")
        eng.note_file_read("busy.py", f"BUSY = {t}\n")
        assert "IDLE = True" in request_text(eng.assemble().messages), f"released too early at turn {t}"
        eng.add_assistant(f"Worked on busy.py in turn {t}.")
    eng.add_user("one more idle turn")
    asm = eng.assemble()
    assert "f:idle.py" not in eng.files.files and "busy.py" in eng.files.files
    assert any(t.item_id == "f:idle.py" and not t.included and "untouched" in t.reason for t in asm.trace)
    eng.compact(force=True)  # what was sent stays until an event; the event's block leaves it out
    asm = eng.assemble()
    assert "IDLE = True" not in request_text(asm.messages) and "BUSY = " in request_text(asm.messages)
    eng.end_task()
    asm = eng.assemble()
    assert eng.files.files == {}
    assert any(t.item_id == "f:busy.py" and "task ended" in t.reason for t in asm.trace)
    eng.compact(force=True)
    assert "BUSY" not in request_text(eng.assemble().messages)


def test_turns_the_agent_did_not_answer_do_not_age_a_file(tmp_path: Path) -> None:
    """Several user messages in a row ("continue", a pasted command output, a harness's own notes)
    before the agent answers are one request: an edited file stays however many there are, and
    only turns the agent worked in count towards its release, also after a resume."""
    eng = make(tmp_path)
    after = eng.settings.memory.release_files_after
    eng.add_user("Fix the bug in app.py")
    eng.add_assistant("Editing.", [call("e1", name="edit_file", path="app.py")])
    eng.note_file_edit("app.py", "FIXED = True\n")
    for n in range(after + 3):  # more messages in a row than the turns a file may stay idle
        eng.add_user(f"continue ({n})")
    eng.assemble()
    assert "app.py" in eng.files.files
    assert "FIXED = True" in request_text(eng.assemble().messages)
    eng.add_assistant("Still on it.")

    resumed = make(tmp_path)
    resumed.load(eng.all_items())
    assert resumed.quiet_turns == eng.quiet_turns and len(eng.quiet_turns) == after + 2
    for engine in (eng, resumed):
        engine.window.note_edit("app.py", "FIXED = True\n")  # (a resume re-reads what the store had)
        for t in range(after):  # turns the agent worked in, away from the file
            engine.add_user(f"now look at something else ({t})")
            engine.add_assistant("Looking.")
            assert "app.py" in engine.files.files, f"released after {t + 1} worked turns"
        engine.add_user("and one more")
        assert "app.py" not in engine.files.files


def test_active_files_beyond_the_files_share_are_released_largest_first(tmp_path: Path) -> None:
    eng = make(tmp_path, window=8_192)
    cap = eng.plan.caps["files"]  # type: ignore[index]
    eng.add_user("read a lot")
    bodies = {f"f{i}.py": filler(f"f{i}", cap // 10 + 7 * i) for i in range(14)}
    for path, body in bodies.items():  # all in one step: only size tells them apart
        eng.note_file_read(path, body)
    asm = eng.assemble()
    text = request_text(asm.messages)
    assert "f13.py" in eng.files.files and bodies["f13.py"] in text  # the newest always stays
    gone = [p for p in bodies if p not in eng.files.files]
    kept = [p for p in bodies if p in eng.files.files and p != "f13.py"]
    assert gone and kept
    assert min(len(bodies[p]) for p in gone) > max(len(bodies[p]) for p in kept)  # the largest went first
    for af in eng.files.files.values():
        assert af.content in text  # every file still active is whole in the request
    released = [t for t in asm.trace if t.item_id.startswith("f:") and not t.included]
    assert released and all("files share" in t.reason for t in released)
    assert sum(eng.get(f"f:{p}").tokens for p in eng.files.files) <= cap or len(eng.files.files) == 1


def test_a_full_files_share_lets_one_big_read_go_before_the_small_file_read_before_it(tmp_path: Path) -> None:
    eng = make(tmp_path, window=65_536)
    cap = eng.plan.caps["files"]  # type: ignore[index]
    eng.add_user("survey the module, then fix it")
    big = filler("big", cap * 14 // 100)  # whole in the window: a file only read gets a third of the share

    def read(k: int, path: str, body: str) -> None:
        eng.add_assistant(f"Reading {path}.", [call(f"r{k}", name="read_file", path=path)])
        eng.add_tool_result(f"r{k}", "read_file", "ok", provenance={"path": path})
        eng.note_file_read(path, body)

    read(0, "s0.py", filler("s0", cap * 2 // 100))
    read(1, "big.py", big)
    assert big in eng.window.file_item(eng.files.files["big.py"]).content
    k = 1
    while len(eng.files.files) == k + 1:  # read small files until the share is full
        k += 1
        read(k, f"s{k}.py", filler(f"s{k}", cap * 2 // 100))
    # by recency alone s0.py, read first, would go; its few tokens for the steps since are worth
    # less than the big file's many, read one step later
    assert "s0.py" in eng.files.files and "big.py" not in eng.files.files
    released = [t for t in eng.assemble().trace if t.item_id == "f:big.py" and not t.included]
    assert released and "files share" in released[0].reason


def test_a_file_only_read_is_released_after_idle_steps(tmp_path: Path) -> None:
    eng = ContextEngine(Settings.default(window=16_384), workspace=tmp_path)
    after = eng.settings.memory.release_reads_after_steps
    body = write(tmp_path, "notes.txt", "just reading\n")
    eng.add_user("look around")
    eng.add_assistant("Reading.", [call("r1", name="read_file", path="notes.txt")])
    eng.add_tool_result("r1", "read_file", body, provenance={"path": "notes.txt"})
    eng.note_file_read("notes.txt", body)
    released = None
    for step in range(after + 2):
        eng.add_assistant(f"Step {step}.", [call(f"s{step}", command="ls")])
        eng.add_tool_result(f"s{step}", "run_command", "ok")
        asm = eng.assemble()
        if step < after - 2:
            assert "just reading" in request_text(asm.messages)
        hits = [t for t in asm.trace if t.item_id == "f:notes.txt" and not t.included]
        released = released or (hits[0].reason if hits else None)
    assert "notes.txt" not in eng.files.files
    assert released is not None and "only read" in released


def test_files_read_together_stay_as_long_as_the_agent_edits_one_of_them(tmp_path: Path) -> None:
    eng = ContextEngine(Settings.default(window=65_536), workspace=tmp_path)
    after = eng.settings.memory.release_reads_after_steps
    bodies = {p: write(tmp_path, p, f"# {p} marker\n") for p in ("a.py", "b.py", "c.py", "alone.py")}
    eng.add_user("implement the feature")
    eng.add_assistant("Reading the module.", [call(f"r{k}", name="read_file", path=p)
                                              for k, p in enumerate(("a.py", "b.py", "c.py"))])
    for k, p in enumerate(("a.py", "b.py", "c.py")):  # one step, three reads: a working set
        eng.add_tool_result(f"r{k}", "read_file", bodies[p], provenance={"path": p})
        eng.note_file_read(p, bodies[p])
    eng.add_assistant("And this one.", [call("r9", name="read_file", path="alone.py")])
    eng.add_tool_result("r9", "read_file", bodies["alone.py"], provenance={"path": "alone.py"})
    eng.note_file_read("alone.py", bodies["alone.py"])

    def steps(n: int, tag: str) -> None:
        for k in range(n):
            eng.add_assistant(f"{tag} {k}.", [call(f"{tag}{k}", command="ls")])
            eng.add_tool_result(f"{tag}{k}", "run_command", "ok")
            eng.assemble()

    steps(after - 2, "s")
    eng.note_file_edit("a.py", bodies["a.py"] + "done = True\n")  # the agent starts on the set
    steps(after - 2, "t")  # b.py and c.py were read long ago, but with the file being edited
    eng.compact(force=True)
    text = request_text(eng.assemble().messages)
    assert {"a.py", "b.py", "c.py"} <= set(eng.files.files) and "alone.py" not in eng.files.files
    assert "# b.py marker" in text and "# c.py marker" in text


def test_a_file_the_agent_keeps_naming_is_not_released_as_idle(tmp_path: Path) -> None:
    """An agent that greps in a file, runs its tests or says it will change it is still working
    with it: naming a file in a message or a call keeps it as fresh as that step."""
    eng = ContextEngine(Settings.default(window=65_536), workspace=tmp_path)
    after = eng.settings.memory.release_reads_after_steps
    bodies = {p: write(tmp_path, p, f"# {p} marker\n")
              for p in ("pkg/html.py", "pkg/other.py", "pkg/a/models.py", "pkg/b/models.py")}
    eng.add_user("fix the escaping")
    for k, p in enumerate(bodies):
        eng.add_assistant("Reading.", [call(f"r{k}", name="read_file", path=p)])
        eng.add_tool_result(f"r{k}", "read_file", bodies[p], provenance={"path": p})
        eng.note_file_read(p, bodies[p])
    for k in range(after + 4):
        said = "Looking again at `html.py` and models.py." if k % 5 == 0 else f"Step {k}."
        eng.add_assistant(said, [call(f"s{k}", command="grep -n escape pkg/a/models.py")])
        eng.add_tool_result(f"s{k}", "run_command", "12: escape()")
        eng.assemble()
    eng.compact(force=True)
    text = request_text(eng.assemble().messages)
    # named by its file name (the only html.py), by its path (the grep), not by an ambiguous name
    assert {"pkg/html.py", "pkg/a/models.py"} <= set(eng.files.files)
    assert "pkg/other.py" not in eng.files.files and "pkg/b/models.py" not in eng.files.files
    assert "# pkg/html.py marker" in text


def test_a_big_file_read_as_an_outline_is_not_paid_twice(tmp_path: Path) -> None:
    """Issue 12 item 15: the outline in the tool result is the model's view; no raw head is copied."""
    eng = make(tmp_path, window=32_768)
    body = "".join(f"def handler_{i}(request):\n    return respond(request, {i})\n\n" for i in range(900))
    write(tmp_path, "big.py", body)
    eng.add_user("Find where big.py handles request 7")
    eng.add_assistant("Reading it.", [call("r1", name="read_file", path="big.py")])
    eng.note_file_read("big.py", body)  # the tool notes the whole text (for the edit hash)...
    outline = "big.py is large (2,700 lines), so only an outline is shown:\n  1 def handler_0\n  4 def handler_1"
    eng.add_tool_result("r1", "read_file", outline, provenance={"path": "big.py", "partial": True})
    asm = eng.assemble()
    text = request_text(asm.messages)
    assert outline in text
    assert "return respond(request, 0)" not in text  # ...but the raw head is not injected
    assert eng.last_seen_hash("big.py") == content_hash(body)
    assert eng.counter.count(text) < eng.counter.count(outline) + 600
    # after an edit the text it changed is shown (the file is then the task's)
    eng.note_file_edit("big.py", body.replace("respond(request, 7)", "respond(request, 70)"))
    assert "respond(request, 70)" in request_text(eng.assemble().messages)


def test_the_trace_says_where_an_active_files_text_is_and_lists_the_file_once(tmp_path: Path) -> None:
    """A tester saw `f:…` "in the last request — active file (protected)" with 0 tokens sent (its text was in
    the read's output), and the same file twice in the trace and the item ids once the block carried it."""
    eng = make(tmp_path, window=8_192)
    body = write(tmp_path, "src/app.py", "def main():\n    return 42\n" * 20)
    eng.add_user("Refactor src/app.py")
    eng.add_assistant("Reading it.", [call("r1", name="read_file", path="src/app.py")])
    read = eng.add_tool_result("r1", "read_file", body, provenance={"path": "src/app.py"})
    eng.note_file_read("src/app.py", body, shown_by=read.id, whole=True)
    eng.note_file_edit("src/app.py", body)
    for step in range(25):
        asm = eng.assemble()
        entries = [t for t in asm.trace if t.item_id == "f:src/app.py"]
        assert len(entries) == 1 and asm.item_ids.count("f:src/app.py") == 1
        entry = entries[0]
        assert entry.included
        if entry.tokens == 0:  # its text rides in another message: the trace names it, and it is sent
            carrier = entry.reason.removeprefix("active file (its current text is in ").removesuffix(")")
            assert carrier in eng.items and carrier != entry.reason, entry.reason
            assert body in request_text(asm.messages) and carrier in asm.item_ids
        eng.add_assistant(f"Step {step}.", [call(f"s{step}", command="pytest")])
        eng.add_tool_result(f"s{step}", "run_command", filler(f"out{step}", 400), scope="session")
    assert any(c.ok for c in eng.compactions), "the block carries it after an event"
