"""The agent-tui strategy drives the real engine: valid requests, shaped outputs, active files."""

from __future__ import annotations

import json
from pathlib import Path

from agent_tui.bench.adapters.claude_code import ClaudeCodeAdapter
from agent_tui.bench.engine_strategy import AgentTuiStrategy
from agent_tui.bench.measure import MessageCache
from agent_tui.bench.metrics import compute
from agent_tui.bench.replay import replay
from agent_tui.bench.trace import FileEvent, Message, ModelCall, Session, ToolCall
from agent_tui.core.pairing import check_pairing
from agent_tui.core.tokens import counter_for
from tests.bench.helpers import engine_requests

FILE = "".join(f"def func_{i}(x):\n    return x + {i}\n\n" for i in range(60))
NOISE = "".join(f"collecting module_{i} ... ok\n" for i in range(3000))
FAILURE = "Traceback (most recent call last):\n  File \"pkg/core.py\", line 12, in run\nValueError: broken input\n"


def session() -> Session:
    def call(cid: str, command: str) -> tuple[ToolCall, ...]:
        return (ToolCall(cid, "bash", json.dumps({"command": command})),)

    msgs = [
        Message("user", "Fix pkg/core.py. You must not modify tests."),
        Message("assistant", "Reading it.", call("c1", "cat pkg/core.py")),
        Message("tool", f"<returncode>0</returncode>\n<output>\n{FILE}</output>", tool_call_id="c1", name="bash"),
        Message("assistant", "Running the tests.", call("c2", "pytest")),
        Message("tool", f"<returncode>1</returncode>\n<output>\n{NOISE}{FAILURE}</output>", tool_call_id="c2",
                name="bash"),
        Message("assistant", "Editing.", call("c3", "sed -i 's/return x + 7/return x - 7/' pkg/core.py")),
        Message("tool", "<returncode>0</returncode>\n<output>\n</output>", tool_call_id="c3", name="bash"),
    ]
    return Session(
        id="eng", source="hand", model="gpt-4o", default_window=128_000, messages=msgs,
        calls=[ModelCall(1, None), ModelCall(3, None), ModelCall(5, None), ModelCall(7, None)],
        file_events=[FileEvent(2, "/t/pkg/core.py", "read", FILE, whole=True),
                     FileEvent(6, "/t/pkg/core.py", "edit", old="return x + 7", new="return x - 7")],
    )


def test_requests_are_valid_and_fit() -> None:
    s = session()
    for _k, req in engine_requests(s):
        assert check_pairing(req.messages) == []
        assert req.messages[0]["role"] == "system"


def test_shaping_cuts_noise_but_keeps_errors_and_the_file_stays_active() -> None:
    s = session()
    run = replay(s, AgentTuiStrategy(), s.default_window, MessageCache(counter_for("gpt-4o")))
    m = compute([run])
    big = run.shapes[1]
    assert big.sent_tokens < big.raw_tokens / 4
    assert big.error_lines_kept == big.error_lines_in_request == big.error_lines == 3
    assert m.rule_retention == 1.0
    assert m.overflows == 0


def test_active_file_carries_the_edit() -> None:
    s = session()
    strat = AgentTuiStrategy()
    strat.start(s, s.default_window)
    for i, msg in enumerate(s.messages):
        strat.observe(i, msg)
    msgs = strat.build(3).messages
    # the read output stays as sent (append-only); a file note after it carries the edited text
    note = msgs[-1]["content"] if msgs[-1]["role"] == "user" else ""
    assert "[file note:" in note and "return x - 7" in note and "return x + 7" not in note


def _cc_line(kind: str, content: object, **extra: object) -> str:
    usage = {"input_tokens": 3, "cache_read_input_tokens": 9000, "output_tokens": 5}
    message = {"role": kind, "content": content, **({"model": "claude-opus-4-6", "usage": usage,
                                                      "id": f"msg_{len(str(content))}"} if kind == "assistant" else {})}
    return json.dumps({"type": kind, "isSidechain": False, "message": message, **extra})


def test_an_edit_is_not_taken_as_showing_the_whole_file(tmp_path: Path) -> None:
    """Claude Code records the file before an Edit, so the replay knows the whole file after it; the
    model saw only its replacement.  The file's text must still reach the next request (a file note):
    a Write's arguments show the whole text, an Edit's do not (held-out session fa812bfe lost 10 of
    its edits when the adapter passed the Edit off as a Write)."""
    big = "".join(f"def func_{i}(x):\n    return x + {i}\n\n" for i in range(200))
    edit = {"file_path": "/w/big.py", "old_string": "return x + 7\n", "new_string": "return x - 7\n"}
    lines = [
        _cc_line("user", "Fix big.py"),
        _cc_line("assistant", [{"type": "tool_use", "id": "t1", "name": "Edit", "input": edit}]),
        _cc_line("user", [{"type": "tool_result", "tool_use_id": "t1",
                           "content": "The file /w/big.py has been updated successfully."}],
                 toolUseResult={"filePath": "/w/big.py", "originalFile": big}),
        _cc_line("assistant", [{"type": "text", "text": "Done."}]),
    ]
    path = tmp_path / "edit.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    s = ClaudeCodeAdapter().load(path)
    assert len(s.calls) == 2
    strat = AgentTuiStrategy()
    strat.start(s, s.default_window)
    for i, msg in enumerate(s.messages[:s.calls[1].history_len]):
        strat.observe(i, msg)
    text = "\n".join(str(m["content"]) for m in strat.build(1).messages)
    assert "return x + 150" in text  # a line the edit did not touch: the file's text is in the request
    assert "return x - 7" in text


