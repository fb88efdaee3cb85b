"""The hall under hostile clients at scale (`make soak-hall-attacks`): the larger versions of
tests/test_hall_attacks.py and the slow-client tests of tests/test_web_server.py, against
`matchbox hall serve` on its embedded broker and on Mosquitto (when installed), everything on
127.0.0.1. For each broker it prints counts:

    refused   CONNECTs with the hall's or another box's client id, wrong passwords, none
    publish   one PUBLISH of PUBLISH_MB from an enrolled box: bytes taken before the broker
              closed it, growth of the broker's and the hall's memory
    bad       BAD messages from an enrolled box: the hall's log lines about them
    idle      IDLE connections to the page and IDLE to the broker that say nothing: a request
              and a box still answered
    slow      SLOW clients sending a header line every 3 s for SLOW_S seconds: requests
              answered meanwhile, the slowest answer, slow clients closed
    audience  on the audience broker (nats-server, the page's MQTT over WebSockets): BAD
              publishes from the spectator's account and its subscriptions to the journals,
              the acks and everything; IDLE connections that never finish their handshake:
              what a viewer got of them, whether a new viewer still connects, how many the
              broker closed

and after each part whether the hall still stores and acknowledges a box's lines.

    python tests/hall_attacks.py [--publish-mb 200] [--bad 10000] [--idle 1500] [--slow 70]
                                 [--slow-s 60] [--broker amqtt|mosquitto|both]
"""
import argparse
import json
import os
import pathlib
import resource
import socket
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(ROOT, "firmware", "lib"), os.path.join(ROOT, "tests")]
from audience_viewers import Crowd, _frame, publish_packet, subscribe_packet  # noqa: E402
from hall_helpers import (MOSQUITTO, Client, box_password, broker_pid,  # noqa: E402
                          connect_packet, drip, header_lines, http_status, long_publish, rss,
                          served, slow_clients, stores_and_acks)
from host_tools.hall import accounts, audience, protocol  # noqa: E402

LINES = header_lines()


def say(kind, part, text):
    print("%-9s %-8s %s" % (kind, part, text), flush=True)


def still_stores(hall, box):
    """Whether box's lines are still stored and acknowledged (from 1 each time: duplicates)."""
    return "stores: %s" % ("yes" if stores_and_acks(hall, box, LINES, 30) else "NO")


def refused(hall, rounds):
    attempts = [(None, None, accounts.HALL_CLIENT_ID), ("t2", "wrong", accounts.HALL_CLIENT_ID),
                ("t1", "wrong", "box-t1"), ("t2", box_password(hall, "t2"),
                                            accounts.HALL_CLIENT_ID)]
    counts = {"refused": 0, "accepted as its own": 0}
    for _ in range(rounds):
        for user, secret, client_id in attempts:
            c = Client(hall.mqtt, user, secret, client_id=client_id)
            counts["refused" if c.rc is None or c.rc.is_failure else "accepted as its own"] += 1
            c.close()
    return counts


def bad_messages(hall, count):
    before = hall.messages().count("\n")
    c = Client(hall.mqtt, "t2", box_password(hall, "t2"))
    for n in range(count):
        c.client.publish(protocol.journal_topic("t2"), b"not json %d" % n, qos=1)
    c.publish(protocol.journal_topic("t2"), b"the last bad one")
    c.close()
    lines = hall.messages().splitlines()[before:]
    return "%d sent, %d log lines (%d in full)" % (
        count + 1, len(lines), sum("dropped a message" in l for l in lines))


def idle(hall, count):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = 2 * count + 200
    if hard != resource.RLIM_INFINITY and hard < want:
        return "skipped: this process may open only %d files" % hard
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, want), hard))
    held = []
    try:
        for port in (hall.http, hall.mqtt):
            for _ in range(count):
                held.append(socket.create_connection(("127.0.0.1", port), timeout=10))
        began = time.monotonic()
        page = http_status(hall.http, b"GET /tables.json HTTP/1.1\r\n\r\n", 10)
        took = time.monotonic() - began
        ok = connects(hall.mqtt, "t1", box_password(hall, "t1"))
        return "%d + %d open; page %s in %.2f s; box connects: %s" % (
            count, count, page.decode(errors="replace") or "no answer", took,
            "yes" if ok else "NO")
    finally:
        for s in held:
            s.close()


