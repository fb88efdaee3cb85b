"""The hall's audience (host_tools/hall/audience.py, nats.py): a few hundred viewers follow the
page's topics over MQTT over WebSockets from `matchbox hall serve`'s audience broker while
boxes send their games; every viewer gets every digest from its snapshot on (a viewer that
misses one fails the test), and what the digests say, merged as the page merges them, is the
hall's /tables.json; a viewer that connects late has every table from the retained snapshot at
once. The spectator account reads the views and nothing else. `make bench-audience` runs the
large version (bench/bench_audience.py)."""
import json
import os
import shutil
import signal
import socket
import subprocess
import time
import zlib

import pytest

from audience_viewers import Crowd, _frame, publish_packet, subscribe_packet
from hall_helpers import (CLI, GAME, Client, box_password, free_port, journal, listening,
                          line_message, served, until)
from host_tools.hall import audience, nats, protocol

if nats.find() is None:
    pytest.skip("the audience tests need NATS: apt-get install nats-server",
                allow_module_level=True)

pytestmark = pytest.mark.timeout(180)
VIEWERS = 300


def crowd(settings, count, port=None, **kw):
    return Crowd(port or settings["port"], settings["user"], settings["password"], count,
                 settings["live"], settings["tables"], settings["path"], **kw)


def hub(tmp_path):
    """(hall folder, nats.Server): the hall's audience broker alone, as `hall serve` writes its
    configuration (nats.LIMITS as the test set them)."""
    hall = str(tmp_path / "hall")
    conf = nats.write(os.path.join(nats.folder(hall), "nats.conf"), nats.hub_conf(hall, ws_port=-1))
    return hall, nats.Server(conf, os.path.join(nats.folder(hall), "nats.log")).start()


def reconnecting(settings, port, seconds, tls=None):
    """A viewer that connects again until it has its snapshot, as the page does (mqtt.js
    connects again every 2 s); the crowd of one it is in."""
    deadline = time.monotonic() + seconds
    while True:
        one = crowd(settings, 1, port=port, keep=True, tls=tls)
        if one.connect(time.monotonic() + 8):
            return one
        one.close()
        assert time.monotonic() < deadline, "no viewer got in on port %d" % port
        time.sleep(1)


def merged(viewer):
    """What a page shows after the messages a viewer kept: the snapshot, then each digest after
    it, merged (host_tools/hall/page.html's followAudience)."""
    shown, have = {}, None
    for topic, payload in viewer.kept:
        boot, n, tables, _ = audience.read(payload)
        if topic == audience.TABLES and have is None:
            shown, have = {t["box"]: t for t in tables}, n
        elif topic == audience.LIVE and have is not None and n == have + 1:
            shown.update({t["box"]: t for t in tables})
            have = n
    return shown


def send_games(hall, boxes, lines_each, crowds, seconds_between=0.05, tls=None):
    """Each box sends its game's first lines_each lines (a QoS 1 message a line, as the box's
    link), the crowds reading meanwhile; returns {box: lines sent}."""
    clients = {b: Client(hall.mqtt, b, box_password(hall, b), tls=tls) for b in boxes}
    games = {b: journal(7 + i)[0][:lines_each] for i, b in enumerate(boxes)}
    for seq in range(1, lines_each + 1):
        for b in boxes:
            if seq <= len(games[b]):
                clients[b].client.publish(protocol.journal_topic(b),
                                          line_message(GAME, seq, games[b][seq - 1]), qos=1)
        for c in crowds:
            c.turn(seconds_between)
    for c in clients.values():
        c.close()
    return {b: len(g) for b, g in games.items()}


