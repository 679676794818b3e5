"""Values of secret-named names that are source code, a pattern or a name, not a secret.

The assignment rule (``core.secrets``) masks the value after any secret-looking name, and source code is
full of such names: ``key = key[:-2]``, ``key = (state.font, state.fontsize)``, ``HEX_PAT =
"[0-9A-Fa-f]{1,4}"``, ``SPAN_KEY = "current-span"``.  Masked, the model saw code that is not in the file
(and could not quote it in an edit).  Over the 9,721 modules of a virtualenv's site-packages the rule
made ~660 findings, all of them such code.  A value is left alone here when it is:

- unquoted, a Python/JS expression (``code_expression``): a call, a subscript, an attribute, a tuple, a
  dict or a list of names, a slice, arithmetic inside brackets, an f-string's ``{expr!r``, read by a
  small grammar (names, numbers, brackets that nest, ``. + - * % = :``): ``tokens.send(1+nbytes_token
  .value())``, ``{**image[image_key]``, ``token).kill()``.  A word in brackets and nothing else
  (``[abcdefghijk]``, a YAML list holding a secret) is no expression, nor is a value without brackets
  (``Ab3d+Ef5g``), one with another symbol (``x7K(p9]L``, ``(Tr0ub4dor&3)``), one that leaves a bracket
  open at a line's end (``csDRW[N7Ih``), a name with a digit alone (``hunter2hunter2``);
- a name that refers to a key rather than holding one (``name_reference``): ``ed25519_key``,
  ``self.s3_aws_session_token``, ``httpx2.Auth``, ``X25519PublicKey``: a dotted, snake_case or CamelCase
  name of two words or more whose last word is ``key``/``token``/``auth``/``credentials``; or the
  assigned name itself (``token=token``).  Not for a password's name: ``DB_PASSWORD=Summer2024Key`` stays;
- a regular expression (``regex_value``: ``(?:``, a character class with a range and a quantifier, ``\\d+``)
  or a ``%s`` format (``"__attr_factory_%s"``); for a ``*_PAT`` name (a regex *pattern*, not a personal
  access token, which has no regex metacharacter) any ``[…]``, ``{n,m}``, ``(``, ``\\``;
- a name made of words (``word_value``): an HTTP header (``X-Xet-Access-Token``, ``OpenAI-Beta``), a
  namespaced key (``litellm:health_check:state``, ``io.modelcontextprotocol/clientInfo``), a config
  name (``pydantic-mypy``), a Sphinx role, prose (``Name/path``, ``Required.``): letters only, a
  separator (``- _ . : /``), each word lower case, Capitalized or an acronym, or two of those
  (``subscriptionId``, ``OpenAI``; random letters change case more often).  For a name a human
  chooses the value of (``*PASSWORD``, ``*PASS``, ``*SECRET``, ``SECRET_KEY``…) such words can be a
  passphrase (``DB_PASSWORD="correct-horse-battery"``, ``REDIS_PASSWORD=redis-prod-pass``), so they stay
  masked whatever they say, but for a sentence's one word (``SECRET_KEY: Required.``);
- a reference (``os.environ/OPENAI_API_KEY``, a shell's ``sk-$(openssl rand …)``, SQL's ``$3::text``),
  or an unquoted ``<built-in`` / ``{name`` cut at a blank or a brace (a repr, an f-string's field).

Each check reads a value of at most a few hundred characters once (possessive regexes, one pass of
tokens), so the assignment rule stays linear in its text.
"""

from __future__ import annotations

import re

from agent_tui.core.secret_cli import PLACEHOLDER_WORDS

