"""What one provider refuses that the others take, fitted before litellm converts the request.

The settings are per model but a user switches models mid-session (``/model``) and keeps the global
``temperature`` or ``thinking``; a tool's schema comes from any MCP server.  Each rule here is one a
real API answers with a 400 (or, for Gemini's enums, silently garbles), with where it is stated:

- Claude: ``temperature`` in [0, 1] (OpenAI and Gemini take up to 2); a thinking budget of at least
  1024 tokens (docs.anthropic.com, extended thinking: "budget_tokens … minimum is 1,024");
- Gemini 3: a thinking budget and a thinking level are not both allowed ("Cannot specify both
  thinking_budget and thinking_level"): ``reasoning_effort`` (the level) wins;
- Gemini 2.5: a thinking budget within the model's range (ai.google.dev, thinking: Pro 128–32,768, Flash
  0–24,576, Flash-Lite 0 or 512–24,576; "thinking_budget is out of range"): a global ``thinking`` set
  for Claude (32,000) and kept over a ``/model`` switch is brought into it;
- Gemini: ``enum`` only on a STRING schema ("parameters.properties[x].enum: only allowed for STRING
  type"); a number's or a boolean's choices go to its description instead, where the model still
  reads them;
- Gemini's Schema has ``anyOf`` but no ``oneOf``, and one ``items`` schema, not a tuple: litellm dropped a
  property's ``oneOf`` (leaving it untyped), turned ``prefixItems`` into items of type OBJECT, and failed
  on a tuple ``items`` list before sending anything.  So ``oneOf`` becomes ``anyOf`` and a tuple becomes
  ``items: {anyOf: [...]}`` with the order in the description; a description beside an ``anyOf`` goes
  into its branches too (litellm keeps only the ``anyOf`` of such a schema).
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping
from typing import Any

#: Claude's smallest thinking budget.
CLAUDE_MIN_THINKING = 1024
#: Claude's highest temperature.
CLAUDE_MAX_TEMPERATURE = 1.0
#: Gemini 2.5 thinking budgets besides 0 (where 0, off, is taken), by model-name prefix, longest first.
GEMINI_BUDGETS: tuple[tuple[str, int, int, bool], ...] = (
    ("gemini-2.5-flash-lite", 512, 24_576, True), ("gemini-2.5-flash", 1, 24_576, True),
    ("gemini-2.5-pro", 128, 32_768, False),
)


def fit_dialect(fam: str, model: str, kw: dict[str, Any], ceiling: int | None = None) -> None:
    """Change ``kw`` (``litellm.acompletion``'s keyword arguments) in place to what ``fam`` accepts.
    ``ceiling``: the model's output-token limit (litellm's ``max_output_tokens``), which ``max_tokens`` may
    not pass: Anthropic refuses "max_tokens: 88000 > 64000", as a thinking budget plus the reserve made it."""
    if fam == "anthropic":
        if isinstance(kw.get("temperature"), (int, float)) and kw["temperature"] > CLAUDE_MAX_TEMPERATURE:
            kw["temperature"] = CLAUDE_MAX_TEMPERATURE
        thinking = kw.get("thinking")
        if isinstance(thinking, Mapping) and isinstance(thinking.get("budget_tokens"), int):
            budget = max(CLAUDE_MIN_THINKING, thinking["budget_tokens"])
            kw["thinking"] = {**thinking, "budget_tokens": budget}
            if kw.get("max_tokens", 0) <= budget:
                kw["max_tokens"] = budget + CLAUDE_MIN_THINKING
            if ceiling and kw["max_tokens"] > ceiling:  # the answer keeps at least the reserve's floor
                kw["thinking"]["budget_tokens"] = max(CLAUDE_MIN_THINKING, min(budget, ceiling - CLAUDE_MIN_THINKING))
    elif fam == "gemini":
        if "gemini-3" in model.lower() and kw.get("reasoning_effort") and kw.get("thinking"):
            del kw["thinking"]
        _fit_gemini_budget(model, kw)
        if kw.get("tools"):
            kw["tools"] = [_gemini_tool(t) for t in kw["tools"]]
    if ceiling and isinstance(kw.get("max_tokens"), int) and kw["max_tokens"] > ceiling:
        kw["max_tokens"] = ceiling


def _fit_gemini_budget(model: str, kw: dict[str, Any]) -> None:
    thinking = kw.get("thinking")
    budget = thinking.get("budget_tokens") if isinstance(thinking, Mapping) else None
    name = model.lower().rsplit("/", 1)[-1]
    rule = next((r for r in GEMINI_BUDGETS if name.startswith(r[0])), None)
    if not isinstance(budget, int) or rule is None or (budget == 0 and rule[3]):
        return
    kw["thinking"] = {**thinking, "budget_tokens": min(max(budget, rule[1]), rule[2])}


def _gemini_tool(tool: Mapping[str, Any]) -> dict[str, Any]:
    fn = tool.get("function")
    params = fn.get("parameters") if isinstance(fn, Mapping) else None
    if not isinstance(params, Mapping) or not any(_other_enum(x) or _unsupported_shape(x) for x in _schemas(params)):
        return dict(tool)
    out = copy.deepcopy(dict(tool))
    for schema in list(_schemas(out["function"]["parameters"])):
        _gemini_shape(schema)
    for schema in _schemas(out["function"]["parameters"]):
        _string_enums_only(schema)
    return out


_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SCHEMA_MAPS = ("properties", "$defs", "definitions", "patternProperties")
_SCHEMA_ONE = ("items", "additionalProperties", "not", "contains")


def _schemas(schema: Any) -> Iterator[dict[str, Any]]:
    """``schema`` and every schema inside it, by the keywords that hold schemas (a property *named* ``oneOf``
    or ``enum`` is a name, not a keyword), parents before children."""
    if not isinstance(schema, dict):
        return
    yield schema
    for key in _SCHEMA_LISTS:
        for sub in schema.get(key) or () if isinstance(schema.get(key), list) else ():
            yield from _schemas(sub)
    for key in _SCHEMA_MAPS:
        if isinstance(schema.get(key), dict):
            for sub in schema[key].values():
                yield from _schemas(sub)
    for key in _SCHEMA_ONE:
        value = schema.get(key)
        for sub in value if isinstance(value, list) else [value]:
            yield from _schemas(sub)


def _other_enum(schema: Mapping[str, Any]) -> bool:
    enum = schema.get("enum")
    return isinstance(enum, list) and not all(isinstance(v, str) and v for v in enum)


def _unsupported_shape(schema: Mapping[str, Any]) -> bool:
    return "oneOf" in schema or "prefixItems" in schema or isinstance(schema.get("items"), list)


def _gemini_shape(schema: dict[str, Any]) -> None:
    """One schema fitted: ``oneOf`` as ``anyOf`` (dropped beside an ``anyOf``, which it can only narrow), a tuple's
    item schemas and the rest-items schema as one ``anyOf`` (their order in the description), a description
    beside an ``anyOf`` copied into its branches; in place."""
    if "oneOf" in schema:
        branches = schema.pop("oneOf")
        if "anyOf" not in schema:
            schema["anyOf"] = branches
    prefix = schema.pop("prefixItems", None)
    if isinstance(schema.get("items"), list):
        prefix = schema.pop("items")
    if isinstance(prefix, list):
        shapes = [x for x in prefix if isinstance(x, dict)]
        rest = schema.get("items") if isinstance(schema.get("items"), dict) else None
        every = shapes + ([rest] if rest is not None else [])
        unique = [x for n, x in enumerate(every) if x not in every[:n]]
        if unique:
            schema["items"] = unique[0] if len(unique) == 1 else {"anyOf": unique}
            schema.setdefault("type", "array")
        if shapes:
            _describe(schema, "items in this order: " + ", ".join(_kind(x) for x in shapes)
                      + (", then any number of " + _kind(rest) if rest is not None else ""))
    if isinstance(schema.get("anyOf"), list) and isinstance(schema.get("description"), str):
        for branch in schema["anyOf"]:
            if isinstance(branch, dict) and branch.get("type") != "null" and "description" not in branch:
                branch["description"] = schema["description"]


def _kind(schema: Mapping[str, Any]) -> str:
    kind = schema.get("type")
    return str(kind) if isinstance(kind, str) else "any"


def _describe(schema: dict[str, Any], note: str) -> None:
    text = schema.get("description")
    schema["description"] = f"{text} ({note})" if isinstance(text, str) and text else note


def _string_enums_only(schema: dict[str, Any]) -> None:
    """Move an enum that is not all non-empty strings into the schema's description (in place): Gemini takes
    only strings, and litellm turns an empty one into null, which it refuses."""
    if _other_enum(schema):
        enum = schema.pop("enum")
        _describe(schema, "one of " + ", ".join(_literal(v) for v in enum))


def _literal(value: Any) -> str:
    if value == "":
        return '"" (empty)'
    if isinstance(value, bool):
        return "true" if value else "false"
    return "null" if value is None else str(value)