def settle(hall, crowds, sent, timeout=60):
    """Read until the hall has every line and every viewer the last digest (and no other comes
    for a second)."""
    until(lambda: all(hall.tables()[b]["seq"] == n for b, n in sent.items()), 30)
    deadline = time.monotonic() + timeout
    last, still = None, time.monotonic()
    while time.monotonic() < deadline:
        for c in crowds:
            c.turn(0.05)
        now = max((v.last or 0) for c in crowds for v in c.viewers)
        if now != last:
            last, still = now, time.monotonic()
        everyone = all(v.last == now for c in crowds for v in c.viewers if not v.closed)
        if everyone and time.monotonic() - still > 1.0:
            return now
    raise AssertionError("the viewers did not settle")


def check_every_update(crowds, last, reference=None):
    """Every viewer has every digest from its snapshot to the last; with a `reference` (a
    viewer that kept every message), each digest whose CRC-32 a viewer kept is its bytes."""
    sums = {} if reference is None else {
        audience.read(p)[1]: zlib.crc32(p) for t, p in reference.kept if t == audience.LIVE}
    for c in crowds:
        for v in c.viewers:
            assert not v.closed and v.refused is None, (v.id, v.refused)
            assert v.gaps == 0 and v.last == last, (v.id, v.gaps, v.last, last)
            assert sorted(v.times) == list(range(v.snapshot, last + 1)), v.id
            if reference is not None:
                assert v.sums and all(sums[n] == crc for n, crc in v.sums.items()), v.id


def test_every_viewer_gets_every_update(tmp_path):
    """VIEWERS viewers follow two boxes' games: none misses a digest, what they show is
    /tables.json, and one connecting late gets every table at once from the snapshot."""
    with served(tmp_path, "amqtt") as hall:
        settings = hall.audience()
        assert settings["user"] == nats.SPECTATOR and settings["path"] == "/mqtt"
        many = crowd(settings, VIEWERS, sample=4)   # every viewer checks some digests whole
        assert many.connect(time.monotonic() + 60), [v.refused for v in many.viewers if v.refused]
        kept = crowd(settings, 2, keep=True)
        assert kept.connect(time.monotonic() + 20)
        sent = send_games(hall, ["t1", "t2"], 30, [many, kept])
        last = settle(hall, [many, kept], sent)
        check_every_update([many, kept], last, kept.viewers[0])
        assert last - min(v.snapshot for v in many.viewers) >= 5   # it took several digests
        views = hall.tables()
        for v in kept.viewers:
            assert merged(v) == views
        late = crowd(settings, 1, keep=True)
        assert late.connect(time.monotonic() + 20)
        late.run(0.5)
        (topic, payload), = late.viewers[0].kept
        boot, n, tables, standings = audience.read(payload)
        assert topic == audience.TABLES and n == last
        assert {t["box"]: t for t in tables} == views
        assert standings == json.loads(hall.get("/standings.json"))
        for c in (many, kept, late):
            c.close()


def test_a_spectator_reads_the_views_and_nothing_else(tmp_path):
    """The spectator's publish is dropped (no viewer gets it, the snapshot stays the hall's),
    its subscriptions to a journal, an ack or everything are refused (0x80), a wrong password
    is refused; the boxes' broker does not know the account at all."""
    with served(tmp_path, "amqtt") as hall:
        settings = hall.audience()
        watcher = crowd(settings, 1, keep=True)
        assert watcher.connect(time.monotonic() + 20)
        bad = crowd(settings, 1)
        assert bad.connect(time.monotonic() + 20)
        v = bad.viewers[0]
        fake = b'{"boot": "%s", "n": 999999, "tables": []}' % v.boot
        for topic in (audience.LIVE, audience.TABLES):
            v.send(_frame(publish_packet(topic, fake, retain=True)))
        for topic in (protocol.journal_topic("t1"), protocol.ack_topic("t1"), "#",
                      protocol.journal_topic("+")):
            v.refused = None
            v.send(_frame(subscribe_packet(9, [topic])))
            assert until(lambda: v.refused or (watcher.turn(0.02), bad.turn(0.02))[0], 10)
            assert v.refused == "SUBACK [128]", (topic, v.refused)
        watcher.run(1.5)
        assert all(b"999999" not in p for _, p in watcher.viewers[0].kept)
        late = crowd(settings, 1, keep=True)
        assert late.connect(time.monotonic() + 20)
        assert late.viewers[0].snapshot < 999999
        wrong = Crowd(settings["port"], settings["user"], "wrong", 1, audience.LIVE,
                      audience.TABLES)
        assert not wrong.connect(time.monotonic() + 10)
        assert wrong.viewers[0].closed
        box = Client(hall.mqtt, nats.SPECTATOR, settings["password"])
        assert box.rc is not None and box.rc.is_failure   # not an account of the boxes' broker
        box.close()
        for c in (watcher, bad, late, wrong):
            c.close()