#: The tokens of an expression.  Symbols a password has and code rarely has in a value (``& | ^ ~ @ ! < >
#: # $ ?``) are none of them: a value holding one is no expression.
_TOKEN_RE = re.compile(
    r"(?P<name>[A-Za-z_][A-Za-z0-9_]*+)"
    r"|(?P<num>[0-9]++(?:\.[0-9]++)?+(?![A-Za-z_]))"
    r"|(?P<fmt>%(?:\([A-Za-z_][A-Za-z0-9_]*+\))?[sdrif](?![A-Za-z0-9]))"
    r"|(?P<param>\$[0-9]++(?![A-Za-z_]))"
    r"|(?P<open>[(\[{])"
    r"|(?P<close>[)\]])"
    r"|(?P<conv>![rsa](?![A-Za-z0-9_]))"
    r"|(?P<dot>\.(?=[A-Za-z_]))"
    r"|(?P<op>\*\*|::|==|[-+*%=:])"
)
_PAIRS = {")": "(", "]": "["}
#: A Capitalized word and digits, a password's shape, not a called or subscripted name's.
_WORD_DIGITS_RE = re.compile(r"[A-Z][a-z]++[0-9]++")
#: What follows an unquoted value cut inside a bracket of code: a comma, a blank, a quote, a brace.
_CUT_BY_CODE = frozenset(", \t\"'}")
#: The longest value read as an expression: code has a blank, a comma or a brace sooner (which end an
#: unquoted value); a longer run is data (``token=(token=(…`` masked whole).
_CODE_MAX = 200
#: Operators that may come before an operand: a sign, an unpacking, a slice's empty start.
_PREFIX_OPS = frozenset({"-", "+", "*", "**", ":"})
#: The last words of a name that refers to a key (``ed25519_key``, ``UserAPIKeyAuth``), as
#: ``secret_names`` splits names.
_REFERENCE_WORDS = frozenset({"key", "apikey", "token", "auth", "credential", "credentials"})
_NAME_PARTS_RE = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z0-9]+(?![a-z])")
#: A dotted name (``self.s3_aws_session_token``), maybe with the closers and colon of the code around it.
_DOTTED_NAME_RE = re.compile(r"(?P<path>[A-Za-z_][A-Za-z0-9_]*+(?:\.[A-Za-z_][A-Za-z0-9_]*+)*+)[):,]*+")
#: A dotted name closing a call (``key=_safe_tuple):``).
_CLOSED_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*+(?:\.[A-Za-z_][A-Za-z0-9_]*+)*+\)++:?+")
_VERSION_RE = re.compile(r"v[0-9]++")
#: The last words of a name whose value a human chooses: a passphrase of words is a password there.
_HUMAN_WORDS = frozenset({"password", "passwd", "pwd", "pass", "passphrase", "pw", "sshpass", "secret"})
_HUMAN_ENDINGS = ("password", "passwd", "passphrase", "secret")
#: Words joined by separators, letters only; at most one trailing run of separators (``value...``,
#: ``lemonade/``) and one leading one (``:py:class:``).
_WORDS_RE = re.compile(r"[-_.:/]?+[A-Za-z]++(?:[-_.:/][A-Za-z]++)*+[-_.:/]*+")
_WORD_RE = re.compile(r"[A-Za-z]++")
#: An HTTP header's name: Capitalized words or acronyms joined by hyphens (``X-Xet-Access-Token``, ``OpenAI-Beta``).
_HEADER_RE = re.compile(r"[A-Z][A-Za-z]*+(?:-[A-Z][A-Za-z]*+)++")
#: A separator of a namespaced key or a path (``io.modelcontextprotocol/clientInfo``, ``Name/path``).
_NAMESPACE_SEP_RE = re.compile(r"[A-Za-z][.:/][A-Za-z]")
_VOWEL_RE = re.compile(r"[AEIOUYaeiouy]")
#: A word of a name: lower case, Capitalized, an acronym, or one of these and a Capitalized word or an
#: acronym (``subscriptionId``, ``OpenAI``, ``MongoDB``); not random letters (``mHQBxBgq``).
_NAME_WORD_RE = re.compile(r"(?:[a-z]++|[A-Z][a-z]++|[A-Z]++)(?:[A-Z][a-z]++|[A-Z]++)?+")
#: What only a regular expression holds: a group's ``(?``, an escape class with a quantifier (``\\d+``,
#: doubled in a string's source), a character class with a range followed by a quantifier.
_REGEX_RE = re.compile(
    r"\(\?[:=!<P>aiLmsux]"
    r"|\\\\?+[dwsDWS][+*?{]"
    r"|\[\^?+[^\]\[\s]*?(?:[0-9]-[0-9]|[a-z]-[a-z]|[A-Z]-[A-Z])[^\]\[\s]*+\][+*?{]"
)
#: A ``%`` format's field, a word's edge on both sides (``__attr_factory_%s``, ``%(name)s``; not ``P%ssw0rd``).
_FORMAT_RE = re.compile(r"(?<![A-Za-z0-9%])%(?:\([A-Za-z_][A-Za-z0-9_]*+\))?[sdrif](?![A-Za-z0-9])")
#: What a ``%`` format holds besides its fields: a name's, a path's, a group's characters.
_FORMAT_TEXT_RE = re.compile(r"[A-Za-z0-9_.:/()|%-]*+")
#: What a regex pattern's value (a ``*_PAT`` name's) holds and an access token never does.
_PATTERN_CHARS_RE = re.compile(r"[\[\]{}()\\^$|*+?]")
#: A reference to a value kept elsewhere: LiteLLM's ``os.environ/NAME``, a command substitution or a
#: variable in the value (``sk-$(openssl rand -hex 32)``), SQL's numbered parameter (``$3::text``).
_REFERENCE_RE = re.compile(
    r"os\.environ/[A-Za-z_][A-Za-z0-9_]*+$|\$[0-9]++::[A-Za-z]"
    r"|[^$]*+\$(?:\([a-z]{3}[a-z0-9_-]*+(?:\)|$)|\{[A-Za-z_][A-Za-z0-9_]{2,}+(?:\}|$))"
)
#: An f-string's or a template's field, whole: a variable's name (snake_case or UPPER_CASE) or a call
#: (``{key_token}``, ``{UNATTRIBUTED_API_KEY}``, ``{_yaml_escape(master_key)}``); not ``{Passw0rd}``.
_TEMPLATE_FIELD_RE = re.compile(
    r"\{(?:[a-z_][a-z0-9_]*+|[A-Z_][A-Z0-9_]*+|[A-Za-z_][A-Za-z0-9_.]*+\([^(){}]*+\))\}"
)
#: A word in parentheses before a blank: prose's aside (``:param auth: (optional) Auth tuple``).
_ASIDE_RE = re.compile(r"\((?:[a-z]++|[A-Z][a-z]++)\)")
#: An f-string's field up to its ``}`` (``{response.text``, ``{self.scope(request)``).
_FIELD_START_RE = re.compile(r"\{[A-Za-z_][A-Za-z0-9_.()\[\]:!]*+")
#: The start of a repr or a placeholder cut at its first blank (``key=<built-in function neg>``).
_CUT_ANGLE_RE = re.compile(r"<[A-Za-z][A-Za-z_-]*+")


