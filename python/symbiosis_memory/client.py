"""SymbiosisClient and AsyncSymbiosisClient: every query and mutation of the GraphQL API as a
method (generated into _generated.py), the model tools, and one user's (and agent's) memory
bound to a client or given per call."""

from __future__ import annotations

import asyncio
import json
import os
import time
from importlib import resources
from typing import Any, Literal, TypedDict
from urllib.parse import urlencode

import httpx

from . import __version__
from ._generated import _AsyncOperations, _SyncOperations
from ._runtime import RETRY_STATUS, Operation, backoff, check_space, read_result, request_body, retry_after, transport_error
from .errors import ResponseError, error_for

DEFAULT_URL = "http://127.0.0.1:8787/graphql"
DEFAULT_TIMEOUT = 30.0


class ToolCallResult(TypedDict):
    """What a model's tool call gave: text for the model, the same as data, and whether it failed."""

    text: str
    structured: dict[str, Any]
    is_error: bool


def tool_definitions(format: Literal["openai", "anthropic"] = "openai") -> list[dict[str, Any]]:
    """The memory tools as function-calling definitions, as ``sm tools --format <format>`` prints them."""
    if format not in ("openai", "anthropic"):
        raise ValueError(f"format: {format!r} is not openai or anthropic")
    tools = json.loads(resources.files(__package__).joinpath("tools.json").read_text("utf-8"))
    return tools[format]


class _Base:
    def __init__(self, url: str | None, token: str | None, user_id: str | None, agent_id: str | None, retries: int) -> None:
        check_space(user_id, agent_id)
        self.url = url or os.environ.get("SM_URL") or DEFAULT_URL
        self._token = token if token is not None else os.environ.get("SM_API_TOKEN")
        self.user_id = user_id
        self.agent_id = agent_id
        self.retries = retries

    def _headers(self) -> dict[str, str]:
        headers = {
            "content-type": "application/json",
            "accept": "application/graphql-response+json, application/json",
            "user-agent": f"symbiosis-memory-python/{__version__}",
        }
        if self._token:
            headers["authorization"] = f"Bearer {self._token}"
        return headers

    def _tool_request(self, name: str, arguments: dict[str, Any] | None) -> tuple[str, bytes]:
        base = self.url.rstrip("/").removesuffix("/graphql")
        space = {key: value for key, value in (("user_id", self.user_id), ("agent_id", self.agent_id)) if value is not None}
        url = f"{base}/mcp" + (f"?{urlencode(space)}" if space else "")
        call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": arguments or {}}}
        return url, json.dumps(call).encode()

    @staticmethod
    def _tool_result(response: httpx.Response) -> ToolCallResult:
        try:
            answer = response.json()
        except ValueError:
            answer = None
        status = response.status_code
        if not isinstance(answer, dict) or not isinstance(answer.get("result") or answer.get("error"), dict):
            kind = response.headers.get("content-type", "no content type").split(";")[0]
            raise ResponseError(f"HTTP {status} from {response.request.url}: not an MCP answer ({kind})", code="BAD_RESPONSE", status=status)
        if "error" in answer:
            # The service's own refusal (a bad token: a string code) or a JSON-RPC error (a number).
            error = answer["error"]
            code = error.get("code")
            message = str(error.get("message", "tool call refused"))
            raise error_for([{"message": message, "extensions": {"code": code if isinstance(code, str) else "BAD_REQUEST"}}], status)
        result = answer["result"]
        text = "\n".join(part.get("text", "") for part in result.get("content", []) if isinstance(part, dict))
        return {"text": text, "structured": result.get("structuredContent") or {}, "is_error": bool(result.get("isError"))}


