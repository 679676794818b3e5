"""Adapter for mini-swe-agent trajectories (``*.traj.json``, formats ``mini-swe-agent-1.1`` and 1.x; the
Responses-API records of its version 2 response models are read as the chat messages they stand for).

The file is one JSON document ``{info, messages[], trajectory_format, instance_id}`` (or the bare
list of messages).  Format 1.1 calls one ``bash`` tool; earlier runs put the command in a fenced
``bash`` (or ``mswea_bash_command``) block of the assistant's text and its output in the next user
message — replayed as the same tool call and result, so the output is shaped and aged as one.
Messages are OpenAI-style; each assistant message carries the provider's
response in ``extra.response`` whose ``usage.prompt_tokens`` is what the call
cost.  Tool messages carry the whole output in ``extra.raw_output``; the
agent cut outputs over 10k characters to head+tail before the model saw
them, and for those ``Message.raw`` is the whole output in the same
``<returncode>/<output>`` wrapper.  An assistant message's ``reasoning_content``
(reasoning models) counts as assistant text.  The ``exit`` message is the submission, never sent to the model.
File reads, writes and edits are recovered from the bash commands
(:mod:`agent_tui.bench.bashops`, :mod:`agent_tui.bench.bashedits`).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from agent_tui.bench.adapters.blocks import text_of
from agent_tui.bench.adapters.shell_files import shell_file_events
from agent_tui.bench.bashedits import parse_edits
from agent_tui.bench.bashops import (
    grep_blocks,
    parse_grep_read,
    parse_read,
    strip_line_numbers,
)
from agent_tui.bench.trace import Edit, FileEvent, Message, ModelCall, Session, ToolCall

WINDOW = 128_000
_RC = re.compile(r"<returncode>(-?\d+)</returncode>")
_ACTION = re.compile(r"```(?:bash|mswea_bash_command|sh|shell)[ \t]*\r?\n(.*?)\r?\n```|"
                     r"<mswea_bash_command>(.*?)</mswea_bash_command>", re.S)
"""A command given in the text (mini-swe-agent 1.x, before tool calls): a fenced block (lines may end in CRLF),
or the XML tags of its ``swebench_xml`` config; a trajectory's own ``action_regex`` is used first."""


HEAD_CHARS = 1 << 20
"""How much of a ``.json`` file is read to recognise it: version 2 writes ``info.config`` first (its prompt
templates), and ``"messages"`` came 9K characters in on a real file (4K were read: it was never found)."""


class MiniSweAdapter:
    """Reads mini-swe-agent ``.traj.json`` files."""

    name = "mini-swe-agent"

    def detect(self, path: Path) -> bool:
        if path.name.endswith(".traj.json"):
            return True
        if path.suffix != ".json":
            return False
        try:
            with path.open("r", encoding="utf-8", errors="replace") as fh:
                head = fh.read(HEAD_CHARS)
        except OSError:
            return False
        return '"trajectory_format"' in head or ('"messages"' in head and '"role"' in head)

    def load(self, path: Path) -> Session:
        session = Session(id=path.name.removesuffix(".json").removesuffix(".traj"), source=self.name,
                          model="", default_window=WINDOW, path=str(path))
        try:
            data = json.loads(path.read_text(encoding="utf-8", errors="replace"))
        except (OSError, ValueError):
            session.malformed += 1
            return session
        if isinstance(data, list):  # a bare list of messages (older runs, the project's own test data)
            data = {"messages": data}
        if not isinstance(data, dict) or not isinstance(data.get("messages"), list):
            session.malformed += 1
            return session
        session.id = str(data.get("instance_id") or session.id)
        info = data.get("info") if isinstance(data.get("info"), dict) else {}
        cwd = _get(info, "config", "environment", "cwd") or "/"
        session.model = str(_get(info, "config", "model", "model_name") or "")
        messages = [_as_chat(m) for m in data["messages"]]
        # 1.x put the command in the text; 1.1 calls a tool, and a 1.1 reply without a call (answered
        # by a format error) is not an action even when its text shows a fenced command
        text_actions = not any(isinstance(m, dict) and m.get("tool_calls") for m in messages)
        _Builder(session, str(cwd), text_actions, _action_pattern(info)).feed(messages)
        return session


