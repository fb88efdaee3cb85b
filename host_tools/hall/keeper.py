"""The hall's MQTT client (paho-mqtt): it stores what the boxes send and acknowledges it.

It logs in with the hall's service account, subscribes to every box's journal topic (QoS 1,
a persistent session, so that an external broker keeps the lines sent while the hall is
down; QoS 0 with the embedded broker, in the hall's own process: Keeper), and for each line: checks the message (host_tools.hall.protocol), stores the line
(host_tools.hall.records, on disk before anything else) and publishes the acknowledgement on
the box's ack topic, retained. The client's thread only queues the messages (at most QUEUE:
a full queue holds the client back, and the broker with it); the hall's writer thread takes
every message waiting (at most BATCH), stores them with one fsync, the commit log's (a group
commit: Tables.store_all) and then acknowledges each box once, its last line. A message that is not
one, or a line that does not fit, is dropped with one log line on stderr (the first
DROPS_LOGGED of a topic a minute; then one line counting the rest); the hall goes on. At
each connection it publishes the acknowledgement of every table it has, so a box learns at once
how far the hall has got.

The hall also makes sure it is still heard: every PING_S it publishes a message to itself on
its own journal topic (matchbox/hall/journal, which only its account may write and read, and
which its subscription covers). When one has not come back within PING_S, and nothing else
came meanwhile nor waits in its queue, its subscription is lost (or its connection is no
longer its own): it drops the connection, says so in one line, and paho connects again and
subscribes again. A connection the broker closes is said in one line too, and taken again
the same way.
"""
import os
import queue
import secrets
import socket
import sys
import threading
import time

from host_tools.hall import accounts, protocol, records

CLIENT_ID = accounts.HALL_CLIENT_ID
QUEUE = 1024    # messages taken from the broker and not yet stored
BATCH = 256     # at most this many lines stored together (one fsync)
PING_S = 5.0    # the hall's message to itself, to learn that it still receives
DROPS_LOGGED = 5      # dropped messages of one topic logged in full each DROP_WINDOW_S
DROP_WINDOW_S = 60.0  # then one line counts the others


def log(text):
    try:
        sys.stderr.write("matchbox hall: %s\n" % text)
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


