"""The offline demo: a scripted model registered as a litellm custom provider.

It plays a realistic session on the bundled sample project (list, read, run
the failing tests, edit, re-run, save a memo, answer), deciding each step from
the request it receives — so it goes through the real loop, engine, tools,
approval and compaction, with no network and no key.  It also answers the
loop's summary and memo requests, extracting from what it was sent.

It is honest about what the tools returned: the tests run with the standard
library (``unittest`` under the running interpreter, so no ``python`` on PATH
and no pytest are needed); a failed or impossible test run, or a denied call
(with the user's reason), changes what it says, and it never claims a result
it did not see.  It plays the fix only when asked for it (the demo task, or "fix the restock bug"),
once per conversation; anything else gets a short scripted answer that says so.
"""

from __future__ import annotations

import json
import re
import shlex
import sys
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from agent_tui.core.notes import latest_user_words, said_by_user, user_messages
from agent_tui.demo_project import DEMO_TASK

DEMO_PROVIDER = "agent-tui-demo"
DEMO_MODEL = f"{DEMO_PROVIDER}/scripted"
#: A small window so the demo shows the budget filling up and a compaction.
DEMO_WINDOW = 7000

FIX_OLD = "if item.qty < threshold"
FIX_NEW = "if item.qty <= threshold"


def interpreter() -> str:
    """The Python running agent-tui (snapshot tests replace it with a fixed name)."""
    return sys.executable


def unittest_command() -> str:
    """The demo's test command: the standard library's unittest, under the running interpreter (so it
    works where ``python`` is not on PATH or pytest is not installed)."""
    return f"{shlex.quote(interpreter())} -m unittest discover -s tests"


SHOWN_COMMAND = "python -m unittest"
"""How the demo names the test command in what it says."""


def _said_by_user(m: dict[str, Any]) -> bool:
    """A user message the user wrote (not one of the engine's notes: core/notes)."""
    return said_by_user(m)


def _calls(messages: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any], str]]:
    """(tool name, args, result text) of every tool call in these messages, in order."""
    results = {str(m.get("tool_call_id")): str(m.get("content") or "") for m in messages if m.get("role") == "tool"}
    out: list[tuple[str, dict[str, Any], str]] = []
    for m in messages:
        if m.get("role") != "assistant":
            continue
        for call in m.get("tool_calls") or []:
            fn = call.get("function") or {}
            try:
                args = json.loads(fn.get("arguments") or "{}")
            except ValueError:
                args = {}
            out.append((str(fn.get("name")), args if isinstance(args, dict) else {},
                        results.get(str(call.get("id")), "")))
    return out


def _turn_calls(messages: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any], str]]:
    """The tool calls since the latest user message, in order."""
    start = next((n + 1 for n in range(len(messages) - 1, -1, -1) if _said_by_user(messages[n])), 0)
    return _calls(messages[start:])


def _user_text(messages: list[dict[str, Any]]) -> str:
    """The latest user message's own words (without the notes merged into it: a memo's "no files changed"
    read as "change nothing")."""
    for m in reversed(messages):
        if _said_by_user(m):
            return latest_user_words(str(m.get("content") or ""))
    return ""


_FIX_VERB = re.compile(r"\b(fix|repair|correct|solve|debug)")
_FIX_SUBJECT = re.compile(r"\b(restock|threshold|bug|stock\.py|failing tests?)")
_HANDS_OFF = re.compile(r"\b(don'?t|do not|never|without|no)\b\W+(\w+\W+){0,2}?(chang|edit|touch|fix|modif|writ)")


def asks_for_the_fix(text: str) -> bool:
    """The demo task, or a message that clearly asks for the fix the demo plays ("fix the restock bug");
    not a question about the project, nor one that says to change nothing."""
    said = " ".join(text.lower().split())
    if said == " ".join(DEMO_TASK.lower().split()):
        return True
    return bool(_FIX_VERB.search(said) and _FIX_SUBJECT.search(said)) and not _HANDS_OFF.search(said)


def _asked_before(messages: list[dict[str, Any]]) -> bool:
    """True when a user message before the latest one asked for the fix (it was played, or denied)."""
    said = [words for m in messages if _said_by_user(m) for words in user_messages(str(m.get("content") or ""))]
    return any(asks_for_the_fix(words) for words in said[:-1])


def _denial(result: str) -> str | None:
    """None if the call was not denied; else the user's reason ('' when none was given)."""
    if result.startswith("denied by user:"):
        return result.split("\n", 1)[0].removeprefix("denied by user:").strip()
    if "The user denied" in result:
        return ""
    return None


