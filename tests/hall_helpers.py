"""Helpers of the hall tests: free ports, a hall served in its own process (killed with
SIGKILL when a test says so), MQTT clients that report what the broker answered, and games
keyed on the virtual box."""
import contextlib
import json
import os
import random
import shutil
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
import urllib.request

import paho.mqtt.client as mqtt

from host_tools.hall import accounts, protocol
from host_tools.hall.nats import more_files

CLI = [sys.executable, "-m", "host_tools.cli"]
GAME = "001-00000000"   # the game id of the lines the tests send by hand


_GIVEN = set()   # the ports this process has handed out
BROWSERS_REFUSE = 10100   # Chromium refuses some ports below this one (ERR_UNSAFE_PORT)


def free_port():
    """A port nothing listens on, for a server a test starts and may start again on it. Drawn
    below the kernel's ephemeral range: a port the kernel gives meanwhile to another test's
    client or `--port 0` server is never one of these. And above the ports browsers refuse
    (Chromium's list ends at 10080). Each pytest-xdist worker draws from a slice of its own,
    so two workers never hand out the same port."""
    with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
        ephemeral = int(f.read().split()[0])
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")[2:]
    slice_ = (ephemeral - BROWSERS_REFUSE) // 8
    low = BROWSERS_REFUSE + (int(worker) % 8 if worker.isdigit() else 0) * slice_
    for _ in range(1000):
        port = random.randrange(low, low + slice_)
        if port in _GIVEN:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        _GIVEN.add(port)
        return port
    raise RuntimeError("no free port in %d-%d" % (low, low + slice_ - 1))


def enrol(hall, box, port, tls=False):
    """The URL `matchbox hall enrol` prints for box (with `tls`: --tls, an mqtts:// URL)."""
    out = subprocess.run(CLI + ["hall", "enrol", hall, box, "--mqtt-port", str(port)]
                         + ["--tls"] * tls, capture_output=True, text=True, timeout=60,
                         check=True)
    return out.stdout.splitlines()[0]   # then the line naming the settings file


