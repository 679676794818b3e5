"""A fake Gemini API (``models/{model}:generateContent`` and ``:streamGenerateContent?alt=sse``), strict.

litellm's ``gemini/`` provider converts OpenAI-format messages to ``contents`` with
``parts``; this fake answers in Gemini's dialect (thought parts, whole ``functionCall``
parts carrying a ``thoughtSignature``, ``finishReason`` STOP / MAX_TOKENS, a
``usageMetadata`` with ``thoughtsTokenCount`` and ``cachedContentTokenCount``) and refuses
with Gemini's 400 ``INVALID_ARGUMENT`` what Gemini refuses:

* no ``x-goog-api-key`` header (403), a role other than ``user`` / ``model``, an empty ``parts``;
* a part with no data, e.g. ``{"text": ""}`` (proto3 cannot tell an empty string from unset: "required
  oneof field 'data' must have one initialized field"), in the contents or the system instruction;
* ``functionCall.args`` that is not an object (a Struct);
* a function-call turn not right after a user turn or a function-response turn, and a
  function-response turn whose number of parts differs from the calls it answers;
* (thinking models, ``gemini-3*``) a function call of the current turn whose first call has no
  ``thoughtSignature``, or one this server did not issue ("Corrupted thought signature.");
* a tool ``parameters`` schema whose root is not an OBJECT ("functionDeclaration parameters schema should be
  of type OBJECT"), or an ``enum`` value that is not a non-empty string;
* a tool ``parameters`` schema with a field Gemini's Schema does not have (``$schema``,
  ``additionalProperties`` …: "Unknown name … Cannot find field"), or an ``enum`` on a schema whose type
  is not STRING ("enum: only allowed for STRING type"; litellm turns an untyped enum into an OBJECT);
* a function name that does not start with a letter or ``_`` (Vertex ``FunctionDeclaration.name``);
* a ``thinkingConfig`` with both a budget and a level (Gemini 3: "Cannot specify both");
* a thinking budget of 0 for Gemini 2.5 Pro, which cannot stop thinking ("Budget 0 is invalid. This model
  only works in thinking mode."), or outside the model's range (``BUDGETS``: ai.google.dev, thinking);
* a thinking level Gemini 3 Pro does not take (only low and high: "Thinking level MEDIUM is not supported").

Google accepts its documented placeholder signature (``skip_thought_signature_validator``) and
so does the fake; ``placeholders`` counts requests that used it, so a test can prove the real
signatures went back.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
from collections.abc import Iterator
from typing import Any

from tests.support.fake_dialect import FakeDialect, Rejected, Turn

_KEY = b"fake-gemini-signing-key"
#: Thinking budgets each 2.5 model takes besides 0 (longest name first: a prefix match).
BUDGETS = {"gemini-2.5-flash-lite": (512, 24_576), "gemini-2.5-flash": (1, 24_576), "gemini-2.5-pro": (128, 32_768)}
PLACEHOLDER = base64.b64encode(b"skip_thought_signature_validator").decode()
FINISH = {"stop": "STOP", "tool_calls": "STOP", "length": "MAX_TOKENS"}
#: The fields of Gemini's ``Schema`` message (anything else in ``parameters`` is refused).
SCHEMA_FIELDS = frozenset({
    "type", "format", "title", "description", "nullable", "enum", "maxItems", "minItems", "properties",
    "required", "minProperties", "maxProperties", "minLength", "maxLength", "pattern", "example", "anyOf",
    "propertyOrdering", "default", "items", "minimum", "maximum",
    "max_items", "min_items", "property_ordering", "any_of", "min_length", "max_length",
})

#: A Part's ``data`` oneof (camelCase and snake_case, as the REST API accepts both).
DATA_FIELDS = ("text", "inlineData", "inline_data", "functionCall", "function_call", "functionResponse",
               "function_response", "fileData", "file_data", "executableCode", "executable_code",
               "codeExecutionResult", "code_execution_result")


def sign(what: str) -> str:
    return base64.b64encode(hmac.new(_KEY, what.encode(), hashlib.sha256).digest()).decode()


def _get(part: dict[str, Any], camel: str, snake: str) -> Any:
    return part.get(camel, part.get(snake))


#: Gemini's function names (Vertex ``FunctionDeclaration.name``).
FUNCTION_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_.:-]{0,63}")


class FakeGemini(FakeDialect):
    """The fake; ``usages`` holds each answered request's ``usageMetadata``."""

    count_model = "gemini/gemini"

    def __init__(self) -> None:
        super().__init__()
        self.usages: list[dict[str, int]] = []
        self.placeholders = 0
        self._issued: set[str] = set()
        self._prev: list[Any] | None = None

    def error_body(self, message: str, status: int) -> dict[str, Any]:
        state = {400: "INVALID_ARGUMENT", 403: "PERMISSION_DENIED", 404: "NOT_FOUND"}.get(status, "UNKNOWN")
        return {"error": {"code": status, "message": message, "status": state}}

    @staticmethod
    def model_of(path: str) -> str:
        tail = path.split("?", 1)[0].rsplit("/models/", 1)[-1]
        return tail.split(":", 1)[0]

    @staticmethod
    def thinking_model(model: str) -> bool:
        return model.startswith("gemini-3")

    # ---- what the real API refuses
    def check(self, path: str, body: dict[str, Any]) -> None:
        route = path.split("?", 1)[0]
        if "/models/" not in route or not route.endswith((":generateContent", ":streamGenerateContent")):
            raise Rejected(f"The requested URL {route} was not found on this server.", 404)
        for t, tool in enumerate(body.get("tools") or []):
            for d, decl in enumerate(_get(tool, "functionDeclarations", "function_declarations") or []):
                if not FUNCTION_NAME_RE.fullmatch(str(decl.get("name") or "")):
                    raise Rejected(f"* GenerateContentRequest.tools[{t}].function_declarations[{d}].name: Invalid "
                                   "function name. Must start with a letter or an underscore. Must be a-z, A-Z, "
                                   "0-9, or contain underscores, dots, colons and dashes, with a maximum length of 64.")
                params = decl.get("parameters")
                where = f"tools[{t}].function_declarations[{d}].parameters"
                if isinstance(params, dict) and str(params.get("type") or "").upper() != "OBJECT":
                    raise Rejected(f"* GenerateContentRequest.{where}.type: must be specified as OBJECT "
                                   "(functionDeclaration parameters schema should be of type OBJECT)")
                self._check_schema(params, where)
        gen = body.get("generationConfig") or body.get("generation_config") or {}
        thinking = gen.get("thinkingConfig") or gen.get("thinking_config") or {}
        if (_get(thinking, "thinkingBudget", "thinking_budget") is not None
                and _get(thinking, "thinkingLevel", "thinking_level") is not None):
            raise Rejected("Cannot specify both thinking_budget and thinking_level in the same request.")
        model_name = self.model_of(path)
        budget = _get(thinking, "thinkingBudget", "thinking_budget")
        if budget == 0 and "gemini-2.5-pro" in model_name:
            raise Rejected("Budget 0 is invalid. This model only works in thinking mode.")
        low, high = BUDGETS.get(next((k for k in BUDGETS if model_name.startswith(k)), ""), (0, 1 << 30))
        if isinstance(budget, int) and budget != 0 and not low <= budget <= high:
            raise Rejected(f"The thinking_budget is out of range; supported values are integers from {low} to {high}.")
        level = str(_get(thinking, "thinkingLevel", "thinking_level") or "").lower()
        if level and model_name.startswith("gemini-3-pro") and level not in ("low", "high"):
            raise Rejected(f"Thinking level {level.upper()} is not supported for this model. Please retry with "
                           "other thinking level.")
        system = body.get("systemInstruction") or body.get("system_instruction")
        if isinstance(system, dict):
            self._check_parts(system.get("parts") or [], "system_instruction")
        contents = body.get("contents") or []
        if not contents:
            raise Rejected("* GenerateContentRequest.contents: contents is not specified")
        model = self.model_of(path)
        prev_calls: int | None = None
        prev_kind = "none"
        last_user_text = max((i for i, c in enumerate(contents) if c.get("role") == "user"
                              and any("text" in p for p in c.get("parts") or [])), default=-1)
        for n, c in enumerate(contents):
            role, parts = c.get("role"), c.get("parts") or []
            if role not in ("user", "model"):
                raise Rejected(f"Please use a valid role: user, model. (contents[{n}].role = {role!r})")
            if not parts:
                raise Rejected(f"* GenerateContentRequest.contents[{n}].parts: contents.parts must not be empty.")
            self._check_parts(parts, f"contents[{n}]")
            calls = [p for p in parts if _get(p, "functionCall", "function_call") is not None]
            responses = [p for p in parts if _get(p, "functionResponse", "function_response") is not None]
            for k, p in enumerate(calls):
                args = _get(p, "functionCall", "function_call").get("args", {})
                if not isinstance(args, dict):
                    raise Rejected(f"Invalid value at 'contents[{n}].parts[{k}].function_call.args' "
                                   f"(type.googleapis.com/google.protobuf.Struct), {json.dumps(args)}")
            if calls:
                if prev_kind not in ("user", "responses"):
                    raise Rejected("Please ensure that function call turn comes immediately after a user turn or "
                                   "after a function response turn.")
                if self.thinking_model(model) and n > last_user_text:
                    self._check_signature(calls[0], n)
            if responses:
                if prev_calls is None or len(responses) != prev_calls:
                    raise Rejected("Please ensure that the number of function response parts is equal to the "
                                   "number of function call parts of the function call turn.")
            prev_calls = len(calls) if calls else None
            prev_kind = "responses" if responses else ("calls" if calls else str(role))

    @staticmethod
    def _check_parts(parts: list[Any], where: str) -> None:
        """Every part holds data: a text part with an empty string is a part with nothing set (proto3)."""
        for k, p in enumerate(parts):
            data = [key for key in DATA_FIELDS if key in p and (key != "text" or p[key] != "")]
            if not isinstance(p, dict) or not data:
                raise Rejected(f"* GenerateContentRequest.{where}.parts[{k}].data: required oneof field 'data' must "
                               "have one initialized field")

    def check_headers(self, path: str, headers: dict[str, str]) -> None:
        if not (headers.get("x-goog-api-key") or "key=" in path):
            raise Rejected("Method doesn't allow unregistered callers (callers without established identity). "
                           "Please use API Key or other form of API consumer identity to call this API.", 403)

    def _check_signature(self, part: dict[str, Any], n: int) -> None:
        sig = _get(part, "thoughtSignature", "thought_signature")
        name = _get(part, "functionCall", "function_call").get("name")
        if not sig:
            raise Rejected("Function call is missing a thought_signature in functionCall parts. This is required "
                           "for tools to work correctly, and missing thought_signature may lead to degraded model "
                           f"performance. Additional data, function call `default_api:{name}` , position {n + 1}. "
                           "Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more "
                           "details.")
        if sig == PLACEHOLDER:
            self.placeholders += 1
        elif sig not in self._issued:
            raise Rejected("Corrupted thought signature.")

    def _check_schema(self, schema: Any, where: str) -> None:
        if not isinstance(schema, dict):
            return
        kind = str(schema.get("type") or "").upper()
        if "enum" in schema and kind != "STRING":
            raise Rejected(f"* GenerateContentRequest.{where}.enum: only allowed for STRING type")
        for i, value in enumerate(schema.get("enum") or []):
            if not isinstance(value, str) or not value:
                raise Rejected(f"Invalid value at '{where}.enum[{i}]' (TYPE_STRING), {json.dumps(value)}")
        for key, value in schema.items():
            if key not in SCHEMA_FIELDS:
                raise Rejected(f"Invalid JSON payload received. Unknown name \"{key}\" at '{where}': "
                               "Cannot find field.")
            if key == "properties" and isinstance(value, dict):
                for name, sub in value.items():
                    self._check_schema(sub, f"{where}.properties[{name}].value")
            elif key == "items":
                if not isinstance(value, dict):  # one Schema, not a tuple of them
                    raise Rejected(f"Invalid value at '{where}.items' (type.googleapis.com/google.ai.generativelanguage"
                                   f".v1beta.Schema), {json.dumps(value)[:80]}")
                self._check_schema(value, f"{where}.items")
            elif key in ("anyOf", "any_of") and isinstance(value, list):
                for i, sub in enumerate(value):
                    self._check_schema(sub, f"{where}.any_of[{i}]")

    # ---- replies
    def _parts(self, turn: Turn, body: dict[str, Any], model: str) -> list[dict[str, Any]]:
        parts: list[dict[str, Any]] = []
        gen = body.get("generationConfig") or body.get("generation_config") or {}
        thinking = gen.get("thinkingConfig") or gen.get("thinking_config") or {}
        if turn.thinking and _get(thinking, "includeThoughts", "include_thoughts"):
            parts.append({"text": turn.thinking, "thought": True})
        if turn.text:
            parts.append({"text": turn.text})
        for k, (name, args) in enumerate(turn.calls):
            part: dict[str, Any] = {"functionCall": {"name": name, "args": self.args_object(args) or {}}}
            if k == 0 and self.thinking_model(model):
                sig = sign(f"{len(self.requests)}:{name}:{turn.thinking}")
                with self.lock:
                    self._issued.add(sig)
                part["thoughtSignature"] = sig
            parts.append(part)
        return parts

    def _usage(self, body: dict[str, Any], turn: Turn, parts: list[dict[str, Any]]) -> dict[str, int]:
        contents = body.get("contents") or []
        prompt = (sum(self.count(c) for c in contents) + self.count(body.get("tools") or [])
                  + self.count(body.get("systemInstruction") or body.get("system_instruction") or ""))
        prev, self._prev = self._prev, contents
        same = 0
        for a, b in zip(prev or [], contents, strict=False):
            if a != b:
                break
            same += 1
        cached = min(prompt, sum(self.count(c) for c in contents[:same]))
        thoughts = self.count(turn.thinking) if turn.thinking else 0
        out = max(1, sum(self.count(p) for p in parts if not p.get("thought")))
        usage = {"promptTokenCount": prompt, "candidatesTokenCount": out, "thoughtsTokenCount": thoughts,
                 "totalTokenCount": prompt + out + thoughts}
        if cached:
            usage["cachedContentTokenCount"] = cached
        return usage

    def respond(self, path: str, body: dict[str, Any], turn: Turn) -> tuple[bool, Any, str]:
        model = self.model_of(path)
        parts = self._parts(turn, body, model)
        usage = self._usage(body, turn, parts)
        self.usages.append(usage)
        finish = FINISH.get(turn.finish_reason, "STOP")
        if turn.finish == "malformed":
            parts, finish = [], "MALFORMED_FUNCTION_CALL"
        version = {"modelVersion": model, "responseId": f"resp-{len(self.requests)}"}

        def candidate(ps: list[dict[str, Any]], fin: str | None) -> dict[str, Any]:
            cand: dict[str, Any] = {"content": {"parts": ps, "role": "model"}, "index": 0}
            if fin:
                cand["finishReason"] = fin
            return cand

        if ":streamGenerateContent" not in path:
            return False, {"candidates": [candidate(parts, finish)], "usageMetadata": usage, **version}, \
                "application/json"

        def events() -> Iterator[bytes]:
            pieces: list[list[dict[str, Any]]] = []
            for p in parts:
                if "text" in p:
                    step = 12
                    pieces += [[{**p, "text": p["text"][k:k + step]}] for k in range(0, len(p["text"]), step)]
                else:
                    pieces.append([p])
            if not pieces:
                pieces = [[]]
            for i, ps in enumerate(pieces):
                last = i == len(pieces) - 1
                chunk: dict[str, Any] = {"candidates": [candidate(ps, finish if last else None)], **version}
                if not ps:
                    chunk["candidates"][0].pop("content")
                chunk["usageMetadata"] = usage if last else {"promptTokenCount": usage["promptTokenCount"],
                                                            "totalTokenCount": usage["promptTokenCount"]}
                yield b"data: " + json.dumps(chunk).encode() + b"\r\n\r\n"
        return True, events(), "text/event-stream"