def test_too_many_connections_and_idle_ones_are_refused(tmp_path, monkeypatch):
    """The audience broker refuses connections past its max_connections (the viewers it has
    go on), and closes a connection that does not finish its WebSocket handshake, or its
    CONNECT, within nats.AUTH_S."""
    from host_tools.hall import records, site
    monkeypatch.setitem(nats.LIMITS, "max_connections", 40)
    hall, server = hub(tmp_path)
    the_site = site.Site(records.Tables(hall))
    from host_tools.hall import accounts
    publisher = audience.Publisher(the_site, "127.0.0.1", server.ports["mqtt"],
                                   accounts.service_password(hall), print, digest_s=0.1)
    publisher.start()
    try:
        settings = audience.page_settings(server.ports["websocket"], nats.secret(hall, "spectator"))
        first = crowd(settings, 30)
        assert first.connect(time.monotonic() + 30)
        more = crowd(settings, 20)
        assert not more.connect(time.monotonic() + 15)
        refused = [v for v in more.viewers if v.closed]
        assert 5 <= len(refused) <= 20, len(refused)   # the publisher holds one connection too
        first.run(0.5)
        assert not any(v.closed for v in first.viewers)
        idle = socket.create_connection(("127.0.0.1", server.ports["websocket"]), timeout=15)
        began = time.monotonic()
        assert idle.recv(1) == b""
        assert time.monotonic() - began < nats.AUTH_S + 5
        idle.close()
        with open(server.log) as f:
            assert "maximum connections exceeded" in f.read()
        first.close()
        more.close()
    finally:
        publisher.stop()
        server.stop()


