"""Rust tools that run the repository's programs when it asks them to.

``cargo``, ``rustc`` and the other rustup proxies first read ``rust-toolchain(.toml)``: one whose toolchain is a
``path`` makes rustup run that folder's ``bin/cargo`` for any call, even ``cargo --version`` (and the path can
point back into the workspace, ``/proc/self/cwd/…``).  Cargo then reads ``.cargo/config.toml``, where an alias
renames a subcommand, ``build.rustc-wrapper`` or a target's ``runner`` and ``linker`` name programs, and
``[env]`` can hand ``RUSTC_WRAPPER`` or ``LD_PRELOAD`` to what it starts.  An allow rule for ``cargo
--version`` is the user's say about cargo, so on the host such a line is asked (``command_rules_toolcfg``).
"""

from __future__ import annotations

import re
import tomllib
from typing import Any

from agent_tui.agent.command_rules_toolcfg_files import (
    Unsure,
    Where,
    load_toml,
    runs,
    table,
    text,
    unsure,
)

#: The programs rustup installs as proxies: each reads the toolchain file before it runs anything.
RUST_PROXIES = frozenset({"cargo", "rustc", "rustdoc", "rustfmt", "cargo-fmt", "cargo-clippy", "clippy-driver",
                          "rust-analyzer", "rust-gdb", "rust-gdbgui", "rust-lldb", "rustup", "cargo-miri", "rls"})
#: The proxies that run cargo, which reads ``.cargo/config.toml``.
CARGO_LIKE = frozenset({"cargo", "cargo-fmt", "cargo-clippy", "cargo-miri"})
TOOLCHAIN_FILES = ("rust-toolchain", "rust-toolchain.toml")
CARGO_FILES = (".cargo/config.toml", ".cargo/config")
#: ``build`` and ``target.*`` settings that name a program cargo runs.
PROGRAM_KEYS = ("rustc", "rustc-wrapper", "rustc-workspace-wrapper", "rustdoc", "runner", "linker")
#: Compiler flags that make rustc run a program or load code: another linker, linker flags that name a path (a
#: ``-B`` folder, ``-fuse-ld=./x``), unstable options (``-Z``), a codegen backend, an argument file.
RUNNING_FLAGS = re.compile(r"-Z|linker=|codegen-backend|link-args?=\S*([/@]|-B)|(^|\s)@")
#: ``[env]`` names cargo hands to the programs it starts that choose programs or code for them.
ENV_PREFIXES = ("RUST", "CARGO", "LD_", "DYLD_")
ENV_NAMES = frozenset({"PATH", "CC", "CXX", "AR", "LD", "CFLAGS", "CXXFLAGS", "LDFLAGS"})


def rust_blockers(tool: str, where: Where) -> list[str]:
    """What ``tool`` (a rustup proxy) would run of the repository's: a toolchain path, and for cargo its
    configuration's programs."""
    why: list[str] = []
    for folder in where.chain():
        for name in TOOLCHAIN_FILES:
            path = folder / name
            try:
                key = _toolchain_key(text(where.root, path), name)
            except Unsure as e:
                why.append(unsure(tool, where.rel(path), str(e)))
                continue
            if key:
                why.append(runs(tool, where.rel(path), f"{key}: rustup runs that folder's programs for any call, "
                                                       "even --version"))
        if tool not in CARGO_LIKE:
            continue
        for name in CARGO_FILES:
            path = folder / name
            try:
                doc = load_toml(where.root, path)
            except Unsure as e:
                why.append(unsure(tool, where.rel(path), str(e)))
                continue
            keys = cargo_keys(doc) if doc is not None else []
            if keys:
                why.append(runs(tool, where.rel(path), ", ".join(keys[:3])))
    return why


def _toolchain_key(body: str | None, name: str) -> str | None:
    """The setting of a toolchain file that makes rustup run a folder's programs, or None."""
    if body is None:
        return None
    try:
        doc = tomllib.loads(body)
    except tomllib.TOMLDecodeError as e:
        lines = [line.strip() for line in body.splitlines() if line.strip()]
        if name == "rust-toolchain" and len(lines) <= 1:  # the old format: one toolchain name, or a path
            return "a toolchain path" if lines and ("/" in lines[0] or "\\" in lines[0]) else None
        raise Unsure(f"it is not valid TOML: {e}") from e
    chain = doc.get("toolchain")
    if not isinstance(chain, dict):
        return None if "toolchain" not in doc else "toolchain"
    if "path" in chain:
        return "toolchain.path"
    channel = chain.get("channel", "")
    if not isinstance(channel, str) or "/" in channel or "\\" in channel:
        return "toolchain.channel"
    return None


def cargo_keys(doc: dict[str, Any]) -> list[str]:
    """The settings of a cargo configuration that make cargo run a program or code the file chooses."""
    keys = [f"alias.{k}" for k in table(doc, "alias")]
    build = table(doc, "build")
    keys += [f"build.{k}" for k in PROGRAM_KEYS if k in build]
    keys += [f"build.{k}" for k in ("rustflags", "rustdocflags") if _running_flags(build.get(k))]
    target = build.get("target")
    if any(str(t).endswith(".json") for t in (target if isinstance(target, list) else [target])):
        keys.append("build.target (a target file, which names a linker)")
    for section in ("target", "host"):
        tables = table(doc, section)
        nested = [(f"{section}.{n}", t) for n, t in tables.items() if isinstance(t, dict)]
        for at, t in [(section, tables), *nested]:
            keys += [f"{at}.{k}" for k in ("runner", "linker") if k in t]
            keys += [f"{at}.{k}" for k in ("rustflags", "rustdocflags") if _running_flags(t.get(k))]
    keys += [f"profile.{n}.rustflags" for n, t in table(doc, "profile").items()
             if isinstance(t, dict) and _running_flags(t.get("rustflags"))]
    keys += [f"env.{k}" for k in table(doc, "env") if k.upper().startswith(ENV_PREFIXES) or k.upper() in ENV_NAMES]
    registry = table(doc, "registry")
    keys += [f"registry.{k}" for k in ("credential-provider", "global-credential-providers", "credential-process")
             if k in registry]
    keys += [f"registries.{n}.credential-provider" for n, t in table(doc, "registries").items()
             if isinstance(t, dict) and ("credential-provider" in t or "credential-process" in t)]
    keys += [f"{k}" for k in ("credential-alias", "unstable", "include") if k in doc]
    keys += ["doc.browser"] if "browser" in table(doc, "doc") else []
    return keys


def _running_flags(value: Any) -> bool:
    """Compiler flags (a string or a list of them) that make rustc run a program or load code."""
    if value is None:
        return False
    words = value if isinstance(value, list) else [value]
    if not all(isinstance(w, str) for w in words):
        return True
    return RUNNING_FLAGS.search(" ".join(words)) is not None
