"""Shape MCP tool definitions so each costs a fraction of its raw tokens.

A server's tools/list is written for humans browsing a catalogue: long descriptions,
titles, defaults, ``$schema``, output schemas.  The model needs far less to pick and
call a tool: what it does, when (not) to use it, and the argument names, types,
required flags and enums.  Everything here is a pure function of one tool, so costs
are computed once per listing and shown next to the raw cost.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9'\"(`])|\n\s*\n|\n(?=\s*[-*•]|\s*[A-Z])")
#: Clauses that tell the model when to use a tool or not: kept whatever the budget.
WHEN_RE = re.compile(
    r"\b(use (this|it|when|for|to|only|instead)|when (you|to|the|a|an)|do not|don't|not (for|to|use|be)"
    r"|only (works|use|for|when|if|within)|instead|prefer|avoid|deprecated|never|must|should not"
    r"|rather than|unless|required before)\b",
    re.I,
)
_KEEP_KEYS = ("type", "enum", "const")
_MAX_DEPTH = 4


def sentences(text: str) -> list[str]:
    """``text`` split into sentences / bullet lines, whitespace collapsed."""
    parts = _SENTENCE_RE.split(text.strip()) if text else []
    return [" ".join(p.split()) for p in parts if p and p.strip()]


def _cut(sentence: str, words: int) -> str:
    parts = sentence.split()
    if len(parts) <= words:
        return sentence
    return " ".join(parts[: max(1, words)]).rstrip(",;:") + "…"


def shape_description(text: str, words: int = 30, drop: frozenset[str] = frozenset()) -> str:
    """The first sentence plus every when-to-use / when-not-to-use clause, within ``words``.

    The first sentence yields words to the clauses (down to 8 words); the clauses are
    kept whole unless the total would pass twice the budget.  ``drop`` removes clauses that
    are said once elsewhere (a server-wide note).
    """
    parts = [s for s in sentences(text) if s not in drop]
    if not parts:
        return ""
    first, rest = parts[0], parts[1:]
    clauses = [s for s in rest if WHEN_RE.search(s)]
    clause_words = sum(len(c.split()) for c in clauses)
    head = _cut(first, max(8, words - clause_words))
    used = len(head.split())
    kept: list[str] = []
    for clause in clauses:  # whole, up to twice the budget in all
        room = 2 * words - used
        if room < 4:
            break
        piece = _cut(clause, room)
        used += len(piece.split())
        kept.append(piece)
    return " ".join([head, *kept])


def first_sentence(text: str, words: int = 14) -> str:
    """The first sentence of ``text``, cut to ``words`` (for one-line catalogue entries)."""
    parts = sentences(text)
    return _cut(parts[0], words) if parts else ""


def common_clauses(
    descriptions: list[str], min_share: float = 0.5, min_count: int = 3
) -> frozenset[str]:
    """Sentences repeated across a server's tools (say them once, not per tool)."""
    counts: Counter[str] = Counter()
    for text in descriptions:
        counts.update(set(sentences(text)[1:]))
    need = max(min_count, int(len(descriptions) * min_share + 0.999))
    return frozenset(s for s, n in counts.items() if n >= need)