def leaf_conf(hall, hub, tmp_path, name, port, *more):
    """`hall leaf-conf` of a TLS hall for a leaf on loopback, written to tmp_path/NAME/."""
    out = subprocess.run(CLI + ["hall", "leaf-conf", hall.folder, "--hub", "127.0.0.1:%d" % hub,
                                "--tls", "--host", "127.0.0.1", "--name", name,
                                "--audience-port", str(port), "--store-dir",
                                str(tmp_path / (name + "-store")), "-o",
                                str(tmp_path / name / "leaf.conf")] + list(more),
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stderr == "", out.stderr
    return str(tmp_path / name)


def links(log, name):
    """How many times the leaf `name` linked to the hall's node (NATS 2.9 says a leaf's link
    is made, JetStream's domains mapped, only once its TLS and its login are through)."""
    try:
        with open(log) as f:
            return f.read().count('Domain Mapping "$JS.%s.API.INFO"' % name)
    except FileNotFoundError:
        return 0


def test_two_nodes_over_tls_viewers_on_a_leaf_and_one_node_killed(tmp_path):
    """The hall's audience broker (with --tls) and a leaf node (`hall leaf-conf`, another
    machine's nats-server on loopback here, run in its folder with the files leaf-conf wrote):
    its link checks the hall's certificate against the CA, its viewers come over wss://, get
    every update as the hall's own do, and a late one there every table at once; a leaf given
    another CA is refused by its link, plain clients on the TLS ports are refused; the leaf
    killed (SIGKILL), the hall's viewers go on without a gap; the hall's node killed, the
    leaf's viewers keep their connection."""
    from host_tools.hall import certs
    leaf_ws, wrong_ws = free_port(), free_port()
    with served(tmp_path, "amqtt", tls=True, extra=["--leaf-port", "0"]) as hall:
        settings = hall.audience()
        ctx = certs.client_context(hall.folder)
        hub = int(hall.said.split("leaf nodes on ")[1].split(";")[0].split(")")[0])
        folder = leaf_conf(hall, hub, tmp_path, "leaf1", leaf_ws)
        modes = {n: os.stat(os.path.join(folder, n)).st_mode & 0o777 for n in os.listdir(folder)}
        assert modes == {"leaf.conf": 0o600, "ca.pem": 0o644, "leaf1.pem": 0o644,
                         "leaf1.key": 0o600}   # the CA's key stays in the hall's folder
        log = str(tmp_path / "leaf.log")
        leaf = nats.Server("leaf.conf", log, cwd=folder).start()   # as run on its machine
        # another CA than the hall's: its link is refused, one line a try in its log
        wrong = leaf_conf(hall, hub, tmp_path, "leaf2", wrong_ws)
        certs.authority(str(tmp_path / "another"))
        shutil.copy(certs.ca_file(str(tmp_path / "another")), os.path.join(wrong, "ca.pem"))
        refused = nats.Server("leaf.conf", str(tmp_path / "wrong.log"), cwd=wrong).start()
        try:
            assert until(lambda: links(log, "leaf1") >= 1, 20)
            assert until(lambda: "TLS leafnode handshake error: x509: certificate signed by "
                         "unknown authority" in open(str(tmp_path / "wrong.log")).read(), 20)
            refused.stop()
            assert links(str(tmp_path / "wrong.log"), "leaf2") == 0
            # plain clients on the TLS ports: the leaf port, the hub's and the leaf's wss://
            with socket.create_connection(("127.0.0.1", hub), 10) as plain:
                plain.settimeout(10)
                assert b'"tls_required":true' in plain.recv(4096)
                plain.sendall(b'CONNECT {"user": "leaf", "pass": "x"}\r\nPING\r\n')
                assert plain.recv(4096) == b""   # closed, no PONG
            for port in (settings["port"], leaf_ws):
                clear = crowd(settings, 1, port=port)
                assert not clear.connect(time.monotonic() + 10) and clear.viewers[0].closed
                clear.close()
            here = crowd(settings, 40, tls=ctx)
            there = crowd(settings, 40, port=leaf_ws, keep=True, tls=ctx)
            assert here.connect(time.monotonic() + 30) and there.connect(time.monotonic() + 30)
            sent = send_games(hall, ["t1"], 12, [here, there], tls=ctx)
            last = settle(hall, [here, there], sent)
            check_every_update([here, there], last)
            assert merged(there.viewers[0]) == hall.tables()
            late = crowd(settings, 1, port=leaf_ws, keep=True, tls=ctx)
            assert late.connect(time.monotonic() + 20)
            assert late.viewers[0].snapshot == last
            late.close()
            leaf.proc.send_signal(signal.SIGKILL)
            leaf.proc.wait(10)
            sent = send_games(hall, ["t1"], 24, [here], tls=ctx)
            last = settle(hall, [here], sent)
            check_every_update([here], last)
            leaf.start()   # again: its viewers reconnect (the page does) and get everything
            assert until(lambda: links(log, "leaf1") >= 2, 20)
            # the leaf's first viewers may come before its link's JetStream is ready (NATS 2.9)
            reconnecting(settings, leaf_ws, 60, tls=ctx).close()
            again = crowd(settings, 20, port=leaf_ws, keep=True, tls=ctx)
            assert again.connect(time.monotonic() + 30), [
                (v.refused, v.closed, v.state) for v in again.viewers][:3]
            assert merged(again.viewers[0]) == hall.tables()
            hub_pid = int(subprocess.check_output(["pgrep", "-f", "-P", str(hall.proc.pid),
                                                   "nats-server"]).split()[0])
            os.kill(hub_pid, signal.SIGKILL)
            again.run(3)
            assert not any(v.closed for v in again.viewers)
            assert listening(leaf_ws)
            # the hall starts its node again, on the same port: a page there has everything
            assert until(lambda: "ended (status -9): starting it again" in hall.messages(), 10)
            back = reconnecting(settings, settings["port"], 30, tls=ctx)
            assert merged(back.viewers[0]) == hall.tables()
            back.close()
            again.close()
            here.close()
            there.close()
        finally:
            refused.stop()
            leaf.stop()


def test_a_leaf_of_a_tls_hall_needs_its_machines_name(tmp_path):
    """`hall leaf-conf` for a hall beyond 127.0.0.1 (TLS) refuses, in one line and writing
    nothing, a leaf without --host or with 0.0.0.0 (its certificate must name it)."""
    hall = str(tmp_path / "hall")
    for more in ([], ["--host", "0.0.0.0"]):
        out = subprocess.run(CLI + ["hall", "leaf-conf", hall, "--hub", "192.0.2.7:7422",
                                    "-o", str(tmp_path / "leaf" / "leaf.conf")] + more,
                             capture_output=True, text=True, timeout=60)
        assert out.returncode == 2 and out.stderr.count("\n") == 1, out.stderr
        assert out.stderr.startswith("matchbox hall: --host: a leaf of a hall that speaks TLS "
                                     "needs the leaf machine's name or address"), out.stderr
        assert not os.path.exists(str(tmp_path / "leaf"))


def test_a_viewer_that_never_reads_is_closed_and_the_others_get_everything(tmp_path,
                                                                           monkeypatch):
    """The broker's bound on what waits for one viewer (nats.LIMITS max_pending, here 256 KB):
    a viewer that never reads is closed as a slow consumer once that much waits for it, while
    the viewers that read get every one of 100 messages of 64 KB, in order."""
    import paho.mqtt.client as mqtt
    from host_tools.hall import accounts
    monkeypatch.setitem(nats.LIMITS, "max_pending", 256 << 10)
    monkeypatch.setitem(nats.LIMITS, "max_payload", 128 << 10)
    hall, server = hub(tmp_path)
    publisher = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="matchbox-hall-view")
    publisher.username_pw_set(accounts.SERVICE, accounts.service_password(hall))
    publisher.connect("127.0.0.1", server.ports["mqtt"])
    publisher.loop_start()

    def message(n):
        return b'{"boot": "b0b0b0b0", "n": %d, "z": "deflate"}\n' % n + os.urandom(64 << 10)
    try:
        publisher.publish(audience.TABLES, message(0), qos=1, retain=True).wait_for_publish(10)
        settings = audience.page_settings(server.ports["websocket"], nats.secret(hall, "spectator"))
        readers = crowd(settings, 5)
        stuck = crowd(settings, 1, reading=False)
        assert readers.connect(time.monotonic() + 20) and stuck.connect(time.monotonic() + 20)
        for n in range(1, 101):   # the readers keep up (a loaded machine must not make one slow)
            publisher.publish(audience.LIVE, message(n), qos=1).wait_for_publish(10)
            assert until(lambda: readers.turn(0.01) or all(v.last == n for v in readers.viewers),
                         30), (n, [(v.last, v.closed) for v in readers.viewers])
        assert all(v.gaps == 0 and not v.closed for v in readers.viewers)
        s = stuck.viewers[0].sock
        s.setblocking(True)
        s.settimeout(15)
        got = 0
        while True:   # what the kernel had taken for it, then its end
            chunk = s.recv(1 << 20)
            if not chunk:
                break
            got += len(chunk)
        assert got < 100 * (64 << 10)
        with open(server.log) as f:
            assert "Slow Consumer" in f.read()
        readers.close()
        stuck.close()
    finally:
        publisher.loop_stop()
        server.stop()
