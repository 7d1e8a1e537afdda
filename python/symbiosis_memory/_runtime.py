"""What the generated operations and both clients share: argument conversion, the request body,
reading the answer, and naming transport failures."""

from __future__ import annotations

import json
import random
import socket
from datetime import datetime
from enum import StrEnum
from typing import Any, NamedTuple

import httpx

from .errors import BadUserInputError, NetworkError, RequestTimeoutError, ResponseError, SymbiosisError, error_for


class Operation(NamedTuple):
    """One query or mutation of client/operations: its document and the root field it returns."""

    name: str
    kind: str
    field: str | None
    space: frozenset[str]
    document: str


def _enum(cls: type[StrEnum], value: Any, label: str) -> str | None:
    """An enum argument as the server spells it: a member, or its name in any case (``"user"``)."""
    if value is None:
        return None
    if isinstance(value, str):
        name = value.upper()
        if name in cls.__members__:
            return cls[name].value
    raise BadUserInputError(f"{label}: {value!r} is not one of {', '.join(cls.__members__)}", code="BAD_USER_INPUT")


def _enums(cls: type[StrEnum], values: Any, label: str) -> list[str] | None:
    if values is None:
        return None
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise BadUserInputError(f"{label}: expected a list of {cls.__name__}", code="BAD_USER_INPUT")
    return [_enum(cls, value, label) for value in values]  # type: ignore[misc]


def _time(value: Any, label: str) -> str | None:
    """A DateTime argument: a datetime (a naive one is taken as UTC) or an ISO-8601 string."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, datetime):
        return value.isoformat() if value.tzinfo else value.isoformat() + "Z"
    raise BadUserInputError(f"{label}: expected a datetime or an ISO-8601 string, got {type(value).__name__}", code="BAD_USER_INPUT")


def _present(values: dict[str, Any]) -> dict[str, Any]:
    """The arguments given: None means "not given", so the server's default applies."""
    return {key: value for key, value in values.items() if value is not None}


def check_space(user_id: Any, agent_id: Any) -> None:
    for label, value in (("user_id", user_id), ("agent_id", agent_id)):
        if value is not None and not isinstance(value, str):
            raise BadUserInputError(f"{label}: expected a string, got {type(value).__name__}", code="BAD_USER_INPUT")


def request_body(operation: Operation, variables: dict[str, Any], space: tuple[str | None, str | None]) -> bytes:
    """The POST body: the variables given, the client's user and agent where the operation takes them."""
    given = _present(variables)
    for name, value in zip(("userId", "agentId"), space):
        if name in operation.space and name not in given and value is not None:
            given[name] = value
    check_space(given.get("userId"), given.get("agentId"))
    try:
        return json.dumps({"query": operation.document, "variables": given, "operationName": operation.name}).encode()
    except (TypeError, ValueError) as error:
        raise BadUserInputError(f"{operation.name}: an argument is not JSON: {error}", code="BAD_USER_INPUT") from error


def read_result(operation: Operation | None, response: httpx.Response) -> Any:
    """The operation's root field from a GraphQL answer, or the typed error it carries."""
    status = response.status_code
    try:
        result = response.json()
    except ValueError:
        result = None
    if not isinstance(result, dict) or ("data" not in result and "errors" not in result):
        kind = response.headers.get("content-type", "no content type").split(";")[0]
        message = f"HTTP {status} from {response.request.url}: not a GraphQL response ({kind})"
        if status == 401:
            raise error_for([{"message": message}], status)
        raise ResponseError(message, code="BAD_RESPONSE", status=status)
    errors = result.get("errors")
    if errors:
        raise error_for(errors if isinstance(errors, list) else [], status)
    data = result.get("data")
    if not isinstance(data, dict):
        raise ResponseError(f"HTTP {status}: a GraphQL response without data", code="BAD_RESPONSE", status=status)
    return data.get(operation.field) if operation and operation.field else data


def _causes(error: BaseException) -> list[BaseException]:
    """The error and what caused it, down the chain (the async transport wraps the socket's error)."""
    chain: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and current not in chain:
        chain.append(current)
        current = current.__cause__ or current.__context__
    return chain


def transport_error(url: str, error: httpx.HTTPError) -> SymbiosisError:
    """A failure below HTTP, named for a person: refused, timed out, dropped."""
    if isinstance(error, httpx.TimeoutException):
        return RequestTimeoutError(f"no answer from {url} in time ({type(error).__name__})", code="NETWORK")
    if isinstance(error, httpx.ConnectError):
        causes = _causes(error)
        if any(isinstance(cause, ConnectionRefusedError) for cause in causes) or "refused" in str(error).lower():
            reason = "connection refused"
        elif any(isinstance(cause, socket.gaierror) for cause in causes):
            reason = "host not found"
        else:
            reason = str(error) or "cannot connect"
    elif isinstance(error, (httpx.RemoteProtocolError, httpx.ReadError)):
        reason = f"the connection dropped ({error})" if str(error) else "the connection dropped"
    else:
        reason = str(error) or type(error).__name__
    return NetworkError(f"cannot reach {url}: {reason}", code="NETWORK")


RETRY_STATUS = frozenset({502, 503, 504})
MAX_DELAY_S = 5.0


def backoff(attempt: int) -> float:
    """Exponential from 0.1 s; the jitter (50 to 100 % of it) spreads out clients that failed together."""
    return min(MAX_DELAY_S, 0.1 * 2**attempt) * (0.5 + random.random() / 2)


def retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after", "").strip()
    return min(MAX_DELAY_S, float(value)) if value.isdigit() else None