def _as_chat(m: Any) -> Any:
    """A record of the Responses API (mini-swe-agent 2's response models save the whole ``Response`` object for
    the model's turn and a ``function_call_output`` item for each observation) as the chat message it stands
    for; a chat message as it is."""
    if not isinstance(m, dict) or isinstance(m.get("role"), str) and m.get("type") != "message":
        return m
    if m.get("type") == "message" and isinstance(m.get("role"), str):
        return {**m, "content": text_of(m.get("content"))}
    if m.get("type") == "function_call_output":
        return {"role": "tool", "tool_call_id": m.get("call_id"), "content": text_of(m.get("output")),
                "extra": m.get("extra")}
    if m.get("object") != "response" or not isinstance(m.get("output"), list):
        return m
    texts: list[str] = []
    reasoning: list[str] = []
    calls: list[dict[str, Any]] = []
    for item in m["output"]:
        if not isinstance(item, dict):
            continue
        if item.get("type") == "message":
            texts.append(text_of(item.get("content")))
        elif item.get("type") == "function_call":
            calls.append({"id": item.get("call_id") or item.get("id"),
                          "function": {"name": item.get("name"), "arguments": item.get("arguments")}})
        elif item.get("type") == "reasoning":
            reasoning += [str(x.get("text") or "") for x in item.get("summary") or [] if isinstance(x, dict)]
    usage = m.get("usage") if isinstance(m.get("usage"), dict) else {}
    chat: dict[str, Any] = {"role": "assistant", "content": "\n".join(t for t in texts if t),
                            "extra": {"response": {"model": m.get("model"),
                                                   "usage": {"prompt_tokens": usage.get("input_tokens")}}}}
    if calls:
        chat["tool_calls"] = calls
    if any(reasoning):
        chat["reasoning_content"] = "\n".join(r for r in reasoning if r)
    return chat


def _action_pattern(info: dict[str, Any]) -> re.Pattern[str]:
    """The trajectory's own ``action_regex`` (its agent or model config), else the known forms."""
    for where in ("agent", "model"):
        given = _get(info, "config", where, "action_regex")
        if isinstance(given, str) and given:
            try:
                pattern = re.compile(given, re.S)
            except re.error:
                continue
            if pattern.groups >= 1:
                return pattern
    return _ACTION


def _actions(pattern: re.Pattern[str], text: str) -> list[re.Match[str]]:
    """The matches of the actions in ``text`` (each one's command is its first group that matched)."""
    return [m for m in pattern.finditer(text) if any(g is not None for g in m.groups())]


def _command(match: re.Match[str]) -> str:
    return next(g for g in match.groups() if g is not None).strip()


def _get(d: Any, *keys: str) -> Any:
    for k in keys:
        if not isinstance(d, dict):
            return None
        d = d.get(k)
    return d


