"""What an allow or deny rule sees is the argv bash runs: brace expansion is done before the rules read a
line, a path the shell computes or git's own files are not auto-approved for a command run on the host,
and an allowed "read-only" program does not cover the options that make it run or write something else."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agent_tui.agent.permissions import Policy


def policy(tmp_path: Path, *, sandboxed: bool, **cfg: object) -> Policy:
    ws = tmp_path / "ws"
    (ws / ".git").mkdir(parents=True, exist_ok=True)
    p = Policy.from_config(dict(cfg), interactive=True, workspace=ws)
    p.sandboxed = sandboxed
    return p


def decide(p: Policy, command: str, outside: bool = False) -> str:
    return p.verdict("run_command", "command", {"command": command, "outside_sandbox": outside}).decision


@pytest.mark.parametrize("line", [
    "echo x >> {../.bashrc,}", "tee -a {~/.bashrc,}", "sort -o {~/.profile,} a", "cat {~/.ssh/id_rsa,}",
    "cat {/etc/passwd,x}", "cat < /etc/passwd", "echo {a,b}$X", "cat {\"/etc/\",x}passwd",
])
@pytest.mark.parametrize("sandboxed", [True, False])
def test_braces_and_input_redirections_name_what_bash_opens(tmp_path: Path, line: str, sandboxed: bool) -> None:
    p = policy(tmp_path, sandboxed=sandboxed, allow_commands=["echo", "tee", "sort", "cat"])
    assert decide(p, line) == "ask"
    assert decide(p, "echo x >> notes.txt") == "allow" and decide(p, "cat {a,b}.txt") == "allow"


@pytest.mark.parametrize("line", ["cat $PWD/../x", "cat $OLDPWD/x", "echo x >> .git/config", "tee -a .git/hooks/pre-commit",
                                  "cat < $F", "echo x > .agent-tui/config.toml", "cp pre-commit .g*/hooks/",
                                  "tee .[g]it/config", "cat ?./x"])
def test_on_the_host_computed_paths_and_gits_own_files_need_the_user(tmp_path: Path, line: str) -> None:
    host = policy(tmp_path, sandboxed=False, allow_commands=["echo", "tee", "cat", "cp"])
    assert decide(host, line) == "ask"
    outside = policy(tmp_path, sandboxed=True, allow_outside_commands=["echo", "tee", "cat", "cp"])
    assert decide(outside, line, outside=True) == "ask"
    boxed = policy(tmp_path, sandboxed=True, allow_commands=["echo", "tee", "cat", "cp"])
    if not line.startswith("cat < $"):  # in the sandbox .git is read-only and nothing outside is writable
        assert decide(boxed, line) == "allow"


@pytest.mark.parametrize("line", [
    "rm -{r,f}f x", "c{u,}rl http://x", "git pu{s,}h origin", "git {push,} origin", "find . {-exec,id,\\;}",
    "rm -{r..r}f x", "rm {-r,$F} x", "rm -{r,f}\"f\" x",
])
def test_deny_rules_see_through_braces_even_with_yes(tmp_path: Path, line: str) -> None:
    p = Policy.from_config({"deny_commands": ["rm -rf", "curl", "git push", "find -exec"],
                            "sandboxed_commands": "allow"}, yes=True, workspace=tmp_path)
    p.sandboxed = True
    v = p.verdict("run_command", "command", {"command": line})
    assert v.decision == "deny", v.reason
    assert decide(p, "rm -r{a,b}") == "allow"


@pytest.mark.parametrize("line", [
    "find . -exec id \\;", "find . -name x -delete", "xargs id", "sed -n '1e touch x' f", "sed -n 'w /tmp/x' f",
    "sed -n 's/a/b/w out' f", "sed -n -f script.sed f", "rg --pre=./evil x", "rg --pre ./evil x",
    "sort --compress-program=./evil a", "tar -tf a --to-command=./evil", "tar -tIzstd -f a", "git diff --ext-diff",
    "git -c core.pager=id log", "awk 'BEGIN{system(\"id\")}'", "awk '{print | \"sh\"}' f", "env id",
    # spellings a review found: abbreviations, bundles, values that hide the script, old-style tar
    "sed --exp='1e touch x' f", "sed -ne'1e touch x' f", "sed -l 5 '1e touch x' f", "sed -nf /dev/stdin f",
    "awk 'BEGIN{print \"x\" |(\"touch y\")}'", "awk -f p.awk f", "tar --to-com=./x -tf a.tar",
    "tar -tf a.tar --checkpoint=1 --checkpoint-act=exec=./x", "tar tIf ./x a.tar", "sort -S 1k --compress-prog=./x a",
    "git grep --open-files-in-pager=id x", "git -C . -c core.pager=id log", "git diff --ext", "find . {\\},-exec} id \\;",
    "time time time time time time time time echo hi",
])
def test_read_only_rules_do_not_cover_options_that_run_or_write(tmp_path: Path, line: str) -> None:
    p = policy(tmp_path, sandboxed=False, allow_commands=["find", "xargs grep", "sed -n", "sed", "rg", "sort", "tar",
                                                           "git diff", "git log", "git -C", "git grep", "awk",
                                                           "env grep", "grep", "time", "echo"])
    assert decide(p, line) == "ask"


@pytest.mark.parametrize("line", [
    "find . -name '*.py'", "find . -name '*.py' -exec grep -l foo {} +", "xargs grep x", "sed -n '1,5p' f",
    "sed -n 's/a/b/gp' f", "sed -n '2,4p;$p' f", "rg -n foo src", "sort -u a", "tar -tf a.tar",
    "git diff --stat", "git log --oneline -5", "awk '{print $1}' f", "env grep x f", "tar -tf a.tar --checkpoint=1",
    "git log -Scache", "sed -i.bak 's/a/b/' f", "sort -S 1k -u a",
])
def test_the_same_rules_still_cover_the_ordinary_uses(tmp_path: Path, line: str) -> None:
    p = policy(tmp_path, sandboxed=False, allow_commands=["find", "xargs grep", "sed -n", "sed -i.bak", "rg", "sort",
                                                           "tar -tf", "git diff", "git log", "awk", "env grep", "grep"])
    assert decide(p, line) == "allow"


@pytest.mark.parametrize("line", [
    "[[ 'a[$(id)]' -eq 0 ]]", "[[ -v 'a[$(id)]' ]]", "(( 'a[$(id)]' ))", "for i in $(( 'a[$(id)]' )); do :; done",
    "case $(( 'a[`id`]' )) in esac", "x='$(id)'; [[ ${x@P} ]]", "cat <<< ${x@P}", "printf -v 'a[$(id)]' x",
    "echo $(( 'a[$(id)]' ))",
])
@pytest.mark.parametrize("sandboxed", [True, False])
def test_code_bash_runs_from_quoted_text_or_arithmetic_is_never_auto_approved(tmp_path: Path, line: str,
                                                                              sandboxed: bool) -> None:
    """A second audit: a line with no simple command was allowed with no rule at all ("allowed by "), and bash
    ran the `$(id)` inside the quoted array subscript — on the host, headless, with no --yes."""
    p = policy(tmp_path, sandboxed=sandboxed, allow_commands=["cat", "echo", "printf"])
    assert decide(p, line) == "ask"
    assert decide(policy(tmp_path, sandboxed=True, allow_outside_commands=["cat"]), line, outside=True) == "ask"
    tripwire = Policy.from_config({"deny_commands": ["rm -rf"], "sandboxed_commands": "allow"}, yes=True,
                                  workspace=tmp_path)
    tripwire.sandboxed = True
    assert decide(tripwire, line.replace("id", "rm -rf x")) == "deny", "deny rules cannot see it: refused"


@pytest.mark.parametrize("line", ["PATH=bin:$PATH; git status", "HOME=.; git status", "export PATH=bin; ls"])
def test_a_variable_set_for_the_commands_after_it_needs_the_user(tmp_path: Path, line: str) -> None:
    p = policy(tmp_path, sandboxed=True, allow_commands=["git status", "ls", "export"])
    assert decide(p, line) == "ask"


@pytest.mark.parametrize("line", ["cp -t.git/hooks pre-commit", "sort -o.git/config cfg.txt",
                                  "sed -n -i'.git/hooks/pre-*' p commit", "cp -t/elsewhere a",
                                  "python -m pytest -o cache_dir=/elsewhere/cache", "cp payload docs/.bashrc",
                                  "cat docs/secret.txt"])
def test_on_the_host_attached_values_and_shipped_symlinks_are_read_as_paths(tmp_path: Path, line: str) -> None:
    p = policy(tmp_path, sandboxed=False, allow_commands=["cp", "sort", "sed -n", "python -m pytest", "cat"])
    (tmp_path / "ws" / "docs").symlink_to(tmp_path)  # a repository's `docs -> /elsewhere`
    assert decide(p, line) == "ask"
    assert decide(p, "cp a b") == "allow" and decide(p, "sort -o out.txt in.txt") == "allow"


@pytest.mark.parametrize("line", [
    "[[ $'a[\\x24(touch ../PWNED)]' -eq 0 ]] || git status", "[[ 'a['\"$(touch x)]\" -eq 0 ]] && echo ok",
    "if [[ $'a[\\x24(x)]' -gt 1 ]]; then echo big; fi", "printf -v $'a[\\x24(touch x)]' x", "test -v $'a[\\x24(x)]'",
    "read $'a[\\x24(x)]' < /dev/null", "cat <<< ${b[$'a[\\x24(touch x)]']}", "for f in *; do [[ $f -eq 0 ]] && echo x; done",
    "printf -v PATH bin; git status", "mapfile -t PATH <<< bin; git status", "getopts a: PATH -abin; git status",
    "echo '`'; printf -v x %s $'a[\\x24(x)]'; (( x )) || echo", "echo ${!x}",
])
def test_every_place_bash_evaluates_text_as_code_is_asked_however_it_is_spelled(tmp_path: Path, line: str) -> None:
    """A review of the first fix: `$(` spelled `$'\\x24('`, split across quotes, or coming from a file name met by
    `[[ $f -eq 0 ]]` still ran, and `printf -v`/`mapfile`/`getopts` set PATH for the `git status` after them."""
    p = policy(tmp_path, sandboxed=False, allow_commands=["echo", "printf", "test", "cat", "read", "git status",
                                                           "mapfile", "getopts"])
    assert decide(p, line) == "ask"


@pytest.mark.parametrize("line", [
    "git commit -m 'fix `parse_args` crash'", "git commit -m 'use $(pwd) in docs'", "grep -E '^((a|b))$' x",
    "cut -d/ -f2 f", "awk -F/ '{print $2}' f", "sort -t/ -k2 f", "curl 'https://x/?next=/home'",
    "[[ -f x ]] && echo y",
])
def test_quoted_text_that_bash_never_evaluates_stays_allowed(tmp_path: Path, line: str) -> None:
    """The first fix asked for any `$(`/backticks in quotes: every commit message with a `name` in backticks."""
    p = policy(tmp_path, sandboxed=False, allow_commands=["git commit", "grep", "cut", "awk", "sort", "curl", "echo"])
    assert decide(p, line) == "allow"
    boxed = policy(tmp_path, sandboxed=True, allow_commands=["echo"])
    assert decide(boxed, "echo ${a[1]} ${a[@]}") == "allow", "a subscript that is a number evaluates nothing"


@pytest.mark.parametrize("line", ["cp -vt.git/hooks pre-commit", "cp -vt../elsewhere pre-commit", "sort -uo.git/config x",
                                  "python -m pytest --override-ini=cache_dir=../elsewhere/c",
                                  "python -m pytest -o=cache_dir=/x"])
def test_on_the_host_bundled_options_and_nested_settings_are_read_as_paths(tmp_path: Path, line: str) -> None:
    p = policy(tmp_path, sandboxed=False, allow_commands=["cp", "sort", "python -m pytest"])
    assert decide(p, line) == "ask"


@pytest.mark.parametrize("line", ["echo x > $'a\\x00b'", "echo x > $'\\ud800'", "echo $'\\UFFFFFFFF'",
                                  "echo x > $'\\U00110000'"])
def test_odd_input_gets_a_verdict_not_an_exception(tmp_path: Path, line: str) -> None:
    p = policy(tmp_path, sandboxed=False, allow_commands=["echo"])
    assert decide(p, line) in ("allow", "ask")


@pytest.mark.parametrize("line", [
    "for x in 'y[$(touch ../PWNED)]'; do case ${PWD:x} in *) echo;; esac; done",
    "for x in y; do for z in ${PWD:x}; do echo; done; done", "for x in y; do [[ ${PWD:x} == a ]]; echo; done",
    "for x in y; do cat <<< ${PWD:x}; done", "for f in *; do cat <<EOF\n${PWD:f}\nEOF\ndone",
    "case ${#BASH_VERSINFO[x]} in *) echo;; esac", "command printf -v $'x[\\x24(touch ../PWNED)]' %s 1",
    "builtin printf -v x 1", "command test -v $'x'", "compgen -W '$(touch ../PWNED)' a",
])
def test_substring_offsets_lengths_and_wrapped_builtins_evaluate_code_too(tmp_path: Path, line: str) -> None:
    """A third look: `${PWD:x}` evaluates `x` as arithmetic (a subscript, a `$(…)`), in a case word, a for list,
    a here-document; `${#a[x]}`; `command printf -v`; `compgen -W`."""
    p = policy(tmp_path, sandboxed=False, allow_commands=["echo", "cat", "command", "builtin", "printf", "test",
                                                           "compgen"])
    assert decide(p, line) == "ask"
    tripwire = Policy.from_config({"deny_commands": ["rm"], "sandboxed_commands": "allow"}, yes=True, workspace=tmp_path)
    tripwire.sandboxed = True
    assert decide(tripwire, line) == "deny"


def test_a_line_deny_rules_cannot_read_is_refused(tmp_path: Path) -> None:
    """`\\x72m` inside `$'…'` hid `rm` from the text search deny rules did on a line the parser could not read."""
    tripwire = Policy.from_config({"deny_commands": ["rm"], "sandboxed_commands": "allow"}, yes=True, workspace=tmp_path)
    tripwire.sandboxed = True
    assert decide(tripwire, "[[ $'x[\\x24(\\x72m ../victim)]' -e\\\nq 0 ]]; echo done") == "deny"


@pytest.mark.parametrize("line", [
    "grep -rn '[[:space:]]$' src | grep -v venv", "grep -n '[[:upper:]]' -R src", "git commit -m 'fix: use ${a[i]} in loop'",
    "git commit -m 'do ((x)) right'", "grep -E '(((a)))' f", "git log --grep='$((x))'", "echo ${PWD:-x} ${x:1} ${x:1:2}",
    "pytest -k \"a and not b\"", "command -v git",
])
def test_single_quoted_text_and_number_offsets_are_not_code(tmp_path: Path, line: str) -> None:
    p = policy(tmp_path, sandboxed=True, allow_commands=["grep", "git commit", "git log", "echo", "pytest", "command"])
    assert decide(p, line) == "allow"


NL = "\\\n"
#: Words split across lines with a backslash-newline: bash deletes the pair and reads one word, the grammar
#: read two (``-`` and ``exec``), so every option and path check missed them (a trust audit ran each).
JOINED = [f"find . -maxdepth 0 -{NL}exec sh -c id \\;", f"rg -{NL}-pre=./x hello", f"sed 1{NL}e{NL}id f",
          f"cat .{NL}./.{NL}./secret", f"echo planted > .{NL}./.{NL}./x", f"git log -{NL}-ext-diff -p",
          f"cat <<EOF\nab{NL}cd\nEOF",
          # a review: an apostrophe in a heredoc body or in nested quotes hid every continuation after it
          f"cat <<EOF\nit's\nEOF\nfind . -maxdepth 0 -{NL}exec sh -c id \\;", f'echo "$(echo "it\'s")"; find . -{NL}exec id \\;']


@pytest.mark.parametrize("line", JOINED)
@pytest.mark.parametrize("sandboxed", [True, False])
def test_a_word_joined_across_lines_is_never_auto_approved(tmp_path: Path, line: str, sandboxed: bool) -> None:
    p = policy(tmp_path, sandboxed=sandboxed, allow_commands=["find", "rg", "sed", "cat", "echo", "git log"])
    v = p.verdict("run_command", "command", {"command": line})
    assert v.decision == "ask" and "backslash-newline" in v.reason, v


def test_a_double_quoted_word_is_read_with_its_continuations_removed(tmp_path: Path) -> None:
    """Inside double quotes bash removes a backslash-newline too: the word is checked as bash reads it."""
    p = policy(tmp_path, sandboxed=False, allow_commands=["echo"])
    v = p.verdict("run_command", "command", {"command": f'echo hi > ".gi{NL}t/config"'})
    assert v.decision == "ask" and ".git/config" in v.reason, v


def test_bash_reads_a_backslash_newline_word_whole(tmp_path: Path) -> None:
    """The premise of the check above, on this machine's bash: ``r\\⏎m`` is the one word ``rm``; between words,
    or in single quotes, it joins nothing."""
    out = subprocess.run(["bash", "-c", f"printf '%s|' r{NL}m a {NL} b 'c{NL}d'"], capture_output=True, text=True)
    assert out.stdout == f"rm|a|b|c{NL}d|"


@pytest.mark.parametrize("line", [f"ls {NL}  -la", f"git log {NL} --oneline", f"find . {NL}-name '*.py'",
                                  f"echo 'one{NL}two'", f"echo a # note{NL}", f"echo $'a{NL}b'",
                                  f"cat > x.sh <<'EOF'\nval=foo{NL}bar\nEOF", f'echo "Fix the parser;{NL}also the lexer"'])
def test_a_line_continued_between_words_stays_allowed(tmp_path: Path, line: str) -> None:
    p = policy(tmp_path, sandboxed=True, allow_commands=["ls", "git log", "find", "echo", "cat"])
    assert decide(p, line) == "allow", line


@pytest.mark.parametrize("line", [
    f"r{NL}m -rf build", f"rm -r{NL}f build", f"git pu{NL}sh origin main",
    "builtin command rm -rf build", "xargs --max-chars 100 rm -rf < list", "env -vS'rm -rf build'",
    "git -c alias.p=push p origin", "git -calias.p='!rm -rf x' p", "git --config-env=alias.p=X p",
    "strace -o /dev/null rm -rf x", "unshare rm -rf x", "prlimit rm -rf x", "timeout 5 -- rm -rf x",
    "sudo --prompt x rm -rf y", "sg wheel 'rm -rf x'", "valgrind --tool=none rm -rf x",
    "systemd-run --unit x rm -rf y", "xargs --no-such-option 100 rm -rf",
    f"cat <<EOF\nit's\nEOF\nr{NL}m -rf build", f'echo "$(echo "it\'s")"; r{NL}m -rf build', f'echo "$(r{NL}m -rf x)"',
    "git -C . -c alias.p=push p origin", "git --git-dir .git -c alias.p=push p", "git -c core.pager=less -c alias.p=push p",
    "git -C sub -calias.x='!rm -rf y' x", "git -c include.path=/tmp/x p",
])
def test_deny_rules_see_joined_words_unknown_wrapper_options_and_git_aliases(tmp_path: Path, line: str) -> None:
    p = policy(tmp_path, sandboxed=True, deny_commands=["rm -rf", "git push"], sandboxed_commands="allow")
    v = p.verdict("run_command", "command", {"command": line})
    assert v.decision == "deny", (line, v)


@pytest.mark.parametrize("line", ["git status", "ls -la", "xargs -n1 echo", "timeout 60 ls", "git -c color.ui=never log",
                                  "env -i ls", "sudo -u web ls", "timeout 60 pytest -k curl", "command -v curl",
                                  "find . | xargs grep -l docker", "nice make docker", "timeout -s kill 10 make",
                                  "sudo -u git ls", f"cat > x.sh <<'EOF'\nval=foo{NL}bar\nEOF",
                                  f'git commit -m "Fix the parser;{NL}also the lexer"'])
def test_those_deny_checks_leave_other_lines_alone(tmp_path: Path, line: str) -> None:
    """Found by a review: every argument tail of a wrapper was read as a command, so `timeout 60 pytest -k curl`
    was refused under a `curl` rule (deny wins: no way to approve it)."""
    deny = ["rm -rf", "git push", "curl", "docker", "kill"]
    p = policy(tmp_path, sandboxed=True, deny_commands=deny, sandboxed_commands="allow")
    assert decide(p, line) == "allow", line
    git = policy(tmp_path, sandboxed=True, deny_commands=["git"], sandboxed_commands="allow")
    assert decide(git, "sudo -u git ls") == "allow"


@pytest.mark.parametrize("line", ["env LD_PRELOAD=./x.so ls", "env BASH_ENV=./x ls", "env PATH=. ls",
                                  "env GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0=./f git status",
                                  "env -i GIT_EXTERNAL_DIFF=./x git diff", "env -vS'sh -c id'", "env -S 'sh -c id'",
                                  "env --split-string='sh -c id'", "env -S'PATH=. ls'", "env -S 'LD_PRELOAD=./x.so ls'"])
def test_an_env_rule_does_not_hand_over_the_environment_or_a_command_line(tmp_path: Path, line: str) -> None:
    p = policy(tmp_path, sandboxed=True, allow_commands=["env", "ls", "git status", "git diff"])
    assert decide(p, line) == "ask", line
    assert decide(p, "env ls") == "allow" and decide(p, "env -u HOME ls") == "allow"


@pytest.mark.parametrize("line", [
    "make test --eval='x:=$(shell id > pwned)'", "make test -E 'x:=$(shell id)'", "make test 'ARGS=$(shell id)'",
    "make test 'ARGS=${shell id}'", "make test SHELL=python3", "make test 'X!=id'", "make test -f /dev/stdin",
    "make test --directory=sub", "npm test '--node-options=--import=data:text/javascript,1'",
    "npm test --script-shell=python3", "npm test --registry=http://example.com", "pytest --pastebin=all",
    "pytest -p evil_plugin", "pytest -o addopts=-pevil", "pytest -x -c other.ini", "pytest --rootdir=sub",
    # a second review: bundles, any name make expands, values a recipe pastes into a shell line, npm's other
    # spellings, pytest run through python -m or a runner
    "make test -kE '$(shell touch x)'", "make test -kf evil.mk", "make test '1:=$(shell touch x)'",
    "make test 'X+Y:=$(shell touch x)'", "make test '$(shell touch x)=1'", "make test 'PYTEST_ARGS=; touch x'",
    "make test 'PYTHON=touch x;'", "npm test '-node-options=--require=./x.js'",
    "npm test --no-node-options=--require=./x.js", "npm test -script-shell=./sh.sh", "pytest -qo addopts=-pevil",
    "pytest -qc evil.ini", "pytest -qp evil", "python -m pytest -p evil", "python3 -m pytest --pastebin=all",
    "uv run pytest --pastebin=all", "uv run python -m pytest -p evil", "py.test -p evil",
    # a review: nopt strips any number of dashes and no- prefixes; pytest reads options from @files
    "npm test --no- --node-options=--require=./evil.js", "npm test '---node-options=--require=./evil.js'",
    "npm test --no-no-node-options=x", "pytest @args.txt",
])
def test_build_and_test_rules_do_not_cover_options_that_run_code_the_line_chose(tmp_path: Path, line: str) -> None:
    """``make test`` and ``npm test`` run the repository's recipe; these options run code the command line
    itself brings (``--eval``, a ``$(shell …)`` in a variable, node options), send the session away
    (``--pastebin``) or swap the configuration."""
    p = policy(tmp_path, sandboxed=False, allow_commands=["make test", "npm test", "pytest", "python -m pytest",
                                                           "python3 -m pytest", "uv run", "py.test"])
    assert decide(p, line) == "ask"


@pytest.mark.parametrize("line", [
    "make test", "make test VERBOSE=1", "make test -j4", "npm test", "npm test -- --watch=false", "pytest -q tests/",
    "pytest -p no:randomly -x", "pytest -pno:cacheprovider", "pytest -k 'parse and not slow'",
    "make test BUILD_DIR=build/x", "make test CFLAGS:=-O2", "pytest -vv -x", "pytest -rA", "npm test --silent",
    "python -m pytest -q tests/", "uv run pytest -x", "make -j4 -k test",
    "pytest --co", "pytest -Werror", "pytest -nauto", "pytest -rfEp", "pytest -kc", "make test -j8",
])
def test_build_and_test_rules_still_cover_their_ordinary_uses(tmp_path: Path, line: str) -> None:
    p = policy(tmp_path, sandboxed=False, allow_commands=["make test", "npm test", "pytest", "python -m pytest",
                                                           "uv run pytest", "make -j4 -k test"])
    assert decide(p, line) == "allow"


@pytest.mark.parametrize("line", ['[[ $# -gt 0 ]] && echo args', '[[ "$#" -ne 2 ]] || echo two', 'ls; [[ ${#x} -lt 3 ]] && echo short',
                                  '[[ ($? -eq 0) && 1 -le 2 ]] && echo ok', '[[ $$ -gt 1 ]] && echo pid'])
def test_a_comparison_of_numbers_only_is_not_hidden_code(tmp_path: Path, line: str) -> None:
    """`[[ $# -gt 0 ]]` was asked like `[[ $f -eq 0 ]]`: an operand that is a number whatever the data (digits,
    `$#`, `$?`, `$$`, `$!`, `${#x}`) has no subscript to evaluate."""
    p = policy(tmp_path, sandboxed=False, allow_commands=["echo", "ls"])
    assert decide(p, line) == "allow"


@pytest.mark.parametrize("operand", ["$f", "$x", "x", "${#a[$f]}", "5'a[$(touch pwn)]'", "$1", "${x}", '"$f"'])
def test_a_comparison_with_a_word_that_names_a_variable_is_still_asked(tmp_path: Path, operand: str) -> None:
    """Bash evaluates such a word, and a subscript in what it holds runs (shown here with a file name)."""
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    (ws / "x[$(touch pwn)]").write_text("")
    line = f"for f in *; do x=$f; [[ $# -gt 0 && {operand} -eq 0 ]] && echo y; done"
    if operand in ("$f", "$x", '"$f"'):
        subprocess.run(["bash", "-c", line, "bash", "arg"], cwd=ws, capture_output=True)
        assert (ws / "pwn").exists(), "the line runs code under bash"
    p = policy(tmp_path, sandboxed=False, allow_commands=["echo"])
    assert decide(p, line) == "ask"


def test_the_dialog_says_which_word_stops_the_users_own_rule() -> None:
    """A tester saved `git log` as a prefix; `git log -p -1 --ext-diff` was asked with "no allow rule covers `git log
    -p`", which read as if the rule were lost.  The reason names the rule and the option that stops it."""
    from agent_tui.agent.permissions import Policy

    policy = Policy()
    policy.always_prefixes.append(("git", "log"))
    asked = policy.verdict("run_command", "command", {"command": "git log -p -1 --ext-diff"})
    assert asked.decision == "ask" and "your rule `git log` stops at `--ext-diff`" in asked.reason
    inline = Policy()
    inline.always_prefixes.append(("python3",))
    said = inline.verdict("run_command", "command", {"command": "python3 -c 'print(1)'"}).reason
    assert "your rule `python3` stops at `-c`" in said
    assert "stops at" not in Policy().verdict("run_command", "command", {"command": "git log -1"}).reason