def _because(reason: str) -> str:
    return f" (your reason: “{reason}”)" if reason else ""


@dataclass(frozen=True)
class RunResult:
    """What a test command's result says."""

    exit_code: int | None
    ran: int | None
    ok: bool
    summary: str
    """The line that says how it went (``FAILED (failures=1)``, ``OK``, or the first error line)."""

    @property
    def ran_at_all(self) -> bool:
        return self.ran is not None


def read_test_run(result: str) -> RunResult:
    """Parse a run_command result of the unittest command."""
    code = re.search(r"exit code (-?\d+)", result)
    ran = re.search(r"^Ran (\d+) tests?", result, re.M)
    verdict = re.search(r"^(OK.*|FAILED \(.*\))$", result, re.M)
    exit_code = int(code.group(1)) if code else None
    body = [line for line in result.splitlines()[1:] if line.strip() and not line.startswith("exit code")]
    summary = verdict.group(1) if verdict else (body[0].strip() if body else "no output")
    return RunResult(exit_code, int(ran.group(1)) if ran else None,
                   exit_code == 0 and bool(verdict) and verdict.group(1).startswith("OK"), summary[:160])


def plan_step(messages: list[dict[str, Any]]) -> tuple[str, list[tuple[str, dict[str, Any]]]]:
    """The scripted reply to a request: (text, tool calls), decided from what the tools returned."""
    system = str(messages[0].get("content", "")) if messages else ""
    last_user = _user_text(messages)
    if system.startswith("You compress"):
        return _demo_summary(last_user), []
    if str(messages[-1].get("content", "")).startswith("You compress"):  # the summarising call on the cache
        return _demo_summary(_cached_summary_body(messages)), []
    calls = _turn_calls(messages)
    if "Write a progress memo" in last_user or "Write a progress memo" in str(messages[-1].get("content", "")):
        return _memo(messages), []
    if not calls:
        if asks_for_the_fix(last_user) and not _asked_before(messages):
            return ("I'll start with the project layout.", [("list_dir", {"path": ".", "depth": 2})])
        how = (" It played the fix in this session already: /new starts a fresh one to watch it again."
               if _asked_before(messages) else " Ask it to “fix the restock bug” to watch it.")
        return ("This is the offline demo model: it plays one scripted bug fix and cannot answer other "
                f"requests.{how} Run `agent-tui --model <model>` (e.g. openai/gpt-4o) to work with a real "
                "model; the inspector (f2) and the request view (ctrl+r) show what it would be sent."), []
    name, args, result = calls[-1]
    runs = [read_test_run(r) for n, _, r in calls if n == "run_command" and _denial(r) is None]
    edited = any(n == "edit_file" and _denial(r) is None and not r.startswith(("Error", "error"))
                 and "Edited" in r for n, _, r in calls)
    # after a compaction the edit may have left the window: the file's text in the request shows it
    edited = edited or any(FIX_NEW in str(m.get("content") or "") for m in messages if m.get("role") != "assistant")
    if (reason := _denial(result)) is not None and name in ("run_command", "edit_file"):
        if name == "edit_file":
            return (f"You denied the edit{_because(reason)}, so inventory/stock.py is unchanged and the bug "
                    "is still there. The fix would be `<=` instead of `<` in `restock_needed`."), []
        if edited:
            return (f"You denied the test run{_because(reason)}: the fix in inventory/stock.py is applied but "
                    "unverified. Run `python -m unittest discover -s tests` yourself to check it."), []
        return (f"You denied the test run{_because(reason)}. I can't confirm the bug without the tests, so I "
                "changed nothing."), []
    if name == "list_dir":
        return ("The stock logic lives in inventory/stock.py; reading it.",
                [("read_file", {"path": "inventory/stock.py"})])
    if name == "read_file" and args.get("path") == "inventory/stock.py":
        return ("Now the tests, to see the expected behaviour.", [("read_file", {"path": "tests/test_stock.py"})])
    if name == "read_file":
        return ("Running the tests (standard library unittest) to confirm the bug.",
                [("run_command", {"command": unittest_command()})])
    if name == "edit_file":
        if not edited:
            first = (result.strip().splitlines() or ["no detail"])[0]
            return (f"The edit failed ({first}); inventory/stock.py is unchanged.", [])
        return ("Re-running the tests.", [("run_command", {"command": unittest_command()})])
    if name == "run_command":
        run = runs[-1] if runs else read_test_run(result)
        if not run.ran_at_all:
            state = "The fix is applied but unverified" if edited else "I changed nothing"
            return (f"The tests could not run (exit code {run.exit_code}: {run.summary}). {state}: I won't claim "
                    "a result I could not check.", [])
        if not edited:
            if run.ok:
                return (f"All {run.ran} tests pass, so I could not reproduce the bug; I changed nothing.", [])
            if "test_restock_includes_items_at_threshold" not in result:
                return (f"The tests fail ({run.summary}), but not the way the bug report describes; I changed "
                        "nothing. Look at the failures above.", [])
            return (
                "The failure is an off-by-one: items exactly at the threshold must be restocked, "
                "so the comparison should be `<=`. I'll fix it.",
                [("edit_file", {"path": "inventory/stock.py", "old_text": FIX_OLD, "new_text": FIX_NEW})],
            )
        if not run.ok:
            return (f"I changed inventory/stock.py (`<` → `<=`), but the tests still fail: {run.summary}. "
                    "The task is not done.", [])
        return ("All tests pass. Saving a progress memo.", [("save_memo", {"text": (
            "Changed: inventory/stock.py restock_needed uses <= threshold. Why: items at the threshold were "
            f"not flagged (test_restock_includes_items_at_threshold). Left: nothing; {run.ran} tests pass.")})])
    if name == "save_memo":
        run = runs[-1] if runs else None
        count = f" ({run.ran} tests)" if run and run.ran else ""
        said = re.search(r"(\d+) tests pass", str(args.get("text", "")))
        if not count and said:  # the runs left the window in a compaction: the memo it sent says it
            count = f" ({said.group(1)} tests)"
        return ("Fixed `restock_needed` in `inventory/stock.py`: items whose quantity equals the threshold are "
                f"now flagged (`<=` instead of `<`). `{SHOWN_COMMAND}` passes{count}. "
                "This was the offline demo; run `agent-tui --model <model>` to work with a real model.", [])
    return ("This is the offline demo model: it plays one scripted bug fix. Configure a real model "
            "with `--model` (e.g. openai/gpt-4o) to ask anything else.", [])


