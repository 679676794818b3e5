"""Trusted folders, remembered in the user's config dir (never in the workspace, which could forge it).

``$XDG_CONFIG_HOME/agent-tui/trusted.toml`` (default ``~/.config``) holds one entry per folder:
its real path and the fingerprint of exactly what it asked for when the user trusted it.  A
folder whose asks change (a new MCP server, a looser default) no longer matches and is asked
about again.  Writes are atomic (temp file + rename) under a lock file, so two runs trusting
at once lose nothing.
"""

from __future__ import annotations

import fcntl
import json
import os
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from agent_tui.core.config import ConfigError, user_config_path
from agent_tui.core.parse import loads_toml


@dataclass(frozen=True)
class TrustEntry:
    """One trusted folder."""

    path: str
    """The folder's real path."""
    fingerprint: str
    """Digest of the asks the user saw and trusted."""
    trusted_at: str = ""
    """When (UTC, ISO 8601)."""


def default_path() -> Path:
    """``<user config dir>/agent-tui/trusted.toml``."""
    return user_config_path().with_name("trusted.toml")


def _q(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)  # a JSON string is a valid TOML basic string


class TrustStore:
    """Read and update the trusted-folders file."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or default_path()

    def entries(self) -> list[TrustEntry]:
        """Every remembered folder (a missing file is an empty list)."""
        if not self.path.is_file():
            return []
        try:
            data = loads_toml(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ConfigError(f"{self.path}: {exc}") from exc
        out: list[TrustEntry] = []
        for raw in data.get("folder", []) if isinstance(data.get("folder"), list) else []:
            if isinstance(raw, dict) and isinstance(raw.get("path"), str) and isinstance(raw.get("fingerprint"), str):
                out.append(TrustEntry(raw["path"], raw["fingerprint"], str(raw.get("trusted_at", ""))))
        return out

    def entry(self, root: Path) -> TrustEntry | None:
        """The entry of ``root`` (by real path), if any."""
        real = str(Path(root).resolve())
        return next((e for e in self.entries() if e.path == real), None)

    def is_trusted(self, root: Path, fingerprint: str) -> bool:
        """Trusted for exactly these asks."""
        e = self.entry(root)
        return e is not None and e.fingerprint == fingerprint

    def remember(self, root: Path, fingerprint: str) -> None:
        """Trust ``root`` for the asks with ``fingerprint`` (replacing an older entry)."""
        real = str(Path(root).resolve())
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        with self._locked():
            kept = [e for e in self.entries() if e.path != real]
            self._write([*kept, TrustEntry(real, fingerprint, stamp)])

    def forget(self, root: Path) -> bool:
        """Stop trusting ``root``; False when it was not remembered."""
        real = str(Path(root).resolve())
        with self._locked():
            entries = self.entries()
            kept = [e for e in entries if e.path != real]
            if len(kept) == len(entries):
                return False
            self._write(kept)
            return True

    @contextmanager
    def _locked(self) -> Iterator[None]:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path.with_suffix(".lock"), "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def _write(self, entries: list[TrustEntry]) -> None:
        lines = ["# Folders trusted by agent-tui (`agent-tui trust --forget` removes one).", ""]
        for e in entries:
            lines += ["[[folder]]", f"path = {_q(e.path)}", f"fingerprint = {_q(e.fingerprint)}",
                      f"trusted_at = {_q(e.trusted_at)}", ""]
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".trusted.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write("\n".join(lines))
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
