"""The hall's MQTT client (paho-mqtt): it stores what the boxes send and acknowledges it.

It logs in with the hall's service account, subscribes to every box's journal topic (QoS 1,
a persistent session, so that an external broker keeps the lines sent while the hall is
down), and for each line: checks the message (host_tools.hall.protocol), stores the line
(host_tools.hall.records, on disk before anything else) and publishes the acknowledgement on
the box's ack topic, retained. A message that is not one, or a line that does not fit, is
dropped with one log line on stderr; the hall goes on. At each connection it publishes the
acknowledgement of every table it has, so a box learns at once how far the hall has got.
"""
import secrets
import sys
import threading
import time

from host_tools.hall import accounts, protocol, records

CLIENT_ID = "matchbox-hall"


def log(text):
    try:
        sys.stderr.write("matchbox hall: %s\n" % text)
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


class Keeper:
    def __init__(self, hall, tables, host, port, logger=log):
        self.hall = hall
        self.tables = tables
        self.log = logger
        self.boot = secrets.token_hex(4)
        self.connected = threading.Event()
        self.dropped = 0
        self.client = protocol.client(CLIENT_ID, accounts.SERVICE,
                                      accounts.service_password(hall), self, clean_session=False)
        self.host, self.port = host, port

    def start(self):
        self.client.connect_async(self.host, self.port, keepalive=10)
        self.client.loop_start()

    def stop(self):
        self.client.disconnect()
        self.client.loop_stop()

    def wait_connected(self, timeout):
        return self.connected.wait(timeout)

    def _on_connect(self, client, userdata, flags, reason, properties):
        if reason.is_failure:
            self.log("the broker refused the hall's account: %s" % reason)
            return
        client.subscribe(protocol.journal_topic("+"), qos=1)
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
                            qos=1, retain=True)

    def _on_message(self, client, userdata, message):
        try:
            self._take(message)
        except Exception as exc:   # a bug must not stop the client's thread: say it, go on
            self.log("internal error on a message of %s: %s: %s (a bug in matchbox)"
                     % (message.topic[:80], type(exc).__name__, exc))

    def _take(self, message):
        box = protocol.box_of(message.topic, "journal")
        try:
            if box is None or accounts.NAME.match(box) is None:
                raise protocol.ProtocolError("not a box's journal topic")
            game, seq, line, prev = protocol.read_line_message(message.payload)
            self.tables.store(box, game, seq, line, prev)
        except (protocol.ProtocolError, records.Refused) as exc:
            self.dropped += 1
            self.log("dropped a message on %s: %s" % (message.topic[:80], exc))
            if box is None or accounts.NAME.match(box) is None:
                return
        except OSError as exc:
            self.log("cannot store a line of %s: %s (not acknowledged; the box sends it again)"
                     % (box, exc))
            time.sleep(0.5)
            return
        self._ack(box)