_EDITED = re.compile(r"^Edited ([\w./-]+):", re.M)
_SUMMARY_FILES = re.compile(r"^Files changed:\n((?:- .*\n?)+)", re.M)


def _changed_files(texts: list[str]) -> list[str]:
    """Files an edit really changed ("Edited <path>:" results) or a summary lists as changed."""
    found: list[str] = []
    for text in texts:
        names = _EDITED.findall(text)
        for block in _SUMMARY_FILES.findall(text):
            names += [line[2:].split(" ", 1)[0].strip(",") for line in block.splitlines() if line.startswith("- ")]
        found += [n for n in names if n and n != "none" and n not in found]
    return found


def _last_run(texts: list[str]) -> RunResult | None:
    runs = [read_test_run(t) for t in texts if t.startswith("$ ") and "exit code" in t]
    return runs[-1] if runs else None


def _memo(messages: list[dict[str, Any]]) -> str:
    """A progress memo that says what really happened so far (the whole window, summary included)."""
    texts = [str(m.get("content") or "") for m in messages]
    changed = _changed_files(texts)
    last = _last_run([r for n, _, r in _calls(messages) if n == "run_command" and _denial(r) is None])
    if last is None:  # the runs were folded into the summary: its latest result line
        folded = [m.group(1) for t in texts for m in re.finditer(r"^Command and test results:\n- (.*)", t, re.M)]
        if folded:
            ran = re.search(r"Ran (\d+) tests?", folded[-1])
            ok = bool(re.search(r"\bOK\b", folded[-1])) and "FAILED" not in folded[-1]
            last = RunResult(0 if ok else 1, int(ran.group(1)) if ran else None, ok, folded[-1][:160])
    if changed and last is not None and last.ok:
        return (f"Changed: {', '.join(changed)} — restock_needed now flags items at the threshold (<=).\n"
                "Why: the bug report and test_restock_includes_items_at_threshold.\n"
                f"Left: nothing; all {last.ran} tests pass. Consider a test for threshold=0.")
    tests = (f"tests: {last.summary}" if last is not None and last.ran_at_all
             else "tests not run yet" if last is None else f"tests could not run ({last.summary})")
    return (f"Changed: {', '.join(changed) if changed else 'nothing yet'}.\n"
            f"Why: the restock bug report.\nLeft: the task is not finished; {tests}.")


