"""The environment the model's commands get: the user's, minus their secrets.

A command the model runs executes the repository's code (``pytest`` runs its
``conftest.py``, ``npm test`` its scripts).  Inheriting the environment as is handed that
code the user's ``OPENAI_API_KEY``, ``AWS_SECRET_ACCESS_KEY`` or ``GITHUB_TOKEN`` — the key
the repository must never receive without the user's say.  So every command, sandboxed or
not, gets the environment without variables whose names look secret (the same names the
Redactor masks: ``KEY``, ``TOKEN``, ``SECRET``, ``PASSWORD``, ``CREDENTIAL``, ``AUTH``) and
without any variable holding a registered API key, except the names the user lists in
``[sandbox] pass_env``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

from agent_tui.core.redact import SECRET_NAME, default_redactor


def command_env(keep: Iterable[str] = (), base: Mapping[str, str] | None = None) -> dict[str, str]:
    """``base`` (default: this process's environment) without secret-named or key-holding variables."""
    env = dict(os.environ if base is None else base)
    kept = set(keep)
    known = set(default_redactor().values)
    return {k: v for k, v in env.items() if k in kept or not (SECRET_NAME.search(k) or v in known)}


def dropped_names(keep: Iterable[str] = (), base: Mapping[str, str] | None = None) -> list[str]:
    """The variable names :func:`command_env` leaves out (sorted), for the user and the model."""
    env = dict(os.environ if base is None else base)
    return sorted(set(env) - set(command_env(keep, env)))
