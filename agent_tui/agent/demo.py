"""The offline demo: a scripted model registered as a litellm custom provider.

It plays a realistic session on the bundled sample project (list, read, run
the failing tests, edit, re-run, save a memo, answer), deciding each step from
the request it receives — so it goes through the real loop, engine, tools,
approval and compaction, with no network and no key.  It also answers the
loop's summary and memo requests, extracting from what it was sent.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import AsyncIterator
from typing import Any

DEMO_PROVIDER = "agent-tui-demo"
DEMO_MODEL = f"{DEMO_PROVIDER}/scripted"
#: A small window so the demo shows the budget filling up and a compaction.
DEMO_WINDOW = 7000

FIX_OLD = "if item.qty < threshold"
FIX_NEW = "if item.qty <= threshold"


def _last_call(messages: list[dict[str, Any]]) -> tuple[str, dict[str, Any], str]:
    """(tool name, args, result text) of the latest tool call in the request, or ('', {}, '')."""
    result = ""
    for m in reversed(messages):
        if m.get("role") == "tool" and not result:
            result = str(m.get("content") or "")
        if m.get("role") == "assistant" and m.get("tool_calls"):
            fn = m["tool_calls"][-1]["function"]
            try:
                args = json.loads(fn.get("arguments") or "{}")
            except ValueError:
                args = {}
            return fn["name"], args, result
        if m.get("role") == "user" and not str(m.get("content", "")).startswith("[Earlier"):
            return "", {}, ""
    return "", {}, ""


def _user_text(messages: list[dict[str, Any]]) -> str:
    for m in reversed(messages):
        if m.get("role") == "user":
            return str(m.get("content") or "")
    return ""


def plan_step(messages: list[dict[str, Any]]) -> tuple[str, list[tuple[str, dict[str, Any]]]]:
    """The scripted reply to a request: (text, tool calls)."""
    system = str(messages[0].get("content", "")) if messages else ""
    last_user = _user_text(messages)
    if system.startswith("You compress"):
        return _demo_summary(last_user), []
    if "Write a progress memo" in last_user:
        return ("Changed: inventory/stock.py — restock_needed now flags items at the threshold (<=).\n"
                "Why: the bug report and test_restock_includes_items_at_threshold.\n"
                "Left: nothing; all tests pass. Consider a test for threshold=0."), []
    name, args, result = _last_call(messages)
    if "denied" in result and name in ("edit_file", "run_command"):
        return ("The offline demo cannot continue: the user denied the "
                f"{'edit' if name == 'edit_file' else 'command'}. Nothing else was changed."), []
    if not name:
        return ("I'll start with the project layout.", [("list_dir", {"path": ".", "depth": 2})])
    if name == "list_dir":
        return ("The stock logic lives in inventory/stock.py; reading it.",
                [("read_file", {"path": "inventory/stock.py"})])
    if name == "read_file" and args.get("path") == "inventory/stock.py":
        return ("Now the tests, to see the expected behaviour.", [("read_file", {"path": "tests/test_stock.py"})])
    if name == "read_file":
        return ("Running the tests to confirm the bug.", [("run_command", {"command": "python -m pytest -q"})])
    if name == "run_command" and ("failed" in result or "FAILED" in result):
        return (
            "The failure is an off-by-one: items exactly at the threshold must be restocked, "
            "so the comparison should be `<=`. I'll fix it.",
            [("edit_file", {"path": "inventory/stock.py", "old_text": FIX_OLD, "new_text": FIX_NEW})],
        )
    if name == "edit_file":
        return ("Re-running the tests.", [("run_command", {"command": "python -m pytest -q"})])
    if name == "run_command":
        return ("All tests pass. Saving a progress memo.", [("save_memo", {"text": (
            "Changed: inventory/stock.py restock_needed uses <= threshold. Why: items at the threshold were "
            "not flagged (test_restock_includes_items_at_threshold). Left: nothing; 4 tests pass.")})])
    if name == "save_memo":
        return ("Fixed `restock_needed` in `inventory/stock.py`: items whose quantity equals the threshold are "
                "now flagged (`<=` instead of `<`). `python -m pytest -q` passes (4 tests). "
                "This was the offline demo; run `agent-tui --model <model>` to work with a real model.", [])
    return ("This is the offline demo model: it plays one scripted bug fix. Configure a real model "
            "with `--model` (e.g. openai/gpt-4o) to ask anything else.", [])


def _demo_summary(body: str) -> str:
    files = sorted(set(re.findall(r"[\w/]+\.py", body)))
    return ("User instructions, constraints and preferences:\n- fix the restock bug in the sample project\n"
            "Agent decisions:\n- compare with <= so items at the threshold are restocked\n"
            f"Files changed:\n- {', '.join(files[:5]) or 'none yet'}")


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


def register_demo_provider() -> None:
    """Register the scripted model with litellm (idempotent)."""
    import asyncio

    import litellm
    from litellm import CustomLLM

    from agent_tui.core.tokens import counter_for

    class ScriptedDemo(CustomLLM):
        async def astreaming(self, model: str, messages: list[dict[str, Any]], *a: Any, **kw: Any
                             ) -> AsyncIterator[dict[str, Any]]:
            text, calls = plan_step(messages)
            prompt_tokens = counter_for(None).count_messages(messages)
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
