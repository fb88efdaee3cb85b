"""The hall's audience: what the page shows, published on read-only topics of the audience's
broker (host_tools.hall.nats), which every page follows over MQTT over WebSockets.

Two topics, both written only by the hall's account and read by the spectator's:

    matchbox/view/tables   retained: every table's view and the standings, as the hall has
                           them after digest n: what a page that connects gets at once
        {"boot": "5e0c2a91", "n": 812, "z": "deflate", "t": 1732000000.123}
        {"tables": [VIEW, ...], "standings": {...}}
    matchbox/view/live     the digests, not retained: every DIGEST_S (0.4 s) at most, the
                           tables that changed since digest n - 1 (every line stored
                           meanwhile), and the standings when they changed
        {"boot": "5e0c2a91", "n": 813, "z": "deflate", "t": 1732000000.523}
        {"tables": [VIEW, ...], "standings": {...}}

Each message is a line of JSON (which digest it is, and `t`, when the hall published it: its
clock's seconds since 1970, what a tool measuring the delay to a viewer reads), a newline, and
its body: JSON compressed
by zlib (deflate; the browser's DecompressionStream("deflate") reads it). Compressed, the views
of 170 tables take 8.7 KB instead of 110 KB: at 5000 viewers and two digests a second of every
table, 87 MB/s through the broker instead of 1.1 GB/s. `read()` reads either.

A VIEW is a table's entry of /tables.json (host_tools.hall.site), its four displays with it. A
page subscribes to both, takes the retained snapshot, leaves its topic, and merges each digest
after it (n one more than the last it has; a digest it already has is older than the
snapshot); a digest with a gap before it, or of another `boot` (the hall started again), sends
it back to the snapshot. So a page that misses no digest has every update, and one that missed
one has every table again at once. When nothing changes the snapshot is published again every
SNAPSHOT_S, the same n: a broker that lost its retained copy (a leaf node whose viewers came
before its link to the hall's was ready did, with NATS 2.9) has it again within that.

Why digests: at 200 tables and ten times a human pace the hall stores about 700 lines a second;
a message a line to each of 5000 viewers would be 3.5 million messages a second. A digest
every 0.4 s is 2.5 messages a second a viewer, each carrying every table that changed. What a
digest costs is its 5000 messages (NATS about 32 us of CPU each: docs/hall.md, "The audience
at scale"), and what it adds to the latency is the wait for it, DIGEST_S at most: every 0.5 s
took NATS a fifth less CPU and the hall's side 0.1 s longer; every 0.4 s leaves 0.5 s of the
second to the hall's storing and the fan-out.
"""
import json
import secrets
import threading
import time
import zlib

from host_tools.hall import accounts, protocol

ROOT = protocol.ROOT + "/view"
LIVE = ROOT + "/live"
TABLES = ROOT + "/tables"
DIGEST_S = 0.4
SNAPSHOT_S = 5.0   # the snapshot again when nothing changed for this long
CLIENT_ID = "matchbox-hall-view"
PATH = "/mqtt"   # the WebSocket's path on the audience broker (NATS's)


def page_settings(port, password, user="spectator"):
    """What /audience.json tells the page: the WebSocket port and path on the host it loaded
    the page from (ws://, or wss:// when the page came over HTTPS), the account, the topics."""
    return {"port": port, "path": PATH, "user": user, "password": password,
            "tables": TABLES, "live": LIVE}