def kill_group(proc):
    """SIGKILL a process started in a session of its own, and everything it started."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait(10)


class Hall:
    """`matchbox hall serve DIR` in a process of its own (with --broker: an external one)."""

    def __init__(self, folder, broker=None, tls=False, extra=()):
        self.folder = folder
        self.tls = tls   # --tls: the broker (an external one: mqtts://) and the page over TLS
        self.http = free_port()
        self.mqtt = free_port() if broker is None else broker
        self.external = broker is not None
        self.extra = list(extra)   # more options of `hall serve` (--no-audience, --leaf-port)
        self.proc = None
        self.log = os.path.join(folder + "-serve.log")
        self.said = None

    def start(self, timeout=30):
        argv = CLI + ["hall", "serve", self.folder, "--port", str(self.http),
                      "--audience-port", "0"] + ["--tls"] * self.tls + self.extra
        if self.external:
            argv += ["--broker", "%s://127.0.0.1:%d" % ("mqtts" if self.tls else "mqtt", self.mqtt)]
        else:
            argv += ["--mqtt-port", str(self.mqtt)]
        self.err = open(self.log, "ab")
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=self.err,
                                     stdin=subprocess.DEVNULL, start_new_session=True)
        line = [None]

        def read():
            line[0] = self.proc.stdout.readline()
        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        reader.join(timeout)
        assert line[0] and line[0].startswith(b"the hall is at"), (line[0], self.messages())
        self.said = line[0].decode()
        return self

    def audience(self):
        """What /audience.json tells the page (None without an audience broker)."""
        return json.loads(self.get("/audience.json"))

    def kill(self):
        """SIGKILL: no cleanup, as a power cut of the hall's computer."""
        if self.proc is not None:
            kill_group(self.proc)
            self.proc.stdout.close()
            self.err.close()
            self.proc = None

    def stop(self):
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                pass
            self.kill()

    def messages(self):
        try:
            with open(self.log, errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def get(self, path):
        if self.tls:   # the page over HTTPS, checked against the hall's CA
            from host_tools.hall import certs
            with urllib.request.urlopen("https://127.0.0.1:%d%s" % (self.http, path), timeout=10,
                                        context=certs.client_context(self.folder)) as r:
                return r.read()
        with urllib.request.urlopen("http://127.0.0.1:%d%s" % (self.http, path), timeout=10) as r:
            return r.read()

    def tables(self):
        return {t["box"]: t for t in json.loads(self.get("/tables.json"))}

    def files(self):
        """{relative path: bytes} of every record the hall keeps."""
        out = {}
        root = os.path.join(self.folder, "tables")
        for here, _, names in os.walk(root):
            for name in names:
                with open(os.path.join(here, name), "rb") as f:
                    out[os.path.relpath(os.path.join(here, name), root)] = f.read()
        return out


MOSQUITTO = shutil.which("mosquitto") or ("/usr/sbin/mosquitto"
                                          if os.path.exists("/usr/sbin/mosquitto") else None)
NO_MOSQUITTO = "the Mosquitto tests need Debian's mosquitto: apt-get install mosquitto"


class Mosquitto:
    """Mosquitto 2 with the configuration `matchbox hall mosquitto-conf` writes."""

    def __init__(self, folder, port, tls=False):
        self.folder, self.port, self.proc = folder, port, None
        self.conf = subprocess.run(CLI + ["hall", "mosquitto-conf", folder, "--mqtt-port", str(port)]
                                   + ["--tls"] * tls, capture_output=True, text=True, timeout=60,
                                   check=True)
        self.log = folder + "-mosquitto.log"

    def start(self, timeout=15):
        self.err = open(self.log, "ab")
        self.proc = subprocess.Popen([MOSQUITTO, "-c", os.path.join(self.folder, "mosquitto",
                                                                   "mosquitto.conf")],
                                     stdout=self.err, stderr=self.err, stdin=subprocess.DEVNULL,
                                     start_new_session=True, preexec_fn=more_files)
        assert until(lambda: listening(self.port), timeout), open(self.log).read()
        return self

    def kill(self):
        if self.proc is not None:
            kill_group(self.proc)
            self.err.close()
            self.proc = None


@contextlib.contextmanager
def served(tmp_path, broker, boxes=("t1", "t2"), tls=False, extra=()):
    """A Hall serving from tmp_path/hall with `boxes` enrolled (hall.urls), on the embedded
    broker ("amqtt") or on Mosquitto ("mosquitto": skipped without it); with `tls` the
    broker and the page speak only TLS (--tls), and the URLs are mqtts://; `extra`: more
    options of `hall serve`."""
    import pytest
    folder = str(tmp_path / "hall")
    port = free_port()
    urls = {box: enrol(folder, box, port, tls) for box in boxes}
    mosquitto = None
    if broker == "mosquitto":
        if MOSQUITTO is None:
            pytest.skip(NO_MOSQUITTO)
        mosquitto = Mosquitto(folder, port, tls).start()
        h = Hall(folder, broker=port, tls=tls, extra=extra)
    else:
        h = Hall(folder, tls=tls, extra=extra)
        h.mqtt = port
    h.start()
    h.urls, h.broker = urls, mosquitto
    try:
        yield h
    finally:
        h.stop()
        if mosquitto is not None:
            mosquitto.kill()


def tls_of(hall):
    """The client TLS context for a hall served with --tls (None without)."""
    from host_tools.hall import certs
    return certs.client_context(hall.folder) if hall.tls else None


def box_password(hall, box):
    """The password of an enrolled box of a served hall."""
    return protocol.parse_url(hall.urls[box])[3]


def stores_and_acks(hall, box, lines, timeout=10):
    """Box publishes `lines` (from 1) and the hall stores and acknowledges them."""
    c = Client(hall.mqtt, box, box_password(hall, box), tls=tls_of(hall))
    assert c.rc == 0, c.rc
    assert c.subscribe(protocol.ack_topic(box)) == 1
    for seq, line in enumerate(lines, 1):
        c.publish(protocol.journal_topic(box), protocol.line_message(GAME, seq, line))
    acked = lambda: c.messages and json.loads(c.messages[-1][1])["seq"] == len(lines)
    try:
        return until(acked, timeout) and hall.tables()[box]["seq"] == len(lines)
    finally:
        c.close()


class Client:
    """A paho client that records the broker's answers: `rc` of the connection, `granted`
    of each subscription, the messages received. Its client id is the account's own
    (accounts.client_id) unless told."""

    def __init__(self, port, user=None, password=None, client_id=None, tls=None):
        self.rc = None
        self.granted = []
        self.messages = []
        self.done = threading.Event()
        c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2,
                        client_id=client_id or (accounts.client_id(user) if user else
                                                "test-%d" % random.randrange(1 << 30)))
        if user is not None:
            c.username_pw_set(user, password)
        if tls is not None:   # an ssl.SSLContext: MQTT over TLS
            c.tls_set_context(tls)
        c.on_connect = self._connect
        c.on_subscribe = lambda cl, u, mid, codes, p: (self.granted.append(
            [c.value for c in codes]), self.done.set())
        c.on_message = lambda cl, u, m: self.messages.append((m.topic, m.payload))
        self.client = c
        c.connect("127.0.0.1", port)
        c.loop_start()
        for _ in range(200):
            if self.rc is not None:
                break
            time.sleep(0.025)

    def _connect(self, client, userdata, flags, reason, properties):
        self.rc = reason

    def subscribe(self, topic):
        self.done.clear()
        self.client.subscribe(topic, qos=1)
        assert self.done.wait(10)
        return self.granted[-1][0]

    def publish(self, topic, payload):
        info = self.client.publish(topic, payload, qos=1)
        info.wait_for_publish(10)
        return info

    def close(self):
        self.client.disconnect()
        self.client.loop_stop()


