"""box.mqtt_link on CPython against scripted brokers on 127.0.0.1: the packets it sends are
MQTT 3.1.1's, a QoS 1 line does not wait for its PUBACK, PUBACK and SUBACK are read in step,
the hall's acknowledgement moves the cursor, and every step returns at once whether the broker
answers, never answers, refuses the box or sends what it should not (each such message left
with the cursor as it was). The unix port runs the same module in the hall tests."""
import json
import os
import socket
import struct
import time

import pytest
from hypothesis import given, settings, strategies as st

from box import mqtt_link
from box.journal import Store
from box.uplink import Cursor
from link_helpers import HEADER, Clock, Joined


def flash(tmp_path, lines=10):
    games = tmp_path / "games"
    games.mkdir()
    body = HEADER + [b"%d: pass" % i for i in range(1, lines - 5)]
    (games / "current.txt").write_bytes(b"".join(l + b"\n" for l in body))
    return str(games), body


def make_link(root, port, clock, told=None):
    settings = {"host": "127.0.0.1", "port": port, "box": "t1", "password": "pw"}
    return mqtt_link.Link(settings, Cursor(Store(), root), clock, Joined(),
                          (told.append if told is not None else None))


class Broker:
    """A listening socket the test answers by hand."""

    def __init__(self):
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(4)
        self.port = self.listener.getsockname()[1]
        self.conn = None
        self.got = b""

    def accept(self):
        self.listener.settimeout(5)
        self.conn, _ = self.listener.accept()
        self.conn.settimeout(5)
        self.conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)   # as brokers do
        return self

    def read_packet(self):
        """(first byte, body) of the next packet the box sent."""
        while True:
            if len(self.got) >= 2:
                size, shift, i = 0, 0, 1
                while True:
                    b = self.got[i]
                    size |= (b & 0x7F) << shift
                    i += 1
                    if not b & 0x80:
                        break
                    shift += 7
                if len(self.got) >= i + size:
                    packet, self.got = self.got[:i + size], self.got[i + size:]
                    return packet[0], packet[i:]
            data = self.conn.recv(4096)
            assert data, "the box closed the connection"
            self.got += data

    def send(self, data):
        self.conn.sendall(data)

    def close(self):
        if self.conn:
            self.conn.close()
        self.listener.close()


def publish(topic, payload, qos=1, pid=1, retain=True):
    body = struct.pack("!H", len(topic)) + topic + (struct.pack("!H", pid) if qos else b"") + payload
    size, length = len(body), b""
    while True:
        length += bytes([(size & 0x7F) | (0x80 if size > 0x7F else 0)])
        size >>= 7
        if not size:
            return bytes([0x30 | qos << 1 | retain]) + length + body


def steps(link, clock, n=20, ms=10):
    worst = 0.0
    for _ in range(n):
        t = time.perf_counter()
        link.step()
        worst = max(worst, time.perf_counter() - t)
        clock.now += ms
        time.sleep(0.005)
    return worst


@pytest.fixture
def broker():
    b = Broker()
    yield b
    b.close()


def connected(link, clock, broker):
    """Step the link through CONNECT/CONNACK/SUBSCRIBE/SUBACK; returns the SUBSCRIBE body."""
    steps(link, clock, 3)
    broker.accept()
    steps(link, clock, 3)
    op, body = broker.read_packet()
    assert op == 0x10
    assert body[:10] == b"\x00\x04MQTT\x04\xc2\x00\x1e"          # 3.1.1, clean, user+pw, 30 s
    assert b"box-t1" in body and body.endswith(b"\x00\x02t1\x00\x02pw")
    broker.send(b"\x20\x02\x00\x00")
    steps(link, clock, 3)
    op, body = broker.read_packet()
    assert op == 0x82 and body.endswith(b"\x00\x0fmatchbox/t1/ack\x01"
                                        b"\x00\x11matchbox/t1/setup\x01")
    broker.send(b"\x90\x04" + body[:2] + b"\x01\x01")
    steps(link, clock, 3)
    assert link.state == mqtt_link._UP
    return body


