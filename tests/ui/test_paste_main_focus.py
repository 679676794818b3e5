"""Pilot tests: a paste on the main screen goes into the message box wherever the focus is.  With the focus on
the conversation (clicked to scroll or select) or nowhere, it went nowhere and was in no draft."""

from __future__ import annotations

from pathlib import Path

from textual import events

from .conftest import demo_app, ready, wait_for


async def test_a_paste_with_the_focus_on_the_conversation_or_nowhere_lands_in_the_box(demo_workspace: Path) -> None:
    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        prompt = app.main.prompt
        prompt.value = ""
        app.main.conversation.focus()
        await pilot.pause()
        app.post_message(events.Paste("hello paste "))
        await wait_for(pilot, lambda: prompt.value == "hello paste ", "the paste in the box")
        await pilot.pause(0.2)
        assert prompt.value == "hello paste ", "it went in once"
        assert app.focused is prompt, "the box has the keyboard, so typing goes on after the paste"
        app.set_focus(None)
        await pilot.pause()
        app.post_message(events.Paste("and more"))
        await wait_for(pilot, lambda: prompt.value == "hello paste and more", "the second paste")
        await pilot.press(*"!")
        await pilot.pause()
        assert prompt.value == "hello paste and more!", "each went in once"