class _Builder:
    def __init__(self, session: Session, cwd: str, text_actions: bool = False,
                 action: re.Pattern[str] = _ACTION) -> None:
        self.s = session
        self.cwd = cwd
        self.action = action
        """How the trajectory's text gives a command (its ``action_regex``)."""
        self.pending: dict[str, tuple[str, str]] = {}
        """tool_call_id -> (tool name, command)."""
        self.text_action: str | None = None
        """The id given to the last assistant message's text action, until its output arrives."""
        self.text_actions = text_actions
        """The trajectory gives commands as fenced blocks in the text (mini-swe-agent 1.x)."""
        self.tasked = False
        """The task's message has come: every later user message is the framework's."""

    def feed(self, messages: list[Any]) -> None:
        for m in messages:
            if not isinstance(m, dict) or not isinstance(m.get("role"), str):
                self.s.malformed += 1
                continue
            try:
                self._one(m)
            except (TypeError, ValueError, KeyError, AttributeError):
                self.s.malformed += 1

    def _one(self, m: dict[str, Any]) -> None:
        role, content = m["role"], m.get("content")
        text = text_of(content)
        if role == "system" and not self.s.system_prompt and not self.s.messages:
            self.s.system_prompt = text
        elif role == "user" and self.text_action is not None:
            # the observation of a text action (mini-swe-agent 1.x answers every response that
            # holds exactly one action with the command's output, or with its time-out)
            call_id, self.text_action = self.text_action, None
            self._tool({"tool_call_id": call_id, "extra": m.get("extra")}, text)
        elif role in ("user", "system"):
            # mini-swe-agent works alone: a user message after the task is its own (a format error, a time-out)
            self.s.messages.append(Message("user", text, continues=True if self.tasked else None))
            self.tasked = True
        elif role == "assistant":
            reasoning = m.get("reasoning_content")
            if isinstance(reasoning, str) and reasoning.strip():  # reasoning models send it back as text
                text = f"{reasoning}\n\n{text}" if text else reasoning
            self._assistant(m, text)
        elif role == "tool":
            self._tool(m, text)
        # "exit" and unknown roles are not sent to the model

    def _assistant(self, m: dict[str, Any], text: str) -> None:
        usage = _get(m, "extra", "response", "usage") or {}
        prompt = usage.get("prompt_tokens") if isinstance(usage, dict) else None
        self.s.calls.append(ModelCall(len(self.s.messages), int(prompt) if prompt is not None else None))
        if not self.s.model:
            self.s.model = str(_get(m, "extra", "response", "model") or "")
        calls: list[ToolCall] = []
        recorded = list(m.get("tool_calls") or [])
        self.text_action = None
        if self.text_actions and not recorded and len(actions := _actions(self.action, text)) == 1:
            # mini-swe-agent 1.x: the command is a fenced block in the text, its output comes back as
            # the next user message; replayed as the tool call and result the product would send, so the
            # block leaves the text (sent in both, every strategy paid for each command twice)
            self.text_action = f"text-{len(self.s.calls)}"
            recorded = [{"id": self.text_action, "function": {"name": "bash",
                                                              "arguments": json.dumps({"command": _command(actions[0])})}}]
            text = (text[:actions[0].start()] + text[actions[0].end():]).strip()
        for tc in recorded:
            fn = tc.get("function") or {}
            call = ToolCall(str(tc.get("id") or ""), str(fn.get("name") or ""), str(fn.get("arguments") or ""))
            calls.append(call)
            try:
                command = str(json.loads(call.arguments).get("command") or "")
            except (ValueError, AttributeError):
                command = ""
            self.pending[call.id] = (call.name, command)
            k = len(self.s.calls) - 1
            for op in parse_edits(command, self.cwd):
                if op.path:
                    self.s.edits.append(Edit(k, op.path, op.old))
        self.s.messages.append(Message("assistant", text, tuple(calls)))

    def _tool(self, m: dict[str, Any], text: str) -> None:
        call_id = str(m.get("tool_call_id") or "")
        name, command = self.pending.pop(call_id, ("bash", ""))
        whole = _get(m, "extra", "raw_output")
        raw = None
        if isinstance(whole, str) and "<elided_chars>" in text:
            rc = _RC.search(text)
            raw = f"<returncode>{rc.group(1) if rc else ''}</returncode>\n<output>\n{whole}</output>"
        at = len(self.s.messages)
        self.s.messages.append(Message("tool", text, tool_call_id=call_id, name=name, raw=raw))
        rc = _RC.search(text)
        if not command or (rc and rc.group(1) != "0"):
            return
        if (read := parse_read(command, self.cwd)) and "<elided_chars>" not in text:
            seen = _unwrap(text)
            if read.numbered:
                seen = strip_line_numbers(seen)
            self.s.file_events.append(FileEvent(at, read.path, "read", seen, read.start_line, read.whole))
        elif (grep := parse_grep_read(command, self.cwd)) and "<elided_chars>" not in text:
            for start, seen in grep_blocks(_unwrap(text)):
                self.s.file_events.append(FileEvent(at, grep, "read", seen, start, False))
        self.s.file_events += shell_file_events(command, self.cwd, at)


def _unwrap(text: str) -> str:
    m = re.search(r"<output>\n?(.*?)</output>", text, re.S)
    return m.group(1) if m else text
