"""A chat loop's memory calls, blocking: store the turns, ask for the context before replying.

    SM_URL=http://127.0.0.1:8787/graphql python3 examples/sync_example.py
"""

from symbiosis_memory import SymbiosisClient, SymbiosisError

with SymbiosisClient(user_id="alice") as sm:  # SM_URL and SM_API_TOKEN from the environment
    try:
        sm.add_turn(session_id="sync-demo", role="user", text="I moved to Lisbon in May and I'm learning Portuguese.")
        sm.add_turn(session_id="sync-demo", role="assistant", text="Boa sorte! Lisbon is a great place to learn.")
        sm.remember(content="Alice prefers short answers", tags=["style"], importance=0.8)

        context = sm.context(session_id="sync-demo", query="Where does Alice live?", token_budget=500)
        print(context["markdown"])  # put this in front of the model's prompt

        for hit in sm.search(query="Lisbon Portuguese", limit=3):
            print(f"search: {hit['kind'].lower()} {hit['id']}: {hit['text']}")
    except SymbiosisError as error:
        raise SystemExit(f"{error.code}: {error}")