#: A URL's password in docs is a word naming it (``redis://:password@host``, ``gist://user:TOKEN@id``), as
#: ``core.secret_cli`` reads ``curl -u user:password``; or an f-string's field (``{quote(password)}``).
_FIELD_RE = re.compile(r"\{[^{}]++\}")


def url_placeholder(password: str) -> bool:
    """Whether a URL's password is a placeholder (``secret_cli.PLACEHOLDER_WORDS``) or an f-string's field."""
    return password.lower() in PLACEHOLDER_WORDS or _FIELD_RE.fullmatch(password) is not None


def human_chosen(name: str) -> bool:
    """Whether a name's value is one a person picks (a password, a passphrase, a shared secret), which may
    be words: ``DB_PASSWORD``, ``PGPASSWORD``, ``JWT_SECRET``, ``clientsecret``, and a key or token named for one
    (``SECRET_KEY``, ``FLASK_SECRET_KEY="my-flask-secret-key"``); not ``API_KEY``, ``TOKEN``, ``secret_name``."""
    words = [w.lower() for w in _NAME_PARTS_RE.findall(name)]
    if not words:
        return False
    if words[-1] in _HUMAN_WORDS or words[-1].endswith(_HUMAN_ENDINGS):
        return True
    return len(words) >= 2 and words[-2].endswith(_HUMAN_ENDINGS) and words[-1] in ("key", "token")


def not_a_secret(name: str, value: str, quoted: bool, after: str) -> bool:
    """Whether the value assigned to a secret name is code, a pattern or a name (the module's rules).
    ``after``: the character that follows the value in the text ('' at its end)."""
    human = human_chosen(name)
    if regex_value(name, value) or _REFERENCE_RE.match(value):
        return True
    if word_value(value, human) and not (quoted and value[-1] == "." and _WORD_RE.fullmatch(value, 0, len(value) - 1)):
        return True
    if not human and name_reference(value):
        return True
    if _TEMPLATE_FIELD_RE.fullmatch(value):
        return True
    if quoted:
        return False
    if value == name or value == name.rsplit(".", 1)[-1]:
        return True
    first = value[0]
    if first == "{" and after == "}" and _FIELD_START_RE.fullmatch(value) or first == "<" and after == " " and _CUT_ANGLE_RE.fullmatch(value):
        return True
    if first == "(" and (after == "," and _WORD_RE.fullmatch(value, 1) or after.isspace() and _ASIDE_RE.fullmatch(value)):
        return True
    if not any(c.isdigit() for c in value) and _CLOSED_NAME_RE.fullmatch(value):
        return True  # (``key=_safe_tuple):``, ``key: utils.Buffer):``: CODE_VALUE_RE's names, in a call)
    return code_expression(value, after)


def regex_value(name: str, value: str) -> bool:
    """A regular expression (one that starts as one, or with two of its marks) or a ``%`` format of a
    name or a path; for a ``*PAT`` name, anything with a regex metacharacter."""
    marks = _REGEX_RE.findall(value)
    if len(marks) >= 2 or marks and value[0] in "([^\\":
        return True
    if _FORMAT_RE.search(value) and _FORMAT_TEXT_RE.fullmatch(value):
        return True
    words = _NAME_PARTS_RE.findall(name)
    return bool(words) and words[-1].lower() == "pat" and _PATTERN_CHARS_RE.search(value) is not None


