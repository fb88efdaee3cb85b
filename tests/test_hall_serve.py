"""`matchbox hall serve` with its embedded broker (amqtt) and with Debian's Mosquitto 2 as
`matchbox hall mosquitto-conf` configures it: who may connect, who may publish where, what the
hall stores, what its HTTP side serves. The hall (and Mosquitto) run in processes of their own
on free ports on 127.0.0.1."""
import json
import os
import urllib.error
import urllib.request

import paho.mqtt.client as mqtt
import pytest

from hall_helpers import (Client, Hall, enrol, free_port, header_lines, line_message, listening,
                          served, until)
from host_tools import resources
from host_tools.hall import keeper, protocol

pytestmark = pytest.mark.timeout(120)
GAME = "001-00000000"


@pytest.fixture(params=["amqtt", "mosquitto"])
def hall(tmp_path, request):
    with served(tmp_path, request.param) as h:
        yield h


def box_client(hall, box):
    _, _, user, password = protocol.parse_url(hall.urls[box])
    return Client(hall.mqtt, user, password)


def send(client, box, lines, start=1):
    for seq, line in enumerate(lines, start):
        client.publish(protocol.journal_topic(box), line_message(GAME, seq, line))


def test_a_box_stores_its_lines_and_reads_the_ack(hall):
    t1 = box_client(hall, "t1")
    assert t1.rc == 0
    assert t1.subscribe(protocol.ack_topic("t1")) == 1
    from tycoon.writer import tagged
    lines = header_lines() + [tagged(7, "1: play 5").decode().rstrip()]
    send(t1, "t1", lines)
    send(t1, "t1", lines[:3])                                   # duplicates: dropped
    assert until(lambda: hall.tables().get("t1", {}).get("seq") == 7, 10)
    last_ack = lambda: json.loads(t1.messages[-1][1]) if t1.messages else None
    assert until(lambda: last_ack() and last_ack()["seq"] == 7, 10)
    assert last_ack()["game"] == GAME
    text = hall.get("/tables/t1.txt").decode()
    assert text.splitlines() == lines
    state = hall.tables()["t1"]["state"]
    assert state["turn"] == 2 and state["table"]["value"] == "5"
    t1.close()


def test_wrong_password_and_anonymous_refused(hall):
    wrong = Client(hall.mqtt, "t1", "not-the-password")
    anonymous = Client(hall.mqtt)
    nobody = Client(hall.mqtt, "t9", "whatever")
    for c in (wrong, anonymous, nobody):
        assert c.rc is not None and c.rc.is_failure, c.rc
        c.close()


def test_a_box_cannot_write_or_read_another_table(hall):
    t1 = box_client(hall, "t1")
    send(t1, "t2", header_lines())                     # under t2's topic: the broker drops it
    # amqtt refuses the subscriptions (0x80); Mosquitto 2 grants them and delivers nothing:
    # either way the retained acks of t2 (the hall publishes one for each box) never come
    for topic in (protocol.ack_topic("t2"), protocol.journal_topic("+"), "#"):
        assert t1.subscribe(topic) in (0, 1, 0x80)
    assert t1.subscribe(protocol.ack_topic("t1")) == 1
    assert until(lambda: t1.messages, 10)              # its own retained ack comes
    theirs = lambda: [t for t, _ in t1.messages if t != protocol.ack_topic("t1")]
    assert until(theirs, 1.5) == [], t1.messages
    send(t1, "t1", header_lines()[:1])                 # its own: stored (and so after the rest)
    assert until(lambda: hall.tables().get("t1", {}).get("seq") == 1, 10)
    assert list(hall.files()) == [os.path.join("t1", GAME + ".txt")]
    assert hall.tables()["t2"]["game"] is None
    t1.close()


def test_malformed_messages_are_dropped_and_logged(hall):
    t1 = box_client(hall, "t1")
    topic = protocol.journal_topic("t1")
    bad = [b"", b"\xff\xfe", b"[]", b"{}", b'{"game": "x", "seq": 1, "line": "players 3"}',
           line_message(GAME, 0, "players 3"), line_message(GAME, 1, "players 3\n"),
           line_message(GAME, 1, "x" * 300), b"{" * (protocol.MAX_PAYLOAD + 100),
           line_message(GAME, 1, "players 3  #~0000"),                 # a wrong tag
           line_message(GAME, 3, header_lines()[2]),                    # after a gap
           line_message(GAME, 2, header_lines()[1], over=2),            # over past line 1
           line_message(GAME, 1, header_lines()[0])[:-1] + b',"over":0}']   # over no count
    for payload in bad:
        t1.publish(topic, payload)
    send(t1, "t1", header_lines()[:2])
    assert until(lambda: hall.tables().get("t1", {}).get("seq") == 2, 10)
    assert hall.files()[os.path.join("t1", GAME + ".txt")].decode().splitlines() == header_lines()[:2]
    log = hall.messages()
    # the first DROPS_LOGGED of a minute in full, the others counted when it ends
    assert log.count("dropped a message on matchbox/t1/journal") == keeper.DROPS_LOGGED, log
    assert "Traceback" not in log
    t1.close()


