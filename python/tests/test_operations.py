"""Every query and mutation of the client against a real `sm serve`: what each returns, user and
agent on every call, and tool calls the way a model makes them."""

from __future__ import annotations

import json
import subprocess
from datetime import datetime, timezone

import pytest

from conftest import ROOT, TOKEN
from symbiosis_memory import (
    OPERATIONS,
    MemoryStatus,
    NotFoundError,
    PermissionDeniedError,
    Role,
    SearchKind,
    SymbiosisClient,
    SymbiosisError,
    tool_definitions,
)

@pytest.fixture(scope="module")
def name(kind):
    """A user id of this run's own: the sync and the async run share the servers."""
    return lambda user: f"{user}-{kind}"


@pytest.fixture(scope="module")
def sm(server, connect, name):
    with connect(server.url, user_id=name("alice")) as client:
        yield client


def test_turns_sessions_and_context(sm, name):
    added = sm.add_turn(session_id="trip", role="user", text="I moved to Lisbon in May and I adopted a cat named Miso.")
    assert added["newSession"] is True
    assert added["turn"]["userId"] == name("alice") and added["turn"]["role"] == Role.USER
    assert any(e["action"] == "CREATED" for e in added["extracted"])
    second = sm.add_turn(session_id="trip", role=Role.ASSISTANT, text="Lisbon is lovely in spring.", name="bot", at=datetime(2024, 5, 2, 10, tzinfo=timezone.utc), auto_extract=False)
    assert second["newSession"] is False and second["turn"]["at"].startswith("2024-05-02T10:00:00")

    turns = sm.turns(session_id="trip")
    assert turns["totalCount"] == 2
    # In the order they were said: the assistant's turn is dated earlier.
    assert [edge["node"]["text"] for edge in turns["edges"]] == ["Lisbon is lovely in spring.", "I moved to Lisbon in May and I adopted a cat named Miso."]
    session = sm.session(id="trip", last=1)
    assert session and session["turnCount"] == 2 and len(session["turns"]["edges"]) == 1
    assert sm.session(id="nowhere") is None
    assert [edge["node"]["id"] for edge in sm.sessions()["edges"]] == ["trip"]

    context = sm.context(session_id="trip", query="where does the user live?", token_budget=400)
    assert "Lisbon" in context["markdown"] and context["tokensUsed"] <= 400
    report = sm.consolidate_session(session_id="trip")
    assert report["sessionId"] == "trip" and report["status"] in ("COMPLETED", "SKIPPED")


def test_memories_lifecycle(sm):
    remembered = sm.remember(content="User is allergic to peanuts", tags=["health"], importance=0.9)
    assert remembered["action"] == "CREATED"
    memory_id = remembered["memory"]["id"]
    assert remembered["memory"]["tags"] == ["health"]

    hits = sm.search(query="peanuts allergy", kinds=["fact"], limit=5)
    assert hits and hits[0]["id"] == memory_id and hits[0]["kind"] == SearchKind.FACT
    dated = sm.search(query="peanuts", from_=datetime(2000, 1, 1), to="2999-01-01T00:00:00Z")
    assert memory_id in [hit["id"] for hit in dated]

    assert sm.memory(id=memory_id)["content"] == "User is allergic to peanuts"
    listed = sm.memories(tag="health", first=10)
    assert [edge["node"]["id"] for edge in listed["edges"]] == [memory_id]
    updated = sm.update_memory(id=memory_id, importance=0.5, tags=["health", "food"])
    assert updated["importance"] == 0.5 and updated["tags"] == ["health", "food"]
    assert sm.confirm_memory(id=memory_id)["id"] == memory_id
    corrected = sm.correct_memory(id=memory_id, content="User is allergic to tree nuts")
    assert corrected["previous"]["id"] == memory_id and corrected["memory"]["supersedes"][0]["id"] == memory_id
    explained = sm.explain(id=corrected["memory"]["id"])
    assert explained["memoryId"] == corrected["memory"]["id"] and explained["supersedes"][0]["id"] == memory_id

    forgotten = sm.forget(id=corrected["memory"]["id"])
    assert forgotten["deleted"] >= 1 and corrected["memory"]["id"] in forgotten["memoryIds"]
    assert sm.memory(id=corrected["memory"]["id"]) is None
    with pytest.raises(NotFoundError) as missing:
        sm.correct_memory(id=corrected["memory"]["id"], content="User is allergic to nothing")
    assert missing.value.code == "NOT_FOUND"
    sm.remember(content="User plays the cello")
    by_text = sm.forget(text="cello")
    assert by_text["deleted"] >= 1
    assert sm.search(query="cello", kinds=[SearchKind.FACT]) == []
    archived = sm.memories(status=MemoryStatus.ARCHIVED)
    assert memory_id in [edge["node"]["id"] for edge in archived["edges"]]


def test_profile_pins_and_instructions(sm):
    sm.add_turn(session_id="prefs", role="user", text="Always include version numbers when I ask about libraries.")
    sm.add_turn(session_id="prefs", role="user", text="I prefer short answers.")
    profile = sm.profile()
    instruction = profile["instructions"][0]
    assert instruction["content"] == "Always include version numbers when I ask about libraries." and instruction["kind"] == "INSTRUCTION"
    assert [m["content"] for m in profile["preferences"]] == ["User prefers short answers"]
    assert sm.pin_memory(id=instruction["id"])["pinned"] is True
    edited = sm.edit_instruction(id=instruction["id"], content="Always include version numbers and release dates.")
    assert edited["previous"]["id"] == instruction["id"] and edited["memory"]["pinned"] is True
    assert sm.unpin_memory(id=edited["memory"]["id"])["pinned"] is False
    with pytest.raises(NotFoundError):
        sm.pin_memory(id=987654)


