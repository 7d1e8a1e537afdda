"""Typed errors: every failure of a call is a SymbiosisError whose ``code`` says what went wrong.

``code`` is the server's ``extensions.code`` (``UNAUTHENTICATED``, ``FORBIDDEN``,
``BAD_USER_INPUT``, ``NOT_FOUND``, ``PAYLOAD_TOO_LARGE``, ...) or one of the client's own:
``NETWORK`` (the server could not be reached, or the connection dropped; a timeout is a
``RequestTimeoutError`` with this code) and ``BAD_RESPONSE`` (the answer was not GraphQL, e.g.
an HTML page from a proxy).
"""

from __future__ import annotations

from typing import Any


class SymbiosisError(Exception):
    """A failed call: the message, the code, the HTTP status and the server's errors as sent."""

    def __init__(self, message: str, *, code: str | None, status: int | None = None, errors: list[dict[str, Any]] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.status = status
        self.errors: list[dict[str, Any]] = errors or []

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code!r}, status={self.status!r}, message={self.message!r})"


class NetworkError(SymbiosisError):
    """The server could not be reached, or the connection failed before a whole answer came."""


class RequestTimeoutError(NetworkError):
    """No answer within the client's ``timeout``."""


class ResponseError(SymbiosisError):
    """The server answered, but not with GraphQL (an HTML error page, a truncated body...)."""


class AuthenticationError(SymbiosisError):
    """A missing, wrong or revoked token (``UNAUTHENTICATED``, HTTP 401)."""


class PermissionDeniedError(SymbiosisError):
    """The token may not do this (``FORBIDDEN``), e.g. another user's memory or a read-only token writing."""


class BadUserInputError(SymbiosisError):
    """An argument the server (or the client, before sending) refused: ``BAD_USER_INPUT``, ``PAYLOAD_TOO_LARGE``..."""


class NotFoundError(SymbiosisError):
    """No such memory, session, entity or token in this space (``NOT_FOUND``)."""


_BY_CODE: dict[str, type[SymbiosisError]] = {
    "NETWORK": NetworkError,
    "BAD_RESPONSE": ResponseError,
    "UNAUTHENTICATED": AuthenticationError,
    "FORBIDDEN": PermissionDeniedError,
    "BAD_USER_INPUT": BadUserInputError,
    "BAD_REQUEST": BadUserInputError,
    "GRAPHQL_VALIDATION_FAILED": BadUserInputError,
    "PAYLOAD_TOO_LARGE": BadUserInputError,
    "NOT_FOUND": NotFoundError,
}


def error_for(errors: list[dict[str, Any]], status: int | None) -> SymbiosisError:
    """The typed error for a GraphQL response's ``errors``: the class and code of the first one."""
    first = errors[0] if errors and isinstance(errors[0], dict) else {}
    extensions = first.get("extensions")
    code = extensions.get("code") if isinstance(extensions, dict) else None
    if not isinstance(code, str):
        code = "UNAUTHENTICATED" if status == 401 else None
    message = first.get("message") if isinstance(first.get("message"), str) else "the server refused the request"
    cls = _BY_CODE.get(code or "", SymbiosisError)
    return cls(message, code=code, status=status, errors=errors)
