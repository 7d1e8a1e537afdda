"""The same with asyncio: several users' memory over one connection pool, concurrently.

    SM_URL=http://127.0.0.1:8787/graphql python3 examples/async_example.py
"""

import asyncio

from symbiosis_memory import AsyncSymbiosisClient, SymbiosisError


async def main() -> None:
    async with AsyncSymbiosisClient() as sm:  # SM_URL and SM_API_TOKEN from the environment
        users = {"bruno": "My daughter Ana starts school in September.", "chen": "I am allergic to shellfish."}
        await asyncio.gather(
            *(sm.for_user(user).add_turn(session_id="async-demo", role="user", text=text) for user, text in users.items())
        )
        for user in users:
            stats = await sm.for_user(user).stats()
            hits = await sm.for_user(user).search(query="school allergic", limit=3)
            print(f"{user}: {stats['turns']} turn(s); search: {[hit['text'] for hit in hits]}")


try:
    asyncio.run(main())
except SymbiosisError as error:
    raise SystemExit(f"{error.code}: {error}")