def _resolve(schema: dict[str, Any], defs: dict[str, Any], depth: int) -> dict[str, Any]:
    """Inline a local ``$ref`` (pydantic schemas use them; ``$defs`` is not sent)."""
    ref = schema.get("$ref")
    if isinstance(ref, str) and depth < _MAX_DEPTH:
        for prefix in ("#/$defs/", "#/definitions/"):
            target = defs.get(ref[len(prefix) :]) if ref.startswith(prefix) else None
            if isinstance(target, dict):
                return {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
    return schema


def shape_schema(
    schema: Any, param_words: int = 0, defs: dict[str, Any] | None = None, depth: int = 0
) -> dict[str, Any]:
    """Keep names, types, required, enums (and nested items/properties); drop the rest."""
    if not isinstance(schema, dict):
        return {}
    if defs is None:
        defs = dict(schema.get("$defs") or schema.get("definitions") or {})
    schema = _resolve(schema, defs, depth)
    out: dict[str, Any] = {k: schema[k] for k in _KEEP_KEYS if k in schema}
    if isinstance(out.get("type"), list):  # ["string", "null"] -> "string"
        kinds = [t for t in out["type"] if t != "null"]
        out["type"] = kinds[0] if len(kinds) == 1 else kinds
    if "const" in out:  # one allowed value: an enum of one, which every provider's schema subset takes
        out["enum"] = [out.pop("const")]
    if isinstance(out.get("enum"), list) and "type" not in out and (kind := _kind_of(out["enum"])):
        out["type"] = kind  # an untyped enum becomes an object in litellm's Gemini conversion
    for part in schema.get("allOf") or []:  # every branch holds: its properties are the schema's own
        if isinstance(part, dict) and depth < _MAX_DEPTH:
            _merge(out, shape_schema(part, param_words, defs, depth + 1), required="union")
    for key in ("anyOf", "oneOf"):
        options = [
            o for o in schema.get(key) or [] if isinstance(o, dict) and o.get("type") != "null"
        ]
        if len(options) == 1:
            out.update(shape_schema(options[0], param_words, defs, depth + 1))
        elif options:
            out[key] = [shape_schema(o, param_words, defs, depth + 1) for o in options]
    if param_words and isinstance(schema.get("description"), str) and depth > 0:
        out["description"] = _cut(" ".join(schema["description"].split()), param_words)
    if depth >= _MAX_DEPTH:
        return out
    props = schema.get("properties")
    if isinstance(props, dict):
        out["properties"] = {
            **(out.get("properties") or {}),
            **{k: shape_schema(v, param_words, defs, depth + 1) for k, v in props.items()},
        }
        required = [r for r in schema.get("required") or [] if r in props]
        if required:
            out["required"] = list(dict.fromkeys([*(out.get("required") or []), *required]))
    if isinstance(schema.get("items"), dict):
        out["items"] = shape_schema(schema["items"], param_words, defs, depth + 1)
    return out


def _kind_of(values: list[Any]) -> str | None:
    """The JSON-schema type every one of ``values`` has (None when they differ)."""
    kinds = {"boolean" if isinstance(v, bool) else "integer" if isinstance(v, int) else "number"
             if isinstance(v, float) else "string" if isinstance(v, str) else "null" if v is None else "other"
             for v in values}
    if kinds == {"integer", "number"}:
        return "number"
    return kinds.pop() if len(kinds) == 1 and not kinds & {"null", "other"} else None


def _merge(into: dict[str, Any], part: dict[str, Any], required: str) -> None:
    """Fold one branch's object schema into ``into``: its properties added, ``required`` either the union
    (allOf: every branch holds) or the intersection (anyOf/oneOf: only what every alternative requires)."""
    if "type" in part:
        into.setdefault("type", part["type"])
    if isinstance(part.get("properties"), dict):
        into["properties"] = {**part["properties"], **(into.get("properties") or {})}
    mine, theirs = list(into.get("required") or []), list(part.get("required") or [])
    if required == "union":
        both = list(dict.fromkeys([*mine, *theirs]))
    else:
        both = [r for r in mine if r in theirs]
    if both:
        into["required"] = both
    else:
        into.pop("required", None)


def parameters(schema: Any, param_words: int = 0) -> dict[str, Any]:
    """A shaped top-level argument schema: always an object with properties.

    A root union (``anyOf``/``oneOf`` of object shapes, as zod unions give) is folded into one object: every
    alternative's properties, required only what all of them require.  Anthropic refuses a union at the top
    of ``input_schema`` (litellm then strips it, and the model is told the tool takes no arguments) and
    Gemini requires an OBJECT there (a 400 on every request while the tool is loaded); the server still
    checks which alternative the arguments match."""
    shaped = shape_schema(schema, param_words)
    for key in ("anyOf", "oneOf"):
        options = shaped.pop(key, None)
        if isinstance(options, list) and options:
            alternatives = [o for o in options if isinstance(o, dict) and o.get("type", "object") == "object"]
            own = list(shaped.get("required") or [])
            if alternatives:
                folded: dict[str, Any] = dict(alternatives[0])
                for other in alternatives[1:]:
                    _merge(folded, other, required="intersection")
                shaped["properties"] = {**(folded.get("properties") or {}), **(shaped.get("properties") or {})}
                kept = list(dict.fromkeys([*own, *(folded.get("required") or [])]))
                if kept:
                    shaped["required"] = kept
    shaped["type"] = "object"
    shaped.setdefault("properties", {})
    return shaped


def function(name: str, description: str, params: dict[str, Any]) -> dict[str, Any]:
    """An OpenAI-style function tool definition."""
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": params},
    }


def raw_function(name: str, tool_dump: dict[str, Any]) -> dict[str, Any]:
    """What a naive client sends: the full description and the full input schema."""
    params = tool_dump.get("inputSchema") or {"type": "object", "properties": {}}
    return function(name, tool_dump.get("description") or "", params)


def definition_text(definition: dict[str, Any]) -> str:
    """The JSON text whose tokens are counted as a definition's cost (same for raw and shaped)."""
    return json.dumps(definition, ensure_ascii=False, separators=(",", ":"))


def signature(params: dict[str, Any]) -> str:
    """``(path: string, tail?: integer, mode: a|b)`` — an argument list for catalogues."""
    props = params.get("properties") or {}
    required = set(params.get("required") or [])
    parts = []
    for name, spec in props.items():
        kind = "|".join(map(str, spec["enum"][:6])) if "enum" in spec else spec.get("type", "any")
        if kind == "array" and isinstance(spec.get("items"), dict):
            kind = f"{spec['items'].get('type', 'any')}[]"
        parts.append(f"{name}{'' if name in required else '?'}: {kind}")
    return "(" + ", ".join(parts) + ")"
