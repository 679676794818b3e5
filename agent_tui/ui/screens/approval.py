"""The approval dialog: docked at the bottom over the conversation (which stays visible, so the
user sees why the agent asks), showing the exact change (a unified diff against the file as it
is now) or command, and answering allow once / always / deny / deny with a reason.  Esc is
not a denial: it stops the turn, as esc does on the main screen (a denial lets the agent go on).

A reason typed after ``r`` reaches the model as ``denied by user: <reason>`` (the answer is
``deny:<reason>``; see ``agent_tui.agent.approval_preview``).

For a command, "always" remembers that exact line; when the policy offers a prefix
(``pytest``, ``git status``) the key ``p`` remembers the prefix, which the dialog shows, so
the user sees exactly which later commands it lets through.  Why the policy asked (e.g.
which part of the line no allow rule covers) is shown under the command.

Nothing of a command hides below the fold: a call outside the sandbox says so in the title (not
after the command's last line), runs of blank lines and long runs of spaces are folded into
visible markers, and when the text is taller than its box a line under the box says how many
lines are still below.

Keys the user was typing for the message box when the dialog opened never answer it: the app sends
them on to the box while the burst lasts (``agent_tui.ui.typing_guard``), and the dialog says so.
"""

from __future__ import annotations

import re
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

from agent_tui.agent.approval_preview import OUTSIDE_SANDBOX
from agent_tui.agent.events import ApprovalRequested
from agent_tui.ui.diffview import diff_content
from agent_tui.ui.screens.to_box import PastesToBox
from agent_tui.ui.typing_guard import HELD_NOTE, KEY_HINT, GuardsTyping

ANSWERS = ("once", "always", "prefix", "deny")
PREVIEW_SHARE = 0.35
"""The diff or command box takes at most this share of the screen's rows (then it scrolls)."""
PREVIEW_MIN_ROWS = 4
SMALL_HEIGHT = 20
"""Below this height the dialog may take the whole screen."""
BUTTONS = ("once", "always", "prefix", "deny", "reason")
"""The answer buttons in their order (``prefix`` only when a prefix is offered)."""
BUTTON_CELLS = 4
"""Cells a button takes beyond its label: its compact frame (2) and the margin after it (2)."""
SHORT_LABELS = {"once": "Once (y)", "always": "Always (a)", "prefix": "Prefix (p)", "deny": "Deny (n)",
                "reason": "Deny+why (r)"}
"""Labels on a narrow terminal ("Why? (r)" read like a question about the dialog: a tester)."""
SHORT_FILE_ALWAYS = "Always: file (a)"
"""The short "Always" of a write, which is allowed again on its file only (it said "Always (a)", scope lost)."""
WIDE_GAP = 16
"""A run of at least this many spaces or tabs inside a command line is shown as one marker."""
MARK = "reverse $warning"
ESC_HINT = "esc stops the turn"
"""On the dialog's top edge: esc is not a denial (n is)."""


class ReasonInput(Input):
    """Where the user types why a call is denied; esc goes back to the choices."""

    BINDINGS = [Binding("escape", "screen.back", "Back", show=False)]


_PATH = re.compile(r"/[^\s`'\"]{2,}")
SHORT_PATH = 24
"""An absolute path longer than this, already shown whole on the command line, is cut to ``…/bin/python3``
in the lines under it (a long install path would push the conversation off an 80x24 screen)."""


def shorten_paths(text: str, command: str) -> str:
    """``text`` with each long absolute path that ``command`` shows in full cut to its last two parts."""
    def cut(m: re.Match[str]) -> str:
        path = m.group(0)
        if len(path) <= SHORT_PATH or path not in command:
            return path
        return "…/" + "/".join(path.rstrip("/").split("/")[-2:])

    return _PATH.sub(cut, text)


def first_change(diff: str) -> int:
    """The line index of the first removed or added line of a unified diff (0 when there is none)."""
    for n, line in enumerate(diff.splitlines()):
        if line[:1] in "-+" and not line.startswith(("---", "+++")):
            return n
    return 0