def test_lines_go_out_without_waiting_for_puback_and_the_ack_moves_the_cursor(tmp_path, broker):
    root, body = flash(tmp_path)
    clock = Clock()
    told = []
    link = make_link(root, broker.port, clock, told)
    connected(link, clock, broker)
    broker.send(publish(b"matchbox/t1/ack", b'{"hall": "b1", "game": null, "seq": 0}'))
    steps(link, clock, 4)
    assert broker.read_packet() == (0x40, b"\x00\x01")               # its PUBACK to the hall's ack
    sent = []
    for _ in range(len(body)):                                       # no PUBACK sent back yet
        op, packet = broker.read_packet()
        assert op == 0x32
        n = struct.unpack("!H", packet[:2])[0]
        assert packet[2:2 + n] == b"matchbox/t1/journal"
        sent.append(json.loads(packet[4 + n:]))
        steps(link, clock, 2)
    assert [(m["seq"], m["line"]) for m in sent] == [(i, l.decode()) for i, l in
                                                     enumerate(body, 1)]
    game = sent[0]["game"]
    assert link.cursor.out                                           # not acknowledged yet
    broker.send(b"\x40\x02\x00\x01" * 3)                             # PUBACKs: only the broker's
    broker.send(publish(b"matchbox/t1/ack", json.dumps(
        {"hall": "b1", "game": game, "seq": len(body)}).encode(), pid=2))
    steps(link, clock, 4)
    assert link.cursor.acked == (game, len(body)) and not link.cursor.out
    assert link.cursor.delivered()
    assert told[:2] == ["c", "a b1 - 0"] and told[-1] == "a b1 %s %d" % (game, len(body))


@pytest.mark.parametrize("payload", [
    b"not json", b"[1, 2]", b'{"game": null, "seq": 0}', b'{"hall": "", "game": null}',
    b'{"hall": "b", "game": "7", "seq": 1}', b'{"hall": "b", "game": "001-1234567g", "seq": 1}',
    b'{"hall": "b", "game": "001-12345678", "seq": -1}',
    b'{"hall": "b", "game": "001-12345678", "seq": true}', b"{" + b" " * 1030 + b"}"])
def test_a_bad_acknowledgement_is_counted_and_leaves_the_cursor_as_it_was(tmp_path, broker,
                                                                        payload):
    root, _ = flash(tmp_path)
    clock = Clock()
    link = make_link(root, broker.port, clock)
    connected(link, clock, broker)
    broker.send(publish(b"matchbox/t1/ack", b'{"hall": "b1", "game": null, "seq": 0}'))
    steps(link, clock, 3)
    before = (link.cursor.boot, link.cursor.acked)
    broker.send(publish(b"matchbox/t1/ack", payload, pid=2))
    broker.send(publish(b"matchbox/t2/ack", b'{"hall": "b2", "game": null, "seq": 0}', pid=3))
    steps(link, clock, 4)
    assert (link.cursor.boot, link.cursor.acked) == before
    assert link.bad == 2 and link.state == mqtt_link._UP


def test_a_refused_account_is_said_and_tried_again_after_a_back_off(tmp_path, broker):
    root, _ = flash(tmp_path)
    clock = Clock()
    told = []
    link = make_link(root, broker.port, clock, told)
    steps(link, clock, 3)
    broker.accept()
    steps(link, clock, 3)
    assert broker.read_packet()[0] == 0x10
    broker.send(b"\x20\x02\x00\x05")                                 # Not authorized
    steps(link, clock, 3)
    assert told[:2] == ["r 5", "x refused"] and link.state == mqtt_link._WIFI
    assert link.refused == 5 and link.sock is None


@pytest.mark.parametrize("garbage,why", [
    (b"\x30\xff\xff\xff\x7f", "a packet of"),                       # 256 MB announced
    (b"\x30\xff\xff\xff\xff\x01", "a packet with a bad length"),
    (b"\xa0\x02\x00\x01", "an unexpected packet 0xa0"),
    (b"\x34\x05\x00\x01t\x00\x01", "a QoS 2 message"),
    (b"\x32\x04\x00\x09ab", "a malformed packet"),                 # topic past the packet
    (b"\x32\x05\x00\x01t\x00\x00", "a malformed packet"),             # packet id 0
    (b"\x40\x03\x00\x01\x00", "an unexpected packet 0x40"),          # a PUBACK too long
    (b"\xd0\x01\x00", "an unexpected packet 0xd0"),                  # a PINGRESP with a body
    (b"\x20\x02\x00\x00", "an unexpected packet 0x20"),             # a CONNACK once up
])
def test_what_a_broker_should_not_send_drops_the_connection(tmp_path, broker, garbage, why):
    root, _ = flash(tmp_path)
    clock = Clock()
    told = []
    link = make_link(root, broker.port, clock, told)
    connected(link, clock, broker)
    broker.send(garbage)
    steps(link, clock, 3)
    assert link.sock is None and told[-1].startswith("x " + why), told


