"""The ``agent-tui`` strategy: the recorded session driven through this project's engine.

Replay mapping (everything the engine gets is what the product's agent loop
would give it):

* the system prompt → ``set_system_prompt`` (Claude Code's is unrecorded: it is
  in the unrecorded prefix counted for every strategy alike, so the engine sends
  no prompt of its own); the engine's window is the session window minus that prefix;
* a user message → ``add_user`` (a new turn; a new task unless the agent framework wrote it: a format error,
  a meta or interruption line continues the task, whose statement stays);
* an assistant message → ``add_assistant`` with its tool calls;
* a tool result → shaped by the product's shapers (:mod:`agent_tui.bench.shaping`)
  and added with ``add_tool_result(content=shaped, raw=whole)``;
* a file read, write or edit → the merged view of what the agent has seen of
  the file (:class:`~agent_tui.bench.fileview.FileView`) goes to
  ``note_file_read`` / ``note_file_edit`` (a write to a file the agent had not
  seen counts as creating it, as ``write_file`` reports a new file);
* at each recorded call → ``assemble()`` (which runs a compaction event with the
  extractive summariser when the cost model says it pays); its messages are
  the request.  An event is charged as the product's one summarising call
  would be: the request as it stood (the part already sent read from the
  cache) plus the instruction, and the summary as output.

The recording agent's own compaction summary is not replayed: the engine
manages the whole recorded history itself.  Nothing is pinned: the engine
is measured as a user who pinned nothing would get it.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from agent_tui.bench.fileview import FileView
from agent_tui.bench.shaping import ProductShaper
from agent_tui.bench.strategies import Request
from agent_tui.bench.trace import COMPACT_SUMMARY, FileEvent, Message, Session
from agent_tui.core.config import Settings
from agent_tui.core.costmodel import INSTRUCTION_TOKENS
from agent_tui.core.engine import ContextEngine

#: Smallest window handed to the engine (a prefix larger than the window leaves this).
MIN_ENGINE_WINDOW = 4096

SettingsFactory = Callable[[Session, int], Settings]
EngineFactory = Callable[[Settings], ContextEngine]


def default_engine(settings: Settings) -> ContextEngine:
    """The product's engine, in memory only."""
    return ContextEngine(settings, store=None, log_requests=False)


def default_settings(session: Session, window: int) -> Settings:
    """The product defaults for the session's model, at the window left after the prefix."""
    return Settings.default(model=session.model or None,
                            window=max(MIN_ENGINE_WINDOW, window - session.prefix_tokens))


def _lines(text: str) -> list[str]:
    lines = text.split("\n")
    return lines[:-1] if lines and lines[-1] == "" else lines


_WARMED: set[str] = set()
"""Models whose tokenizer and code paths this process has already loaded."""


def _warm(model: str, factory: EngineFactory, settings: Settings, shaper: ProductShaper) -> None:
    """One throwaway step per model and process before the timed ones: loading the tokenizer and the first calls'
    imports (60-70 ms) is what the product pays once at start, not per step, and it was every session's slowest
    step (a short session's p95)."""
    if model in _WARMED:
        return
    _WARMED.add(model)
    eng = factory(settings)
    eng.add_user("warm up")
    eng.add_assistant("", [{"id": "w", "type": "function", "function": {"name": "bash", "arguments": "{}"}}])
    eng.add_tool_result("w", "bash", shaper.shape("bash", "Traceback (most recent call last):\nok\n", intent="{}"))
    eng.assemble()


