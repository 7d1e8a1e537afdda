"""Runs after the other test files (pytest takes them in name order): every query and mutation of
both clients was sent to a real server by one of them."""

from conftest import CALLED
from symbiosis_memory import OPERATIONS


def test_every_operation_ran_on_both_clients():
    assert sorted(set(OPERATIONS) - CALLED["sync"]) == []
    assert sorted(set(OPERATIONS) - CALLED["async"]) == []