class Wire:
    """A connected socket and its poll as the link uses them, fed by the test."""

    def __init__(self, data):
        self.data = data
        self.sent = b""

    def poll(self, timeout):
        return [(self, 1)] if self.data else []

    def recv(self, n):
        got, self.data = self.data[:n], self.data[n:]
        return got

    def send(self, data):
        self.sent += bytes(data)
        return len(data)

    def close(self):
        pass


PACKETS = st.one_of(
    st.binary(max_size=40),                                          # anything
    st.builds(lambda first, body: bytes([first]) + bytes(mqtt_link._encode(0, body)[1:]) + body,
              st.integers(0, 255), st.binary(max_size=40)),         # any type, right length
    st.builds(lambda flags, topic, pid, payload: publish(topic, payload, flags >> 1 & 3,
                                                         pid, flags & 1),
              st.integers(0, 15), st.binary(max_size=20), st.integers(0, 65535),
              st.binary(max_size=40)))


@settings(max_examples=300, deadline=None)
@given(st.lists(PACKETS, min_size=1, max_size=6))
def test_whatever_the_broker_sends_is_read_or_refused_in_words(tmp_path_factory, packets):
    """Every byte string from the broker is a packet read or a connection dropped with its
    reason: never the link's catch-all for its own faults, never the box; a refused message
    leaves the cursor as it was."""
    root, _ = flash(tmp_path_factory.mktemp("fuzz"))
    clock = Clock()
    told = []
    link = make_link(root, 1, clock, told)
    wire = Wire(b"".join(packets))
    link.sock = link.poll = wire
    link.state = mqtt_link._UP
    link.since = link.heard = link.said = clock.now
    for _ in range(20):
        acked = link.cursor.acked
        link.step()
        clock.now += 10
        if link.sock is None:
            break
        assert link.cursor.acked == acked or told[-1].startswith("a ")
    reasons = ("x a packet of ", "x a packet with a bad length", "x a malformed packet",
               "x a QoS ", "x an unexpected packet 0x")
    assert all(t.startswith(("a ",) + reasons) for t in told), told
    assert link.sock is None or not wire.data or len(link.inb) <= mqtt_link._MAX_PACKET


def test_the_packets_and_a_flooding_broker_under_micropython():
    from mpy import run_portable
    passed, failed, output = run_portable(["test_mqtt_packets", "test_mqtt_flood"])
    assert failed == 0 and passed > 0, output


def test_a_broker_that_floods_and_reads_nothing_holds_one_packet_and_loses_no_line(tmp_path,
                                                                                   broker):
    """Over real sockets (tests/portable/test_mqtt_flood.py has it on stand-ins under both
    interpreters): once the box is subscribed, the broker sends QoS 1 messages as fast as the
    box reads them and reads nothing. What waits in the link stays one packet (a PUBACK was
    kept for each message: 18.7 KB with a 4 KB socket buffer, then MemoryError), the link drops
    the connection saying why, and its next connection, to a broker that reads, delivers every
    line."""
    root, body = flash(tmp_path, lines=30)
    clock = Clock()
    told = []
    link = make_link(root, broker.port, clock, told)
    broker.listener.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)   # the connection's
    connected(link, clock, broker)
    broker.conn.setblocking(False)
    flood = publish(b"x", b"", retain=False) * 512
    left = b""
    held = steps_taken = 0
    while not link.dropped and steps_taken < 20000:   # the clock stands: no stall, no ping
        left = left or flood   # whole packets: a send may take part of them
        try:
            left = left[broker.conn.send(left):]
        except BlockingIOError:
            pass
        link.step()
        held = max(held, len(link.out))
        steps_taken += 1
    assert told[-1] == "x the broker does not read what the box sends", told[-3:]
    assert link.bad > 1000 and held <= 1100, (link.bad, held)   # one packet at most
    broker.conn.close()
    broker.got = b""
    clock.now += 2000                                                # past the back-off
    connected(link, clock, broker)
    broker.send(publish(b"matchbox/t1/ack", b'{"hall": "b1", "game": null, "seq": 0}'))
    steps(link, clock, 4)
    assert broker.read_packet() == (0x40, b"\x00\x01")
    sent = []
    while len(sent) < len(body):
        op, packet = broker.read_packet()
        if op == 0x32:
            n = struct.unpack("!H", packet[:2])[0]
            sent.append(json.loads(packet[4 + n:]))
        steps(link, clock, 2)
    assert [(m["seq"], m["line"]) for m in sent] == [(i, l.decode()) for i, l in
                                                     enumerate(body, 1)]
    broker.send(publish(b"matchbox/t1/ack", json.dumps(
        {"hall": "b1", "game": sent[0]["game"], "seq": len(body)}).encode(), pid=2))
    steps(link, clock, 4)
    assert link.cursor.delivered() and link.dropped == 1


