"""Symbiosis Memory for Python: a typed client for the GraphQL API of ``sm serve``.

    from symbiosis_memory import SymbiosisClient

    with SymbiosisClient("http://127.0.0.1:8787/graphql", user_id="alice") as sm:
        sm.add_turn(session_id="chat-1", role="user", text="I moved to Lisbon in May.")
        print(sm.context(session_id="chat-1", query="where do I live?")["markdown"])
"""

__version__ = "0.1.0"

from ._generated import *  # noqa: E402,F401,F403  (the schema's enums and TypedDicts)
from ._generated import OPERATIONS  # noqa: E402
from .client import AsyncSymbiosisClient, SymbiosisClient, ToolCallResult, tool_definitions  # noqa: E402
from .errors import (  # noqa: E402
    AuthenticationError,
    BadUserInputError,
    NetworkError,
    NotFoundError,
    PermissionDeniedError,
    RequestTimeoutError,
    ResponseError,
    SymbiosisError,
)

__all__ = [
    "OPERATIONS",
    "AsyncSymbiosisClient",
    "AuthenticationError",
    "BadUserInputError",
    "NetworkError",
    "NotFoundError",
    "PermissionDeniedError",
    "RequestTimeoutError",
    "ResponseError",
    "SymbiosisClient",
    "SymbiosisError",
    "ToolCallResult",
    "tool_definitions",
]
