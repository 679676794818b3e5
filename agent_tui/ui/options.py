"""What one TUI run is made of: the options `make_app` takes from the CLI, tests and snapshot apps.

Plain dataclasses with no Textual and no agent imports, so the CLI builds them
in milliseconds and the first frame never waits for the agent's modules;
``SessionSpec.to_options()`` turns the flags into the agent's SessionOptions
inside a worker.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui.demo_project import DEMO_TASK

if TYPE_CHECKING:
    from agent_tui.agent.session import SessionOptions

CONFIGURE_HINT = ("Real model: agent-tui --model openai/gpt-4o (with OPENAI_API_KEY), "
                  "or model = \"…\" in .agent-tui/config.toml.")


@dataclass(frozen=True)
class SessionSpec:
    """The flags for build_agent (a light mirror of agent.session.SessionOptions)."""

    model: str | None = None
    api_base: str | None = None
    window: int | None = None
    session: str | None = None
    """Resume this session id (None: open a new session; f5, the sessions screen, resumes an older one)."""
    new: bool = False
    demo: bool = False
    trust: bool | str | None = None
    """The workspace's own config: None asks the trust store, True applies its asks, False ignores them, a
    fingerprint applies them only while they are the asks it was taken of (the ones the trust dialog showed)."""
    max_steps: int | None = None
    """--max-steps: model calls per turn (None: config)."""
    max_cost: float | None = None
    """--max-cost: dollars per turn (None: config)."""
    max_session_cost: float | None = None
    """--max-session-cost: dollars per session over all its runs (None: config)."""

    def to_options(self) -> SessionOptions:
        from agent_tui.agent.session import SessionOptions

        return SessionOptions(model=self.model, api_base=self.api_base, window=self.window, session=self.session,
                              new=self.new, demo=self.demo, yes=False, interactive=True, trust=self.trust,
                              max_steps=self.max_steps, max_cost=self.max_cost,
                              max_session_cost=self.max_session_cost)

    def resume(self, session_id: str) -> SessionSpec:
        return replace(self, session=session_id, new=False)

    def fresh(self) -> SessionSpec:
        return replace(self, session=None, new=True)

    def with_model(self, model: str, session_id: str) -> SessionSpec:
        return replace(self, model=model, demo=False, session=session_id, new=False)


@dataclass
class UiOptions:
    """Everything `make_app` needs."""

    workspace: Path
    """The project folder (for the demo: its copy of the sample project, ``demo_project``)."""
    session: SessionSpec = field(default_factory=SessionSpec)
    """Which session to open, with which model."""
    demo_reason: str | None = None
    """None for a real model; 'flag' for --demo; 'no-model' when nothing was configured."""
    theme: str | None = None
    """A Textual theme name; None picks one that follows the terminal's colours."""
    preload_llm: bool = True
    """Import litellm in a background worker after the first frame."""
    mcp: bool = True
    """Connect the configured MCP servers after the session opens."""
    first_frame_probe: str | None = None
    """A file to write startup facts to after the first frame, then exit (benchmarks, tests)."""
    demo_note: str = ""
    """Said with the demo banner (another demo runs on the copy: its files were left as they are)."""
    demo_task: str = DEMO_TASK
    """Sent by enter on the empty box in demo mode."""
    keep_history: bool = True
    """Keep the input history and the unsent draft across runs (False: in memory only, for a front-end
    whose folder is never opened again)."""
    extra: dict[str, Any] = field(default_factory=dict)
    """Reserved for front-ends and tests."""

    @property
    def demo(self) -> bool:
        return self.demo_reason is not None

    def banner(self) -> str | None:
        """The demo banner text, or None for a real model."""
        if self.demo_reason is None:
            return None
        why = "no model is configured, so this is" if self.demo_reason == "no-model" else "this is"
        note = f" {self.demo_note}" if self.demo_note else ""
        return f"Offline demo: {why} a scripted model fixing a bug in a copy of a sample project.{note} {CONFIGURE_HINT}"
