"""Approval policy: which tool calls run, which ask, which are refused, and why.

Config (``[approval]``)::

    [approval]
    default_write = "ask"          # ask | allow | deny  (edit_file, write_file)
    default_command = "ask"        # ask | allow | deny  (run_command)
    sandboxed_commands = "ask"     # ask | allow: "allow" runs commands unasked when they run in the sandbox
    tools = { git_diff = "allow", "fs__write_file" = "deny" }
    allow_commands = ["pytest", "ruff check", "git status"]   # argv prefixes ("pytest*" still accepted)
    allow_outside_commands = ["git commit"]                   # the same, also run outside the sandbox
    deny_commands = ["rm -rf", "git push"]                     # program + flags in any order, through wrappers

Read tools are allowed.  Deny rules always win, over a per-tool ``allow``, a
remembered "always", the sandbox policy and ``--yes``.  A command the model asks to run
``outside_sandbox`` (git writes, network) is never allowed by the sandbox policy or by
``--yes``: only the user, an ``allow_outside_commands`` rule or a per-tool ``allow`` they wrote; nor is a
command where the sandbox was wanted and does not work (it would run on the host).  An
``allow_commands`` rule or an "always" given to a sandboxed command covers it in the sandbox only:
``git status`` allowed there runs the repository's ``core.fsmonitor`` when run outside, and ``make
-n`` its ``$(shell …)``.  On the host no allow rule covers a git line in a repository whose config or
hooks name programs (``command_rules_git``): the user is asked, with the programs listed.  Headless runs turn every
remaining ``ask`` into ``deny`` unless ``--yes``.  An MCP tool whose annotations
say read-only is treated as a read tool; other MCP tools ask like writes.  How
commands are parsed and matched is in ``agent_tui.agent.command_rules``.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from agent_tui.agent.command_rules import (
    CommandRules,
    blockers,
    offered_prefix,
    prefix_covers,
    rule_stopped,
    uncovered,
)
from agent_tui.agent.command_rules_git import repo_program_blockers
from agent_tui.agent.command_rules_toolcfg import tool_config_blockers
from agent_tui.core.config import ConfigError
from agent_tui.core.tool_names import strictest_key
from agent_tui.tools.argv_text import shown_argv
from agent_tui.tools.cmdparse import parse_command
from agent_tui.tools.shell_dialect import rules_apply

Decision = Literal["allow", "ask", "deny"]
DECISIONS: tuple[str, ...] = ("allow", "ask", "deny")


@dataclass(frozen=True)
class Verdict:
    """The policy's answer for one call, before the user is asked."""

    decision: Decision
    """allow, ask or deny."""
    reason: str = ""
    """Why, in words for the user and the model (which rule, or what kept it from auto-approval)."""
    prefix: tuple[str, ...] | None = None
    """For a command: the argv prefix the dialog may offer to remember (None: exact command only)."""

    @property
    def prefix_text(self) -> str | None:
        """The offered prefix as a shell line."""
        return shlex.join(self.prefix) if self.prefix else None


def _decision(value: Any, where: str, allowed: tuple[str, ...] = DECISIONS) -> Decision:
    if not isinstance(value, str) or value not in allowed:
        raise ConfigError(f"[approval] {where} must be one of {', '.join(allowed)}, got {value!r}")
    return value  # type: ignore[return-value]


def _strings(value: Any, where: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"[approval] {where} must be a list of strings, got {value!r}")
    return list(value)