def test_http_is_get_only_on_127_0_0_1(hall):
    assert json.loads(hall.get("/standings.json"))["games"] == 0
    assert b"EventSource" in hall.get("/")
    # the Japanese font, for the page's Japanese words (from the installed package)
    with open(resources.japanese_font(), "rb") as f:
        assert hall.get("/" + resources.JAPANESE_FONT_NAME) == f.read()
    for path in ("/tables/t3.txt", "/tables/../x.txt", "/nope", "/credentials/hall.secret"):
        with pytest.raises(urllib.error.HTTPError) as err:
            hall.get(path)
        assert err.value.code == 404
    request = urllib.request.Request("http://127.0.0.1:%d/tables.json" % hall.http,
                                     data=b"x", method="POST")
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(request, timeout=10)
    assert err.value.code == 501
    listening = listeners()
    assert listening.get(hall.http) == ["127.0.0.1"]
    if not hall.external:
        assert listening.get(hall.mqtt) == ["127.0.0.1"]


def listeners():
    """{port: [addresses]} of the TCP sockets listening on this machine (/proc/net/tcp*)."""
    import ipaddress
    out = {}
    for name in ("tcp", "tcp6"):
        with open("/proc/net/" + name) as f:
            for line in f.readlines()[1:]:
                local, state = line.split()[1], line.split()[3]
                if state != "0A":   # LISTEN
                    continue
                address, port = local.split(":")
                raw = bytes.fromhex(address)
                # the kernel writes each 32-bit word in host (little-endian) order
                raw = b"".join(raw[i:i + 4][::-1] for i in range(0, len(raw), 4))
                out.setdefault(int(port, 16), []).append(str(ipaddress.ip_address(raw)))
    return out


def test_serve_slips_are_one_line(tmp_path):
    import subprocess
    from hall_helpers import CLI
    busy = free_port()
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", busy))
        s.listen()
        for argv, words in (
                (["--mqtt-port", str(busy)], ["--mqtt-port", "cannot listen"]),
                (["--broker", "http://x"], ["--broker", "mqtt://"]),
                (["--points", "a,b"], ["--points", "whole numbers"]),
                (["--port", "70000"], ["--port", "out of range"])):
            out = subprocess.run(CLI + ["hall", "serve", str(tmp_path / "h"), "--port", "0",
                                       "--audience-port", "0"] + argv,
                                 capture_output=True, text=True, timeout=60)
            assert out.returncode == 2, out
            lines = out.stderr.strip().splitlines()
            assert len(lines) == 1 and lines[0].startswith("matchbox hall"), out.stderr
            assert all(w in lines[0] for w in words), lines[0]


def test_the_embedded_broker_checks_a_box_again_after_a_new_password(tmp_path):
    """A box found right once connects again without a second Argon2 check; a wrong password
    is still refused, and after `enrol --force` the old password no longer works."""
    folder = str(tmp_path / "hall")
    h = Hall(folder)
    url = enrol(folder, "t1", h.mqtt)
    h.start()
    try:
        _, _, user, password = protocol.parse_url(url)
        for attempt in (password, "not-the-password", password):
            c = Client(h.mqtt, user, attempt)
            assert c.rc is not None and c.rc.is_failure == (attempt != password), c.rc
            c.close()
        new_url = enrol_force(folder, "t1", h.mqtt)
        _, _, _, new_password = protocol.parse_url(new_url)
        assert new_password != password
        old = Client(h.mqtt, user, password)
        assert old.rc is not None and old.rc.is_failure, old.rc
        old.close()
        new = Client(h.mqtt, user, new_password)
        assert new.rc == 0
        new.close()
    finally:
        h.stop()


def enrol_force(folder, box, port):
    import subprocess
    from hall_helpers import CLI
    out = subprocess.run(CLI + ["hall", "enrol", folder, box, "--mqtt-port", str(port),
                                "--force"], capture_output=True, text=True, timeout=60,
                         check=True)
    return out.stdout.splitlines()[0]


def test_a_box_connecting_gets_no_other_box_s_retained_ack(hall):
    """On each connection amqtt 0.12 sends the connecting client the retained messages of
    every topic someone subscribes to, past its topic rule (host_tools.hall.broker keeps to
    the client's own): with t2 subscribed to its acknowledgements, t1 connecting gets only
    its own."""
    t2 = box_client(hall, "t2")
    assert t2.subscribe(protocol.ack_topic("t2")) == 1
    assert until(lambda: t2.messages, 10)             # t2's retained ack is on the broker
    for _ in range(2):                                # and t1 connects, twice
        t1 = box_client(hall, "t1")
        assert t1.rc == 0
        assert t1.subscribe(protocol.ack_topic("t1")) == 1
        assert until(lambda: t1.messages, 10)
        assert until(lambda: [t for t, _ in t1.messages if t != protocol.ack_topic("t1")],
                     1.5) == [], t1.messages
        t1.close()
    t2.close()


def test_the_embedded_broker_ends_with_the_hall_killed_alone(tmp_path):
    """The embedded broker is a child process of `hall serve`: the hall's process alone killed
    with SIGKILL (not its group), the broker goes too and frees its port, and the hall starts
    again on the same ports and takes its boxes again."""
    import signal
    folder = str(tmp_path / "hall")
    h = Hall(folder)
    url = enrol(folder, "t1", h.mqtt)
    h.start()
    try:
        os.kill(h.proc.pid, signal.SIGKILL)
        h.proc.wait(10)
        assert until(lambda: not listening(h.mqtt, 0.2), 10)   # the broker's port is free
        h.proc = None
        h.start()
        _, _, user, password = protocol.parse_url(url)
        c = Client(h.mqtt, user, password)
        assert c.rc == 0
        c.close()
    finally:
        h.stop()
