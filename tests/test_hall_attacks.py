"""The hall under hostile clients, on its embedded broker (amqtt) and on Mosquitto as `matchbox
hall mosquitto-conf` configures it: refused CONNECTs with the hall's or another box's client id
change no session, a PUBLISH longer than the protocol needs closes its connection before it is
held in memory, a fresh subscription gets its retained acknowledgement once, refused messages
are logged a count a minute, and the hall notices when it no longer receives. (`make
soak-hall-attacks` runs the larger versions: bench/hall_attacks.py.)"""
import asyncio
import json
import os
import time

import pytest

from hall_helpers import (GAME, Client, box_password, broker_pid, header_lines, line_message,
                          long_publish, rss, served, stores_and_acks, until)
from host_tools.hall import accounts, keeper, protocol, records

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(params=["amqtt", "mosquitto"])
def hall(tmp_path, request):
    with served(tmp_path, request.param) as h:
        h.kind = request.param
        yield h


def test_refused_connects_with_taken_client_ids_change_nothing(hall):
    """Issue 30's first reproduction: a client without an account, a box's account, a wrong
    password, each with the hall's client id or another box's, again and again: the hall
    still stores and acknowledges every line, and t1 keeps its connection and subscription."""
    t1 = Client(hall.mqtt, "t1", box_password(hall, "t1"))
    assert t1.subscribe(protocol.ack_topic("t1")) == 1
    assert until(lambda: t1.messages, 10)
    lost = []
    t1.client.on_disconnect = lambda *args: lost.append(args)
    attempts = [(None, None, accounts.HALL_CLIENT_ID), ("t2", "wrong", accounts.HALL_CLIENT_ID),
                ("t1", "wrong", "box-t1"), ("hall", "wrong", accounts.HALL_CLIENT_ID),
                ("t2", box_password(hall, "t2"), accounts.HALL_CLIENT_ID),
                ("t2", box_password(hall, "t2"), "box-t1")]
    for _ in range(3):
        for user, secret, client_id in attempts:
            c = Client(hall.mqtt, user, secret, client_id=client_id)
            assert c.rc is not None
            # the embedded broker refuses an account's foreign client id; Mosquitto gives
            # every account its own name as its client id (use_username_as_clientid)
            assert c.rc.is_failure or (user == "t2" and secret != "wrong"
                                       and hall.kind == "mosquitto"), (user, client_id, c.rc)
            c.close()
    assert stores_and_acks(hall, "t2", header_lines()), hall.messages()
    t1.client.publish(protocol.journal_topic("t1"), line_message(GAME, 1, header_lines()[0]))
    assert until(lambda: json.loads(t1.messages[-1][1])["seq"] == 1, 10), t1.messages
    assert lost == []
    t1.close()
    assert "connecting again" not in hall.messages()


def test_a_long_publish_closes_its_connection_before_it_is_held(hall):
    """Issue 30's third: an enrolled box publishes 6 MB on its own journal topic; the broker
    closes the connection (at MAX_PACKET bytes) and neither it nor the hall grows by more than a
    few MB; the box connects again and its lines are stored."""
    pid = broker_pid(hall)
    before = rss(pid), rss(hall.proc.pid)
    sent, closed = long_publish(hall.mqtt, "t1", box_password(hall, "t1"), 6 << 20)
    assert closed, sent
    time.sleep(0.5)
    grown = rss(pid) - before[0], rss(hall.proc.pid) - before[1]
    assert grown[0] < 3 << 20 and grown[1] < 3 << 20, grown
    assert stores_and_acks(hall, "t1", header_lines()), hall.messages()


