"""The hall's MQTT client (paho-mqtt): it stores what the boxes send and acknowledges it.

It logs in with the hall's service account, subscribes to every box's journal topic (QoS 1,
a persistent session, so that an external broker keeps the lines sent while the hall is
down; QoS 0 with the embedded broker, in the hall's own process: Keeper), and for each line: checks the message (host_tools.hall.protocol), stores the line
(host_tools.hall.records, on disk before anything else) and publishes the acknowledgement on
the box's ack topic, retained. The client's thread only queues the messages (at most QUEUE:
a full queue holds the client back, and the broker with it); the hall's writer thread takes
every message waiting (at most BATCH), stores them with one fsync a file (a group commit:
Tables.store_all) and then acknowledges each box once, its last line. A message that is not
one, or a line that does not fit, is dropped with one log line on stderr; the hall goes on. At
each connection it publishes the acknowledgement of every table it has, so a box learns at once
how far the hall has got.
"""
import os
import queue
import secrets
import sys
import threading
import time

from host_tools.hall import accounts, protocol, records

CLIENT_ID = "matchbox-hall"
QUEUE = 1024    # messages taken from the broker and not yet stored
BATCH = 256     # at most this many lines stored together (one fsync a file)


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
    acknowledged, which the box sends again."""

    def __init__(self, hall, tables, host, port, logger=log, qos=1):
        self.hall = hall
        self.qos = qos
        self.tables = tables
        self.log = logger
        self.boot = secrets.token_hex(4)
        self.connected = threading.Event()
        self.dropped = 0
        self.client = protocol.client(CLIENT_ID, accounts.SERVICE,
                                      accounts.service_password(hall), self, clean_session=False)
        self.host, self.port = host, port
        self.queue = queue.Queue(QUEUE)
        self.writer = threading.Thread(target=self._write, daemon=True, name="hall-writer")

    def start(self):
        self.writer.start()
        self.client.connect_async(self.host, self.port, keepalive=10)
        self.client.loop_start()

    def stop(self):
        self.client.disconnect()
        self.client.loop_stop()
        self.queue.put(None)
        self.writer.join(10)

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
        self.connected.set()

    def _on_disconnect(self, client, userdata, flags, reason, properties):
        self.connected.clear()

    def _ack(self, box):
        with self.tables.lock:
            game, seq = self.tables.table(box).ack()
        self.client.publish(protocol.ack_topic(box), protocol.ack_message(self.boot, game, seq),
                            qos=self.qos, retain=True)

    def _on_message(self, client, userdata, message):
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
                self.dropped += 1
                self.log("dropped a message on %s: %s" % (message.topic[:80], exc))
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
                self.dropped += 1
                self.log("dropped a message on %s: %s" % (topic[:80], result))
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
