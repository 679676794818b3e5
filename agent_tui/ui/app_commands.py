"""Slash commands, screen actions and command-palette entries: what each command does.

The app's workers do the work; this mixin only checks preconditions, asks for
a missing argument, and starts the right worker or opens the right screen.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from functools import partial
from typing import TYPE_CHECKING, Any

from textual import work
from textual.app import SystemCommand
from textual.screen import Screen

from agent_tui.ui import commands

if TYPE_CHECKING:
    from agent_tui.ui.app import AgentApp


class UserError(Exception):
    """A request that cannot be done now; its message is shown as it is."""


class CommandsMixin:
    """Mixed into AgentApp: `/name arg` dispatch and the actions bound to keys."""

    def run_command(self: AgentApp, name: str, arg: str) -> None:
        """Run one slash command (from the input, the palette, a key or a threshold offer)."""
        handler = getattr(self, f"cmd_{name}", None)
        if handler is None:
            self.refuse_command(f"unknown command /{name}")
            return
        if arg and (known := commands.BY_NAME.get(name)) is not None and not known.args:
            # (the words after it were dropped without a word: `/memo remember the threshold=0 case`)
            self.refuse_command(f"/{name} takes no argument, so “{arg[:40]}” would be lost: send /{name} alone, or "
                                f"the words as a message", "warning")
            return
        if name not in ("help", "quit", "mcp") and self.controller is None:
            if self.session_opening or not self.open_failed:
                self.refuse_command("The session is still opening; try again in a moment.", "warning")
                return
            if name not in ("new", "resume"):
                self.notify("No session is open (opening it failed): /new starts a fresh one, /resume ID reopens "
                            "one, and a message tries again.", severity="warning")
                return
        handler(arg)

    def refuse_command(self: AgentApp, message: str, severity: str = "error") -> None:
        """Say why the command cannot run; one typed in the box goes back into it to fix."""
        back = self.main.prompt.give_back_command() if self.screen_stack else False
        self.notify(message + (" (It is back in the box.)" if back else ""), severity=severity)  # type: ignore[arg-type]

    def _idle(self: AgentApp, what: str) -> bool:
        if self.turn_running:
            self.refuse_command(f"A turn is running: {what} when it ends, or press esc to cancel it.", "warning")
            return False
        return True

    def _ask(self: AgentApp, command: str, question: str, value: str = "", placeholder: str = "") -> None:
        from agent_tui.ui.screens.ask import AskScreen

        screen = AskScreen(question, value, placeholder)

        def answered(text: str | None) -> None:
            prompt = self.main.prompt
            if text:  # (as if typed in the box: a refusal, or a later question's bad answer, gives it back there)
                prompt.sent_command = f"/{command} {text}"
                try:
                    self.run_command(command, text)
                finally:
                    prompt.sent_command = ""
                return
            typed = screen.typed.strip()
            if typed and typed != value.strip() and prompt.restore(f"/{command} {typed}"):
                self.notify("Cancelled: what you typed is back in the box.", timeout=4)

        self.push_screen(screen, callback=answered)

    # commands ---------------------------------------------------------------------------------------------
    def cmd_context(self: AgentApp, arg: str) -> None:
        self.action_inspector()

    def cmd_pin(self: AgentApp, arg: str) -> None:
        if not arg:
            self.action_inspector()
        elif self.controller is not None and arg in self.controller.item_ids():
            self.item_action("pin", arg)
        else:
            self.pin_rule(arg)

    def _item_command(self: AgentApp, action: str, arg: str) -> None:
        if not arg:
            self.action_inspector()
            return
        self.item_action(action, arg.split()[0])

    def cmd_unpin(self: AgentApp, arg: str) -> None:
        self._item_command("unpin", arg)

    def cmd_evict(self: AgentApp, arg: str) -> None:
        self._item_command("evict", arg)

    def cmd_restore(self: AgentApp, arg: str) -> None:
        self._item_command("restore", arg)

    def cmd_compact(self: AgentApp, arg: str) -> None:
        if self._idle("compact"):
            self.compact_now(arg)

    def cmd_undo(self: AgentApp, arg: str) -> None:
        if self._idle("undo"):  # (`/undo 2` is refused by run_command: each /undo takes back one turn)
            self.undo_turn()

    def cmd_memo(self: AgentApp, arg: str) -> None:
        if self._idle("write a memo"):
            self.write_memo()

    def cmd_memos(self: AgentApp, arg: str) -> None:
        self.action_memos()

    def cmd_new(self: AgentApp, arg: str) -> None:
        if self._idle("start a new session"):
            self.open_session(self.options.session.fresh(), "new session, seeded by the latest memo",
                              memo_first=True)

    def cmd_resume(self: AgentApp, arg: str) -> None:
        # the list opens during a turn too (looking is harmless): refused, the enter meant for it reached the box
        browsing = (not arg and self.turn_running and self.controller is not None
                    and self.controller.ws.memory_trusted)  # (an untrusted store's trust flow opens a session)
        if not browsing and not self._idle("switch sessions"):
            return
        if self.controller is not None and not self.controller.ws.memory_trusted:
            self._trust_to_resume(arg.strip())
            return
        if arg:
            self.open_session(self.options.session.resume(arg), f"resumed session {arg}")
            return
        if self.controller is None:
            self.notify("No session is open to list the others: /resume ID reopens one, /new starts a fresh one.",
                        severity="warning")
            return
        from agent_tui.ui.screens.sessions import SessionsScreen

        def picked(session_id: str | None) -> None:
            if not session_id or self.controller is None or session_id == self.controller.session_id:
                return
            if self.turn_running:
                self.notify(f"A turn is running: resume {session_id} when it ends (f5, or /resume {session_id}), "
                            "or press esc to cancel the turn.", severity="warning")
                return
            self.open_session(self.options.session.resume(session_id), f"resumed session {session_id}")

        current = self.controller.session_id if self.controller is not None else ""
        self.push_screen(SessionsScreen(current), callback=picked)

    def _trust_to_resume(self: AgentApp, target: str) -> None:
        """The store is not the user's: its sessions stay hidden unless the trust dialog says yes
        (then the folder is remembered and ``target``, or the current session, reopens trusted)."""
        from dataclasses import replace

        from agent_tui.core.config import ConfigError, load_config
        from agent_tui.core.store_owner import STORE_ASK_KEY, refuse_resume
        from agent_tui.store.trust_grant import grant
        from agent_tui.ui.screens.trust import TrustScreen

        try:
            report = load_config(self.options.workspace).trust
        except ConfigError as exc:
            self.notify(str(exc), severity="error")
            return
        store = next((a.source for a in report.asks if a.key == STORE_ASK_KEY), "this workspace's store")
        refusal = refuse_resume(store, target)

        async def decided(answer: bool | None) -> None:
            if not answer:
                self.notify(refusal, title="Sessions hidden", severity="warning", timeout=12)
                return
            trust: bool | str | None = None  # the trust store decides: a config changed meanwhile is asked again
            if report.pending:
                granted, problem = await asyncio.to_thread(grant, report)  # (off the UI thread: see _trust_decided)
                if problem:
                    self.notify(f"trusted for this run only: {problem}", severity="warning")
                    trust = granted
            self.options.session = replace(self.options.session, trust=trust)
            self.adopt_history()
            ctl = self.controller
            sid = target or (ctl.session_id if ctl is not None else "")
            note = (f"trusted this folder; resumed session {target}" if target
                    else "trusted this folder: /resume (f5) now lists its sessions")
            self.open_session(self.options.session.resume(sid), note)

        if not report.pending:
            self.call_next(decided, True)  # trusted meanwhile (`agent-tui trust --yes` in another terminal)
            return
        self.push_screen(TrustScreen(report), callback=decided)

    def cmd_model(self: AgentApp, arg: str) -> None:
        ctl = self.controller
        if ctl is None:
            return
        if not self._idle("switch models"):
            return  # (before asking for a name: refused after it was typed, the name was lost)
        if not arg:
            self._ask("model", f"Model (now {ctl.model}; window {ctl.engine.plan.window:,} tokens):",
                      placeholder="openai/gpt-4o")
            return
        self.check_model(arg.strip(), self.main.prompt.sent_command)

    @work(thread=True, exclusive=True, group="model-check", exit_on_error=False)
    def check_model(self: AgentApp, name: str, typed: str = "") -> str:
        """Resolve the name first (litellm's list, or the server's); switch only if it resolves.  A refused
        name typed in the box (``typed``) goes back into it to fix, as a refused command does."""
        from agent_tui.ui import model_check

        ctl = self.controller
        if ctl is None:
            return ""
        self.call_from_thread(setattr, self.main.status, "state", f"checking model {name}…")
        verdict = model_check.check(name, self.options.session.api_base)
        if not verdict.ok:
            self.call_from_thread(setattr, self.main.status, "state", "ready")
            back = bool(typed) and self.call_from_thread(self.main.prompt.restore, typed)
            raise UserError(f"/model refused: {verdict.message}" + (" (It is back in the box.)" if back else ""))
        spec = self.options.session.with_model(name, ctl.session_id)
        self.call_from_thread(self.open_session, spec, f"model switched to {name} ({verdict.message})")
        return name

    def cmd_threshold(self: AgentApp, arg: str) -> None:
        ctl = self.controller
        if ctl is None:
            return
        current = ctl.engine.plan.compact_at
        if not arg:
            self._ask("threshold", f"Compaction point (now {current:.0%}): a percentage, or +5 / -5",
                      placeholder="70")
            return
        try:
            value = commands.threshold_value(arg, current)
        except ValueError as exc:
            self.refuse_command(str(exc))
            return
        self.set_threshold(value)

    def cmd_request(self: AgentApp, arg: str) -> None:
        self.action_request()

    def cmd_mcp(self: AgentApp, arg: str) -> None:
        self.action_mcp()

    def cmd_remember(self: AgentApp, arg: str) -> None:
        """`# TEXT` / `/remember TEXT`: append a rule to AGENTS.md (asked once: this project's or the user's)."""
        from agent_tui.core.rule_files import parse_where, remembered, target_file

        if not arg.strip():
            self._ask("remember", "Rule to add to AGENTS.md:", placeholder="Use pnpm, never npm")
            return
        root = self.controller.root if self.controller is not None else self.options.workspace
        where = remembered(root)
        if where is not None:
            self.add_rule_to_file(where, arg)
            return
        from agent_tui.ui.screens.ask import AskScreen

        typed = self.main.prompt.sent_command

        def answered(text: str | None) -> None:
            choice = parse_where(text or "")
            if choice is None:
                back = " It is back in the box." if typed and self.main.prompt.restore(typed) else ""
                self.notify(f"Rule not added: answer 1 (this project) or 2 (every project).{back}",
                            severity="warning")
                return
            self.add_rule_to_file(choice, arg, remember_it=True)

        question = (f"Where do `# …` rules go? (asked once)\n1 = this project: {target_file(root, 'project')}\n"
                    f"2 = every project (yours): {target_file(root, 'user')}")
        self.push_screen(AskScreen(question, "1", placeholder="1 or 2"), callback=answered)

    def cmd_init(self: AgentApp, arg: str) -> None:
        """Ask the model to draft AGENTS.md for the workspace; its write shows as a diff to approve."""
        if not self._idle("draft AGENTS.md"):
            return
        from agent_tui.agent.init_agents import init_task
        from agent_tui.ui.messages import TaskSubmitted

        root = self.controller.root if self.controller is not None else self.options.workspace
        self.post_message(TaskSubmitted(init_task(root)[1]))

    def cmd_tools(self: AgentApp, arg: str) -> None:
        """`/tools` lists the tool items in the inspector; `/tools off NAME` / `on NAME` disables or enables one."""
        verb, _, name = arg.partition(" ")
        if verb in ("off", "on") and name.strip():
            tool = name.strip()
            self.item_action("evict" if verb == "off" else "restore", tool if tool.startswith("tool:") else f"tool:{tool}")
            return
        if arg:
            self.refuse_command("usage: /tools, /tools off NAME, /tools on NAME", "warning")
            return
        from agent_tui.ui.screens.inspector import InspectorScreen

        self._open(InspectorScreen(query="cat:tools"))

    def cmd_help(self: AgentApp, arg: str) -> None:
        self.action_help()

    def cmd_quit(self: AgentApp, arg: str) -> None:
        self.exit(0)

    # screens ------------------------------------------------------------------------------------------------
    def _open(self: AgentApp, screen: Screen[Any]) -> None:
        if type(self.screen) is not type(screen):
            self.push_screen(screen)

    def action_inspector(self: AgentApp) -> None:
        from agent_tui.ui.screens.inspector import InspectorScreen

        self._open(InspectorScreen())

    def action_request(self: AgentApp) -> None:
        from agent_tui.ui.screens.request_view import RequestScreen

        self._open(RequestScreen())

    def action_memos(self: AgentApp) -> None:
        from agent_tui.ui.screens.memos import MemosScreen

        self._open(MemosScreen())

    def action_mcp(self: AgentApp) -> None:
        from agent_tui.ui.screens.mcp import McpScreen

        self._open(McpScreen())

    def action_help(self: AgentApp) -> None:
        from agent_tui.ui.screens.help import HelpScreen

        self._open(HelpScreen(str(self.options.workspace)))

    def action_resume(self: AgentApp) -> None:
        self.run_command("resume", "")

    # the command palette ---------------------------------------------------------------------------------------
    def get_system_commands(self: AgentApp, screen: Screen[Any]) -> Iterable[SystemCommand]:
        for cmd in commands.COMMANDS:
            title = f"/{cmd.name}{' ' + cmd.args if cmd.args else ''}"
            if cmd.needs_arg:
                callback = partial(self._ask, cmd.name, f"/{cmd.name} {cmd.args}: {cmd.help}")
            else:
                callback = partial(self.run_command, cmd.name, "")
            yield SystemCommand(title, cmd.help, callback)
        yield SystemCommand("Theme", "Change the colours", self.action_change_theme)
