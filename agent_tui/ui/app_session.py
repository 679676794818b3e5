"""Opening sessions and loading what the first frame must not wait for.

The first open, /new, /resume and /model all go through ``open_session``: build the
agent in a thread, assemble once (so the gauge has the truth), then install it and
close the previous one.  After the first session: litellm in a background thread
(``preload_litellm``, plus the demo model), and the configured MCP servers.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual import work

from agent_tui.ui.controller import SessionController
from agent_tui.ui.messages import AgentEventReceived, SessionOpened
from agent_tui.ui.options import SessionSpec
from agent_tui.ui.widgets.budget import SPARK_POINTS

if TYPE_CHECKING:
    from agent_tui.core.trust import TrustReport
    from agent_tui.ui.app import AgentApp


@dataclass
class Opened:
    """What the session worker hands back."""

    controller: SessionController
    breakdown: dict[str, Any]
    note: str
    spec: SessionSpec | None = None
    """The flags it was opened with: a model chosen with /model stays for /new and /resume."""
    previous: dict[str, Any] | None = None
    """At start-up, the workspace's last session with messages, when a new one was opened (the hint names it)."""
    earlier: tuple[int, ...] = ()
    """The session's logged request totals before this opening (a resumed session's sparkline goes on from them)."""


def last_session(ctl: SessionController) -> dict[str, Any] | None:
    """The workspace's newest session with messages other than the one just opened (None: there is none)."""
    return next((row for row in ctl.sessions() if row.get("id") != ctl.session_id and row.get("messages")), None)


def resume_hint(row: dict[str, Any]) -> str:
    """One line naming the earlier session and how to open it: a restart opens a new session, and users took
    their conversation for lost."""
    ago = max(0.0, time.time() - float(row.get("updated") or 0))
    when = (f"{int(ago // 86400)} d" if ago >= 86400 else f"{int(ago // 3600)} h" if ago >= 3600
            else f"{max(1, int(ago // 60))} min")
    title = str(row.get("title") or "").strip()
    named = f"“{title[:60]}{'…' if len(title) > 60 else ''}”, " if title else ""
    return (f"Your last session here ({named}{row.get('messages')} messages, {when} ago) is kept: /resume "
            f"{row.get('id')} opens it (f5 lists them all). This one is new.")


class SessionMixin:
    """Mixed into AgentApp: the session lifecycle and the background loads."""

    @work(exclusive=True, group="session", exit_on_error=False)
    async def open_session(self: AgentApp, spec: SessionSpec, note: str, memo_first: bool = False) -> Opened:
        """Open (or switch to) a session; a fresh one may first get a memo of the current one."""
        old = self.controller
        if memo_first and old is not None and old.transcript():
            await self._model_ready()
            memo = await old.agent.write_memo("before new session")
            self.main.post_message(AgentEventReceived(memo))
        opts = spec.to_options()
        ctl = await asyncio.to_thread(SessionController.open, self.options.workspace, opts, self.approve)
        if self.mcp is not None:
            ctl.attach_mcp(self.mcp)
        earlier = tuple(await asyncio.to_thread(ctl.request_totals, SPARK_POINTS))
        breakdown = await asyncio.to_thread(ctl.assemble)
        previous = None
        if old is None and spec.session is None and not spec.demo:
            previous = await asyncio.to_thread(last_session, ctl)
        return Opened(ctl, breakdown, note, spec, previous, earlier)

    def _install(self: AgentApp, opened: Opened) -> None:
        if opened.controller is self.controller:
            return
        old, self.controller = self.controller, opened.controller
        self.open_failed = False
        ctl = opened.controller
        if old is not None:
            old.close()
        self.options.session = (opened.spec or self.options.session).resume(ctl.session_id)
        transcript = ctl.transcript()
        agent = ctl.agent
        cache_pct = 100.0 * agent.session_cached_tokens / agent.session_prompt_tokens if agent.session_prompt_tokens else 0.0
        self.main.post_message(SessionOpened(ctl.session_id, ctl.model, transcript, opened.note,
                                             cost_usd=agent.session_cost, cache_hit_pct=round(cache_pct, 1)))
        self.gauge.show(opened.breakdown, reset=True, earlier=opened.earlier)
        self.main.status.state = "ready" if self.llm_ready.is_set() else "loading model client…"
        for warning in agent.new_warnings():
            if warning not in self.warned:
                self.warned.add(warning)
                self.notify(warning, severity="warning")
        if ctl.session_lock is not None and ctl.session_lock.shared:
            self.notify(f"Session {ctl.session_id} is open in another agent-tui too. Each keeps its own copy of the "
                        "conversation: neither sends the other's turns to the model, and both write to this session. "
                        "/new starts a separate one.", title="Session open elsewhere", severity="warning", timeout=20)
        if ctl.ws.trust.pending:
            self.notify(ctl.ws.trust.notice(), title="Workspace config ignored", severity="warning", timeout=12)
        if agent.llm is None:
            self.notify(no_model_hint(ctl.ws.trust), title="No model", severity="error", timeout=20)
        if old is None:
            if opened.previous is not None:
                self.notify(resume_hint(opened.previous), title="Earlier session kept", timeout=12)
            if self.main.history.waiting_for_trust:
                self.notify("This folder has an input history from an older agent-tui (.agent-tui/"
                            "input_history.jsonl), not loaded: a repository can plant one. If it is yours, trust "
                            "the folder (`agent-tui trust --yes`) and its lines come back on ↑.",
                            title="Input history not loaded", timeout=12)
            if self.options.preload_llm:
                self.preload()
            else:
                self.llm_ready.set()
            if self.options.mcp:
                self.start_mcp()

    @work(thread=True, exclusive=True, group="preload", exit_on_error=False)
    def preload(self: AgentApp) -> float:
        """Import litellm (and register the demo model) off the UI thread, after the first frame."""
        started = time.perf_counter()
        from agent_tui.agent.llm import preload_litellm

        preload_litellm()
        if self.options.demo or (self.controller is not None and self.controller.options.demo):
            from agent_tui.agent.demo import register_demo_provider

            register_demo_provider()
        return time.perf_counter() - started

    @work(exclusive=True, group="mcp", exit_on_error=False)
    async def start_mcp(self: AgentApp) -> str:
        """Connect the configured MCP servers (none configured: nothing to do)."""
        from agent_tui.ui import mcp_link

        ctl = self.controller
        if ctl is None:
            return "none configured"
        manager = await asyncio.to_thread(mcp_link.make_manager, ctl)
        if manager is None:
            return "waiting for trust" if mcp_link.waiting_for_trust(ctl) else "none configured"
        self.mcp = manager
        ctl.attach_mcp(manager)
        self.main.status.mcp = "connecting…"
        await manager.start()
        if not self._alive():
            return "closing"
        if not self.turn_running:
            self.gauge.show(await asyncio.to_thread(ctl.assemble))
        return mcp_link.summary(manager)

    async def _model_ready(self: AgentApp) -> None:
        if not self.llm_ready.is_set():
            self.main.status.state = "loading model client…"
            await self.llm_ready.wait()


def no_model_hint(trust: TrustReport) -> str:
    """What to do when a session opened with no model: how to name one, and why a model the project's own
    config names does not count (the user did not trust the project)."""
    from agent_tui.agent.llm_errors import NoModelConfigured

    held = next((a for a in trust.asks if a.key == "model"), None) if not trust.trusted else None
    why = (f" This project's config asks for {held.line(80)}: it applies once you trust the project "
           "(`agent-tui trust`, or --trust), or name it yourself with /model.") if held is not None else ""
    return NoModelConfigured().message + why
