"""The tables shell-command rules are matched with: shells, interpreters and their inline-code flags,
wrappers and the options that take a value, flag spellings that mean the same.

Kept apart from the matching (``command_rules_unwrap.py``, ``command_rules.py``) so that teaching the
rules a new wrapper or interpreter is a change to data, reviewed as such.
"""

from __future__ import annotations

import re

#: How deep wrappers are looked through (``bash -c "env sh -c '…'"``).
MAX_DEPTH = 6
SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "busybox-sh", "fish"})
#: Interpreters and the flag that makes them run code given on the command line.
INLINE_CODE_FLAGS: dict[str, tuple[str, ...]] = {
    "python": ("-c",), "perl": ("-e", "-E"), "ruby": ("-e",), "node": ("-e", "--eval", "-p", "--print"),
    "nodejs": ("-e", "--eval", "-p", "--print"), "php": ("-r",), "lua": ("-e",), "Rscript": ("-e",),
    "R": ("-e",), "osascript": ("-e",), "deno": ("eval",), "bun": ("-e", "--eval"),
}
for _sh in SHELLS:
    INLINE_CODE_FLAGS[_sh] = ("-c",)
#: Programs whose first word names a subcommand (``git status``); the dialog offers that prefix.
SUBCOMMAND_PROGRAMS = frozenset({
    "git", "npm", "pnpm", "yarn", "cargo", "go", "uv", "pip", "pip3", "poetry", "docker", "kubectl",
    "make", "ruff", "hatch", "tox", "nox", "dotnet", "gradle", "mvn", "bundle", "rake", "mix", "just",
    "conda", "brew", "apt", "systemctl", "gh", "terraform", "helm", "deno", "bun", "npx",
})
RUNNER_SUBCOMMANDS = frozenset({"run", "exec", "x", "dlx"})
#: A program's subcommand whose own subcommands run a package or extension it is given (``uv tool run X`` is
#: ``uvx X``): offered only as the exact line.
RUNNER_GROUPS = frozenset({("uv", "tool"), ("dotnet", "tool"), ("gh", "extension"), ("gh", "ext")})
#: Flag spellings that mean the same, per program ("*" for every program).
FLAG_ALIASES: dict[str, dict[str, str]] = {
    "*": {"--force": "-f"},
    "rm": {"-R": "-r", "--recursive": "-r", "--force": "-f", "--dir": "-d", "--verbose": "-v"},
    "cp": {"-R": "-r", "--recursive": "-r", "--force": "-f"},
    "chmod": {"--recursive": "-R"},
    "chown": {"--recursive": "-R"},
    "git": {"--force": "-f"},
}
#: Inline code that deletes files: counted as ``rm -r -f`` by deny rules.
DELETING_CODE = re.compile(
    r"rmtree|\bos\s*\.\s*(remove|unlink|rmdir|removedirs)\b|\.unlink\s*\(|\.rmdir\s*\(|\bunlink\b|"
    r"\brm(Sync|dirSync)?\s*\(|\bFileUtils\s*\.\s*rm|\bremove_tree\b|\brm\s+-[a-zA-Z]*[rRf]",
)


