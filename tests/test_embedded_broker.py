"""The embedded broker's delivery (host_tools.hall.broker): each message is matched only
against the topic filters that may match it (its own topic, and those with a wildcard), and
still reaches every client subscribed to it, and no other."""
import asyncio

import pytest

from hall_helpers import Client, free_port, until
from host_tools.hall import accounts, protocol
from host_tools.hall import broker as embedded

pytestmark = pytest.mark.timeout(60)


def test_a_message_is_matched_only_against_the_filters_that_may_match_it():
    subs = embedded._Copied({"matchbox/t1/ack": [1], "matchbox/t2/ack": [2],
                             "matchbox/+/journal": [3], "#": [4], "matchbox/t3/setup": [5]})
    queue = embedded._Broadcasts(subs)

    async def take():
        await queue.put({"session": None, "topic": "matchbox/t1/ack", "data": b"x"})
        return await queue.get()
    assert asyncio.run(take())["topic"] == "matchbox/t1/ack"
    assert subs.items() == [("matchbox/t1/ack", [1]), ("matchbox/+/journal", [3]), ("#", [4])]
    assert len(subs.items()) == 5   # the topic is used once: any other loop sees every filter
    subs.topic = "matchbox/t9/journal"
    assert subs.items() == [("matchbox/+/journal", [3]), ("#", [4])]


def test_each_client_gets_the_messages_of_its_subscriptions_and_no_other(tmp_path):
    folder = str(tmp_path / "hall")
    passwords = {box: accounts.enrol(folder, box) for box in ("t1", "t2")}
    port = free_port()
    broker = embedded.EmbeddedBroker(folder, port=port)
    broker.start()
    clients = []
    try:
        hall = Client(port, accounts.SERVICE, accounts.service_password(folder),
                      client_id=accounts.HALL_CLIENT_ID)
        boxes = {box: Client(port, box, passwords[box]) for box in ("t1", "t2")}
        clients = [hall] + list(boxes.values())
        assert hall.subscribe(protocol.journal_topic("+")) == 1
        for box, client in boxes.items():
            assert client.subscribe(protocol.ack_topic(box)) == 1
        boxes["t1"].publish(protocol.journal_topic("t1"), b"one")
        boxes["t2"].publish(protocol.journal_topic("t2"), b"two")
        for box in ("t1", "t2"):
            hall.publish(protocol.ack_topic(box), box.encode())
        assert until(lambda: len(hall.messages) == 2 and all(
            len(c.messages) == 1 for c in boxes.values()), 10)
        assert sorted(hall.messages) == [(protocol.journal_topic("t1"), b"one"),
                                         (protocol.journal_topic("t2"), b"two")]
        for box, client in boxes.items():
            assert client.messages == [(protocol.ack_topic(box), box.encode())]
    finally:
        for client in clients:
            client.client.disconnect()
            client.client.loop_stop()
        broker.stop()