class Publisher:
    """Publishes the views of a site.Site to the audience broker at host:port (MQTT, the
    hall's account), from a thread of its own: a digest whenever something changed, at most
    one every digest_s, and the snapshot after it, retained."""

    def __init__(self, site, host, port, password, logger, digest_s=DIGEST_S):
        self.site = site
        self.log = logger
        self.digest_s = digest_s
        self.boot = secrets.token_hex(4)
        self.n = 0
        self.published = 0        # digests published
        self._seen = {}           # box -> the version of its view in the last digest
        self._standings = None    # the standings' JSON in the last digest
        self._snapshot_at = 0.0   # when the snapshot was published last
        self._fresh = threading.Event()   # connected again: publish the snapshot at once
        self._stopping = threading.Event()
        self.connected = threading.Event()
        self.ready = threading.Event()    # the first snapshot is on the broker
        self.client = protocol.client(CLIENT_ID, accounts.SERVICE, password, self)
        self.client.max_queued_messages_set(16)
        self.host, self.port = host, port
        self.thread = threading.Thread(target=self._run, daemon=True, name="hall-audience")

    def start(self):
        self.client.connect_async(self.host, self.port, keepalive=20)
        self.client.loop_start()
        self.thread.start()

    def stop(self):
        self._stopping.set()
        self.thread.join(5)
        self.client.disconnect()
        self.client.loop_stop()

    def _on_connect(self, client, userdata, flags, reason, properties):
        if reason.is_failure:
            self.log("the audience broker refused the hall's account: %s" % reason)
            return
        self.connected.set()
        self._fresh.set()

    def _on_disconnect(self, client, userdata, flags, reason, properties):
        if self.connected.is_set() and not self._stopping.is_set():
            self.log("the audience broker closed the hall's connection (%s): connecting again"
                     % reason)
        self.connected.clear()

    def _on_message(self, client, userdata, message):
        pass   # it subscribes to nothing

    def _run(self):
        while not self._stopping.is_set():
            began = time.monotonic()
            try:
                self.tick()
            except Exception as exc:   # a bug must not stop the audience: say it, go on
                self.log("internal error publishing the views: %s: %s (a bug in matchbox)"
                         % (type(exc).__name__, exc))
            self._stopping.wait(max(0.0, began + self.digest_s - time.monotonic()))

    def tick(self):
        """Publish a digest of what changed since the last (and the snapshot), if anything
        did or the broker was connected again; returns whether it published. Nothing while
        the broker is away: what changed meanwhile goes in the first digest after."""
        if not self.connected.is_set():
            return False
        views = self.site.changed(self._seen)
        standings = self.site.standings_now()[1]
        fresh = self._fresh.is_set() and self.connected.is_set()
        if not views and standings == self._standings and not fresh:
            if time.monotonic() - self._snapshot_at >= SNAPSHOT_S and self.n:
                self._snapshot(standings)   # the same n again: for a broker that lost it
            return False
        self.n += 1
        digest = '{"tables": [%s]' % ", ".join(hit[2] for hit in views)
        if standings != self._standings:
            digest += ', "standings": ' + standings
        self._standings = standings
        if fresh:
            self._fresh.clear()
        self.client.publish(LIVE, self.pack(digest + "}"), qos=0)
        self._snapshot(standings)
        self.published += 1
        return True

    def _snapshot(self, standings):
        every = self.site.changed({})
        snapshot = '{"tables": [%s], "standings": %s}' % (
            ", ".join(hit[2] for hit in every), standings)
        self.client.publish(TABLES, self.pack(snapshot), qos=0, retain=True)
        self._snapshot_at = time.monotonic()
        self.ready.set()

    def pack(self, body):
        return ('{"boot": "%s", "n": %d, "z": "deflate", "t": %.3f}\n'
                % (self.boot, self.n, time.time())).encode() + zlib.compress(body.encode(), 6)


def read(payload, limit=64 << 20):
    """(boot, n, tables, standings or None) of a digest or snapshot (compressed or not);
    ValueError when it is not one (what a tool following the topics checks), or when it
    unpacks to more than `limit` bytes."""
    head, _, body = bytes(payload).partition(b"\n")
    message = json.loads(head)
    if isinstance(message, dict) and message.get("z") == "deflate":
        try:
            unpacker = zlib.decompressobj()
            text = unpacker.decompress(body, limit)
        except zlib.error as exc:
            raise ValueError("its body is not deflate: %s" % exc) from None
        if unpacker.unconsumed_tail:
            raise ValueError("its body unpacks to more than %d bytes" % limit)
        message.update(json.loads(text))
    if not isinstance(message, dict) or not isinstance(message.get("n"), int) \
            or not isinstance(message.get("tables"), list):
        raise ValueError("not a digest of the hall's views")
    return message.get("boot"), message["n"], message["tables"], message.get("standings")
