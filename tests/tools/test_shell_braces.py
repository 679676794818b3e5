"""Brace expansion without a shell, checked against bash itself: the rules must see the argv bash runs."""

from __future__ import annotations

import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_tui.tools.cmdparse import parse_command
from agent_tui.tools.shell_braces import MAX_WORDS, TooMany, expand


def bash_words(word: str) -> list[str]:
    done = subprocess.run(["bash", "-c", f"printf '%s\\0' START {word}"], capture_output=True, text=True, timeout=10)
    return done.stdout.split("\0")[1:-1]


CASES = ["{a,b}", "x{a,}", "{,}", "-{r,f}f", "{a,b}{1..2}", "{1..010..3}", "{a..e..2}", "{5..1}", "a{b,{c,d}e}f",
         "{a}", "{}", "a{b", "a}b{c,d", "HEAD@{1}", "{-exec,id,\\;}", "{../.bashrc,}", "c{u,}rl", "\\{a,b}",
         "{a\\,b,c}", "{x..z}{0..1}", "{-2..2}", "{0..3}", "{01..3}", "{-0..1}", "{+1..3}", "\\${a,b}",
         "{-05..5..5}", "{1..-1..2}"]


@pytest.mark.parametrize("word", CASES)
def test_the_words_are_bashs(word: str) -> None:
    cmd = parse_command(f"printf x {word}").commands[0]
    assert list(cmd.argv[2:]) == bash_words(word)


@settings(max_examples=80, deadline=None)
@given(st.text(alphabet="ab,{}.1-\\", min_size=1, max_size=9))
def test_any_short_word_of_braces_commas_dots_and_escapes_expands_as_bash_does(word: str) -> None:
    """Parsing never raises; a word read without doubt is bash's words (a review found touching grammar nodes,
    ``{\\},-exec}``, read as two words and never expanded)."""
    cmd = parse_command(f"printf x {word}")
    if not cmd.parsed or len(cmd.commands) != 1 or cmd.commands[0].braces_unread:
        return
    if word.endswith("\\") or word.startswith("\\ "):  # (the grammar's own, older mismatches)
        return
    assert list(cmd.commands[0].argv[2:]) == bash_words(word), word


@pytest.mark.parametrize("line", ["echo {1..300}", "touch f{1..300}.txt", "cat <<< {1..300}", "echo {a,b}{1..999}"])
def test_a_huge_expansion_never_crashes_the_parse(line: str) -> None:
    """``echo {1..300}`` raised out of the parser and ended the run."""
    cmd = parse_command(line)
    assert cmd.commands and cmd.commands[0].argv[0] in ("echo", "touch", "cat")


def test_a_word_split_across_grammar_nodes_is_one_word_and_expanded() -> None:
    cmd = parse_command("find . {\\},-exec} id \\;").commands[0]
    assert cmd.argv == ("find", ".", "}", "-exec", "id", ";")
    assert parse_command("cat {\\},/etc/hostname}").commands[0].argv == ("cat", "}", "/etc/hostname")


def test_a_word_past_the_limit_is_not_expanded_but_said_so() -> None:
    with pytest.raises(TooMany):
        expand("{a,b}{1..200}")
    cmd = parse_command("echo {a,b}{1..200}").commands[0]
    assert cmd.braces_unread and cmd.argv == ("echo", "{a,b}{1..200}") and cmd.dynamic[1] and MAX_WORDS < 400
    assert parse_command("echo {a,b}$HOME").commands[0].braces_unread  # a variable inside: not read for certain
    quoted = parse_command('mkdir -p src/{a,b}"/x y" a{\'b\',c}').commands[0]  # quoted text is literal to it
    assert quoted.argv[2:] == ("src/a/x y", "src/b/x y", "ab", "ac") and not quoted.braces_unread
