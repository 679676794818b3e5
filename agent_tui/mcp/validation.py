"""Check a model's tool arguments against the tool's schema before the server sees them.

A wrong argument caught here costs one short, precise error ("path: required") instead
of a round trip and a server's stack trace; the model fixes it on the next step.
"""

from __future__ import annotations

from typing import Any

from jsonschema import validators


def check_arguments(schema: Any, arguments: dict[str, Any]) -> str | None:
    """None when ``arguments`` fit ``schema`` (or the schema is unusable), else the first problem."""
    if not isinstance(schema, dict) or not schema:
        return None
    try:
        cls = validators.validator_for(schema)
        cls.check_schema(schema)
        error = next(
            iter(sorted(cls(schema).iter_errors(arguments), key=lambda e: list(e.path))), None
        )
    except Exception:  # a broken server schema (SchemaError or worse) must not block the call
        return None
    if error is None:
        return None
    where = ".".join(str(p) for p in error.absolute_path)
    return f"{where}: {error.message}" if where else error.message
