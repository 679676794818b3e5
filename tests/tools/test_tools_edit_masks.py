"""Masks the model copies back from a redacted read: restored from the file, or refused; never written.

The model sees ``[REDACTED:…]`` where the scanner found a secret.  Copied into ``old_text`` the edit was
not found; copied into ``new_text`` or a ``write_file`` content the mask was written into the file and the
real value was lost (found while reading the redaction's false positives: the model cannot tell them)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from .fakes import Call

KEY = "sk-live-9f8a7b6c5d4e3f2a1b0c9d8e"
OTHER = "tok-8e7d6c5b4a3f2e1d0c9b8a7f"
CONFIG = f'import os\n\nAPI_KEY = "{KEY}"\nTIMEOUT = 30\n\nclass C:\n    token = "{OTHER}"\n    retries = 3\n'


async def _shown(call: Call, path: str) -> str:
    result = await call("read_file", path=path)
    assert not result.is_error, result.text
    return result.text


async def test_a_read_masks_the_values_these_tests_rely_on(ws: Path, call: Call) -> None:
    (ws / "conf.py").write_text(CONFIG)
    shown = await _shown(call, "conf.py")
    assert KEY not in shown and OTHER not in shown
    assert 'API_KEY = "[REDACTED:API_KEY]"' in shown and 'token = "[REDACTED:secret]"' in shown


async def test_an_edit_whose_old_and_new_text_copy_a_masked_line_keeps_the_real_value(ws: Path, call: Call) -> None:
    (ws / "conf.py").write_text(CONFIG)
    await _shown(call, "conf.py")
    result = await call("edit_file", path="conf.py",
                        old_text='API_KEY = "[REDACTED:API_KEY]"\nTIMEOUT = 30\n',
                        new_text='API_KEY = "[REDACTED:API_KEY]"\nTIMEOUT = 60\n')
    assert not result.is_error, result.text
    assert (ws / "conf.py").read_text() == CONFIG.replace("TIMEOUT = 30", "TIMEOUT = 60")


async def test_a_mask_on_a_line_the_model_changed_is_refused_not_guessed(ws: Path, call: Call) -> None:
    """A mask on a changed line could stand for any value of its kind (the file's, another file's, an old one
    from the history): it is never filled in."""
    (ws / "conf.py").write_text(CONFIG)
    await _shown(call, "conf.py")
    result = await call("edit_file", path="conf.py",
                        old_text='    token = "[REDACTED:secret]"\n',
                        new_text='    token: str = "[REDACTED:secret]"  # from the vault\n')
    assert result.is_error and "nothing was written" in result.text
    assert (ws / "conf.py").read_text() == CONFIG


async def test_a_mask_copied_from_another_file_never_takes_this_files_value(ws: Path, call: Call) -> None:
    (ws / "staging.py").write_text('DEBUG = True\nredis_password = "St4gRedisPw!zz9"\n')
    (ws / "prod.py").write_text('DEBUG = False\ndb_password = "Pr0dDbPassw0rd!x"\n')
    await _shown(call, "staging.py")
    await _shown(call, "prod.py")
    result = await call("edit_file", path="prod.py", old_text="DEBUG = False\n",
                        new_text='DEBUG = False\nredis_password = "[REDACTED:secret]"\n')
    assert result.is_error and "nothing was written" in result.text
    assert "Pr0dDbPassw0rd!x" not in result.text
    assert (ws / "prod.py").read_text() == 'DEBUG = False\ndb_password = "Pr0dDbPassw0rd!x"\n'


async def test_an_edit_that_only_retypes_a_masked_line_changes_nothing(ws: Path, call: Call) -> None:
    """"Restore the old key": the masked line from the history is the file's current line; the edit would
    report success and change nothing."""
    (ws / "conf.py").write_text(CONFIG)
    await _shown(call, "conf.py")
    result = await call("edit_file", path="conf.py", old_text='API_KEY = "[REDACTED:API_KEY]"\n',
                        new_text='API_KEY = "[REDACTED:API_KEY]"\n\n')
    assert not result.is_error, result.text  # (a real change: a blank line added)
    again = await call("edit_file", path="conf.py", old_text='API_KEY = "[REDACTED:API_KEY]"\n',
                       new_text=f'API_KEY = "{KEY}"\n')
    assert again.is_error and "nothing to change" in again.text


async def test_an_environment_mask_is_put_back_or_refused(ws: Path, call: Call, monkeypatch: object) -> None:
    """Values of secret-named environment variables mask as ``[REDACTED:env:NAME]`` (a ``:`` in the kind): the
    first version did not see them as masks, and wrote them into the file."""
    from agent_tui.core import redact

    monkeypatch.setenv("OPENAI_API_KEY", "sk-abc123def456ghi789")  # type: ignore[attr-defined]
    monkeypatch.setattr(redact, "_default", None)  # type: ignore[attr-defined]
    env = "DEBUG=1\nOPENAI_API_KEY=sk-abc123def456ghi789\n"
    (ws / ".env").write_text(env)
    shown = await _shown(call, ".env")
    mask = next(m for m in shown.split("=") if "REDACTED" in m).split("\n")[0].strip()
    assert "sk-abc123def456ghi789" not in shown and mask.startswith("[REDACTED:")
    result = await call("write_file", path=".env", content=f"DEBUG=0\nOPENAI_API_KEY={mask}\n")
    assert not result.is_error, result.text
    assert (ws / ".env").read_text() == env.replace("DEBUG=1", "DEBUG=0")
    refused = await call("write_file", path=".env", content=f"DEBUG=0\nOPENAI_API_KEY={mask} \n")
    assert refused.is_error and (ws / ".env").read_text() == env.replace("DEBUG=1", "DEBUG=0")


async def test_a_whole_file_rewritten_from_a_masked_read_keeps_every_real_value(ws: Path, call: Call) -> None:
    (ws / "conf.py").write_text(CONFIG)
    shown = await _shown(call, "conf.py")
    assert "[REDACTED:" in shown
    masked = CONFIG.replace(KEY, "[REDACTED:API_KEY]").replace(OTHER, "[REDACTED:secret]")
    result = await call("write_file", path="conf.py", content=masked.replace("retries = 3", "retries = 5"))
    assert not result.is_error, result.text
    assert (ws / "conf.py").read_text() == CONFIG.replace("retries = 3", "retries = 5")


async def test_a_mask_the_file_cannot_explain_is_refused_and_nothing_is_written(ws: Path, call: Call) -> None:
    (ws / "conf.py").write_text(CONFIG)
    await _shown(call, "conf.py")
    result = await call("edit_file", path="conf.py", old_text="TIMEOUT = 30\n",
                        new_text='TIMEOUT = 30\nDB_PASSWORD = "[REDACTED:DB_PASSWORD]"\n')
    assert result.is_error
    assert "[REDACTED:DB_PASSWORD]" in result.text and "nothing was written" in result.text
    assert (ws / "conf.py").read_text() == CONFIG
    created = await call("write_file", path="new.py", content='X = 1\nAPI_KEY = "[REDACTED:API_KEY]"\n')
    assert created.is_error and "nothing was written" in created.text
    assert not (ws / "new.py").exists()


async def test_a_mask_standing_for_two_values_is_not_guessed(ws: Path, call: Call) -> None:
    text = f'a_token = "{KEY}"\nb_token = "{OTHER}"\n'
    (ws / "two.py").write_text(text)
    await _shown(call, "two.py")
    result = await call("edit_file", path="two.py", old_text='b_token = "[REDACTED:secret]"\n',
                        new_text='c_token = "[REDACTED:secret]"\n')
    assert result.is_error and "nothing was written" in result.text
    assert (ws / "two.py").read_text() == text


async def test_a_literal_mask_beside_a_real_secret_of_its_kind_stays_literal(ws: Path, call: Call) -> None:
    """A redactor's test spells a mask out next to a real masked value of the same kind: the literal line is
    text of the file (the secret must not be copied into it), and the real one is not let through because
    the file also holds the mask's text."""
    text = f'class C:\n    token = "{OTHER}"\n\ndef test_mask():\n    assert redact("k=v") == "[REDACTED:secret]"\n'
    (ws / "t.py").write_text(text)
    await _shown(call, "t.py")
    from agent_tui.core.redact_whole import redact_keeping_lines

    same = await call("write_file", path="t.py", content=redact_keeping_lines(text) + "# end\n")
    assert not same.is_error, same.text
    assert (ws / "t.py").read_text() == text + "# end\n"
    lost = await call("edit_file", path="t.py", old_text='    token = "[REDACTED:secret]"\n',
                      new_text='    token = "[REDACTED:secret]"  # prod\n')
    assert lost.is_error and (ws / "t.py").read_text() == text + "# end\n"
    literal = await call("edit_file", path="t.py", old_text='    assert redact("k=v") == "[REDACTED:secret]"\n',
                         new_text='    assert redact("k=w") == "[REDACTED:secret]"\n')
    assert literal.is_error  # (the new line holds a mask the file's redaction makes, on a line it does not hold)