def connects(port, box, secret):
    """Whether the broker takes box's CONNECT (a plain socket: paho's select() cannot wait on
    the files past 1024 that the idle connections hold)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(connect_packet("box-" + box, box, secret))
        return s.recv(4) == b"\x20\x02\x00\x00"


def slow(hall, count, seconds):
    clients = slow_clients(hall.http, count)
    closed, answered, worst, missed = set(), 0, 0.0, 0
    began = last_drip = time.monotonic()
    while time.monotonic() - began < seconds:
        if time.monotonic() - last_drip >= 3:
            last_drip = time.monotonic()
            drip(clients, closed)
        asked = time.monotonic()
        if http_status(hall.http, b"GET /tables.json HTTP/1.1\r\n\r\n", 10).startswith(
                b"HTTP/1.0 200"):
            answered += 1
            worst = max(worst, time.monotonic() - asked)
        else:
            missed += 1
        time.sleep(max(0.0, 1 - (time.monotonic() - asked)))
    for s in clients:
        s.close()
    return "%d clients for %d s: %d requests answered (slowest %.2f s), %d not; %d slow " \
           "clients closed by the server" % (count, seconds, answered, worst, missed, len(closed))


def viewers(hall, count, keep=False):
    a = hall.audience()
    crowd = Crowd(a["port"], a["user"], a["password"], count, a["live"], a["tables"], a["path"],
                  keep=keep)
    return crowd, crowd.connect(time.monotonic() + 60)


def audience_attack(hall, bad, count):
    """The spectator's account publishing and subscribing where it may not, and idle
    connections to the audience broker's WebSocket."""
    if hall.audience() is None:
        return "skipped: no audience broker (apt-get install nats-server)"
    watcher, ok = viewers(hall, 1, keep=True)
    attacker, ok2 = viewers(hall, 1)
    if not (ok and ok2):
        return "viewers did NOT connect"
    v = attacker.viewers[0]
    fake = b'{"boot": "%s", "n": 99999999, "z": "none"}\n{"tables": []}' % v.boot
    for n in range(bad):
        v.send(_frame(publish_packet(audience.LIVE if n % 2 else audience.TABLES, fake, True)))
    refused = 0
    for topic in ("#", protocol.journal_topic("+"), protocol.ack_topic("t1"), "matchbox/#"):
        v.refused = None
        v.send(_frame(subscribe_packet(7, [topic])))
        end = time.monotonic() + 10
        while v.refused is None and time.monotonic() < end:
            attacker.turn(0.05)
            watcher.turn(0)
        refused += v.refused == "SUBACK [128]"
    watcher.run(2)
    seen = sum(b"99999999" in p for _, p in watcher.viewers[0].kept)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, count + 500)), hard))
    held = [socket.create_connection(("127.0.0.1", hall.audience()["port"]), timeout=10)
            for _ in range(count)]
    late, ok3 = viewers(hall, 1)
    began, closed = time.monotonic(), 0
    for s in held:
        s.settimeout(max(0.1, 15 - (time.monotonic() - began)))
        try:
            closed += s.recv(1) == b""
        except OSError:
            pass
        s.close()
    for c in (watcher, attacker, late):
        c.close()
    return ("%d publishes from the spectator: %d reached a viewer; %d of 4 subscriptions "
            "refused; %d idle connections: a new viewer %s, %d closed by the broker within "
            "%.0f s" % (bad, seen, refused, count, "connected" if ok3 else "did NOT connect",
                        closed, time.monotonic() - began))


def attack(kind, args):
    with tempfile.TemporaryDirectory() as tmp, served(pathlib.Path(tmp), kind) as hall:
        hall.kind = kind
        say(kind, "refused", json.dumps(refused(hall, max(1, args.bad // 500))) + "; "
            + still_stores(hall, "t1"))
        pid = broker_pid(hall)
        before = rss(pid), rss(hall.proc.pid)
        sent, closed = long_publish(hall.mqtt, "t1", box_password(hall, "t1"),
                                    args.publish_mb << 20, timeout=30)
        time.sleep(1)
        say(kind, "publish", "%d MB: %d bytes taken, %s; broker %+.1f MB, hall %+.1f MB; %s" % (
            args.publish_mb, sent, "closed" if closed else "NOT closed",
            (rss(pid) - before[0]) / 1e6, (rss(hall.proc.pid) - before[1]) / 1e6,
            still_stores(hall, "t1")))
        say(kind, "bad", bad_messages(hall, args.bad) + "; " + still_stores(hall, "t2"))
        say(kind, "idle", idle(hall, args.idle) + "; " + still_stores(hall, "t1"))
        say(kind, "slow", slow(hall, args.slow, args.slow_s) + "; " + still_stores(hall, "t1"))
        say(kind, "audience", audience_attack(hall, args.bad, args.idle) + "; "
            + still_stores(hall, "t1"))
        tracebacks = hall.messages().count("Traceback")
        say(kind, "log", "%d lines, %d tracebacks" % (hall.messages().count("\n"), tracebacks))


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--publish-mb", type=int, default=200)
    parser.add_argument("--bad", type=int, default=10000)
    parser.add_argument("--idle", type=int, default=1500)
    parser.add_argument("--slow", type=int, default=70)
    parser.add_argument("--slow-s", type=int, default=60)
    parser.add_argument("--broker", choices=("amqtt", "mosquitto", "both"), default="both")
    args = parser.parse_args(argv)
    kinds = ["amqtt", "mosquitto"] if args.broker == "both" else [args.broker]
    if "mosquitto" in kinds and MOSQUITTO is None:
        print("mosquitto: not installed (apt-get install mosquitto): skipped")
        kinds.remove("mosquitto")
    for kind in kinds:
        attack(kind, args)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