def rows_before(text: str, line: int, width: int) -> int:
    """The screen rows the lines of ``text`` before ``line`` take at ``width`` (a long line wraps: at 60 columns
    the diff's line number was some rows short of the change, and the dialog opened on its context)."""
    if width <= 0:
        return line
    return sum(max(1, len(Content(row).wrap(width))) for row in text.splitlines()[:line])


def split_command(preview: str) -> tuple[str, bool]:
    """(the command line without ``$ `` and the outside-the-sandbox note, whether the note was there)."""
    command = preview.removeprefix("$ ")
    if command.endswith(OUTSIDE_SANDBOX):
        return command.removesuffix(OUTSIDE_SANDBOX), True
    return command, False


_GAP = re.compile(rf"[ \t]{{{WIDE_GAP},}}")


def _line_content(line: str) -> Content:
    parts: list[Content] = []
    at = 0
    for m in _GAP.finditer(line):
        parts += [Content.styled(line[at:m.start()], "bold"), Content.styled(f" ␠×{len(m.group(0))} ", MARK)]
        at = m.end()
    parts.append(Content.styled(line[at:], "bold"))
    return Content("").join(parts)


def command_content(command: str) -> Content:
    """The command as the dialog shows it: a run of blank (or whitespace-only) lines, which would push
    the rest of the command out of its box, becomes one marked line ``⏎ ×40 blank lines``; so does a
    long run of spaces inside a line."""
    lines = command.split("\n")
    shown: list[Content] = []
    i = 0
    while i < len(lines):
        j = i
        while j < len(lines) and not lines[j].strip():
            j += 1
        run = j - i
        if run == 0:
            shown.append(_line_content(lines[i]))
            i += 1
            continue
        if run == 1 and not lines[i]:
            shown.append(Content(""))
        else:
            shown.append(Content.styled(f"⏎ ×{run} blank line{'s' if run > 1 else ''}", MARK))
        i = j
    return Content("\n").join(shown)


def _command_hint(req: ApprovalRequested) -> Content:
    """Why the policy asks, and exactly what 'always' (a) and 'always prefix' (p) would allow later."""
    lines = [f"Why asked: {shorten_paths(req.reason, req.preview)}"] if req.reason else []
    choices = "a allows this exact command again"
    if req.prefix:
        quoted = f"`{req.prefix}`"
        # Long interpreter paths would otherwise be printed twice and push the conversation away.
        shown = "that" if quoted in (req.reason or "") else shorten_paths(quoted, req.preview)
        choices += f" · p allows any command starting with {shown}"
    lines.append(choices)
    return Content("\n".join(lines))


def _tool_hint(req: ApprovalRequested) -> Content:
    """Why an MCP tool's call is asked about, and what 'always' (a) allows."""
    lines = [f"Why asked: {req.reason}"] if req.reason else []
    lines.append(f"a allows every call of {req.name} for the rest of this session")
    return Content("\n".join(lines))


class _Dialog(Vertical):
    """The docked box; when its height settles or changes, the conversation behind is lifted to match."""

    def on_resize(self) -> None:
        uncover = getattr(self.screen, "_uncover", None)
        if uncover is not None:
            self.call_after_refresh(uncover)