def test_entities(sm):
    sm.add_turn(session_id="family", role="user", text="My sister Maria Costa lives in Porto and works at Siemens.")
    sm.run_jobs()
    sm.run_maintenance(task="enrich")
    found = sm.entities(q="Maria")
    assert found["totalCount"] >= 1
    name = found["edges"][0]["node"]["name"]
    entity = sm.entity(name=name, first=5)
    assert entity and entity["name"] == name and entity["turns"]["totalCount"] >= 1
    graph = sm.entity_graph(first=10)
    assert name in [node["name"] for node in graph["nodes"]]


def test_maintenance_and_stats(sm):
    stats = sm.stats()
    assert stats["turns"] >= 3 and stats["features"]["fts"] is True
    assert sm.gc()["scored"] >= 1
    decay = sm.run_maintenance(task="DECAY")
    assert decay["task"] == "DECAY" and decay["decay"]["scanned"] >= 1
    assert isinstance(sm.jobs(first=5), list)
    assert sm.run_jobs()["failed"] == 0
    assert {check["name"] for check in sm.doctor()}
    # No embedding model on this server: the call arrives, and the refusal carries its code.
    with pytest.raises(SymbiosisError) as refused:
        sm.reembed()
    assert refused.value.code == "FAILED_PRECONDITION" and "embedding" in refused.value.message


def test_config_viewer_and_users(sm, name):
    assert sm.viewer()["admin"] is True
    sm.set_config(key="context.token_budget", value=900)
    assert sm.config()["context"]["token_budget"] == 900
    sm.unset_config(key="context.token_budget")
    assert sm.config()["context"]["token_budget"] != 900
    users = sm.users()
    assert name("alice") in [edge["node"]["id"] for edge in users["edges"]]


def test_user_and_agent_on_every_call(server, connect, name):
    bob, carol = name("bob"), name("carol")
    with connect(server.url) as sm:
        sm.remember(content="Bob collects vinyl records", user_id=bob)
        sm.remember(content="Bob's work agent knows the deadline is Friday", user_id=bob, agent_id="work")
        as_bob = sm.for_user(bob)
        assert [hit["text"] for hit in as_bob.search(query="vinyl records")] == ["Bob collects vinyl records"]
        assert sm.search(query="vinyl records", user_id=carol) == []
        work = sm.for_user(bob, "work")
        assert "deadline is Friday" in work.search(query="deadline Friday")[0]["text"]
        # A call's own user wins over the client's.
        assert as_bob.search(query="vinyl", user_id=carol) == []
        gone = sm.forget_user(user_id=bob)
        assert gone["userId"] == bob and gone["memories"] >= 2
        assert as_bob.search(query="vinyl records") == []


def test_access_tokens(guarded, connect, name):
    dana_id = name("dana")
    with connect(guarded.url, token=TOKEN) as admin:
        created = admin.create_access_token(user_id=dana_id, label="python test", read_only=False)
        token_id = created["accessToken"]["id"]
        assert created["token"] and created["accessToken"]["userId"] == dana_id
        assert token_id in [t["id"] for t in admin.access_tokens(user_id=dana_id)]
        with connect(guarded.url, token=created["token"]) as dana:
            dana.remember(content="Dana runs marathons")
            assert dana.viewer()["userId"] == dana_id
            with pytest.raises(PermissionDeniedError) as refused:
                dana.search(query="anything", user_id="erin")
            assert refused.value.code == "FORBIDDEN"
        revoked = admin.revoke_access_token(id=token_id)
        assert revoked["revokedAt"]
        assert token_id not in [t["id"] for t in admin.access_tokens(user_id=dana_id)]


def test_tools_as_sm_tools_prints_them(server, connect, name):
    for format in ("openai", "anthropic"):
        printed = subprocess.run(["node", str(ROOT / "bin/sm.js"), "tools", "--format", format], capture_output=True, check=True, text=True).stdout
        assert tool_definitions(format) == json.loads(printed)
    with connect(server.url, user_id=name("frank")) as sm:
        names = [tool["function"]["name"] for tool in tool_definitions("openai")]
        assert {"search_memory", "remember_fact", "get_context", "forget"} <= set(names)
        stored = sm.execute_tool("remember_fact", {"text": "Frank drives an old Volvo"})
        assert stored["is_error"] is False
        found = sm.execute_tool("search_memory", {"query": "Volvo"})
        assert "old Volvo" in found["text"] and found["structured"]["hits"][0]["text"] == "Frank drives an old Volvo"
        assert sm.for_user(name("gina")).execute_tool("search_memory", {"query": "Volvo"})["structured"]["hits"] == []
        bad = sm.execute_tool("search_memory", {"query": ""})
        assert bad["is_error"] is True and "query" in bad["text"]
        unknown = sm.execute_tool("launch_rockets", {})
        assert unknown["is_error"] is True
