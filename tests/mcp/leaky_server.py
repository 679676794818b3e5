"""An MCP server that prints secrets to stderr and dies, the way a real one does on an auth failure.

``--die-at-start`` prints them and exits before answering ``initialize``; ``--stdout-noise`` prints the
GitHub token on stdout, where the protocol runs, before serving; otherwise it serves one
tool, ``boom``, which prints them and exits without answering.  The last two lines hold a bearer
token of no known format, a detect-secrets-format OpenAI key, a GitHub token, the value of the
secret-named variable its config gives it (``LEAKY_API_TOKEN``) and a window-title escape sequence,
so the stderr tail an error message quotes holds all of them; a PEM private key comes before them.
"""

from __future__ import annotations

import os
import sys

OPAQUE = "opaque7f3a9c2e1b8d4f6a0c5e"
OPENAI = "sk-proj-A1b2C3d4E5f6G7h8I9j0T3BlbkFJK1l2M3n4O5p6Q7r8S9t0"
GITHUB = "ghp_0123456789abcdefghijABCDEFGHIJklmnop"
CONFIGURED = "cfg9d8c7b6a5f4e3d2c1b"
PEM_BODY = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7leaky"
SECRETS = (OPAQUE, OPENAI, GITHUB, CONFIGURED, PEM_BODY)
"""Every secret the server prints (``CONFIGURED`` is what the test's config sets LEAKY_API_TOKEN to)."""


def leak() -> None:
    print("-----BEGIN PRIVATE KEY-----", file=sys.stderr)
    print(PEM_BODY, file=sys.stderr)
    print("-----END PRIVATE KEY-----", file=sys.stderr)
    print(f"\x1b]0;pwned\x07upstream said 401; sent Authorization: Bearer {OPAQUE} (key {OPENAI})", file=sys.stderr)
    print(f"env dump: GITHUB_TOKEN={GITHUB} token in use {os.environ.get('LEAKY_API_TOKEN', '')}", file=sys.stderr,
          flush=True)


def main() -> None:
    if "--die-at-start" in sys.argv:
        leak()
        os._exit(3)
    if "--stdout-noise" in sys.argv:  # a stray line on the protocol's stream: the SDK logs what it could not read
        print(GITHUB, flush=True)
    from mcp.server import MCPServer

    server = MCPServer("leaky")

    @server.tool()
    def boom() -> str:
        """Call the upstream API (fails: prints its credentials to stderr and exits)."""
        leak()
        os._exit(3)

    server.run()


if __name__ == "__main__":
    main()