def _cached_summary_body(messages: list[dict[str, Any]]) -> str:
    """The summarising request built on the cached one, as the plain form's body: the conversation
    leaving, and the summary so far when the whole summary is asked for (else only the new part is)."""
    ask = str(messages[-1].get("content", ""))
    previous = ask.split("Previous summary:\n", 1)[1].split("\n\nSummarise", 1)[0] \
        if "Previous summary:\n" in ask else ""
    new = [f"[m{n}] user:\n{m['content']}" if m.get("role") == "user" else f"[t{n}] tool:\n{m.get('content')}"
           for n, m in enumerate(messages[:-1]) if m.get("role") in ("user", "tool")]
    return f"Previous summary:\n{previous}\n\nNew conversation to fold in:\n" + "\n\n".join(new)


def _demo_summary(body: str) -> str:
    """Fold the evicted rounds, keeping only what the text shows (no invented decisions or files)."""
    previous, _, new = body.partition("New conversation to fold in:")
    asked = re.findall(r"^\[m\d+\] user:\n(.+)", new, re.M)
    old_asks = re.findall(r"^User instructions.*:\n((?:- .*\n?)+)", previous, re.M)
    asks = [line[2:] for block in old_asks for line in block.splitlines() if line.startswith("- ")]
    asks += [a.strip()[:200] for a in asked if a.strip()[:200] not in asks]
    changed = _changed_files([previous, new])
    runs = re.findall(r"^(Ran \d+ tests?.*|OK.*|FAILED \(.*\))$", new, re.M)
    old_runs = re.findall(r"^Command and test results:\n- (.*)", previous, re.M)
    latest = " ".join(runs[-2:]) if runs else (old_runs[-1] if old_runs else "")
    out = ["User instructions, constraints and preferences:"] + [f"- {a}" for a in asks or ["(none seen)"]]
    if changed:
        out += ["Agent decisions:", "- compare with <= so items at the threshold are restocked"]
    if latest:
        out += ["Command and test results:", f"- {latest}"]
    out += ["Files changed:"] + [f"- {f}" for f in changed or ["none"]]
    return "\n".join(out)


def _chunk(text: str, calls: list[tuple[str, dict[str, Any]]], prompt_tokens: int) -> list[dict[str, Any]]:
    chunks: list[dict[str, Any]] = []
    for piece in re.findall(r"\S+\s*", text):
        chunks.append({"text": piece, "tool_use": None, "is_finished": False, "finish_reason": "", "usage": None,
                       "index": 0})
    for n, (name, args) in enumerate(calls):
        chunks.append({"text": "", "tool_use": {"id": f"call_{uuid.uuid4().hex[:10]}", "type": "function",
                       "function": {"name": name, "arguments": json.dumps(args)}, "index": n},
                       "is_finished": False, "finish_reason": "", "usage": None, "index": 0})
    completion = max(1, len(text) // 4 + 20 * len(calls))
    chunks.append({"text": "", "tool_use": None, "is_finished": True,
                   "finish_reason": "tool_calls" if calls else "stop",
                   "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion,
                             "total_tokens": prompt_tokens + completion}, "index": 0})
    return chunks


def _prompt_tokens(counter: Any, messages: list[dict[str, Any]], params: dict[str, Any]) -> int:
    """What a real provider would report: the messages *and* the tool definitions (counting only the
    messages made the loop's self-calibration halve every count and double the demo's window)."""
    import json

    tools = params.get("tools") or ()
    return counter.count_messages(messages) + sum(
        counter.count(json.dumps(t, sort_keys=True, ensure_ascii=False)) for t in tools)


def register_demo_provider() -> None:
    """Register the scripted model with litellm (idempotent)."""
    import asyncio

    from agent_tui.agent.llm import preload_litellm

    litellm = preload_litellm()  # (loaded as everywhere else: frozen out of the cyclic collector)
    from litellm import CustomLLM

    from agent_tui.core.tokens import counter_for

    class ScriptedDemo(CustomLLM):
        async def astreaming(self, model: str, messages: list[dict[str, Any]], *a: Any, **kw: Any
                             ) -> AsyncIterator[dict[str, Any]]:
            text, calls = plan_step(messages)
            prompt_tokens = _prompt_tokens(counter_for(None), messages, kw.get("optional_params") or {})
            for c in _chunk(text, calls, prompt_tokens):
                await asyncio.sleep(0.015 if c["text"] else 0)
                yield c

        async def acompletion(self, model: str, messages: list[dict[str, Any]], *a: Any, **kw: Any) -> Any:
            text, _ = plan_step(messages)
            return litellm.ModelResponse(choices=[{"message": {"role": "assistant", "content": text}}])

    current = [p for p in (litellm.custom_provider_map or []) if p.get("provider") != DEMO_PROVIDER]
    litellm.custom_provider_map = current + [{"provider": DEMO_PROVIDER, "custom_handler": ScriptedDemo()}]
    from litellm.utils import custom_llm_setup

    custom_llm_setup()