def listening(port, timeout=0.5):
    """Whether something takes a TCP connection on 127.0.0.1:port."""
    try:
        socket.create_connection(("127.0.0.1", port), timeout).close()
        return True
    except OSError:
        return False


def until(check, timeout, step=0.05):
    """Wait until check() is true (returns it) or timeout seconds pass (returns the last)."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(step)


def header_lines(players=3, hands=(3, 2, 2)):
    """The header lines the box writes, with their tags."""
    from tycoon import writer
    return [writer.tagged(i + 1, text).decode().rstrip("\n") for i, text in enumerate(
        ["players %d" % players, "dealer 1", "expansion none", "revolution 5", "sticks 40",
         "hands " + " ".join(map(str, hands))])]


line_message = protocol.line_message


def journal(seed, setup=(3, 1, "none", 5, 6, [4, 3, 4]), undo_every=5):
    """The lines a box journals for one random game played out (an undo and the action again
    every `undo_every` actions), tagged."""
    import engine_helpers as eh
    from tycoon import writer
    from tycoon.game import Game
    rng = eh.Lcg(seed)
    game = Game(*setup)
    texts = writer.header_text(game).split("\n")[:-1]
    n = 0
    while not game.finished:
        eh.step(game, rng)
        action = writer.action_text(*list(game.actions())[-1])[:-1]
        texts.append(action)
        n += 1
        if n % undo_every == 0 and not game.finished:
            texts += ["undo", action]
    return [writer.tagged(i + 1, t).decode().rstrip("\n") for i, t in enumerate(texts)], game


SERVICE = accounts.SERVICE


def game_ops(seed, setup, actions, undo_one_in=7, first=()):
    """The keys of one random game on the box, as a list of key lists: the setup (after
    `first`), then each action or UNDO (engine_helpers' random legal actions)."""
    import engine_helpers as eh
    from tycoon.game import Game
    from host_tools.virtual.box import action_keys, setup_keys
    rng = eh.Lcg(seed)
    game = Game(*setup)
    ops = [list(first) + setup_keys(*setup)]
    for _ in range(actions):
        if game.finished:
            break
        if len(game) >= 2 and rng.below(undo_one_in) == 0:
            game.undo()
            ops.append(["UNDO"])
        else:
            eh.step(game, rng)
            ops.append(action_keys(*list(game.actions())[-1]))
    return ops, game


def key_in(box, keys):
    """Tap each key (MENU:long held 1 s), then let announcements pass; stops at a power
    cut."""
    for key in keys:
        if not box.on:
            return
        name, _, hold = key.partition(":")
        box.tap(name, 1000 if hold == "long" else 60, 60)
    box.advance(200)


def linked_box(flash, url, ca=None):
    """A virtual box whose flash holds the hall's settings for url (hall.json, as `sim
    --uplink` writes it; an mqtts:// URL with the CA certificate `ca`, DER): its firmware's
    own link (box.mqtt_link) runs in its main loop."""
    from host_tools.hall import uplink
    from host_tools.virtual.box import VBox
    os.makedirs(flash, exist_ok=True)
    uplink.write_settings(os.path.join(flash, uplink.SETTINGS), uplink.settings(url, ca=ca))
    return VBox(flash=flash)


def acked_past(box, seq, timeout):
    """Run the box until the hall has acknowledged more than `seq` lines of a game."""
    from host_tools.hall import uplink
    return uplink.pump(box, lambda: box.link["acked"] and box.link["acked"][1] > seq, timeout)


def all_delivered(box, timeout):
    """Run the box until the hall has acknowledged every line of its flash; how far it got
    when it has not."""
    from host_tools.hall import uplink
    if uplink.pump(box, lambda: uplink.delivered(box, box.flash), timeout):
        return True
    return uplink.progress(box, box.flash)


def take_over(port, url):
    """Connect with the box's own client id and account, then leave: the broker drops the
    box's connection (MQTT's session takeover), as a Wi-Fi drop would."""
    _, _, box, password = protocol.parse_url(url)
    c = Client(port, box, password, client_id="box-" + box)
    assert c.rc is not None and not c.rc.is_failure, c.rc
    c.close()


def box_games(flash):
    """[(game id, bytes)] of a box's flash, in the uplink's order."""
    from host_tools.hall.uplink import Flash
    return [(game, "".join(l + "\n" for l in lines).encode())
            for game, lines, _ in Flash(flash).list()]


def connect_packet(client_id, user, secret):
    """An MQTT 3.1.1 CONNECT (clean session, user and password, keep-alive 30 s)."""
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


def http_status(port, raw, timeout=5):
    """Send raw bytes (the sending in a thread: the server may stop reading), return the
    status line the server answers (b"" when it closes without one)."""
    s = socket.create_connection(("127.0.0.1", port), timeout)

    def send():
        try:
            s.sendall(raw)
        except OSError:
            pass
    sender = threading.Thread(target=send, daemon=True)
    sender.start()
    data = b""
    try:
        while b"\r\n" not in data:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
    except OSError:
        pass
    s.close()
    sender.join(timeout)
    return data.split(b"\r\n", 1)[0]


def slow_clients(port, count):
    """`count` HTTP clients that have sent their request line and no more."""
    clients = []
    for _ in range(count):
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        s.sendall(b"GET / HTTP/1.1\r\n")
        clients.append(s)
    return clients


def drip(clients, closed):
    """One more header line from each slow client; those the server closed join `closed`
    (their indexes)."""
    for n, s in enumerate(clients):
        if n not in closed:
            try:
                s.sendall(b"X-Slow: %d\r\n" % n)
            except OSError:
                closed.add(n)