def test_a_fresh_subscription_gets_the_retained_ack_once(hall):
    """With t1's box subscribed to its acknowledgements, another client of t1's account
    subscribing to them got the retained one twice from amqtt (at its CONNECT, for the box's
    subscription, and at its SUBSCRIBE); now the embedded broker refuses its client id, and
    whoever subscribes gets it once."""
    box = Client(hall.mqtt, "t1", box_password(hall, "t1"))
    assert box.subscribe(protocol.ack_topic("t1")) == 1
    for client_id in ("box-t1-again", "box-t1", None):
        other = Client(hall.mqtt, "t1", box_password(hall, "t1"), client_id=client_id)
        if not other.rc.is_failure:
            assert other.subscribe(protocol.ack_topic("t1")) == 1
            assert until(lambda: other.messages, 10)
        time.sleep(1)
        other.close()
        assert len(other.messages) == (0 if other.rc.is_failure else 1), other.messages
    box.close()


def test_refused_messages_are_logged_a_count_a_minute(hall):
    """A box sending 300 bad messages in a burst: the hall logs DROPS_LOGGED of them, stores
    the box's good lines, and when it stops counts the others in one line."""
    t1 = Client(hall.mqtt, "t1", box_password(hall, "t1"))
    assert t1.subscribe(protocol.ack_topic("t1")) == 1
    for n in range(300):
        t1.publish(protocol.journal_topic("t1"), b"not json %d" % n)
    for seq, line in enumerate(header_lines()[:2], 1):   # after them, on the same connection
        t1.publish(protocol.journal_topic("t1"), line_message(GAME, seq, line))
    assert until(lambda: t1.messages and json.loads(t1.messages[-1][1])["seq"] == 2, 10), \
        hall.messages()
    t1.close()
    hall.stop()
    log = hall.messages()
    assert log.count("dropped a message on matchbox/t1/journal") == keeper.DROPS_LOGGED, log
    assert "dropped %d more messages on matchbox/t1/journal" % (300 - keeper.DROPS_LOGGED) \
        in log, log


def test_a_count_of_the_messages_dropped_when_the_minute_ends(tmp_path):
    said = []
    keep = keeper.Keeper(str(tmp_path), records.Tables(str(tmp_path)), "127.0.0.1", 1,
                         said.append)
    keep.drop_window_s = 0.3
    for _ in range(3):
        for n in range(20):
            keep._drop(protocol.journal_topic("t%d" % (n % 2)), "not JSON")
        keep._count_drops()
        assert len(said) == 2 * keeper.DROPS_LOGGED
        time.sleep(0.35)
        keep._count_drops()
        assert sorted(said[-2:]) == ["dropped %d more messages on matchbox/t%d/journal in 0 s"
                                     % (10 - keeper.DROPS_LOGGED, n) for n in (0, 1)]
        del said[:]
    assert keep.dropped == 60 and keep._drops == {}


def test_the_hall_notices_it_no_longer_receives(tmp_path):
    """The hall's subscription taken away inside the embedded broker (as amqtt 0.12 did on a
    refused CONNECT with the hall's client id): within a few pings the hall says so in one
    line, connects again and is subscribed again."""
    from host_tools.hall import broker as embedded
    from hall_helpers import free_port
    folder = str(tmp_path / "hall")
    accounts.service_password(folder)
    port = free_port()
    broker = embedded.EmbeddedBroker(folder, port=port)
    broker.start()
    said = []
    keep = keeper.Keeper(folder, records.Tables(folder), "127.0.0.1", port, said.append, qos=0)
    keep.ping_s = 0.2
    topic = protocol.journal_topic("+")
    subscribed = lambda: topic in broker.broker._subscriptions
    try:
        keep.start()
        assert keep.wait_connected(15)
        assert until(subscribed, 5)
        time.sleep(1)
        assert said == []

        async def unsubscribe():
            session = broker.broker._sessions[accounts.HALL_CLIENT_ID][0]
            await broker.broker._del_all_subscriptions(session)
        asyncio.run_coroutine_threadsafe(unsubscribe(), broker.loop).result(5)
        assert not subscribed()
        assert until(lambda: said, 5), said
        assert until(subscribed, 10)
        assert len(said) == 1 and "heard nothing back" in said[0], said
        assert keep.wait_connected(5)
    finally:
        keep.stop()
        broker.stop()


