"""The hall under hostile clients, on its embedded broker (amqtt) and on Mosquitto as `matchbox
hall mosquitto-conf` configures it: refused CONNECTs with the hall's or another box's client id
change no session, a PUBLISH longer than the protocol needs closes its connection before it is
held in memory, a fresh subscription gets its retained acknowledgement once, refused messages
are logged a count a minute, and the hall notices when it no longer receives. (`make
soak-hall-attacks` runs the larger versions: bench/hall_attacks.py.)"""
import asyncio
import json
import os
import socket
import struct
import time

import pytest

from hall_helpers import (Client, header_lines, line_message, served, until)
from host_tools.hall import accounts, keeper, protocol, records

pytestmark = pytest.mark.timeout(120)
GAME = "001-00000000"


@pytest.fixture(params=["amqtt", "mosquitto"])
def hall(tmp_path, request):
    with served(tmp_path, request.param) as h:
        h.kind = request.param
        yield h


def password(hall, box):
    return protocol.parse_url(hall.urls[box])[3]


def stores_and_acks(hall, box, lines, timeout=10):
    """Box publishes `lines` (from 1) and the hall stores and acknowledges them."""
    c = Client(hall.mqtt, box, password(hall, box))
    assert c.rc == 0, c.rc
    assert c.subscribe(protocol.ack_topic(box)) == 1
    for seq, line in enumerate(lines, 1):
        c.publish(protocol.journal_topic(box), line_message(GAME, seq, line))
    acked = lambda: c.messages and json.loads(c.messages[-1][1])["seq"] == len(lines)
    try:
        return until(acked, timeout) and hall.tables()[box]["seq"] == len(lines)
    finally:
        c.close()


def test_refused_connects_with_taken_client_ids_change_nothing(hall):
    """Issue 30's first reproduction: a client without an account, a box's account, a wrong
    password, each with the hall's client id or another box's, again and again: the hall
    still stores and acknowledges every line, and t1 keeps its connection and subscription."""
    t1 = Client(hall.mqtt, "t1", password(hall, "t1"))
    assert t1.subscribe(protocol.ack_topic("t1")) == 1
    assert until(lambda: t1.messages, 10)
    lost = []
    t1.client.on_disconnect = lambda *args: lost.append(args)
    attempts = [(None, None, accounts.HALL_CLIENT_ID), ("t2", "wrong", accounts.HALL_CLIENT_ID),
                ("t1", "wrong", "box-t1"), ("hall", "wrong", accounts.HALL_CLIENT_ID),
                ("t2", password(hall, "t2"), accounts.HALL_CLIENT_ID),
                ("t2", password(hall, "t2"), "box-t1")]
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


def connect_packet(client_id, user, secret):
    def text(s):
        b = s.encode()
        return struct.pack("!H", len(b)) + b
    body = text("MQTT") + bytes([4, 0xC2]) + struct.pack("!H", 30) + \
        text(client_id) + text(user) + text(secret)
    return bytes([0x10]) + remaining(len(body)) + body


def remaining(n):
    out = bytearray()
    while True:
        n, digit = n >> 7, n & 0x7F
        out.append(digit | (0x80 if n else 0))
        if not n:
            return bytes(out)


def rss(pid):
    """The resident memory of a process, in bytes."""
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def broker_pid(hall):
    if hall.kind == "mosquitto":
        return hall.broker.proc.pid
    with open("/proc/%d/task/%d/children" % (hall.proc.pid, hall.proc.pid)) as f:
        return int(f.read().split()[0])


def long_publish(port, box, secret, size, chunk=1 << 16, timeout=10):
    """An enrolled box's PUBLISH of `size` bytes on its journal topic, sent as fast as the
    broker reads it; (bytes sent, whether the broker closed the connection)."""
    s = socket.create_connection(("127.0.0.1", port), timeout)
    try:
        s.sendall(connect_packet("box-" + box, box, secret))
        assert s.recv(4) == b"\x20\x02\x00\x00"
        topic = protocol.journal_topic(box).encode()
        head = struct.pack("!H", len(topic)) + topic
        s.sendall(bytes([0x30]) + remaining(len(head) + size) + head)
        sent = 0
        block = b"x" * chunk
        try:
            while sent < size:
                s.sendall(block[:size - sent])
                sent += min(chunk, size - sent)
        except OSError:   # reset, or the broker stopped reading and the send timed out
            return sent, True
        try:
            return sent, s.recv(1) == b""
        except socket.timeout:
            return sent, False
        except OSError:
            return sent, True
    finally:
        s.close()


def test_a_long_publish_closes_its_connection_before_it_is_held(hall):
    """Issue 30's third: an enrolled box publishes 6 MB on its own journal topic; the broker
    closes the connection (at MAX_PACKET bytes) and neither it nor the hall grows by more than a
    few MB; the box connects again and its lines are stored."""
    pid = broker_pid(hall)
    before = rss(pid), rss(hall.proc.pid)
    sent, closed = long_publish(hall.mqtt, "t1", password(hall, "t1"), 6 << 20)
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
    box = Client(hall.mqtt, "t1", password(hall, "t1"))
    assert box.subscribe(protocol.ack_topic("t1")) == 1
    for client_id in ("box-t1-again", "box-t1", None):
        other = Client(hall.mqtt, "t1", password(hall, "t1"), client_id=client_id)
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
    t1 = Client(hall.mqtt, "t1", password(hall, "t1"))
    for n in range(300):
        t1.publish(protocol.journal_topic("t1"), b"not json %d" % n)
    t1.close()
    assert stores_and_acks(hall, "t1", header_lines()[:2]), hall.messages()
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
