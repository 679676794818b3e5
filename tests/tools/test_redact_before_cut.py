"""Tools redact the text they cut from: a secret cut in half by a range, a clip or a line limit is not
recognisable afterwards, so it used to go out as is."""

from __future__ import annotations

from pathlib import Path

from agent_tui.core.redact_whole import redact_keeping_lines
from agent_tui.core.tokens import counter_for
from agent_tui.tools.fs_read import _view
from agent_tui.tools.search import _clip
from agent_tui.tools.shell import shape_output

BODY = "MIIEowIBAAKCAQEAq7Zl3nH0e5XUb3QmYpL2dTz9gk4vY8s1R0wQm7a2Xf3JcKpN\n" * 12
PEM = f"# deploy key\n-----BEGIN RSA PRIVATE KEY-----\n{BODY}-----END RSA PRIVATE KEY-----\nafter = 1\n"
TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def test_a_range_of_a_key_file_is_masked_and_line_numbers_still_match(tmp_path: Path) -> None:
    out, _, _, lines = _view("deploy.key", PEM, {"path": "deploy.key", "start_line": 3, "end_line": 8}, None)
    assert "MIIEowIBAAKCAQEA" not in out
    assert len(lines) == PEM.count("\n") and lines[-1] == "after = 1" and lines[0] == "# deploy key"
    assert "[REDACTED" in lines[1] and all(not line for line in lines[2:14])


def test_a_search_hit_is_redacted_before_it_is_clipped() -> None:
    line = "x" * 149 + f" {TOKEN} and more"
    clipped = _clip(line)
    assert "ghp_" not in clipped and "[REDACTED" in clipped  # cut at 160 characters it showed "ghp_A1b2C3…"


def test_a_command_output_is_redacted_before_its_lines_are_cut() -> None:
    output = "\n".join(f"line {i}" for i in range(400)) + f"\n{'y' * 390} token={TOKEN}\n" + "done\n"
    shown, _ = shape_output(output, counter_for(None))
    assert "ghp_A1b2" not in shown and "token=ghp" not in shown


def test_keeping_lines_leaves_text_without_secrets_alone() -> None:
    text = "a = 1\nb = 2\n\nc = 3"
    assert redact_keeping_lines(text) == text


def test_a_known_secret_spanning_lines_is_masked_on_every_line_of_a_range() -> None:
    """A secret the Redactor knows by value (a key given in config or an environment variable) may hold
    newlines: redacted with its lines kept, none of its lines may show, and line numbers still match."""
    from agent_tui.core import redact

    secret = "Zq9Lw2Xv8Rt5Ny1Bk7Hs4Mj6Pd3Cf0Ga\nYu2Ie5Ot8Wr1Qp4As7Df0Gh3Jk6Lz9Xc\nVb2Nm5Qw8Er1Ty4Ui7Op0As3Df6Gh9Jk"
    redact.register_secret(secret, "MULTILINE_KEY")
    text = f"header\nkey = '''{secret}'''\nfooter = 1\n"
    kept = redact_keeping_lines(text)
    assert kept.count("\n") == text.count("\n")
    assert not any(part in kept for part in secret.split("\n")), kept
    assert kept.split("\n")[0] == "header" and kept.split("\n")[4] == "footer = 1"
    assert "[REDACTED:env:MULTILINE_KEY]" in kept.split("\n")[1]


def test_an_output_shown_whole_is_masked_where_it_enters_the_window() -> None:
    """An output short enough to show whole is no longer redacted line by line by the tool: the engine's
    scan of the whole text masks its long lines (and what only the whole text shows, the AWS key id on
    the line above its secret key)."""
    from agent_tui.core.config import Settings
    from agent_tui.core.engine import ContextEngine

    aws = "aws_access_key_id = AKIAIOSFODNN7EXAMPLE\nsecret = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n"
    output = f"{'z' * 120} token={TOKEN} tail\n{aws}done\n"
    shown, cut = shape_output(output, counter_for(None))
    assert not cut and shown == output.rstrip("\n")  # nothing cut: the tool leaves the redaction to the engine
    e = ContextEngine(Settings.default(window=32_768))
    e.add_user("run it")
    e.add_assistant(None, [{"id": "c1", "type": "function", "function": {"name": "run_command", "arguments": "{}"}}])
    item = e.add_tool_result("c1", "run_command", shown)
    assert TOKEN not in item.content and "wJalrXUtnFEMI" not in item.content, item.content
    assert "z" * 120 in item.content and "done" in item.content


def test_a_pgpass_line_picked_from_the_middle_is_masked_under_its_line_number() -> None:
    """A middle line is shown as ``L151: <line>``; the .pgpass rule reads whole lines, so the prefix hid the
    password from the engine's scan.  Middle lines are redacted alone before they get their number."""
    entry = "analytics-replica-01.prod.internal.example.com:5432:warehouse:etl_user:Tq7vLm2pXw9rKs4n"
    lines = [f"line {i}" for i in range(150)] + [entry] + [f"tail {i}" for i in range(150)]
    shown, _ = shape_output("\n".join(lines), counter_for(None))
    assert "L151:" in shown and "Tq7vLm2pXw9rKs4n" not in shown, shown


async def test_a_page_of_a_stored_output_and_an_mcp_head_are_cut_from_redacted_text() -> None:
    """A store kept in memory holds an output as it came; a page boundary (8,000 characters) or the head an
    MCP 'exact' result keeps cut a token in two, and neither half was recognisable (a reviewer's finding)."""
    from agent_tui.core.results import MemoryResultStore
    from agent_tui.mcp.results import exact_view
    from agent_tui.tools.fetch import fetch_result

    token = "ghp_" + "aB3dE5fG7hJ9kL1mN2pQ4rS6tU8vW0xY2zA4"
    body = ("log line of ordinary text\n" * 400)[:8000 - 25] + "export GH_TOKEN=" + token + "\n" + "more\n" * 3000
    store = MemoryResultStore()
    head, handle, _, _ = exact_view(body, 3_000, store, "mcp:x", None)
    assert handle is not None and not any(token[:k] in head for k in range(8, len(token) + 1))

    from tests.tools.fakes import FakeContext

    raw = MemoryResultStore()
    ctx = FakeContext(workspace=Path("/nonexistent"), results=raw)
    kept = raw.put(body)  # (as a store kept in memory holds an output: as it came)
    shown = [(await fetch_result({"handle": kept, "page": n}, ctx)).text for n in (1, 2)]
    assert not any(token[k:k + 8] in "".join(shown) for k in range(0, len(token) - 7)), shown[1][:200]