class AgentTuiStrategy:
    """Drives a ContextEngine over the recorded history."""

    name = "agent-tui"

    def __init__(self, settings: SettingsFactory = default_settings,
                 engine: EngineFactory = default_engine) -> None:
        self.settings_factory = settings
        self.engine_factory = engine
        self.engine: ContextEngine | None = None
        self.shaper: ProductShaper | None = None
        self.views: dict[str, FileView] = {}
        self.events: dict[int, list[FileEvent]] = {}
        self.commands: dict[str, dict[str, object]] = {}

    def start(self, session: Session, window: int) -> None:
        self.engine = self.engine_factory(self.settings_factory(session, window))
        # Claude Code's system prompt is not in its transcript: it is part of the unrecorded prefix
        # counted for every strategy, so the engine's own default would be counted twice.
        self.engine.set_system_prompt(session.system_prompt or "")
        self.shaper = ProductShaper(session.model or None)
        self.views = {}
        self.events = session.events_by_message()
        self.commands = {}
        _warm(session.model or "", self.engine_factory, self.settings_factory(session, window), self.shaper)

    def observe(self, index: int, message: Message) -> str | None:
        eng, shaper = self.engine, self.shaper
        assert eng is not None and shaper is not None, "start() first"
        sent: str | None = None
        if message.kind == COMPACT_SUMMARY:
            return None
        if message.role == "user":
            eng.add_user(message.content, continues=message.continues)
        elif message.role == "assistant":
            calls = [tc.to_openai() for tc in message.tool_calls]
            for tc in message.tool_calls:
                try:
                    args = json.loads(tc.arguments)
                except ValueError:
                    args = {"arguments": tc.arguments}
                self.commands[tc.id] = args if isinstance(args, dict) else {"arguments": args}
            eng.add_assistant(message.content, calls or None)
        else:
            whole = message.raw_output
            args = self.commands.get(message.tool_call_id, {})
            sent = shaper.shape(message.name, whole, intent=json.dumps(args))
            prov: dict[str, object] = {"args": args}
            if isinstance(args.get("command"), str):
                prov["command"] = args["command"]
            if isinstance(args.get("file_path"), str):
                prov["path"] = args["file_path"]
            eng.add_tool_result(message.tool_call_id, message.name, sent,
                                raw=whole if whole != sent else None, provenance=prov)
        events = self.events.get(index, [])
        k = 0
        while k < len(events):
            ev = events[k]
            if ev.kind == "read":  # one output's reads of one file (a grep's runs) are one read
                run = [ev]
                while k + len(run) < len(events) and events[k + len(run)].kind == "read" \
                        and events[k + len(run)].path == ev.path:
                    run.append(events[k + len(run)])
                self._read(run)
                k += len(run)
            else:
                self._file_event(ev)
                k += 1
        return sent

    def _read(self, reads: list[FileEvent]) -> None:
        """The agent was shown these parts of one file by one output (a read, or a grep's runs)."""
        assert self.engine is not None
        path = reads[0].path
        view = self.views.setdefault(path, FileView())
        for ev in reads:
            view.read(ev.content, ev.start_line, ev.whole)
        whole = any(ev.whole for ev in reads)
        shown = None
        if self.engine.order:
            last = self.engine.items[self.engine.order[-1]]
            if last.role == "tool" and "handle" not in last.provenance:
                # the output shows what was read (not cut by shaping): no copy of it is needed
                last.provenance.update(path=path, file_read=True)
                shown = last.id
        self.engine.note_file_read(path, view.render(), shown_by=shown, whole=whole)
        if whole:
            return
        spans = [view.rendered_span(ev.start_line, len(_lines(ev.content))) for ev in reads]
        found = [s for s in spans if s is not None]
        if found:  # a ranged read: the product's read_file records the lines it showed
            self.engine.window.note_lines(path, found)

    def _file_event(self, ev: FileEvent) -> None:
        assert self.engine is not None
        view = self.views.setdefault(ev.path, FileView())
        if ev.kind == "read":
            self._read([ev])
            return
        if ev.kind == "revert":  # the product re-reads a file changed on disk
            if view.revert():
                self.engine.note_file_read(ev.path, view.render())
            return
        if ev.kind == "copy":  # a file copied over an active one: the product re-reads it (changed on disk)
            source = self.views.get(ev.source)
            if source is not None:
                view.copy_from(source)
                if ev.path in self.engine.files.files:
                    self.engine.note_file_read(ev.path, view.render())
            return
        shown = None
        kind = "edit"
        if ev.kind == "write":
            kind = "write" if view.lines else "create"
            view.write(ev.content)
            owner = self.engine.actions.call_owner(self.engine.items[self.engine.order[-1]].tool_call_id) \
                if self.engine.order else None
            shown = owner.id if owner is not None else None  # the call's arguments hold the whole text
        elif not view.edit(ev.old, ev.new, ev.full_after):
            return  # the replaced text is not in what the agent has seen: nothing to update
        self.engine.note_file_edit(ev.path, view.render(), shown_by=shown, kind=kind)

    def build(self, call_index: int) -> Request:
        assert self.engine is not None, "start() first"
        before = self.engine.last.breakdown.total if self.engine.last is not None else 0
        estimate = self.engine.request_estimate()
        asm = self.engine.assemble()
        comp = asm.compaction
        summarising = cached = summary = 0
        if comp is not None and comp.ok and comp.worth_a_call:
            # Charged as the product's one summarising call, when it makes one (a batch too small for
            # a call keeps its extractive summary): the request as it stood (its part already sent is a
            # cache read) plus the instruction, the summary as output.
            summarising = estimate + INSTRUCTION_TOKENS
            cached = min(before, estimate)
            summary = comp.summary_tokens
        return Request(asm.messages, summarising_input_tokens=summarising, summary_tokens=summary,
                       summarising_cached=cached, extra={"over_budget": asm.breakdown.over_budget})