@dataclass
class Policy:
    """The merged approval rules of one session."""

    default_write: Decision = "ask"
    """Default for tools that write files."""
    default_command: Decision = "ask"
    """Default for shell commands."""
    tools: dict[str, Decision] = field(default_factory=dict)
    """Per-tool overrides (deny rules still apply to commands)."""
    allow_commands: list[str] = field(default_factory=list)
    """Argv prefixes that run without asking (in the sandbox, when there is one)."""
    allow_outside_commands: list[str] = field(default_factory=list)
    """Argv prefixes that run without asking also outside the sandbox."""
    deny_commands: list[str] = field(default_factory=list)
    """Programs with flags that are always refused."""
    sandboxed_commands: Decision = "ask"
    """``allow``: commands that run inside the sandbox need no approval."""
    yes: bool = False
    """--yes: every ask becomes allow."""
    interactive: bool = True
    """False in headless runs: every ask becomes deny."""
    always: set[str] = field(default_factory=set)
    """Tools the user allowed 'always' during this session (those with no ``path`` argument: MCP tools)."""
    always_paths: set[tuple[str, str]] = field(default_factory=set)
    """(tool, path) pairs the user allowed 'always': a write allowed always is allowed again on that file
    only (an 'always' on a scratch file let every later write_file, of any file, run unasked)."""
    always_commands: set[str] = field(default_factory=set)
    """Exact command lines the user allowed 'always'."""
    always_prefixes: list[tuple[str, ...]] = field(default_factory=list)
    """Argv prefixes the user allowed 'always' (shown in the dialog when chosen)."""
    always_outside_commands: set[str] = field(default_factory=set)
    """Exact command lines the user allowed 'always' outside the sandbox."""
    always_outside_prefixes: list[tuple[str, ...]] = field(default_factory=list)
    """Argv prefixes the user allowed 'always' outside the sandbox."""
    sandboxed: bool = False
    """True when commands run inside the sandbox (set by the session after checking bwrap)."""
    sandbox_missing: bool = False
    """True when the sandbox was wanted (``[sandbox] mode = "auto"``) but does not work here: commands would run
    on the host, so ``--yes`` does not cover them (as for ``outside_sandbox``)."""
    workspace: Path | None = None
    """The workspace root: redirections inside it are fine."""

    @classmethod
    def from_config(cls, cfg: dict[str, Any], *, yes: bool = False, interactive: bool = True,
                    workspace: Path | None = None) -> Policy:
        """The policy from an ``[approval]`` table; a wrong value is a ConfigError, never a silent allow."""
        tools = cfg.get("tools", {})
        if not isinstance(tools, dict):
            raise ConfigError(f"[approval] tools must be a table of tool = ask|allow|deny, got {tools!r}")
        return cls(
            default_write=_decision(cfg.get("default_write", "ask"), "default_write"),
            default_command=_decision(cfg.get("default_command", "ask"), "default_command"),
            tools={str(k): _decision(v, f"tools.{k}") for k, v in tools.items()},
            allow_commands=_strings(cfg.get("allow_commands", []), "allow_commands"),
            allow_outside_commands=_strings(cfg.get("allow_outside_commands", []), "allow_outside_commands"),
            deny_commands=_strings(cfg.get("deny_commands", []), "deny_commands"),
            sandboxed_commands=_decision(cfg.get("sandboxed_commands", "ask"), "sandboxed_commands",
                                         ("ask", "allow")),
            yes=yes,
            interactive=interactive,
            workspace=workspace,
        )

    @property
    def rules(self) -> CommandRules:
        """The parsed allow and deny rules (rebuilt when the lists change)."""
        return self._rules_of(self.allow_commands)

    def _rules_of(self, allow: list[str]) -> CommandRules:
        key = (tuple(allow), tuple(self.deny_commands))
        cache: dict[tuple[tuple[str, ...], tuple[str, ...]], CommandRules] = self.__dict__.setdefault("_rules", {})
        if key not in cache:
            cache[key] = CommandRules(allow, self.deny_commands)
        return cache[key]

    def _tool_key(self, name: str) -> str | None:
        """The ``[approval] tools`` key that names tool ``name`` (an MCP tool as the user writes it too:
        ``1password__get`` for the ``_1password__get`` sent to the model)."""
        return strictest_key(self.tools, name)

    def _outside(self, args: dict[str, Any]) -> bool:
        """A command that leaves the sandbox (only when there is one: without it every command runs outside,
        and the allow rules are what the user wrote them for)."""
        return self.sandboxed and args.get("outside_sandbox") is True

    def remember(self, name: str, args: dict[str, Any], prefix: tuple[str, ...] | None = None) -> None:
        """'Always': the exact command line (or the explicit ``prefix`` shown in the dialog); a tool's name.
        A command allowed always outside the sandbox is remembered for outside runs only, and one allowed
        in it for runs in it only."""
        if name == "run_command":
            outside = self._outside(args)
            if prefix:
                (self.always_outside_prefixes if outside else self.always_prefixes).append(tuple(prefix))
            else:
                commands = self.always_outside_commands if outside else self.always_commands
                commands.add(str(args.get("command", "")).strip())
        elif name in FILE_WRITES:  # ("Always, this file": an edit or a rewrite of it; a path not resolved: nothing)
            if (path := _file_of(name, args, self.workspace)) is not None:
                self.always_paths.update((tool, path) for tool in FILE_WRITES)
        else:
            self.always.add(name)

    def decide(self, name: str, kind: str, args: dict[str, Any]) -> Decision:
        """allow, ask or deny for one call (before asking the user)."""
        return self.verdict(name, kind, args).decision

    def verdict(self, name: str, kind: str, args: dict[str, Any]) -> Verdict:
        """The decision for one call with its reason (before asking the user)."""
        if kind == "command":
            v = self._command(name, args)
        elif (key := self._tool_key(name)) is not None:
            v = Verdict(self.tools[key], f"[approval] tools.{key} = {self.tools[key]}")
        elif kind == "read":
            v = Verdict("allow", "reads are allowed")
        else:
            v = Verdict(self.default_write, f"[approval] default_write = {self.default_write}")
        if v.decision == "ask" and kind != "command":
            path = _file_of(name, args, self.workspace)
            if path is None and name in self.always:
                v = Verdict("allow", f"you allowed {name} always")
            elif path is not None and (name, path) in self.always_paths:
                v = Verdict("allow", f"you allowed writes to {path} always")
        if v.decision == "ask" and kind == "command" and self.sandbox_missing:
            if self.interactive:
                return v
            return Verdict("deny", "there is no working sandbox here, so the command would run on the host: --yes "
                                   "does not cover that; an allow rule does, or `[sandbox] mode = \"off\"` in your "
                                   f"config if --yes should ({v.reason})", v.prefix)
        if v.decision == "ask" and kind == "command" and self.sandboxed and args.get("outside_sandbox") is True:
            # the sandbox is what makes --yes safe: leaving it needs a person or an explicit rule
            if self.interactive:
                return v
            return Verdict("deny", f"running outside the sandbox needs the user's approval; --yes does not cover "
                                   f"it, an allow rule does ({v.reason})", v.prefix)
        return self._finish(v)

    def _command(self, name: str, args: dict[str, Any]) -> Verdict:
        cmd = str(args.get("command", "")).strip()
        parsed = parse_command(cmd)
        denied = self.rules.denied(cmd, parsed)
        if denied:
            return Verdict("deny", denied)
        if (key := self._tool_key(name)) is not None and self.tools[key] != "ask":
            return Verdict(self.tools[key], f"[approval] tools.{key} = {self.tools[key]}")
        outside = self._outside(args)
        if cmd in (self.always_outside_commands if outside else self.always_commands):
            return Verdict("allow", "you allowed this exact command always" + (" outside the sandbox" if outside else ""))
        confined = self.sandboxed and not outside
        why = blockers(parsed, self.workspace, confined=confined)
        if not confined:
            why += repo_program_blockers(parsed, self.workspace)
            why += tool_config_blockers(parsed, self.workspace)
        if not rules_apply():
            why = [*why, "this machine has no bash, so the line runs with sh, which may read it otherwise than the "
                         "rules do: no allow rule applies"]
        prefix = None if why else offered_prefix(parsed, self.workspace, checked=True)
        if not why:
            prefixes = (self._rules_of(self.allow_outside_commands).allow + self.always_outside_prefixes if outside
                        else self.rules.allow + self.always_prefixes)
            missing = uncovered(parsed, prefixes)
            if not missing:
                used = sorted({shlex.join(p) for c in parsed.commands for p in prefixes if prefix_covers(p, c)})
                return Verdict("allow", f"allowed by {', '.join(used)}", prefix)
            shown = ", ".join(f"`{shown_argv(c.argv[:3]) or '(assignment)'}`" for c in missing[:3]) + (
                f" (+{len(missing) - 3} more)" if len(missing) > 3 else "")
            why = [f"no allow rule covers {shown}" + (" outside the sandbox (allow_outside_commands)" if outside else "")]
            why += [stopped for c in missing[:3] if (stopped := rule_stopped(c, prefixes))]
        if self.sandboxed and self.sandboxed_commands == "allow" and not outside:
            return Verdict("allow", "runs inside the sandbox ([approval] sandboxed_commands = allow)", prefix)
        default = self.default_command
        if default == "ask":
            return Verdict("ask", "; ".join(why), prefix)
        return Verdict(default, f"[approval] default_command = {default} ({'; '.join(why)})", prefix)

    def _finish(self, v: Verdict) -> Verdict:
        if v.decision != "ask":
            return v
        if self.yes:
            return Verdict("allow", f"--yes ({v.reason})", v.prefix)
        if not self.interactive:
            return Verdict("deny", f"nobody to ask in a headless run without --yes ({v.reason})", v.prefix)
        return v


#: The built-in tools that write a workspace file named by their ``path``: an 'always' covers that file.
FILE_WRITES = frozenset({"write_file", "edit_file"})


def _file_of(name: str, args: dict[str, Any], workspace: Path | None = None) -> str | None:
    """The file a built-in write targets, as the tools find it: resolved in ``workspace`` through its links
    (``lnk/../notes.txt`` with ``lnk -> sub/deep`` is ``sub/notes.txt``, where ``normpath`` said ``notes.txt``, another
    file); normalised only, with no workspace.  None for any other tool (an MCP tool's 'always' covers the tool, as
    its dialog says, whatever its arguments) and for a path the tools would refuse."""
    import posixpath

    path = args.get("path")
    if name not in FILE_WRITES or not isinstance(path, str) or not path.strip():
        return None
    if workspace is None:
        return posixpath.normpath(path.strip())
    from agent_tui.tools.workspace import WorkspaceError, resolve

    try:
        return resolve(workspace, path).relative_to(workspace.resolve()).as_posix()
    except (WorkspaceError, OSError, RuntimeError, ValueError):
        return None
