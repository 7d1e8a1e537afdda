"""Every failure is a typed error with its code, and none hangs: a refused connection, a bad
token, bad arguments (refused by the client before sending, or by the server), a 10 MB text, a
server that answers HTML, one that drops the connection mid-answer, one that never answers.
Both clients, as in test_operations.py."""

from __future__ import annotations

import socket
import time

import pytest

from conftest import TOKEN, RawServer
from symbiosis_memory import (
    AuthenticationError,
    AsyncSymbiosisClient,
    BadUserInputError,
    NetworkError,
    RequestTimeoutError,
    ResponseError,
    SymbiosisClient,
    SymbiosisError,
)


def test_refused_connection_is_network(connect, closed_port):
    url = f"http://127.0.0.1:{closed_port}/graphql"
    with connect(url, retries=0) as sm:
        with pytest.raises(NetworkError) as refused:
            sm.stats()
        assert refused.value.code == "NETWORK" and refused.value.status is None
        assert refused.value.message == f"cannot reach {url}: connection refused"
        with pytest.raises(NetworkError):
            sm.execute_tool("memory_stats", {})


def test_bad_token_is_unauthenticated(connect, guarded):
    for token in ("not-the-token-0123456789", None):
        with connect(guarded.url, token=token) as sm:
            with pytest.raises(AuthenticationError) as refused:
                sm.stats()
            assert refused.value.code == "UNAUTHENTICATED" and refused.value.status == 401
            with pytest.raises(AuthenticationError):
                sm.execute_tool("memory_stats", {})
    with connect(guarded.url, token=TOKEN) as sm:
        assert sm.stats()["turns"] >= 0


def test_bad_arguments_are_bad_user_input(connect, server):
    with connect(server.url, user_id="ivan") as sm:
        # Refused by the client: nothing is sent.
        with pytest.raises(BadUserInputError) as role:
            sm.add_turn(session_id="s", role="narrator", text="hello")
        assert role.value.code == "BAD_USER_INPUT" and "role: 'narrator' is not one of" in role.value.message
        with pytest.raises(BadUserInputError) as user:
            sm.stats(user_id=42)
        assert user.value.message == "user_id: expected a string, got int"
        with pytest.raises(BadUserInputError):
            sm.add_turn(session_id="s", role="user", text="hello", at=12.5)
        with pytest.raises(BadUserInputError) as serialised:
            sm.remember(content="x", tags=[object()])
        assert "not JSON" in serialised.value.message
        # Refused by the server, with its code and status.
        with pytest.raises(BadUserInputError) as session:
            sm.add_turn(session_id=42, role="user", text="hello")
        assert session.value.code == "BAD_USER_INPUT" and session.value.status == 400 and "String cannot represent" in session.value.message
        with pytest.raises(BadUserInputError) as empty:
            sm.add_turn(session_id="", role="user", text="hello")
        assert empty.value.code == "BAD_USER_INPUT" and empty.value.errors
        assert sm.sessions()["totalCount"] == 0
    with pytest.raises(BadUserInputError):
        SymbiosisClient(server.url, user_id=7)
    with pytest.raises(BadUserInputError):
        AsyncSymbiosisClient(server.url, agent_id=["a"])


def test_ten_megabyte_text_is_refused_and_nothing_stored(connect, server):
    with connect(server.url, user_id="judy") as sm:
        started = time.monotonic()
        with pytest.raises(BadUserInputError) as large:
            sm.add_turn(session_id="big", role="user", text="x" * 10_000_000)
        assert large.value.code == "PAYLOAD_TOO_LARGE" and large.value.status == 413
        assert time.monotonic() - started < 20
        assert sm.session(id="big") is None


def test_html_instead_of_graphql_is_bad_response(connect, html_server):
    with connect(html_server.url) as sm:
        with pytest.raises(ResponseError) as html:
            sm.stats()
        assert html.value.code == "BAD_RESPONSE" and html.value.status == 200
        assert "not a GraphQL response (text/html)" in html.value.message
        with pytest.raises(ResponseError):
            sm.execute_tool("memory_stats", {})


def test_connection_dropped_mid_answer_is_network(connect, dropping_server):
    with connect(dropping_server.url, retries=2) as sm:
        with pytest.raises(NetworkError) as dropped:
            sm.stats()
        assert dropped.value.code == "NETWORK" and "dropped" in dropped.value.message
        # A query is tried again (1 + retries), a mutation never: it may have been applied.
        assert dropping_server.requests == 3
        with pytest.raises(NetworkError):
            sm.remember(content="Kim likes tea")
        assert dropping_server.requests == 4


def test_no_answer_times_out(connect, silent_server):
    with connect(silent_server.url, timeout=0.5) as sm:
        started = time.monotonic()
        with pytest.raises(RequestTimeoutError) as late:
            sm.stats()
        assert late.value.code == "NETWORK" and isinstance(late.value, NetworkError)
        assert time.monotonic() - started < 3


def _busy_then_proxy(upstream: str):
    """A server answering 503 (Retry-After 0) to every first request, then what `upstream` says."""
    import httpx

    seen = {"n": 0}

    def reply(request: bytes, connection: socket.socket) -> None:
        seen["n"] += 1
        if seen["n"] % 2 == 1:
            connection.sendall(b"HTTP/1.1 503 Service Unavailable\r\nretry-after: 0\r\ncontent-type: text/plain\r\ncontent-length: 4\r\nconnection: close\r\n\r\nbusy")
        else:
            body = request.partition(b"\r\n\r\n")[2]
            answer = httpx.post(upstream, content=body, headers={"content-type": "application/json"})
            connection.sendall(b"HTTP/1.1 %d OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\nconnection: close\r\n\r\n%s" % (answer.status_code, len(answer.content), answer.content))
        connection.close()

    return RawServer(reply)


def test_a_busy_server_is_asked_again_for_queries_only(connect, server):
    proxy = _busy_then_proxy(server.url)
    try:
        with connect(proxy.url, user_id="lena") as sm:
            assert sm.stats()["turns"] == 0
            assert proxy.requests == 2
            with pytest.raises(SymbiosisError) as busy:
                sm.remember(content="Lena speaks Finnish")
            assert busy.value.status == 503 and isinstance(busy.value, ResponseError)
            assert proxy.requests == 3
    finally:
        proxy.close()
