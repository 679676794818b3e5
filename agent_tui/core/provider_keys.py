"""Key formats of the model providers agent-tui talks to, and well-known service tokens, that detect-secrets
does not know (or masks only in part).

A user pastes a key alone (no ``NAME=`` before it) into the prompt, or a command prints one; the
assignment rule of :mod:`agent_tui.core.secrets` does not see it then, and detect-secrets 1.5 has no
plugin for these providers.  Every new text of a session is scanned, so the formats run as one
regex (one pass, not eight), and only on a text that holds one of their literal prefixes (a
substring test, far cheaper than a pass).
"""

from __future__ import annotations

import re

from agent_tui.core.secret_words import WordSet

#: Keys of the model providers agent-tui talks to that detect-secrets 1.5 has no plugin for (Anthropic,
#: Google AI Studio, DeepSeek, OpenRouter, Hugging Face, Groq, xAI) or finds only with the legacy
#: ``T3BlbkFJ`` marker (OpenAI project, service-account and admin keys), and GitHub's fine-grained
#: tokens: a key pasted alone, with no ``NAME=`` before it, into the prompt, a file or a command's output.
PROVIDER_KEYS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("anthropic-key", re.compile(r"sk-ant-(?:api|admin|oat|ort|sid)\d\d-[A-Za-z0-9_\-]{32,}")),
    ("openai-key", re.compile(r"sk-(?:proj|svcacct|admin)-[A-Za-z0-9_\-]{32,}")),
    # OpenAI's keys before 2024 (and Moonshot's, in the same form): about 48 letters and digits, no marker inside
    ("openai-key", re.compile(r"sk-[A-Za-z0-9]{40,60}(?![A-Za-z0-9_\-])")),
    ("openrouter-key", re.compile(r"sk-or-v1-[0-9a-f]{64}")),
    ("deepseek-key", re.compile(r"sk-[0-9a-f]{32}(?![0-9A-Za-z_\-])")),
    ("google-api-key", re.compile(r"AIza[0-9A-Za-z_\-]{35}")),
    ("huggingface-token", re.compile(r"hf_[A-Za-z0-9]{34,}")),
    ("groq-key", re.compile(r"gsk_[A-Za-z0-9]{48,}")),
    ("xai-key", re.compile(r"xai-[A-Za-z0-9]{48,}")),
    # GitHub's fine-grained personal access tokens (detect-secrets 1.5 knows only ghp_/gho_/…)
    ("github-token", re.compile(r"github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}")),
    # Well-known service tokens detect-secrets 1.5 misses when bare, or masks in part: an age private key
    # (SOPS), npm's granular tokens outside an .npmrc line, DigitalOcean, Shopify, and Stripe's keys whole
    # (its plugin matches 24 characters of today's 100-odd, and the rest stayed readable)
    ("age-secret-key", re.compile(r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}")),
    ("npm-token", re.compile(r"npm_[A-Za-z0-9]{36}")),
    ("digitalocean-token", re.compile(r"do[opr]_v1_[a-f0-9]{64}")),
    ("shopify-token", re.compile(r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}")),
    ("stripe-key", re.compile(r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{20,}")),
    # Pulumi access tokens (~/.pulumi/credentials.json), and a PEM private key encoded in base64 whole, as a
    # kubeconfig's ``client-key-data`` holds it (the prefixes are ``-----BEGIN <RSA|EC|OPENSSH|…> PRIVATE``
    # encoded; a base64 certificate, which is public, starts otherwise)
    ("pulumi-token", re.compile(r"pul-[a-f0-9]{40}")),
    # HashiCorp Vault's service, batch and recovery tokens (1.10+)
    ("vault-token", re.compile(r"hv[sbr]\.[A-Za-z0-9_\-]{24,}")),
    ("private-key", re.compile(r"LS0tLS1CRUdJTiB(?:SU0Eg|QUklWQVRFIEtFW|FQyBQUklWQVRF|PUEVOU1NIIFBSSVZBVEUg|"
                               r"FTkNSWVBURUQgUFJJVkFURSB|EU0EgUFJJVkFURSB)[A-Za-z0-9+/=]*")),
)

PREFIXES: tuple[str, ...] = ("sk-", "AIza", "hf_", "gsk_", "xai-", "github_pat_", "AGE-SECRET-KEY-1", "npm_",
                             "doo_v1_", "dop_v1_", "dor_v1_", "shpat_", "shpca_", "shppa_", "shpss_", "sk_live_",
                             "sk_test_", "rk_live_", "rk_test_", "pul-", "hvs.", "hvb.", "hvr.", "LS0tLS1CRUdJTiB")
"""Every match of :data:`PROVIDER_KEYS` starts with one of these."""

_PREFIX_WORDS = WordSet(PREFIXES)
_ONE = re.compile("|".join(f"(?P<k{n}>{p.pattern})" for n, (_, p) in enumerate(PROVIDER_KEYS)))
_KINDS = {f"k{n}": kind for n, (kind, _) in enumerate(PROVIDER_KEYS)}

_WORD = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")
"""A key never follows one of these: ``task-<md5>``, ``disk-<hex>``, ``my_hf_…`` are names, not keys.
(Checked on each match rather than as a lookbehind, which would cost the regex its literal-prefix scan.)"""


def provider_keys(text: str) -> list[tuple[int, int, str]]:
    """(start, end, kind) of every provider key in ``text`` (a key starts a word)."""
    if not _PREFIX_WORDS.present(text):
        return []
    return [(m.start(), m.end(), _KINDS[m.lastgroup or ""]) for m in _ONE.finditer(text)
            if m.start() == 0 or text[m.start() - 1] not in _WORD]
