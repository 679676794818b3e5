"""Approval policy: which tool calls run, which ask, which are refused.

Config (``[approval]``)::

    [approval]
    default_write = "ask"          # ask | allow | deny  (edit_file, write_file)
    default_command = "ask"        # run_command
    tools = { git_diff = "allow", "fs__write_file" = "deny" }
    allow_commands = ["pytest*", "ruff check*", "git status"]
    deny_commands = ["rm -rf*", "git push*"]

Read tools are allowed.  Headless runs turn every remaining ``ask`` into
``deny`` unless ``--yes``.  An MCP tool whose annotations say read-only is
treated as a read tool; other MCP tools ask like writes.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from typing import Any, Literal

Decision = Literal["allow", "ask", "deny"]


@dataclass
class Policy:
    """The merged approval rules of one session."""

    default_write: Decision = "ask"
    """Default for tools that write files."""
    default_command: Decision = "ask"
    """Default for shell commands."""
    tools: dict[str, Decision] = field(default_factory=dict)
    """Per-tool overrides."""
    allow_commands: list[str] = field(default_factory=list)
    """Command patterns that run without asking."""
    deny_commands: list[str] = field(default_factory=list)
    """Command patterns that are always refused."""
    yes: bool = False
    """--yes: every ask becomes allow."""
    interactive: bool = True
    """False in headless runs: every ask becomes deny."""
    always: set[str] = field(default_factory=set)
    """Keys the user allowed 'always' during this session."""

    @classmethod
    def from_config(cls, cfg: dict[str, Any], *, yes: bool = False, interactive: bool = True) -> Policy:
        return cls(
            default_write=cfg.get("default_write", "ask"),
            default_command=cfg.get("default_command", "ask"),
            tools=dict(cfg.get("tools", {})),
            allow_commands=list(cfg.get("allow_commands", [])),
            deny_commands=list(cfg.get("deny_commands", [])),
            yes=yes,
            interactive=interactive,
        )

    @staticmethod
    def key(name: str, args: dict[str, Any]) -> str:
        """What 'allow always' remembers: the tool, or the command's first word for shell."""
        if name == "run_command":
            first = str(args.get("command", "")).strip().split(" ", 1)[0]
            return f"run_command:{first}"
        return name

    def decide(self, name: str, kind: str, args: dict[str, Any]) -> Decision:
        """allow, ask or deny for one call (before asking the user)."""
        decision: Decision
        if name in self.tools:
            decision = self.tools[name]
        elif kind == "read":
            decision = "allow"
        elif kind == "command":
            cmd = str(args.get("command", "")).strip()
            if any(fnmatch.fnmatchcase(cmd, p) for p in self.deny_commands):
                return "deny"
            if any(fnmatch.fnmatchcase(cmd, p) for p in self.allow_commands):
                decision = "allow"
            else:
                decision = self.default_command
        else:
            decision = self.default_write
        if decision == "ask" and self.key(name, args) in self.always:
            decision = "allow"
        if decision == "ask" and self.yes:
            decision = "allow"
        if decision == "ask" and not self.interactive:
            decision = "deny"
        return decision