class ApprovalScreen(PastesToBox, GuardsTyping, ModalScreen[str]):
    """Asks whether a write or a command may run; dismisses with once, always, prefix, deny or deny:<reason>."""

    CSS_PATH = "approval.tcss"
    AUTO_FOCUS = "#once"
    SAFE_ANSWER = "deny"
    BINDINGS = [
        Binding("y", "answer('once')", "Allow once", tooltip="allow once"),
        Binding("a", "answer('always')", "Always",
                tooltip="always allow, for the session: a write, on this file; an MCP tool, every call; a command, this exact line"),
        Binding("p", "answer('prefix')", "Always this prefix", show=False,
                tooltip="always allow commands starting with the prefix shown (when one is offered)"),
        Binding("n", "answer('deny')", "Deny", tooltip="deny (the model is told; the turn goes on)"),
        Binding("r", "reason", "Deny with reason", priority=True,
                tooltip="deny and say why (the model reads the reason)"),
        Binding("escape", "cancel_turn", "Stop the turn", tooltip="stop the turn (nothing runs)"),
        Binding("ctrl+c", "cancel_turn", "Stop the turn", show=False, tooltip="stop the turn, as esc does"),
        Binding("pagedown", "scroll_preview(1)", "Scroll the change", show=False,
                tooltip="scroll a long change or command down"),
        Binding("pageup", "scroll_preview(-1)", "Scroll the change", show=False,
                tooltip="scroll a long change or command up"),
        Binding("left,up", "move_answer(-1)", "Previous answer", show=False, tooltip="focus the previous answer"),
        Binding("right,down", "move_answer(1)", "Next answer", show=False, tooltip="focus the next answer"),
    ]
    """The help screen lists these keys (with their tooltips), so what it says and what the dialog takes agree."""

    def __init__(self, request: ApprovalRequested) -> None:
        super().__init__()
        self.request = request
        always = "Always, this file (a)" if request.path and request.kind != "command" and request.server is None \
            else "Always (a)"  # a write allowed always is allowed again on its file only
        self._labels = {"once": "Allow once (y)", "always": always, "prefix": "Prefix (p)", "deny": "Deny (n)",
                        "reason": "Deny, say why (r)"}
        """The buttons' labels (``SHORT_LABELS`` on a narrow terminal)."""
        self._fitted = False
        """The preview was found longer than its box (scrolled to the first change once)."""
        self._watching = False
        self._cut_to = 1 << 30
        """The preview's height after the last cut that kept the buttons on screen."""

    def compose(self) -> ComposeResult:
        req = self.request
        with _Dialog(id="approval-dialog") as dialog:
            dialog.border_title = ESC_HINT
            yield Label(self._title(), id="approval-title")
            with VerticalScroll(id="approval-preview"):
                if req.kind == "command":
                    command, _ = split_command(req.preview)
                    with Horizontal(id="approval-cmdline"):  # the $ in its own column: a long path folds beside it
                        yield Static("$" if req.preview.startswith("$ ") else "", id="approval-dollar")
                        yield Static(command_content(command), id="approval-command")
                elif req.server is not None:
                    yield Static(Content(req.preview), id="approval-args")
                else:
                    yield Static(diff_content(req.preview), id="approval-diff")
            yield Static("", id="approval-more")
            if req.kind == "command":
                yield Static(_command_hint(req), id="approval-why")
            elif req.server is not None:
                yield Static(_tool_hint(req), id="approval-why")

            yield ReasonInput(placeholder="why not? enter tells the model · esc goes back", id="approval-reason")
            yield Static(HELD_NOTE, id="typing-held")
            short, _ = self._button_layout(self.app.size.width)
            with Horizontal(id="approval-buttons"):
                yield Button(Content(self._label("once", short)), id="once", variant="success", compact=True)
                yield Button(Content(self._label("always", short)), id="always", variant="primary", compact=True)
                prefix = Button(Content(self._label("prefix", short)), id="prefix", variant="primary", compact=True)
                prefix.display = bool(req.prefix)  # (a button too: once the dialog held typing, `p` goes to the box)
                yield prefix
                yield Button(Content(self._label("deny", short)), id="deny", variant="error", compact=True)
                yield Button(Content(self._label("reason", short)), id="reason", variant="warning", compact=True)

    def _title(self, scrolls: bool = False) -> Content:
        req = self.request
        what = ("run this command" if req.kind == "command" else
                f"run (MCP server {req.server}) with these arguments" if req.server is not None else "make this change")
        outside = req.kind == "command" and split_command(req.preview)[1]
        return Content.assemble(("Approval ", "bold $warning"),
                                ("⚠ OUTSIDE THE SANDBOX ", "bold reverse $error") if outside else "",
                                (f"· allow {req.name} to {what}?", "bold"),
                                ("  pgup/pgdn scroll it" if scrolls else "", "$text-muted"))

    def on_mount(self) -> None:
        below = self.app.screen_stack[-2] if len(self.app.screen_stack) > 1 else None
        self._below: Any = below if hasattr(below, "uncover") else None
        self.call_after_refresh(self._fit_preview)

    def on_resize(self) -> None:
        self.call_after_refresh(self._fit_preview)

    def _fit_preview(self) -> None:
        """The preview as tall as its content up to a third of the screen (it scrolls beyond: pgup/pgdn).
        Set as a height, not only as CSS max-height: the docked box's auto height ignores a child's cap
        and kept the blank rows (16 of 24 at 80x24)."""
        found = self.query("#approval-preview").results(VerticalScroll)
        preview = next(found, None)
        if preview is None:
            return  # answered and gone before its first layout
        if not self._watching:
            self._watching = True
            self.watch(preview, "scroll_y", self._show_more, init=False)
        cap = max(PREVIEW_MIN_ROWS, int(self.size.height * PREVIEW_SHARE))
        needed = preview.virtual_size.height
        if needed > 0:
            preview.styles.height = needed if needed <= cap else cap - 1  # (a row for the line saying what is below)
        if needed > cap and not self._fitted:
            self._fitted = True
            self.query_one("#approval-title", Label).update(self._title(scrolls=True))
            if self.request.kind != "command":  # a command is read from its first line
                width = preview.scrollable_content_region.width
                at = rows_before(self.request.preview, first_change(self.request.preview), width)
                preview.scroll_to(y=max(0, at - min(2, (cap - 1) // 3)), animate=False)  # (context above it)
        self._fit_small()
        self._cut_to = 1 << 30  # (a new fit, after a resize: the cuts start again from its height)
        self.call_after_refresh(self._keep_buttons_on_screen)
        self.call_after_refresh(self._show_more)
        self._uncover()

    def _fit_small(self) -> None:
        """On a small terminal the dialog may take the whole height, and the buttons say less: at 60x15 the
        last button was cut off and at 50x12 none showed (they were below the box's 70 % cap)."""
        dialog = next(self.query("#approval-dialog").results(), None)
        if dialog is None:
            return
        short, two_rows = self._button_layout(self.size.width)
        # (on a narrow screen the text wraps and the buttons take rows: 70 % left the last ones below it)
        dialog.styles.max_height = "100%" if self.size.height < SMALL_HEIGHT or two_rows else "70%"
        self.set_class(two_rows, "-two-rows")
        if two_rows:  # (as many columns as the widest short label allows: five answers took three rows at 60)
            widest = max(len(self._label(b, True)) for b in BUTTONS) + BUTTON_CELLS
            columns = max(1, min(len(BUTTONS), (self.size.width - 2 + 1) // (widest + 1)))
            for row in self.query("#approval-buttons").results():
                row.styles.grid_size_columns = columns
        relabelled = False
        for button in self.query("#approval-buttons Button").results(Button):
            label = self._label(str(button.id), short)
            if str(button.label) != label:
                button.label = label
                button.refresh(layout=True)  # (an auto width is not measured again for a new label by itself)
                relabelled = True
        if relabelled:  # (the new widths are laid out a refresh later: look again after that one)
            self.call_after_refresh(lambda: self.call_after_refresh(self._keep_buttons_on_screen))

    def _button_layout(self, width: int) -> tuple[bool, bool]:
        """(short labels, two rows) on a screen ``width`` cells wide: the long labels while all fit on one row,
        else the short ones, on two rows when even they do not (at 40 columns "Deny, say why" was cut or hidden)."""
        shown = [b for b in BUTTONS if b != "prefix" or self.request.prefix]
        room = width - 2 + 2  # (the dialog's padding; the last button's margin may fall outside)

        def need(short: bool) -> int:
            return sum(len(self._label(b, short)) + BUTTON_CELLS for b in shown)

        if need(False) <= room:
            return False, False
        return True, need(True) > room

    def _label(self, button: str, short: bool) -> str:
        label = SHORT_LABELS[button] if short else self._labels[button]
        if short and button == "always" and self._labels[button].startswith("Always, this file"):
            label = SHORT_FILE_ALWAYS
        return KEY_HINT.sub("", label) if self.held() else label  # (letters type into the box then)

    def _keep_buttons_on_screen(self) -> None:
        """The preview gives up rows while the box's content is taller than the box (the buttons come last).
        Checked again after each cut until it fits: a label that changed, or buttons that went to two rows,
        can make the content taller a refresh later, and one check left a busy CI run with the buttons
        below the box (the preview shrinks each time, so this ends)."""
        dialog = next(self.query("#approval-dialog").results(), None)
        preview = next(self.query("#approval-preview").results(VerticalScroll), None)
        if dialog is None or preview is None:
            return
        over = dialog.virtual_size.height - dialog.scrollable_content_region.height
        if over > 0 and preview.size.height > 1:
            height = max(1, preview.size.height - over)
            preview.styles.height = height
            self.call_after_refresh(self._show_more)
            if height < self._cut_to:  # (only while each cut takes rows: a preview that cannot shrink stops it)
                self._cut_to = height
                self.call_after_refresh(self._keep_buttons_on_screen)

    def _show_more(self, _: float | None = None) -> None:
        """Under the box: how many lines of the command (or change) are still below what it shows."""
        preview = next(self.query("#approval-preview").results(VerticalScroll), None)
        more = next(self.query("#approval-more").results(Static), None)
        if preview is None or more is None:
            return
        below = preview.virtual_size.height - int(preview.scroll_y) - preview.scrollable_content_region.height
        above = int(preview.scroll_y)
        what = ("command" if self.request.kind == "command" else
                "call" if self.request.server is not None else "change")
        if below > 0:
            more.update(Content.styled(f"▼ the {what} continues below: {below} more line{'s' if below > 1 else ''}"
                                       f" (pgdn){f' · {above} above' if above else ''}", MARK))
        elif above > 0:
            more.update(Content.styled(f"▲ end of the {what} · {above} line{'s' if above > 1 else ''} above (pgup)",
                                       "$text-muted"))
        more.display = below > 0 or above > 0

    def _uncover(self) -> None:
        """Lift the conversation's end above the dialog (it docks over the box and status line)."""
        dialog = self.query("#approval-dialog")
        if getattr(self, "_below", None) is not None and self.app.screen is self and dialog:
            self._below.uncover(dialog.first().region.y)

    def on_unmount(self) -> None:
        if getattr(self, "_below", None) is not None:
            self._below.uncover(None)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id in ANSWERS:
            self.dismiss(event.button.id)
        elif event.button.id == "reason":
            self.action_reason()

    def action_answer(self, answer: str) -> None:
        if answer == "prefix" and not self.request.prefix:
            return
        self.dismiss(answer)

    def action_cancel_turn(self) -> None:
        """Esc stops the whole turn, as it does on the main screen (whose notice may have just promised
        it): a denial would let the agent go on.  With no turn behind the dialog, it is a denial."""
        app: Any = self.app
        if getattr(app, "turn_running", False) and hasattr(app, "action_cancel_turn"):
            app.action_cancel_turn()  # the cancelled approver closes this dialog
        else:
            self.dismiss("deny")

    def action_scroll_preview(self, pages: int) -> None:
        """A long diff or command scrolls in its box (capped at about a third of the screen, so the
        conversation behind stays readable at 80x24)."""
        preview = self.query_one("#approval-preview", VerticalScroll)
        if pages > 0:
            preview.scroll_page_down(animate=False)
        else:
            preview.scroll_page_up(animate=False)

    def action_reason(self) -> None:
        """Show the reason box and focus it now: the keys typed on with the ``r`` are the reason.  (A plain binding
        ran once ``r`` had bubbled to the app, and a deferred focus after that: "ralways wrong" allowed always.)"""
        box = self.query_one(ReasonInput)
        self.add_class("-reason")
        self.set_focus(box)

    def action_back(self) -> None:
        """Back to the choices, on "Deny, say why" where the user came from (never on "Allow once": the next
        enter would approve what the user was about to deny); the reason typed so far stays in its box."""
        self.remove_class("-reason")
        self.query_one("#reason", Button).focus()

    @on(Input.Submitted, "#approval-reason")
    def _reason_given(self, event: Input.Submitted) -> None:
        event.stop()
        reason = " ".join(event.value.split())
        self.dismiss(f"deny:{reason}" if reason else "deny")
