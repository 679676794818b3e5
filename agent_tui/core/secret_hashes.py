"""Password hashes: an Apache ``htpasswd`` line's, ``/etc/shadow``'s, an LDAP ``userPassword``'s.

No name says a hash is a secret (``admin:$apr1$…``, ``root:$6$…:19000:0:99999:7:::``), and it is no
password itself; but one leaked is a password to anyone with a GPU and a word list (the apr1 or
``{SHA}`` hash of a weak password falls to them in minutes), so it is masked as one.  The formats are exact (a scheme, a
salt and a digest of fixed alphabet and length), which makes them safe to find wherever they stand as
a word: an htpasswd or shadow line, ``openssl passwd`` and ``mkpasswd`` output, a Traefik label in a
compose file (its ``$`` doubled), a shell string (``\\$`` escaped).  Masked from the ``$`` or ``{`` to the
digest's end, the user name and the shadow fields around it kept:

- modular crypt: md5-crypt ``$1$`` and Apache's ``$apr1$`` (salt up to 8, digest 22), bcrypt
  ``$2a$``/``$2b$``/``$2x$``/``$2y$`` (cost, then 53), sha256-crypt ``$5$`` and sha512-crypt ``$6$``
  (optional ``rounds=N$``, salt up to 16, digest 43 or 86), yescrypt ``$y$``/``$gy$`` and scrypt ``$7$``
  (parameters and salt, digest 43), in the 64-character alphabet ``./0-9A-Za-z``;
- ``{SHA}``, ``{SSHA}``, ``{SHA256}``… ``{MD5}``, ``{SMD5}``: base64 of at least 16 bytes.

Not ``$1`` or ``$HOME`` (no scheme, salt and digest after them), not ``{SHA}`` alone or before a short
word, not ``${SHA}`` (a shell expansion).  Each regex starts with its literal (found by the regex
engine's fast search) and reads a bounded run, or one run of base64, from it: linear in the text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from agent_tui.core.secret_gates import TextView
from agent_tui.core.secret_values import Finding

#: One character of a crypt salt or digest.
_B = "[./0-9A-Za-z]"
#: The ``$`` between a crypt hash's parts: doubled in a compose file (``$$``), escaped in a shell string (``\$``).
_SEP = r"\\?\$\$?"
#: A modular crypt hash.  The first ``$`` follows no word character, ``$``, ``.`` or ``/`` (its lookbehind
#: comes after it, so the pattern starts with its literal); every later separator is the same as the first
#: one after the scheme; no salt or digest character and no ``$`` follows the digest.  One group per scheme
#: (``_CRYPT_KINDS``).
_CRYPT_RE = re.compile(
    r"\$(?<![\w$./]\$)\$?(?:"
    rf"(?P<md5>1|apr1)(?P<s1>{_SEP}){_B}{{1,8}}+(?P=s1){_B}{{22}}"
    rf"|(?P<bcrypt>2[abxy]?)(?P<s2>{_SEP})[0-9]{{2}}(?P=s2){_B}{{53}}"
    rf"|(?P<sha256>5)(?P<s3>{_SEP})(?:rounds=[0-9]{{1,9}}(?P=s3))?{_B}{{1,16}}+(?P=s3){_B}{{43}}"
    rf"|(?P<sha512>6)(?P<s4>{_SEP})(?:rounds=[0-9]{{1,9}}(?P=s4))?{_B}{{1,16}}+(?P=s4){_B}{{86}}"
    rf"|(?P<yescrypt>g?y|7)(?P<s5>{_SEP}){_B}{{1,128}}+(?:(?P=s5){_B}{{1,128}}+)?(?P=s5){_B}{{43}}"
    r")(?![./0-9A-Za-z$])"
)
#: The kind of each scheme group's match, by the scheme's id.
_CRYPT_KINDS = {"1": "md5-crypt-hash", "apr1": "apr1-hash", "2": "bcrypt-hash", "5": "sha256-crypt-hash",
                "6": "sha512-crypt-hash", "y": "yescrypt-hash", "gy": "yescrypt-hash", "7": "scrypt-hash"}
#: An LDAP-style hash (``{SHA}`` is htpasswd's ``-s``, ``{SSHA}`` OpenLDAP's and nginx's): the scheme, then
#: base64 of at least 16 bytes.  Not after ``$`` (``${SHA}`` is a shell variable).
_LDAP_RE = re.compile(
    r"\{(?<!\$\{)(?P<scheme>S?SHA(?:256|384|512)?|S?MD5)\}[A-Za-z0-9+/]{22,}+={0,2}(?![A-Za-z0-9+/=])"
)


def password_hashes(text: str, view: TextView | None = None) -> Iterator[Finding]:
    """The password hashes in ``text`` (see the module's docstring), each from its scheme's ``$`` or ``{``
    (or the backslash escaping that ``$``) to the digest's end."""
    if view is None or "$" in text:
        for m in _CRYPT_RE.finditer(text):
            scheme = next(name for name in ("md5", "bcrypt", "sha256", "sha512", "yescrypt") if m.group(name))
            ident = m.group(scheme)
            kind = _CRYPT_KINDS[ident if scheme in ("md5", "yescrypt") else ident[0]]
            start = m.start()
            if start and text[start - 1] == "\\":  # ``\$apr1\$…``: the escape goes with its ``$``
                start -= 1
            yield Finding(start, m.end(), kind)
    if view is None or "{S" in text or "{MD5}" in text:
        for m in _LDAP_RE.finditer(text):
            yield Finding(m.start(), m.end(), f"{m.group('scheme').lower()}-hash")