def test_a_backup_put_back_shows_the_original_text_again() -> None:
    """pvlib-1154: the agent backs a file up, patches it, reads the patch, puts the backup back
    (``cp f.bak f``) and edits the original text.  The replay's view follows the copy, so the
    engine re-reads the file (changed on disk) and the request shows the text being replaced."""
    def call(cid: str, command: str) -> tuple[ToolCall, ...]:
        return (ToolCall(cid, "bash", json.dumps({"command": command})),)

    def out(text: str = "") -> str:
        return f"<returncode>0</returncode>\n<output>\n{text}</output>"

    patched = FILE.replace("return x + 7", "return abs(x) + 7")
    msgs = [
        Message("user", "Fix pkg/core.py."),
        Message("assistant", "Reading it.", call("c1", "cat pkg/core.py")),
        Message("tool", out(FILE), tool_call_id="c1", name="bash"),
        Message("assistant", "Backup.", call("c2", "cp pkg/core.py pkg/core.py.bak")),
        Message("tool", out(), tool_call_id="c2", name="bash"),
        Message("assistant", "Patch.", call("c3", "python patch.py")),
        Message("tool", out(), tool_call_id="c3", name="bash"),
        Message("assistant", "Check.", call("c4", "cat pkg/core.py")),
        Message("tool", out(patched), tool_call_id="c4", name="bash"),
        Message("assistant", "Undo.", call("c5", "cp pkg/core.py.bak pkg/core.py")),
        Message("tool", out(), tool_call_id="c5", name="bash"),
        Message("assistant", "Edit.", call("c6", "sed -i 's/return x + 7/return x - 7/' pkg/core.py")),
        Message("tool", out(), tool_call_id="c6", name="bash"),
    ]
    s = Session(
        id="cp", source="hand", model="gpt-4o", default_window=128_000, messages=msgs,
        calls=[ModelCall(k, None) for k in (1, 3, 5, 7, 9, 11)],
        file_events=[FileEvent(2, "/t/pkg/core.py", "read", FILE, whole=True),
                     FileEvent(4, "/t/pkg/core.py.bak", "copy", source="/t/pkg/core.py"),
                     FileEvent(8, "/t/pkg/core.py", "read", patched, whole=True),
                     FileEvent(10, "/t/pkg/core.py", "copy", source="/t/pkg/core.py.bak"),
                     FileEvent(12, "/t/pkg/core.py", "edit", old="return x + 7", new="return x - 7")],
    )
    strat = AgentTuiStrategy()
    strat.start(s, s.default_window)
    for i, msg in enumerate(s.messages[:11]):
        strat.observe(i, msg)
    assert strat.engine is not None
    assert "return x + 7" in strat.engine.files.files["/t/pkg/core.py"].content
    last = strat.build(5).messages[-1]
    assert last["role"] == "user" and "[file note:" in last["content"] and "return x + 7" in last["content"]
    assert "/t/pkg/core.py.bak" not in strat.engine.files.files  # a copy the agent never read stays inactive
    for i in (11, 12):
        strat.observe(i, s.messages[i])
    assert "return x - 7" in strat.engine.files.files["/t/pkg/core.py"].content  # the edit applies to it


def test_the_first_timed_step_of_a_model_is_not_its_tokenizer_load(monkeypatch: object) -> None:
    """Loading a model's tokenizer and the first calls' imports (60-70 ms) was every session's slowest step, and
    a short session's p95; the product pays it once at start.  One throwaway step per model and process comes
    first, with the session's own engine settings, and only once."""
    from agent_tui.bench import engine_strategy
    from agent_tui.bench.engine_strategy import default_engine

    built: list[str] = []

    def counting(settings: object) -> object:
        built.append(str(getattr(settings, "model", "")))
        return default_engine(settings)  # type: ignore[arg-type]

    monkeypatch.setattr(engine_strategy, "_WARMED", set())  # type: ignore[attr-defined]
    session = Session(id="s", source="t", model="gpt-4o", default_window=32_000, messages=[Message("user", "hi")],
                      calls=[ModelCall(1, None)])
    for model in ("gpt-4o", "gpt-4o", "claude-sonnet-4-5"):
        session.model = model
        AgentTuiStrategy(engine=counting).start(session, 32_000)  # type: ignore[arg-type]
    assert built == ["gpt-4o", "gpt-4o", "gpt-4o", "claude-sonnet-4-5", "claude-sonnet-4-5"], \
        "each session's engine, plus one warm-up engine the first time a model is seen"
