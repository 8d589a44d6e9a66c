"""Who may use the MCP server over HTTP: a client that sends the shared token.

`curator mcp --transport http --token T` (or `$CURATOR_MCP_TOKEN`) answers only requests that
carry `Authorization: Bearer T`; any other request gets 401 and never reaches the world. The
check wraps the SDK's whole ASGI app, so no route, the session's stream included, is left open.
This is a shared secret, not OAuth: enough for a game server and its tools on a private
network, and the reason a server listening beyond loopback must have one (`needs_token`).
"""

from __future__ import annotations

import hmac
import ipaddress
import json
from typing import Any

# An ASGI app: (scope, receive, send) -> awaitable; typed loosely, as Starlette does.
ASGIApp = Any

LOOPBACK_NAMES = {"localhost"}


def needs_token(host: str) -> bool:
    """True when `host` listens beyond this machine (0.0.0.0, a LAN address, a hostname), where
    anyone who can reach the port could read every memory and write turns."""
    if host.lower() in LOOPBACK_NAMES:
        return False
    try:
        return not ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:  # a hostname: it may resolve anywhere
        return True


class RequireBearer:
    """ASGI middleware: HTTP requests without `Authorization: Bearer <token>` get 401."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        if not token:
            raise ValueError("the token is empty")
        self.app = app
        self._token = token.encode()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":  # lifespan: the SDK's session manager starts and stops
            await self.app(scope, receive, send)
            return
        sent = dict(scope.get("headers") or []).get(b"authorization", b"")
        scheme, _, credentials = sent.partition(b" ")
        # The scheme is case-insensitive (RFC 9110); compare_digest: the time taken says nothing
        # about how much of the token matched.
        if scheme.lower() == b"bearer" and hmac.compare_digest(credentials.strip(), self._token):
            await self.app(scope, receive, send)
            return
        body = json.dumps({"error": "unauthorized",
                           "message": "send the server's token as 'Authorization: Bearer <token>'"}).encode()
        await send({"type": "http.response.start", "status": 401,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(body)).encode()),
                                (b"www-authenticate", b'Bearer realm="curator"')]})
        await send({"type": "http.response.body", "body": body})