def test_a_broker_that_never_answers_costs_every_step_nothing(tmp_path, broker):
    """Accepted and silent (no CONNACK), then a host whose accept queue is full (the connect
    itself never answered): steps stay short, and the link gives up after CONNECT_MS."""
    root, _ = flash(tmp_path)
    clock = Clock()
    told = []
    link = make_link(root, broker.port, clock, told)
    worst = steps(link, clock, 5)
    broker.accept()
    worst = max(worst, steps(link, clock, 10, ms=mqtt_link._CONNECT_MS // 5))
    assert told[-1] == "x no answer from the broker"
    full = socket.socket()
    full.bind(("127.0.0.1", 0))
    full.listen(0)
    fill = []
    for _ in range(4):
        s = socket.socket()
        s.setblocking(False)
        s.connect_ex(full.getsockname())
        fill.append(s)
    time.sleep(0.2)
    try:
        link2 = make_link(root, full.getsockname()[1], clock, told)
        worst = max(worst, steps(link2, clock, 3))
        assert link2.state == mqtt_link._TCP                          # under way, not answered
        worst = max(worst, steps(link2, clock, 10, ms=mqtt_link._CONNECT_MS // 5))
        assert link2.dropped >= 1 and told[-1] == "x no answer from the broker"
    finally:
        for s in fill + [full]:
            s.close()
    # no step waits on the network: one that did would take a connect's seconds (a step's
    # time itself is measured by bench/bench_uplink.py, not judged here on a loaded machine)
    assert worst < 0.5, worst


def test_nothing_listening_backs_off_doubling(tmp_path):
    root, _ = flash(tmp_path)
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    clock = Clock()
    link = make_link(root, port, clock)
    waits = []
    for _ in range(7):
        link.step()
        for _ in range(50):
            time.sleep(0.002)
            link.step()
            if link.state == mqtt_link._WIFI:
                break
        waits.append(link.backoff)
        clock.now = link.retry_at
    assert waits == [2000, 4000, 8000, 16000, 16000, 16000, 16000]


@pytest.mark.parametrize("text,why", [
    (b"{", "not JSON"), (b"[]", "not a JSON object"), (b'{"box": "t1", "password": "p"}', "host"),
    (b'{"host": "h", "box": "t1", "password": "p", "port": 0}', "port"),
    (b'{"host": "h", "box": "t1", "password": "p", "port": true}', "port"),
    (b'{"host": "h", "box": "t1", "password": "p", "ssid": 5}', "ssid")])
def test_settings_that_are_not_right_say_what(tmp_path, text, why):
    path = tmp_path / "hall.json"
    path.write_bytes(text)
    with pytest.raises(mqtt_link.SettingsError) as exc:
        mqtt_link.load(Store(), str(path))
    assert why in str(exc.value) and str(path) in str(exc.value)


def test_settings_from_enrol_are_read(tmp_path):
    from host_tools.hall import uplink
    path = str(tmp_path / "hall.json")
    uplink.write_settings(path, uplink.settings("mqtt://t1:pw@10.0.0.5:1884", "Room", "secret99"))
    assert os.stat(path).st_mode & 0o777 == 0o600
    assert mqtt_link.load(Store(), path) == {"host": "10.0.0.5", "port": 1884, "box": "t1",
                                             "password": "pw", "ssid": "Room",
                                             "wifi_password": "secret99"}


def test_the_box_without_settings_imports_nothing_and_bad_ones_are_one_line(tmp_path):
    """On the unix port: no hall.json, no link and box.mqtt_link not imported; a hall.json
    that is not right: the box plays on without a link and says why on USB, once."""
    from host_tools.virtual.box import VBox
    flash_dir = str(tmp_path / "flash")
    with VBox(flash=flash_dir) as box:
        box.boot()
        assert box.dump()["hall_link"] is False
    with open(os.path.join(flash_dir, "hall.json"), "w") as f:
        f.write('{"host": "h", "box": "t1"}')
    with VBox(flash=flash_dir) as box:
        box.boot()
        assert box.emitted == ['{"hall": "hall.json: password is not a string of 1 to 64 '
                               'characters"}']
        box.tap("PLAY")
        assert box.mode == "running" and box.dump()["hall_link"] is True


def test_no_acknowledgement_for_three_returns_connects_again(tmp_path, broker):
    """Lines out and the hall silent (the broker took them, routes no ack back): the cursor
    goes back three times, then the link closes the connection, even with a ping due."""
    root, body = flash(tmp_path)
    clock = Clock()
    told = []
    link = make_link(root, broker.port, clock, told)
    connected(link, clock, broker)
    broker.send(publish(b"matchbox/t1/ack", b'{"hall": "b1", "game": null, "seq": 0}'))
    steps(link, clock, 4)
    assert link.cursor.out
    steps(link, clock, 4, ms=16000)                 # past STALL_MS and the ping's 15 s
    assert "x no acknowledgement from the hall" in told and link.dropped == 1
    assert link.sock is None or link.state == mqtt_link._TCP   # and connecting again


def test_a_fault_inside_a_step_drops_the_connection_not_the_box(tmp_path, broker):
    root, _ = flash(tmp_path)
    clock = Clock()
    told = []
    link = make_link(root, broker.port, clock, told)
    connected(link, clock, broker)

    def broken(now):
        raise KeyError("a bug")
    link._lines = broken
    steps(link, clock, 2)
    assert told[-1] == "x KeyError: 'a bug'" and link.sock is None


class FakeWlan:
    """network.WLAN as a Pico W's: connect returns at once, status() says how the join goes."""
    STA_IF = 0

    def __init__(self):
        self.joins = []
        self.actives = []
        self.status_now = 1
        self.connected = False

    def WLAN(self, interface):
        return self

    def active(self, on):
        self.actives.append(on)

    def connect(self, ssid, password):
        self.joins.append((ssid, password))
        if getattr(self, "fails", False):
            raise OSError(1)

    def isconnected(self):
        return self.connected

    def status(self):
        return self.status_now

    def disconnect(self):
        pass


def test_the_wifi_join_is_started_once_polled_and_retried_after_a_pause(monkeypatch):
    import sys
    fake = FakeWlan()
    monkeypatch.setitem(sys.modules, "network", fake)
    wifi = mqtt_link.Wifi("Room", "secret99")
    assert fake.actives == [True]           # the radio starts as the link is made
    quiet = mqtt_link._JOIN_QUIET_MS
    t = 0
    while t < quiet:                        # the loop running with no key down: no join yet
        assert not wifi.up(t) and fake.joins == []
        t += 10
    assert not wifi.up(t) and fake.joins == [("Room", "secret99")]   # started, not waited for
    assert not wifi.up(t + 10) and len(fake.joins) == 1               # polled
    fake.status_now = -3                                              # wrong password
    t += 20
    assert not wifi.up(t) and wifi.why == -3
    failed, pause = t, mqtt_link._JOIN_PAUSE_MS
    for _ in range(3):                  # each pause doubles; the radio is brought up once
        n = len(fake.joins)
        while len(fake.joins) == n:
            t += 10
            wifi.up(t)
        assert pause <= t - failed < pause + 20
        t += 10
        wifi.up(t)                      # the join fails again at once (status -3)
        failed, pause = t, pause * 2
    assert fake.actives == [True]
    fake.status_now = 1
    fake.connected = True
    assert wifi.up(t + 10)


def test_a_radio_that_did_not_start_is_not_started_again_and_its_joins_are_spaced(monkeypatch):
    """The radio starts once, as the link is made (its start holds the box); a join on a radio
    that did not start fails at once (rp2's EPERM: OSError(1)) and the next comes after the
    doubling pause."""
    import sys
    fake = FakeWlan()
    fake.fails = True
    monkeypatch.setitem(sys.modules, "network", fake)
    wifi = mqtt_link.Wifi("Room", "secret99")
    t, tries = 0, []
    while t < 60000:
        n = len(fake.joins)
        wifi.up(t)
        if len(fake.joins) > n:
            tries.append(t)
        t += 10
    assert fake.actives == [True]       # brought up once, when made
    gaps = [b - a for a, b in zip(tries, tries[1:])]
    assert tries[0] >= mqtt_link._JOIN_QUIET_MS and gaps == sorted(gaps) and gaps[0] >= 5000
    assert len(tries) <= 5              # 5, 10, 20 s... apart: not every second


def test_a_key_down_puts_off_the_join(monkeypatch):
    import sys
    fake = FakeWlan()
    monkeypatch.setitem(sys.modules, "network", fake)
    wifi = mqtt_link.Wifi("Room", "secret99")
    t = 0
    for _ in range(20):     # a key down every 2 s: the loop stops stepping the link for 200 ms
        for _ in range(180):
            t += 10
            assert not wifi.up(t)
        t += 200
    assert fake.joins == []
    while not fake.joins:   # the players think: after JOIN_QUIET_MS the join starts
        t += 10
        wifi.up(t)


def test_a_pico_w_without_an_ssid_is_told(tmp_path):
    root, _ = flash(tmp_path)
    path = tmp_path / "hall.json"
    path.write_text('{"host": "10.0.0.5", "box": "t1", "password": "pw"}')

    class PicoW:
        ticks_ms = staticmethod(lambda: 0)

    class Journal:
        store = Store()
    Journal.root = root
    with pytest.raises(mqtt_link.SettingsError) as exc:
        mqtt_link.link(PicoW(), Journal(), str(path))
    assert "no ssid" in str(exc.value)


def test_a_pico_w_starts_its_radio_at_power_up_before_the_game_is_shown(tmp_path, monkeypatch):
    """box.runtime.start makes the hall's link before the app boots: the radio's start, which
    holds the box, comes before the game is on the displays and any key is read."""
    import sys
    from box import runtime
    root, _ = flash(tmp_path)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "hall.json").write_text(
        '{"host": "10.0.0.5", "box": "t1", "password": "pw", "ssid": "Room"}')
    order = []
    fake = FakeWlan()
    fake.active = lambda on: order.append("radio")
    monkeypatch.setitem(sys.modules, "network", fake)

    class Journal:
        store = Store()
    Journal.root = root

    class App:
        link = None
        journal = Journal()

    class PicoW:
        ticks_ms = staticmethod(lambda: 0)

        def emit(self, line):
            order.append(line)

    monkeypatch.setattr(runtime, "build", lambda hw, pinmap, keys: App())
    monkeypatch.setattr(runtime, "boot", lambda app: order.append("shown"))
    app = runtime.start(PicoW())
    assert order == ["radio", "shown"] and isinstance(app.link, mqtt_link.Link)


def test_a_rounds_setup_waits_for_the_game_and_opens_the_menu(tmp_path, broker):
    """The hall's setup on the box's setup topic: kept while a game is in progress, shown in
    the menu once it is over (box.tablesetup); the subscription to it may be refused (an older
    hall) without the link going down."""
    from app_helpers import make_box
    from test_tablesetup import SETUP, HallJournal
    from box import app as A
    root, _ = flash(tmp_path)
    clock = Clock()
    link = make_link(root, broker.port, clock)
    steps(link, clock, 3)
    broker.accept()
    steps(link, clock, 3)
    broker.read_packet()
    broker.send(b"\x20\x02\x00\x00")
    steps(link, clock, 3)
    _, body = broker.read_packet()
    broker.send(b"\x90\x04" + body[:2] + b"\x01\x80")   # the setup's subscription refused
    steps(link, clock, 3)
    assert link.state == mqtt_link._UP
    app = make_box(4, "players 2\nhands 3 3\n")[0]
    app.journal = HallJournal()
    link.app = app
    broker.send(publish(b"matchbox/t1/setup", SETUP))
    steps(link, clock, 4)
    assert app.view.mode == A.PLAY and link.setup == SETUP   # the game goes on
    app._menu()                                              # the players open the menu
    steps(link, clock, 2)
    assert link.setup is None and app.setup.table == 7 and app.view.mode == A.SETUP
    assert link.bad == 0 and link.state == mqtt_link._UP
