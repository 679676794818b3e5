"""One object, two threads: a class decorator that makes every public method hold the instance's lock.

The context engine is used by the agent loop (on the UI's event loop) and by the UI's worker threads (a pin,
the inspector's listing); a listing made while the loop took in a file raised "dictionary changed size during
iteration".  Callers that read the object's state directly from another thread take ``obj.lock`` themselves.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

_C = TypeVar("_C", bound=type)


def locked(cls: _C) -> _C:
    """Wrap each public method of ``cls`` (defined in its body) so it runs holding ``self.lock`` (an RLock)."""
    for name, fn in list(vars(cls).items()):
        if name.startswith("_") or not inspect.isfunction(fn):
            continue

        def guarded(self: Any, *args: Any, __fn: Callable[..., Any] = fn, **kw: Any) -> Any:
            with self.lock:
                return __fn(self, *args, **kw)

        setattr(cls, name, functools.wraps(fn)(guarded))
    return cls
