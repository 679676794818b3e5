"""Is a model name one the model client can use?  Checked when `/model` is given, not at the next send.

With an ``--api-base`` the server says which models it serves (``GET {api_base}/models``);
otherwise litellm's own list (``litellm.model_cost``, and ``get_model_info`` for aliases).
litellm costs seconds to import, so it is imported here lazily, inside functions, and the
completion list is offered only once the app's background preload has imported it.
No Textual here: the app runs ``check`` in a worker thread.
"""

from __future__ import annotations

import difflib
import json
import sys
import urllib.error
import urllib.request
from dataclasses import dataclass

TIMEOUT = 5.0
"""Seconds to wait for a server's model list."""
LOCAL_PROVIDERS = frozenset({"ollama", "ollama_chat", "lm_studio", "hosted_vllm", "vllm", "llamafile", "xinference"})
"""Providers that serve whatever models the user pulled: their names are not in litellm's map."""


@dataclass(frozen=True)
class ModelCheck:
    """The verdict on one name."""

    ok: bool
    message: str
    """Why not (with the closest known names), or what was matched."""


def _strip_provider(name: str) -> str:
    return name.split("/", 1)[1] if "/" in name else name


def litellm_names() -> list[str]:
    """litellm's known model names (imports litellm: call from a worker)."""
    import litellm

    return sorted(str(k) for k in litellm.model_cost if k != "sample_spec")


def loaded_names() -> list[str]:
    """litellm's names if litellm is already imported (for completion on the UI thread), else []."""
    if "litellm" not in sys.modules:
        return []
    try:
        return litellm_names()
    except Exception:  # a broken cost map must not break typing
        return []


def server_names(api_base: str) -> list[str]:
    """The model ids a server lists at ``{api_base}/models`` (OSError/ValueError when it cannot say)."""
    url = api_base.rstrip("/") + "/models"
    with urllib.request.urlopen(url, timeout=TIMEOUT) as resp:  # noqa: S310 (the user's own server)
        body = json.loads(resp.read().decode("utf-8", "replace"))
    data = body.get("data") if isinstance(body, dict) else body
    return [str(m.get("id")) for m in data or [] if isinstance(m, dict) and m.get("id")]


def _closest(name: str, names: list[str], prefix: str = "") -> str:
    # a known name the typed one starts with (gpt-4o for gpt-4o-typo) comes first, the longest such
    stems = sorted((n for n in names if len(n) >= 3 and (name.startswith(n) or _strip_provider(name).startswith(n))),
                   key=len, reverse=True)[:1]
    close = stems + [n for n in difflib.get_close_matches(name, names, n=3, cutoff=0.6) if n not in stems]
    close += [n for n in difflib.get_close_matches(_strip_provider(name), names, n=3, cutoff=0.6) if n not in close]
    return f" — did you mean {', '.join(prefix + c for c in close[:3])}?" if close else ""


def check(name: str, api_base: str | None = None) -> ModelCheck:
    """Whether ``name`` resolves to a model (blocking: run it in a worker thread)."""
    name = name.strip()
    if not name or name.startswith("/") or any(c.isspace() for c in name):
        return ModelCheck(False, f"{name or '(empty)'!s} is not a model name (e.g. openai/gpt-4o)")
    from agent_tui.agent.demo import DEMO_MODEL

    if name == DEMO_MODEL:
        return ModelCheck(True, "the offline demo model")
    if api_base:
        try:
            served = server_names(api_base)
        except (OSError, ValueError, urllib.error.URLError) as exc:
            return ModelCheck(False, f"cannot ask {api_base} which models it serves ({exc}); not switching")
        # (a server lists its own ids, which may hold a slash, Qwen/Qwen2.5-7B; the model client needs the provider
        # it speaks in front: the one typed is kept, and an id it cannot route is refused now, not at the next turn)
        prefix = _typed_provider(name)
        if name in served or (prefix and name[len(prefix):] in served):
            if _provider(name) is None:
                return ModelCheck(False, f"{api_base} serves {name}, but the model client needs its provider: "
                                         f"did you mean openai/{name} (an OpenAI-compatible server)?")
            return ModelCheck(True, f"served by {api_base}")
        listed = ", ".join(served[:8]) or "none"
        return ModelCheck(False, f"{api_base} does not serve {name} (it lists: {listed})"
                                 f"{_closest(name[len(prefix):], served, prefix)}")
    names = litellm_names()
    known = set(names)
    if name in known or _strip_provider(name) in known:
        return ModelCheck(True, "known to litellm")
    provider = _provider(name)
    if provider in LOCAL_PROVIDERS:
        return ModelCheck(True, f"a {provider} model (the local server decides which it has)")
    if _mapped_alias(name, known):
        return ModelCheck(True, "known to litellm")
    return ModelCheck(False, f"unknown model {name}{_closest(name, names)} (give a provider/model litellm "
                             "knows, or --api-base for your own server)")


def _typed_provider(name: str) -> str:
    """The ``provider/`` typed in front of ``name`` when its first part is one litellm routes to, else ""."""
    import litellm

    head = name.split("/", 1)[0] if "/" in name else ""
    known = {str(getattr(p, "value", p)) for p in litellm.provider_list}
    return f"{head}/" if head in known else ""


def _provider(name: str) -> str | None:
    """The provider litellm would route ``name`` to (None when it cannot tell)."""
    import litellm

    try:
        return str(litellm.get_llm_provider(name)[1])
    except Exception:
        return None


def _mapped_alias(name: str, known: set[str]) -> bool:
    """``get_model_info`` resolves ``name`` to an entry of litellm's map.  Its answer alone is not
    enough: for some providers it answers for any name of the family (``claude-sonet-4``, misspelt,
    came back as an anthropic model with no entry of its own)."""
    import litellm

    try:
        info = litellm.get_model_info(name)
    except Exception:
        return False
    return str(info.get("key") or "") in known


def completions(prefix: str, names: list[str]) -> list[str]:
    """Every known name extending ``prefix``, in order (tab cycles through them)."""
    if not prefix:
        return []
    return [n for n in names if n.startswith(prefix) and n != prefix]