def test_every_url_answers_while_a_copy_is_set_aside(tmp_path, capfd):
    """Issue 30's fourth, at the serving side: t1's copy set aside (as a rewritten record does)
    and nothing of the game taken again yet, every URL of the hall still answers, t1 as a table
    with no line, t2 as before."""
    import threading
    import urllib.request
    from host_tools.hall import site
    tables = records.Tables(str(tmp_path))
    for box in ("t1", "t2"):
        assert tables.store_all([(box, GAME, seq, line, None, None)
                                 for seq, line in enumerate(header_lines(), 1)]) \
            == [records.STORED] * 6
    with tables.lock:
        tables.table("t1")._set_aside(GAME, {})
    assert not os.path.exists(tables.table("t1").path())
    httpd = site.server(site.Site(tables))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    base = "http://127.0.0.1:%d" % httpd.server_address[1]
    get = lambda path: urllib.request.urlopen(base + path, timeout=5)
    try:
        for path in ("/", "/tables/t1.svg", "/tables/t2.svg", "/standings.json"):
            with get(path) as answer:
                assert answer.status == 200 and answer.read(), path
        with get("/tables/t1.txt") as answer:
            assert answer.status == 200 and answer.read() == b""
        with get("/tables/t2.txt") as answer:
            assert answer.read().decode().splitlines() == header_lines()
        with get("/tables.json") as answer:
            views = {v["box"]: v for v in json.loads(answer.read())}
        assert views["t1"]["seq"] == 0 and views["t1"]["error"] is None
        assert views["t2"]["seq"] == 6 and views["t2"]["error"] is None
        with get("/events") as answer:
            event = json.loads(answer.readline()[len(b"data: "):])
        assert sorted(v["box"] for v in event["tables"]) == ["t1", "t2"]
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert capfd.readouterr().err == ""


def test_idle_connections_do_not_keep_boxes_out(tmp_path, monkeypatch):
    """60 connections to the embedded broker that never send their CONNECT, with 20 at most
    kept waiting and 1 s to send it: a box still connects at once, and every idle one is
    closed (the oldest 40 when the others came, the rest after the second)."""
    import socket
    from host_tools.hall import broker as embedded
    from hall_helpers import free_port
    monkeypatch.setattr(embedded, "MAX_WAITING", 20)
    monkeypatch.setattr(embedded, "CONNECT_S", 1)
    folder = str(tmp_path / "hall")
    secret = accounts.enrol(folder, "t1", False)
    port = free_port()
    broker = embedded.EmbeddedBroker(folder, port=port)
    broker.start()
    idle = []
    try:
        for _ in range(60):
            idle.append(socket.create_connection(("127.0.0.1", port), timeout=5))
        box = Client(port, "t1", secret)
        assert box.rc == 0, box.rc
        box.close()
        for s in idle:
            s.settimeout(3)
            assert s.recv(1) == b""
    finally:
        for s in idle:
            s.close()
        broker.stop()


def test_event_streams_that_never_read_do_not_shut_out_the_page(tmp_path):
    """40 pages following /events from one address and never reading (32 get their stream,
    the others 503): a request from that address is still answered."""
    import socket
    import threading
    from hall_helpers import http_status
    from host_tools.hall import site
    httpd = site.server(site.Site(records.Tables(str(tmp_path))))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    port = httpd.server_address[1]
    streams = []
    try:
        for _ in range(40):
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.sendall(b"GET /events HTTP/1.1\r\n\r\n")
            streams.append(s)
        time.sleep(0.5)
        assert http_status(port, b"GET /tables.json HTTP/1.1\r\n\r\n").startswith(
            b"HTTP/1.0 200")
    finally:
        for s in streams:
            s.close()
        httpd.shutdown()
        httpd.server_close()