async def test_a_mask_the_file_holds_literally_is_plain_text(ws: Path, call: Call) -> None:
    text = 'def test_mask():\n    assert redact("k=v") == "[REDACTED:secret]"\n'
    (ws / "test_r.py").write_text(text)
    await _shown(call, "test_r.py")
    result = await call("edit_file", path="test_r.py", old_text="def test_mask():\n",
                        new_text="def test_the_mask():\n")
    assert not result.is_error, result.text
    result = await call("write_file", path="test_r.py",
                        content=text.replace("test_mask", "test_masks") + '    assert "[REDACTED:secret]"\n')
    assert not result.is_error, result.text
    assert (ws / "test_r.py").read_text().endswith('    assert "[REDACTED:secret]"\n')


def test_two_masks_on_a_line_are_restored_in_place() -> None:
    from agent_tui.tools.fs_unmask import masked_view, unmask

    line = f'connect(api_key="{KEY}", auth_token="{OTHER}", retries=3)'
    view = masked_view(f"{line}\n")
    shown = 'connect(api_key="[REDACTED:secret]", auth_token="[REDACTED:secret]", retries=3)'
    assert unmask(shown, view) == line  # the whole line is known
    assert unmask(shown.replace("retries=3", "retries=5"), view) == shown.replace("retries=3", "retries=5")
    assert unmask(shown + "\n" + shown, view) == line + "\n" + line
    crlf = masked_view(f"x = 1\r\n{line}\r\n")
    assert unmask(shown, crlf) == line