class Keeper:
    """`qos`: of the hall's subscription and of its acknowledgements. 1 for a broker of its
    own (Mosquitto): it keeps the lines sent while the hall is away. 0 for the embedded
    broker, which lives and dies with the hall in its process: two packets fewer a line
    through it (amqtt still delivers each acknowledgement to a box at its subscription's QoS
    1); a message lost between them, on a dropped connection, is a line the hall has not
    acknowledged, which the box sends again. `tls`: an ssl.SSLContext for a broker that
    speaks TLS (host_tools.hall.certs.client_context)."""

    def __init__(self, hall, tables, host, port, logger=log, qos=1, tls=None):
        self.hall = hall
        self.qos = qos
        self.tables = tables
        self.log = logger
        self.boot = secrets.token_hex(4)
        self.connected = threading.Event()
        self.connections = 0   # connections made (host_tools.hall.setups publishes again)
        self.dropped = 0
        self.client = protocol.client(CLIENT_ID, accounts.SERVICE,
                                      accounts.service_password(hall), self, clean_session=False,
                                      tls=tls)
        self.host, self.port = host, port
        self.queue = queue.Queue(QUEUE)
        self.writer = threading.Thread(target=self._write, daemon=True, name="hall-writer")
        self.ping_s = PING_S
        self._ping = (0, None, False)   # (number, time sent, come back) of the last ping
        self._heard = time.monotonic()  # when a message last came from the broker
        self._stopping = threading.Event()
        self._restarting = False
        self.watch = threading.Thread(target=self._watch, daemon=True, name="hall-watch")
        self.drop_window_s = DROP_WINDOW_S
        self._drops = {}   # topic -> [start of its window, logged, not logged]
        self._drops_lock = threading.Lock()

    def start(self):
        self.writer.start()
        self.client.connect_async(self.host, self.port, keepalive=10)
        self.client.loop_start()
        self.watch.start()

    def stop(self):
        self._stopping.set()
        self.client.disconnect()
        self.client.loop_stop()
        self.queue.put(None)
        self.writer.join(10)
        self._count_drops(everything=True)

    def wait_connected(self, timeout):
        return self.connected.wait(timeout)

    def _on_connect(self, client, userdata, flags, reason, properties):
        if reason.is_failure:
            self.log("the broker refused the hall's account: %s" % reason)
            return
        client.subscribe(protocol.journal_topic("+"), qos=self.qos)
        with self.tables.lock:
            boxes = set(self.tables.tables)
        for box in sorted(boxes | set(accounts.boxes(self.hall))):
            self._ack(box)
        self.connections += 1
        self.connected.set()

    def _on_disconnect(self, client, userdata, flags, reason, properties):
        was = self.connected.is_set()
        self.connected.clear()
        self._ping = (self._ping[0], None, False)
        if was and not self._stopping.is_set() and not self._restarting:
            self.log("the broker closed the hall's connection (%s): connecting again" % reason)
        self._restarting = False

    def _ping_payload(self, number):
        return ("ping %s %d" % (self.boot, number)).encode()

    def _watch(self):
        """Every ping_s: a ping not come back means the hall no longer receives: connect
        again."""
        while not self._stopping.wait(self.ping_s):
            self._count_drops()
            if not self.connected.is_set():
                continue
            number, sent, back = self._ping
            now = time.monotonic()
            # a message waiting to be stored, or one just come, is the broker heard: the ping
            # is only late behind them (the client waits while the queue is full)
            silent = self.queue.empty() and now - self._heard >= self.ping_s
            if sent is not None and not back and now - sent >= self.ping_s and silent:
                self.log("heard nothing back from the broker for %.0f s (the hall's subscription "
                         "lost, or its connection taken): connecting again" % (
                             time.monotonic() - sent))
                self._restarting = True
                self._drop_connection()
                continue
            self._ping = (number + 1, time.monotonic(), False)
            self.client.publish(protocol.journal_topic(accounts.SERVICE),
                                self._ping_payload(number + 1), qos=0)

    def _drop_connection(self):
        """Shut the client's socket: paho's loop sees the connection lost and connects again."""
        sock = self.client.socket()
        try:
            if sock is not None:
                sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def _ack(self, box):
        with self.tables.lock:
            game, seq = self.tables.table(box).ack()
        self.client.publish(protocol.ack_topic(box), protocol.ack_message(self.boot, game, seq),
                            qos=self.qos, retain=True)

    def _drop(self, topic, reason):
        """A message dropped: said in full DROPS_LOGGED times a topic each drop_window_s, the
        others counted (_count_drops says how many)."""
        self.dropped += 1
        topic = topic[:80]
        with self._drops_lock:
            window = self._drops.setdefault(topic, [time.monotonic(), 0, 0])
            loud = window[1] < DROPS_LOGGED
            window[1 if loud else 2] += 1
        if loud:
            self.log("dropped a message on %s: %s" % (topic, reason))

    def _count_drops(self, everything=False):
        """One line for each topic whose window ended (every window: `everything`) with
        messages not logged; the windows that ended are forgotten."""
        now = time.monotonic()
        with self._drops_lock:
            ended = [(t, w) for t, w in self._drops.items()
                     if everything or now - w[0] >= self.drop_window_s]
            for topic, _ in ended:
                del self._drops[topic]
        for topic, (start, _, quiet) in ended:
            if quiet:
                self.log("dropped %d more message%s on %s in %.0f s" % (
                    quiet, "" if quiet == 1 else "s", topic, now - start))

    def _on_message(self, client, userdata, message):
        self._heard = time.monotonic()
        if message.topic == protocol.journal_topic(accounts.SERVICE):   # its own ping
            number, sent, _ = self._ping
            if message.payload == self._ping_payload(number):
                self._ping = (number, sent, True)
            return
        self.queue.put(message)

    def _write(self):
        while True:
            batch = [self.queue.get()]
            while len(batch) < BATCH and batch[-1] is not None:
                try:
                    batch.append(self.queue.get_nowait())
                except queue.Empty:
                    break
            done = batch[-1] is None
            batch = [m for m in batch if m is not None]
            try:
                self._take(batch)
            except Exception as exc:   # a bug must not stop the writer: say it, go on
                self.log("internal error on the messages of %s: %s: %s (a bug in matchbox)"
                         % (", ".join(sorted({m.topic[:80] for m in batch})),
                            type(exc).__name__, exc))
            if done:
                return

    def _take(self, messages):
        """Store the lines of `messages` together, then acknowledge each box once."""
        lines, topics, boxes = [], [], {}
        for message in messages:
            box = protocol.box_of(message.topic, "journal")
            try:
                if box is None or accounts.NAME.match(box) is None:
                    raise protocol.ProtocolError("not a box's journal topic")
                lines.append((box,) + protocol.read_line_message(message.payload))
                topics.append(message.topic)
            except protocol.ProtocolError as exc:
                self._drop(message.topic, exc)
                if box is not None and accounts.NAME.match(box) is not None:
                    boxes[box] = True
        try:
            results = self.tables.store_all(lines)
        except OSError as exc:
            self.log("cannot store the lines of %s: %s (not acknowledged; the boxes send them "
                     "again)" % (", ".join(sorted({l[0] for l in lines})), exc))
            time.sleep(0.5)
            return
        failed = False
        for (box, game, *_), topic, result in zip(lines, topics, results):
            if isinstance(result, records.Refused):
                self._drop(topic, result)
            elif result == records.RETAKEN:
                self.log("took game %s of %s again from the box's line 1: the box's record was "
                         "rewritten; the hall's copy is kept as %s" % (
                             game, box, os.path.basename(self.tables.tables[box].aside)))
            elif isinstance(result, OSError):
                self.log("cannot store a line of %s: %s (not acknowledged; the box sends it "
                         "again)" % (box, result))
                boxes[box] = False
                failed = True
                continue
            boxes.setdefault(box, True)
        for box, ack in boxes.items():
            if ack:
                self._ack(box)
        if failed:
            time.sleep(0.5)