def word_value(value: str, human: bool) -> bool:
    """Letter words joined by separators (``X-Xet-Access-Token``, ``litellm:health_check:state``,
    ``Required.``): lower case, a header's name, a namespaced key or a path, or a word ending a sentence;
    each word shaped as a name's (``_NAME_WORD_RE``), a pronounceable one among them, no
    long one without a vowel, at most one of a single letter (``aO_Fp/dxs_``, ``hnlpf`` are random); never for a name a human chooses the value
    of (``REDIS_PASSWORD=redis-prod-pass``, ``jwt_secret = "a-long-secret-for-signing"`` are passphrases)."""
    if _WORDS_RE.fullmatch(value) is None or _WORD_RE.fullmatch(value):  # (a plain word is CODE_VALUE_RE's)
        return False
    words = _WORD_RE.findall(value)
    if not all(_NAME_WORD_RE.fullmatch(w) for w in words):
        return False
    if not (value.islower() or _HEADER_RE.fullmatch(value) or _NAMESPACE_SEP_RE.search(value)
            or len(words) == 1 and value[-1] == "."):
        return False
    humps = _NAME_PARTS_RE.findall(value)
    if sum(len(h) == 1 for h in humps) > 1 or not any(len(h) >= 3 and _VOWEL_RE.search(h) for h in humps):
        return False
    if any(len(h) >= 5 and not _VOWEL_RE.search(h) for h in humps):
        return False
    return not human or (len(words) == 1 and value[-1] == ".")  # (a sentence's word: ``KEY: Required.``)


def name_reference(value: str) -> bool:
    """A name that refers to a key (``ed25519_key``, ``self.s3_aws_session_token``, ``httpx2.Auth``,
    ``X25519PublicKey)``): two words or more, the last one of ``_REFERENCE_WORDS`` (a trailing ``_v2``
    dropped)."""
    m = _DOTTED_NAME_RE.fullmatch(value)
    if m is None:
        return False
    words = [w.lower() for w in _NAME_PARTS_RE.findall(m.group("path"))]
    if len(words) > 2 and _VERSION_RE.fullmatch(words[-1]):
        words.pop()
    return len(words) >= 2 and words[-1] in _REFERENCE_WORDS


def code_expression(value: str, after: str = "") -> bool:
    """Whether an unquoted value is an expression (see the module's docstring): its tokens follow one
    another as in code, its brackets nest, and it has code's structure: a call or a subscript, or inside
    brackets an attribute, an operator or a snake_case name, a format field, or a method's chain after
    a closer of a bracket opened before the value (``token).kill()``).  An operator stands inside
    brackets only (a colon may end the value: ``f(x):``), and a value without brackets is never one
    (``wJalr+XUtn/K7MD`` is base64, ``Ab1-x*y`` a password).  ``after``: the character after the value
    in the text; a value that leaves a bracket open was cut by the list or call it is in, at a comma, a
    blank or a quote (``(state.font``, ``fl2str(key``), not at a line's end, where a password ends
    (``csDRW[N7IhWx``), unless it ends with a dotted name's call (``self._parse(``)."""
    if len(value) > _CODE_MAX:
        return False
    stack: list[str] = []
    operand = strong = outer_closed = False  # operand: the last token ended an operand
    pos, size, last, last_text = 0, len(value), "", ""
    while pos < size:
        m = _TOKEN_RE.match(value, pos)
        if m is None:
            return False
        kind, text = m.lastgroup, m.group()
        pos = m.end()
        if last == "outer" and kind not in ("dot", "open", "close") and text != ":":
            return False
        strong = strong or outer_closed
        if kind in ("name", "num", "fmt", "param"):
            if operand:
                return False
            operand = True
            strong = strong or kind in ("fmt", "param") or (kind == "name" and bool(stack) and "_" in text.strip("_"))
        elif kind == "open":
            if operand and (text == "{" or _WORD_DIGITS_RE.fullmatch(last_text)):  # (not ``Horse868[1]``)
                return False
            strong = strong or operand  # a call or a subscript
            stack.append(text)
            operand = False
        elif kind == "close":
            if not operand and last not in ("open", ":"):
                return False
            if stack:
                if stack.pop() != _PAIRS[text]:
                    return False
            else:
                outer_closed, kind = True, "outer"
            operand = True
        elif kind == "conv":
            if not operand or "{" not in stack:
                return False
        elif kind == "dot":
            if not operand:
                return False
            strong, operand = strong or bool(stack), False
        else:  # an operator
            if not stack and (text != ":" or pos < size) or not operand and text not in _PREFIX_OPS:
                return False
            strong, operand = strong or bool(stack), False
        last, last_text = (text if kind == "op" else kind), text
    if last not in ("name", "num", "fmt", "param", "close", "outer", "conv", "open", ":"):
        return False
    if stack and after not in _CUT_BY_CODE and (last != "open" or "." not in value):
        return False
    return strong