#: Options that take a value, per wrapper (the wrapped command starts after them).
VALUE_OPTS = {
    "env": frozenset({"-u", "--unset", "-C", "--chdir", "-S", "--split-string"}),
    "nice": frozenset({"-n", "--adjustment"}),
    "timeout": frozenset({"-s", "--signal", "-k", "--kill-after"}),
    "xargs": frozenset({"-I", "-L", "-n", "-P", "-d", "-E", "-s", "-a", "--arg-file", "--delimiter",
                        "--max-args", "--max-procs", "--replace", "--max-lines", "--eof", "--max-chars",
                        "--process-slot-var"}),
    "sudo": frozenset({"-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-T", "-U", "-R", "--user", "--group",
                       "--prompt", "--close-from", "--chdir", "--chroot", "--role", "--type", "--other-user",
                       "--host", "--command-timeout"}),
    "strace": frozenset({"-o", "-e", "-p", "-s", "-u", "-E", "-a", "-b", "-I", "-O", "-S", "-P", "-X", "--output",
                         "--attach", "--user", "--env", "--string-limit"}),
    "ltrace": frozenset({"-o", "-e", "-p", "-s", "-u", "-a", "-n", "-A", "-D", "-F", "-l", "-x", "--output",
                         "--library"}),
    "nsenter": frozenset({"-t", "--target", "-S", "--setuid", "-G", "--setgid"}),
    "unshare": frozenset({"-S", "--setuid", "-G", "--setgid", "-R", "--root", "-w", "--wd"}),
    "prlimit": frozenset({"-p", "--pid", "-o", "--output"}),
    "numactl": frozenset({"-C", "-N", "-m", "-p", "-i", "--physcpubind", "--cpunodebind", "--membind",
                          "--preferred", "--interleave"}),
    "cpulimit": frozenset({"-l", "--limit", "-p", "--pid", "-e", "--exe"}),
    "systemd-run": frozenset({"-p", "--property", "-u", "--unit", "-E", "--setenv", "--working-directory", "--uid",
                              "--gid", "--nice", "--slice", "--description", "-M", "--machine", "-H", "--host"}),
    "fakeroot": frozenset({"-l", "--lib", "--faked", "-s", "-i", "-b"}),
    "torsocks": frozenset({"-u", "-p", "-a", "-P"}),
    "proxychains": frozenset({"-f"}),
    "proxychains4": frozenset({"-f"}),
    "doas": frozenset({"-u", "-C"}),
    "exec": frozenset({"-a"}),
    "ionice": frozenset({"-c", "-n", "-p", "-t"}),
    "stdbuf": frozenset({"-i", "-o", "-e"}),
    "flock": frozenset({"-w", "--timeout", "-E", "--conflict-exit-code"}),
    "chroot": frozenset({"--userspec", "--groups"}),
    "parallel": frozenset({"-j", "--jobs", "-S", "--sshlogin", "-a", "--arg-file", "-d", "--delimiter", "-I", "-n",
                           "-N", "--colsep"}),
    "chrt": frozenset({"-T", "--sched-runtime", "-P", "--sched-period", "-D", "--sched-deadline"}),
    "xvfb-run": frozenset({"-n", "--server-num", "-s", "--server-args", "-f", "--auth-file", "-e", "--error-file",
                           "-p", "--xauth-protocol", "-w", "--wait"}),
}


#: Wrappers that run the rest of their arguments as a command (after their own options).
PASS_THROUGH_WRAPPERS = frozenset({
    "nice", "nohup", "sudo", "doas", "exec", "time", "stdbuf", "setsid", "ionice", "chronic", "unbuffer",
    "caffeinate", "chroot", "flock", "busybox", "catchsegv", "strace", "ltrace", "unshare", "prlimit", "setpriv",
    "nsenter", "valgrind", "fakeroot", "firejail", "numactl", "cpulimit", "torsocks", "proxychains", "proxychains4",
    "systemd-run", "xvfb-run", "dbus-run-session", "rlwrap", "tsp", "linux32", "linux64", "pkexec",
})
#: Wrappers whose command follows one more argument (a priority, a CPU mask, an architecture, a fake time) or none.
ARG_WRAPPERS = frozenset({"coproc", "parallel", "chrt", "taskset", "setarch", "faketime"})
#: Programs that run a program, a package or code that their operands name, in ways these rules do not read (a
#: host, a script, a package index): the approval dialog offers to remember only the exact line, since their name
#: alone as a prefix (``uvx``, ``ssh``) would allow whatever they are next asked to run.
ANY_PROGRAM_RUNNERS = frozenset({
    "uvx", "pipx", "bunx", "pnpx", "ssh", "gdb", "lldb", "expect", "direnv", "nix-shell", "nix", "dotenv", "devbox",
    "mise", "asdf", "rtx", "micromamba", "mamba", "pixi", "pdm", "rye", "podman", "vagrant", "tmux", "screen", "at",
    "batch", "crontab", "osascript",
}) | PASS_THROUGH_WRAPPERS | ARG_WRAPPERS
#: Programs that run a command given with ``-c`` / ``--command`` as another user or under a recorder.
COMMAND_FLAG_RUNNERS = frozenset({"su", "runuser", "script"})
#: Programs whose argument tails deny rules read as commands they may run (``wrapped_candidates``).
CANDIDATE_WRAPPERS = PASS_THROUGH_WRAPPERS | ARG_WRAPPERS | COMMAND_FLAG_RUNNERS | frozenset(
    {"env", "timeout", "xargs", "command", "builtin", "watch", "sg"})
#: ``watch`` options that take a value.
WATCH_VALUE_OPTS = frozenset({"-n", "--interval", "-d"})
