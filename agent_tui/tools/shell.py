"""run_command: run a shell command in the workspace and show what matters of its output.

Test and build output is long and the signal sits at both ends and in the error lines:
the first lines (what ran), the last lines (the summary) and tracebacks/FAILED/
``file:line`` lines in between.  Those are shown; the full output is stored behind a
handle so nothing is lost.  The environment is the user's minus secret-named variables
(``tools/cmd_env.py``; ``[sandbox] pass_env`` lists the ones to keep) and is never logged.
"""

from __future__ import annotations

import asyncio
from typing import Any

from agent_tui.core.redact_whole import redact_whole
from agent_tui.core.tokens import TokenCounter, counter_for
from agent_tui.tools.base import ToolContext, ToolResult, ToolSpec, make_result
from agent_tui.tools.cleaning import clean_text
from agent_tui.tools.cmd_env import command_env
from agent_tui.tools.paging import fetch_hint
from agent_tui.tools.shaping import OFFLOAD_CHARS
from agent_tui.tools.shaping_text import clip, error_lines, spread
from agent_tui.tools.shell_exec import run_shell

HEAD_LINES = 40
TAIL_LINES = 80
MIDDLE_ERROR_LINES = 30
LINE_WIDTH = 400
#: The narrowest an excerpt cuts a line to (when it must shrink to fit).
MIN_WIDTH = 80
#: Tokens the shown output may cost at most.
OUTPUT_TOKEN_CAP = 5000
MAX_TIMEOUT = 1800

SPEC = ToolSpec(
    name="run_command",
    description=(
        "Run a shell command in the workspace root and get its exit code and output "
        "(stdout+stderr). Use it for tests, builds, linters and scripts. Long output shows the first 40 and last "
        "80 lines plus error lines from the middle; the full output is stored behind a "
        "handle for fetch_result. The process group is killed after timeout seconds. "
        "Not for reading, searching or editing files: use the file tools; not for git "
        "status/diff/log: use the git tools."
    ),
    parameters={
        "type": "object",
        "properties": {
            "command": {"type": "string", "minLength": 1},
            "timeout": {"type": "integer", "minimum": 1, "maximum": MAX_TIMEOUT, "default": 120},
            "outside_sandbox": {
                "type": "boolean",
                "description": "Only to change .git (commit) or use the network; asks the user.",
            },
        },
        "required": ["command"],
        "additionalProperties": False,
    },
    kind="command",
    group="shell",
)


def excerpt(lines: list[str], head: int, tail: int, errors: int, width: int) -> tuple[str, int]:
    """Head, middle error lines (numbered) and tail with gap markers; (text, errors shown)."""
    n = len(lines)
    if n <= head + tail:
        return "\n".join(_cut(line, width) for line in lines), 0
    middle = error_lines(lines[head : n - tail])
    chosen = [i + head for i in spread(middle, errors)]
    out = [_cut(line, width) for line in lines[:head]]
    prev = head - 1
    for i in chosen:
        if i - prev > 1:
            out.append(f"… {i - prev - 1:,} lines omitted …")
        out.append(f"L{i + 1}: {_cut(redact_whole(lines[i]), width)}")  # (its prefix hides a whole-line rule's match)
        prev = i
    if n - tail - prev > 1:
        out.append(f"… {n - tail - prev - 1:,} lines omitted …")
    out += [_cut(line, width) for line in lines[n - tail :]]
    return "\n".join(out), len(chosen)


def _cut(line: str, width: int) -> str:
    """``line`` as an excerpt shows it: whole, or redacted whole, then clipped (the part of a secret left
    after a cut would not be recognisable; a line shown whole is redacted with the rest by the engine)."""
    return clip(redact_whole(line), width) if len(line) > width else line


def shape_output(output: str, counter: TokenCounter) -> tuple[str, bool]:
    """The output as shown and whether anything was left out.  Only a line an excerpt cuts is redacted
    here, whole, before its cut (``_cut``); the engine redacts what is shown, so an output shown whole,
    and the lines left out, cost no scan here."""
    full = clean_text(output)
    lines = full.split("\n")
    if len(lines) <= HEAD_LINES + TAIL_LINES and counter.count_within(full, OUTPUT_TOKEN_CAP) is not None:
        return full, "[base64 " in full and "[base64 " not in output
    for scale in (1.0, 0.6, 0.35, 0.2, 0.1):
        text, _ = excerpt(
            lines,
            max(1, int(HEAD_LINES * scale)),
            max(1, int(TAIL_LINES * scale)),
            max(1, int(MIDDLE_ERROR_LINES * scale)),
            max(MIN_WIDTH, int(LINE_WIDTH * scale)),
        )
        if counter.count_within(text, OUTPUT_TOKEN_CAP) is not None:
            return text, True
    return text, True  # the registry's cap shapes whatever is still too long


async def run_command(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    """The run_command tool."""
    command: str = args["command"]
    timeout = max(1, min(MAX_TIMEOUT, int(args.get("timeout") or 120)))
    sandbox = None if args.get("outside_sandbox") is True else getattr(ctx, "sandbox", None)
    env = command_env(getattr(ctx, "pass_env", ()), sandboxed=sandbox is not None)
    outcome = await run_shell(command, ctx.workspace.resolve(), timeout, sandbox=sandbox, env=env)
    counter = counter_for(ctx.model)
    output = outcome.output
    if len(output) >= OFFLOAD_CHARS:  # CPU work: keep the event loop (the UI) responsive
        shown, cut = await asyncio.to_thread(shape_output, output, counter)
        raw_tokens = await asyncio.to_thread(counter.count, output)
    else:
        shown, cut = shape_output(output, counter)
        raw_tokens = counter.count(output)
    n_lines = output.count("\n") + (1 if output and not output.endswith("\n") else 0)
    if outcome.timed_out:
        status = f"TIMED OUT after {timeout}s: the command's process group was killed"
    else:
        status = f"exit code {outcome.exit_code}"
    if sandbox is not None and (outcome.timed_out or outcome.exit_code != 0):
        status += f"; {sandbox.describe()}"
    head = f"$ {command}\n{status} ({outcome.seconds:.1f}s, {n_lines:,} lines of output)"
    if outcome.dropped_bytes:
        head += f"; {outcome.dropped_bytes:,} bytes beyond the capture limit were dropped"
    for note in outcome.notes:
        head += f"\n[sandbox: {note}]"
    handle = None
    if cut:
        handle = ctx.results.put(output, {"kind": "command", "command": command})
        head += f"\n[full output stored as {handle}: {fetch_hint(handle, output)}]"
    text = f"{head}\n{shown}" if output.strip() else f"{head}\n(no output)"
    meta = {
        "command": command,
        "sandboxed": sandbox is not None,
        "exit_code": outcome.exit_code,
        "timed_out": outcome.timed_out,
        "seconds": round(outcome.seconds, 3),
    }
    return make_result(
        text,
        ctx,
        is_error=outcome.timed_out,
        handle=handle,
        raw_tokens=raw_tokens,
        meta=meta,
    )
