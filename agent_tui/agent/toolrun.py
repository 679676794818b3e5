"""Running the model's tool calls: approval, execution, shaping, and recording.

Built-in tools come from the tools registry; MCP tools (``server__tool``) from
an optional MCP manager.  Every outcome — success, tool error, malformed
arguments, denial — goes back to the model as a tool result, never a crash.
Results are re-shaped to the window's results share (a 16K window cannot take
an 8K output), stored whole behind a handle, and recorded in the engine with
their scope (``turn`` unless configured otherwise).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from agent_tui.agent import events as ev
from agent_tui.agent.approval_preview import denial_text, preview, split_answer
from agent_tui.core.engine import ContextEngine
from agent_tui.core.items import Category

if TYPE_CHECKING:
    from agent_tui.agent.loop import Agent


class ToolRunner:
    """Built-in tools plus optional MCP tools, behind one call interface."""

    def __init__(self, registry: Any, mcp: Any | None = None, tool_settings: dict[str, Any] | None = None) -> None:
        self.registry = registry
        self.mcp = mcp
        self.tool_settings = dict(tool_settings or {})

    def schemas(self, engine: ContextEngine) -> list[dict[str, Any]]:
        out = list(self.registry.schemas())
        if self.mcp is not None:
            try:
                out += self.mcp.tool_schemas()
            except Exception:  # a broken MCP layer must not stop built-in tools
                pass
        return out

    def kind_of(self, name: str) -> str:
        spec = self.registry.spec(name)
        if spec is not None:
            return spec.kind
        if self._is_mcp(name):
            try:
                return "read" if self.mcp.is_read_only(name) else "write"
            except Exception:
                return "write"
        return "read"

    def _mcp_ask(self, name: str) -> tuple[str | None, str]:
        """For an MCP tool the policy asks about: its server and why it is asked (else None, "")."""
        if not self._is_mcp(name):
            return None, ""
        try:
            return self.mcp.server_of(name) or "mcp", self.mcp.why_asked(name)
        except Exception:
            return "mcp", ""

    def _is_mcp(self, name: str) -> bool:
        if self.mcp is None or name in self.registry:
            return False
        try:
            return bool(self.mcp.is_mcp_tool(name))
        except Exception:
            return "__" in name

    def result_cap(self, engine: ContextEngine, name: str) -> int:
        configured = (self.tool_settings.get(name) or {}).get("max_tokens")
        share = max(300, engine.plan.caps[Category.RESULTS] // 2)
        return min(int(configured), share) if configured else share

    def pending_calls(self, engine: ContextEngine) -> list[tuple[str, str]]:
        """Calls of the latest assistant message that have no result yet."""
        answered: set[str] = set()
        for i in reversed(engine.order):
            it = engine.items[i]
            if it.role == "tool":
                answered.add(it.tool_call_id or "")
            elif it.role == "assistant":
                return [(c["id"], c["function"]["name"]) for c in it.tool_calls or [] if c["id"] not in answered]
            elif it.role == "user":
                return []
        return []

    async def _execute(self, name: str, args: dict[str, Any], agent: Agent) -> Any:
        from agent_tui.tools.base import ToolResult

        if name in agent.engine.tool_items.disabled:
            return ToolResult(text=f"{name} is disabled for this session by the user; nothing was run. "
                                   "Use the tools you were given.", is_error=True)
        if name in self.registry:
            return await self.registry.run(name, args, agent.ctx)
        if self._is_mcp(name):
            r = await self.mcp.call(name, args, intent=json.dumps(args)[:200])
            return ToolResult(text=r.text_for_model, is_error=r.is_error, handle=r.handle,
                              raw_tokens=r.raw_tokens, shaped_tokens=r.shaped_tokens)
        return await self.registry.run(name, args, agent.ctx)  # unknown: the registry's clear error

    async def run_call(self, call: Any, agent: Agent) -> AsyncIterator[ev.Event]:
        """Approve, run, shape and record one tool call."""
        from agent_tui.agent.loop import parse_arguments
        from agent_tui.tools.base import ToolResult
        from agent_tui.tools.shaping import shape_result_async

        eng = agent.engine
        name = call.name
        kind = self.kind_of(name)
        args, bad = parse_arguments(call.arguments)
        if getattr(call, "arguments_error", None) and bad is None:
            bad = str(call.arguments_error)
        yield ev.ToolCallStarted(call.id, name, args if args is not None else call.arguments, kind)
        result: Any
        if args is None:
            result = ToolResult(text=f"Your arguments for {name} were {bad}. Nothing was run; send the call "
                                     f"again with one valid JSON object.", is_error=True)
        else:
            # (off the event loop: a host git line reads the repository's config, a few git calls per repository)
            verdict = await asyncio.to_thread(agent.policy.verdict, name, kind, args)
            decision, reason = verdict.decision, ""
            refused_by = "the approval policy"
            doomed = None
            if decision == "ask" and not self._is_mcp(name):  # a change that cannot apply is not put to the user
                doomed = await self.registry.refusal(name, args, agent.ctx)
            if decision == "ask" and doomed is None:
                server, why = self._mcp_ask(name)
                req = ev.ApprovalRequested(call.id, name, kind, preview(name, args, agent.ctx.workspace),
                                           prefix=verdict.prefix_text,
                                           reason=f"{why} ({verdict.reason})" if why else verdict.reason,
                                           path=str(args["path"]) if kind == "write" and "path" in args
                                           and server is None else None, server=server)
                yield req
                answer, reason = split_answer(await agent.approver(req) if agent.approver is not None else "deny")
                if answer == "always":
                    agent.policy.remember(name, args)
                elif answer == "prefix" and verdict.prefix:
                    agent.policy.remember(name, args, prefix=verdict.prefix)
                decision = "deny" if answer == "deny" else "allow"
                refused_by = "the user"
            if doomed is not None:
                result = doomed
            elif decision == "deny":
                what = args.get("command") or args.get("path") or ""
                if refused_by == "the user":
                    text = denial_text(kind, name, what, reason)
                else:
                    text = (f"Refused by the approval policy: {verdict.reason}. Nothing was run ({name} {what}). "
                            "Do not retry it or a variant of it; ask the user or choose another way.")
                result = ToolResult(text=text, is_error=True)
            else:
                result = await self._execute(name, args, agent)
        cap = self.result_cap(eng, name)
        text, handle = result.text, result.handle
        raw = None
        spec = self.registry.spec(name)
        exempt = spec is not None and spec.max_result_tokens is None  # fetch_result pages are bounded
        if not exempt and eng.counter.count(text) > cap:
            shaped = await shape_result_async(text, max_tokens=cap, store=eng.results, intent=json.dumps(args or {})[:300],
                                  label=name, model=eng.settings.model)
            text, handle = shaped.text, handle or shaped.handle
            if name == "read_file" and (result.meta or {}).get("path"):
                eng.files.view_cut(str(result.meta["path"]))  # (write_file needs the whole text seen)
        scope = (self.tool_settings.get(name) or {}).get("scope", "turn")
        prov: dict[str, Any] = {"args": args if args is not None else call.arguments}
        if handle:
            prov["handle"] = handle
        meta = dict(getattr(result, "meta", {}) or {})
        if meta.get("path"):
            prov["path"] = meta["path"]  # normalised, workspace-relative: the active file's key
        shown, total = meta.get("range"), meta.get("total_lines")
        ranged = isinstance(shown, list) and len(shown) == 2 and (shown[0] > 1 or (total is not None and shown[1] < total))
        if meta.get("outline") or meta.get("query") or ranged:  # not the whole file: an end_line, a cut, a range
            prov["partial"] = True
            spans = [meta["range"]] if meta.get("range") else meta.get("ranges")
            if spans:
                prov["lines"] = spans  # the line spans shown: the engine keeps them as the file's regions
        if result.is_error:
            prov["error"] = True
        item = eng.add_tool_result(call.id, name, text, raw=raw, scope=scope, provenance=prov)
        written = (args or {}).get("content") if name == "write_file" and not result.is_error else None
        if isinstance(written, str) and meta.get("path"):
            eng.window.note_written(str(meta["path"]), call.id, written)  # its call shows the text: no file note
        if name == "save_memo" and not result.is_error:
            memo_id = agent.ctx.memos_saved[-1] if agent.ctx.memos_saved else ""
            yield ev.MemoSaved(memo_id, "manual", str((args or {}).get("text", "")))
        yield ev.ToolCallFinished(call.id, name, text, bool(result.is_error), handle,
                                  int(result.raw_tokens or 0), eng.counter.count(text), item.id,
                                  dict(getattr(result, "meta", {}) or {}))