@given(st.lists(st.sampled_from([
    f'API_KEY = "{KEY}"', f"token: {OTHER}", "x = 1", "def f(token: Optional[str] = None):", "",
    f'db_password = "{KEY[::-1]}"', "# a comment", f"export AUTH_TOKEN={OTHER}",
    "password = [REDACTED:secret]x", 'assert out == "[REDACTED:API_KEY]"',
]), max_size=12))
def test_a_file_sent_back_as_it_was_shown_is_the_file(lines: list[str]) -> None:
    """Property: the redacted view of a file, sent back unchanged, unmasks to the file itself."""
    from agent_tui.core.redact_whole import redact_keeping_lines
    from agent_tui.tools.fs_unmask import masked_view, unmask

    text = "\n".join(lines) + "\n"
    assert unmask(redact_keeping_lines(text), masked_view(text)) == text


async def test_a_private_key_block_is_never_rebuilt_from_its_first_line(ws: Path, call: Call) -> None:
    """A key block is shown as one mask and empty lines: putting back its first line would write a file with
    the key's body gone, so a text holding that mask is refused."""
    pem = ("-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi\n"
           "Z1BjP5CE/Wm/Rr500PRK+Lh9x5eJPo5CAQEA3T\n-----END RSA PRIVATE KEY-----")
    text = f'x = 1\nKEY = """{pem}"""\ny = 2\n'
    (ws / "k.py").write_text(text)
    shown = await _shown(call, "k.py")
    assert "[REDACTED:private-key]" in shown and "MIIE" not in shown
    result = await call("write_file", path="k.py", content='x = 1\nKEY = """[REDACTED:private-key]\n\n\n"""\ny = 3\n')
    assert result.is_error and "nothing was written" in result.text
    assert (ws / "k.py").read_text() == text
    edit = await call("edit_file", path="k.py", old_text="y = 2\n", new_text="y = 3\n")
    assert not edit.is_error, edit.text
    assert (ws / "k.py").read_text() == text.replace("y = 2", "y = 3")


async def test_a_failed_edit_says_nothing_about_how_close_a_guess_of_a_hidden_value_came(ws: Path, call: Call) -> None:
    """"old_text was not found … (41 % similar)" was measured against the real file: the percentage rose as a
    guessed prefix of a masked key improved (a reviewer: 41 → 43 → 46 %), with no approval needed to ask."""
    (ws / "conf.py").write_text(CONFIG)
    await _shown(call, "conf.py")
    said = []
    for known in (4, 10, 16, 22):
        guess = KEY[:known] + "x" * (len(KEY) - known)
        result = await call("edit_file", path="conf.py", old_text=f'API_KEY = "{guess}"\n', new_text="API_KEY = None\n")
        assert result.is_error and "not found" in result.text and KEY not in result.text
        said.append(result.text.split("(")[1].split(")")[0])
    assert len(set(said)) == 1, said