class SymbiosisClient(_Base, _SyncOperations):
    """A blocking client. ``with SymbiosisClient(url, user_id="alice") as sm: sm.add_turn(...)``.

    url: the GraphQL endpoint (default ``$SM_URL`` or http://127.0.0.1:8787/graphql); token: the
    API token (default ``$SM_API_TOKEN``); user_id / agent_id: whose memory, for every call that
    does not name its own; timeout: seconds (or an ``httpx.Timeout``) for each request; retries:
    how many times a query is sent again after a network error or a 502/503/504 (mutations never
    are: one whose answer was lost may have been applied).
    """

    def __init__(
        self,
        url: str | None = None,
        *,
        token: str | None = None,
        user_id: str | None = None,
        agent_id: str | None = None,
        timeout: float | httpx.Timeout = DEFAULT_TIMEOUT,
        retries: int = 2,
        http_client: httpx.Client | None = None,
    ) -> None:
        super().__init__(url, token, user_id, agent_id, retries)
        self._owns_http = http_client is None
        self._http = http_client or httpx.Client(timeout=timeout)

    def for_user(self, user_id: str, agent_id: str | None = None) -> SymbiosisClient:
        """The same connection, bound to one user's memory (and one agent's, when given)."""
        return SymbiosisClient(self.url, token=self._token, user_id=user_id, agent_id=agent_id, retries=self.retries, http_client=self._http)

    def _post(self, url: str, body: bytes, retries: int) -> httpx.Response:
        for attempt in range(retries + 1):
            last = attempt >= retries
            try:
                response = self._http.post(url, content=body, headers=self._headers())
            except httpx.TimeoutException as error:
                raise transport_error(url, error) from error
            except httpx.HTTPError as error:
                if last:
                    raise transport_error(url, error) from error
                time.sleep(backoff(attempt))
                continue
            if last or response.status_code not in RETRY_STATUS:
                return response
            delay = retry_after(response)
            time.sleep(backoff(attempt) if delay is None else delay)
        raise AssertionError("unreachable")

    def _execute(self, operation: Operation, variables: dict[str, Any]) -> Any:
        body = request_body(operation, variables, (self.user_id, self.agent_id))
        response = self._post(self.url, body, self.retries if operation.kind == "query" else 0)
        return read_result(operation, response)

    def execute_tool(self, name: str, arguments: dict[str, Any] | None = None) -> ToolCallResult:
        """Runs a model's tool call (see ``tool_definitions``) on the server, in this client's space."""
        url, body = self._tool_request(name, arguments)
        headers = {**self._headers(), "accept": "application/json, text/event-stream"}
        try:
            response = self._http.post(url, content=body, headers=headers)
        except httpx.HTTPError as error:
            raise transport_error(url, error) from error
        return self._tool_result(response)

    def close(self) -> None:
        if self._owns_http:
            self._http.close()

    def __enter__(self) -> SymbiosisClient:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


class AsyncSymbiosisClient(_Base, _AsyncOperations):
    """The same as SymbiosisClient, with coroutines: ``async with AsyncSymbiosisClient(...) as sm: await sm.search(query=...)``."""

    def __init__(
        self,
        url: str | None = None,
        *,
        token: str | None = None,
        user_id: str | None = None,
        agent_id: str | None = None,
        timeout: float | httpx.Timeout = DEFAULT_TIMEOUT,
        retries: int = 2,
        http_client: httpx.AsyncClient | None = None,
    ) -> None:
        super().__init__(url, token, user_id, agent_id, retries)
        self._owns_http = http_client is None
        self._http = http_client or httpx.AsyncClient(timeout=timeout)

    def for_user(self, user_id: str, agent_id: str | None = None) -> AsyncSymbiosisClient:
        """The same connection, bound to one user's memory (and one agent's, when given)."""
        return AsyncSymbiosisClient(self.url, token=self._token, user_id=user_id, agent_id=agent_id, retries=self.retries, http_client=self._http)

    async def _post(self, url: str, body: bytes, retries: int) -> httpx.Response:
        for attempt in range(retries + 1):
            last = attempt >= retries
            try:
                response = await self._http.post(url, content=body, headers=self._headers())
            except httpx.TimeoutException as error:
                raise transport_error(url, error) from error
            except httpx.HTTPError as error:
                if last:
                    raise transport_error(url, error) from error
                await asyncio.sleep(backoff(attempt))
                continue
            if last or response.status_code not in RETRY_STATUS:
                return response
            delay = retry_after(response)
            await asyncio.sleep(backoff(attempt) if delay is None else delay)
        raise AssertionError("unreachable")

    async def _execute(self, operation: Operation, variables: dict[str, Any]) -> Any:
        body = request_body(operation, variables, (self.user_id, self.agent_id))
        response = await self._post(self.url, body, self.retries if operation.kind == "query" else 0)
        return read_result(operation, response)

    async def execute_tool(self, name: str, arguments: dict[str, Any] | None = None) -> ToolCallResult:
        """Runs a model's tool call (see ``tool_definitions``) on the server, in this client's space."""
        url, body = self._tool_request(name, arguments)
        headers = {**self._headers(), "accept": "application/json, text/event-stream"}
        try:
            response = await self._http.post(url, content=body, headers=headers)
        except httpx.HTTPError as error:
            raise transport_error(url, error) from error
        return self._tool_result(response)

    async def aclose(self) -> None:
        if self._owns_http:
            await self._http.aclose()

    async def __aenter__(self) -> AsyncSymbiosisClient:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()
