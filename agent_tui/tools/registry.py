"""The one door through which the model calls tools: parse, validate, run, bound.

Models send malformed JSON, forget required arguments, invent tools and trigger bugs.
None of that may crash the turn loop: every failure becomes an error *result* that
tells the model precisely what was wrong and how to call the tool instead, so it can
correct itself on the next step.  The registry is also the last safety net on size:
a result larger than its spec's ``max_result_tokens`` is shaped (stored whole, summary
returned) even if the tool forgot to.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from agent_tui.core.parse import loads_json
from agent_tui.core.tokens import count_tokens
from agent_tui.tools.base import (
    ToolCheck,
    ToolContext,
    ToolError,
    ToolHandler,
    ToolResult,
    ToolSpec,
    error_result,
)
from agent_tui.tools.shaping import shape_result_async


def _signature(spec: ToolSpec) -> str:
    """``read_file(path: string, start_line?: integer, ...)`` from the schema."""
    props: dict[str, Any] = spec.parameters.get("properties", {})
    required = set(spec.parameters.get("required", []))
    parts = []
    for name, schema in props.items():
        kind = schema.get("type", "any")
        kind = "|".join(kind) if isinstance(kind, list) else kind
        parts.append(f"{name}{'' if name in required else '?'}: {kind}")
    return f"{spec.name}({', '.join(parts)})"


def _describe(error: ValidationError) -> str:
    where = ".".join(str(p) for p in error.absolute_path)
    if error.validator == "required":
        return error.message.replace("is a required property", "is required (missing)")
    if error.validator == "additionalProperties":
        return error.message
    instance = json.dumps(error.instance, ensure_ascii=False, default=str)
    if len(instance) > 60:
        instance = instance[:60] + "…"
    if error.validator == "type":
        return f"'{where}': expected {error.validator_value}, got {instance}"
    if error.validator == "enum":
        return f"'{where}': must be one of {error.validator_value}, got {instance}"
    return f"'{where}': {error.message}" if where else error.message


class ToolRegistry:
    """Named tools with their specs and async handlers."""

    def __init__(self) -> None:
        self._specs: dict[str, ToolSpec] = {}
        self._handlers: dict[str, ToolHandler] = {}
        self._validators: dict[str, Draft202012Validator] = {}
        self._checks: dict[str, ToolCheck] = {}

    def register(self, spec: ToolSpec, handler: ToolHandler, check: ToolCheck | None = None) -> None:
        """Add a tool; its schema is checked now so a bad spec fails at start-up.  ``check`` raises
        ToolError for a call that could not succeed, without doing anything (see :meth:`refusal`)."""
        if spec.name in self._specs:
            raise ValueError(f"tool {spec.name!r} is already registered")
        Draft202012Validator.check_schema(spec.parameters)
        self._specs[spec.name] = spec
        self._handlers[spec.name] = handler
        self._validators[spec.name] = Draft202012Validator(spec.parameters)
        if check is not None:
            self._checks[spec.name] = check

    async def refusal(self, name: str, args: Mapping[str, Any], ctx: ToolContext) -> ToolResult | None:
        """The error result the call would end in, found before it runs (a write to a file changed on disk
        since it was read, an edit whose old text is not there), or None when it may go ahead: the user is
        not asked to approve a change that cannot be made.  The call still checks again when it runs."""
        check = self._checks.get(name)
        if check is None:
            return None
        parsed = self.parse_args(name, args)
        if isinstance(parsed, str):
            return error_result(parsed, ctx.model)
        try:
            await check(parsed, ctx)
        except ToolError as exc:
            return error_result(str(exc), ctx.model)
        except Exception:  # a failing check must not block the call: running it reports the error
            return None
        return None

    def names(self) -> list[str]:
        """Registered tool names in registration order."""
        return list(self._specs)

    def spec(self, name: str) -> ToolSpec | None:
        """The spec for ``name`` or None."""
        return self._specs.get(name)

    def specs(self) -> list[ToolSpec]:
        """All specs in registration order."""
        return list(self._specs.values())

    def __contains__(self, name: object) -> bool:
        return name in self._specs

    def __len__(self) -> int:
        return len(self._specs)

    def schemas(self, names: Iterable[str] | None = None) -> list[dict[str, Any]]:
        """OpenAI function-tool definitions (all tools, or only ``names`` in that order)."""
        chosen = self.names() if names is None else [n for n in names if n in self._specs]
        return [self._specs[n].openai_schema() for n in chosen]

    def parse_args(self, name: str, raw: str | Mapping[str, Any] | None) -> dict[str, Any] | str:
        """Arguments as a dict with schema defaults filled in, or an error message for the model."""
        spec = self._specs[name]
        if raw is None or (isinstance(raw, str) and not raw.strip()):
            args: Any = {}
        elif isinstance(raw, str):
            try:
                args = loads_json(raw)
            except json.JSONDecodeError as exc:
                snippet = raw if len(raw) <= 120 else raw[:120] + "…"
                return (
                    f"Arguments for {name} are not valid JSON ({exc.msg} at line {exc.lineno} "
                    f"column {exc.colno}): {snippet}\nSend one JSON object, e.g. "
                    f"{self._example(spec)}. Expected: {_signature(spec)}"
                )
        else:
            args = dict(raw)
        if not isinstance(args, dict):
            return (
                f"Arguments for {name} must be a JSON object, got {type(args).__name__}. "
                f"Expected: {_signature(spec)}"
            )
        errors = sorted(
            self._validators[name].iter_errors(args), key=lambda e: list(e.absolute_path)
        )
        if errors:
            lines = "\n".join(f"- {_describe(e)}" for e in errors[:10])
            return f"Invalid arguments for {name}:\n{lines}\nExpected: {_signature(spec)}"
        for key, schema in spec.parameters.get("properties", {}).items():
            if key not in args and "default" in schema:
                args[key] = schema["default"]
        return args

    @staticmethod
    def _example(spec: ToolSpec) -> str:
        required = spec.parameters.get("required", [])
        props = spec.parameters.get("properties", {})
        sample = {}
        for key in required:
            kind = props.get(key, {}).get("type")
            sample[key] = 1 if kind == "integer" else True if kind == "boolean" else "..."
        return json.dumps(sample)

    async def run(
        self, name: str, args: str | Mapping[str, Any] | None, ctx: ToolContext
    ) -> ToolResult:
        """Call tool ``name``; every failure comes back as an ``is_error`` result."""
        spec = self._specs.get(name)
        if spec is None:
            available = ", ".join(self.names()) or "(none)"
            return error_result(f"Unknown tool '{name}'. Available tools: {available}.", ctx.model)
        parsed = self.parse_args(name, args)
        if isinstance(parsed, str):
            return error_result(parsed, ctx.model)
        try:
            result = await self._handlers[name](parsed, ctx)
        except ToolError as exc:
            return error_result(str(exc), ctx.model)
        except Exception as exc:  # a tool bug must not kill the turn
            message = str(exc) or "(no message)"
            return error_result(f"Tool {name} failed: {type(exc).__name__}: {message}", ctx.model)
        return await self._bound(spec, result, ctx)

    @staticmethod
    async def _bound(spec: ToolSpec, result: ToolResult, ctx: ToolContext) -> ToolResult:
        if result.text and not result.shaped_tokens:  # a handler that did not count
            result.shaped_tokens = count_tokens(result.text, ctx.model)
            result.raw_tokens = max(result.raw_tokens, result.shaped_tokens)
        cap = spec.max_result_tokens
        if cap is None or result.shaped_tokens <= cap:
            return result
        shaped = await shape_result_async(
            result.text, max_tokens=cap, store=ctx.results, label=spec.name, model=ctx.model
        )
        if shaped.handle is None:
            result.text, result.shaped_tokens = shaped.text, shaped.shaped_tokens
            return result
        return ToolResult(
            text=shaped.text,
            is_error=result.is_error,
            handle=shaped.handle,
            raw_tokens=max(result.raw_tokens, shaped.raw_tokens),
            shaped_tokens=shaped.shaped_tokens,
            meta=result.meta,
        )
