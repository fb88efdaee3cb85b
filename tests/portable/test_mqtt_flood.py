"""The box's MQTT link (box.mqtt_link) against a broker that floods it with QoS 1 messages and
reads nothing: what waits to go out stays one packet at most (a PUBACK kept for each message
grew until MemoryError), the link drops the connection saying why, and on its next connection,
to a broker that reads, every line of the journal reaches the hall. The sockets are stand-ins
that behave as a connected non-blocking socket does, so that the same test runs under CPython
and under the MicroPython unix port (tests/test_mqtt_link.py runs it there and has the same
flood over real sockets)."""
import json

from box import mqtt_link
from box.uplink import Cursor
from files import STORE, Folder, write
from link_helpers import HEADER, Clock, Joined

EAGAIN = 11
ROOM = 4096        # bytes the box's socket takes before it is full: the broker reads none
ONE_PACKET = 1100  # the longest packet the box sends (a journal line's PUBLISH) is shorter
TCP = 1            # the link's state while its TCP connect is under way (its `_TCP`, a const
                   # that MicroPython keeps out of the module)


def publish(topic, payload, pid):
    """A QoS 1 PUBLISH from the broker."""
    return bytes(mqtt_link._encode(0x32, mqtt_link._field(topic), pid.to_bytes(2, "big"),
                                   payload))


class Broker:
    """The box's end of a connection, with the broker at the other end: it answers CONNECT and
    SUBSCRIBE; then, with `flood`, it sends one-byte-topic QoS 1 messages as fast as the box
    reads them and reads nothing more (the socket takes ROOM bytes, then EAGAIN); without, it
    reads every packet and acknowledges each line as the hall does (retained, QoS 1)."""

    def __init__(self, flood):
        self.flood = flood
        self.flooding = False
        self.reading = False      # the link polls for input (its connect is done)
        self.data = bytearray()   # the broker's bytes the box has not read yet
        self.got = bytearray()    # the box's bytes read, not yet a whole packet
        self.taken = 0            # the box's bytes the socket holds (the flood reads none)
        self.sent = 0             # messages the flood sent
        self.pid = 0
        self.lines = []           # (game, seq, line) stored, in order

    # the socket and its poll, as the link uses them
    def poll(self, timeout):
        if not self.reading:
            return [(self, 4)]   # POLLOUT: the connect is done
        return [(self, 1)] if self.data or self.flooding else []

    def modify(self, sock, mask):
        self.reading = True

    def recv(self, n):
        while self.flooding and len(self.data) < n:
            self.pid = self.pid % 65535 + 1
            self.sent += 1
            self.data += publish(b"x", b"", self.pid)
        got = bytes(self.data[:n])
        self.data = self.data[n:]
        return got

    def send(self, data):
        if self.flooding:
            n = min(len(data), ROOM - self.taken)
            if not n:
                raise OSError(EAGAIN)
            self.taken += n
            return n
        self.got += data
        while len(self.got) >= 2:
            size, at = mqtt_link._remaining(self.got)
            if len(self.got) < at + size:
                break
            packet, self.got = bytes(self.got[:at + size]), self.got[at + size:]
            self._packet(packet, at)
        return len(data)

    def close(self):
        pass

    def _ack(self):
        game, seq = self.lines[-1][:2] if self.lines else (None, 0)
        self.pid = self.pid % 65535 + 1
        self.data += publish(b"matchbox/t1/ack", json.dumps(
            {"hall": "h1", "game": game, "seq": seq}).encode(), self.pid)

    def _packet(self, packet, at):
        op = packet[0]
        if op == 0x10:                                       # CONNECT
            self.data += b"\x20\x02\x00\x00"
        elif op == 0x82:                                     # SUBSCRIBE
            self.data += b"\x90\x04" + packet[at:at + 2] + b"\x01\x01"   # ack and setup
            self._ack()                                      # the retained one
            self.flooding = self.flood
        elif op == 0x32:                                     # a journal line
            topic = at + 2 + (packet[at] << 8 | packet[at + 1])
            m = json.loads(packet[topic + 2:])
            mine = [l for l in self.lines if l[0] == m["game"]]
            if m["seq"] == len(mine) + 1:
                self.lines.append((m["game"], m["seq"], m["line"]))
            self.data += b"\x40\x02" + packet[topic:topic + 2]
            self._ack()
        elif op == 0xC0:                                     # PINGREQ
            self.data += b"\xd0\x00"


def test_a_broker_that_floods_and_reads_nothing_holds_one_packet_and_loses_no_line():
    with Folder() as d:
        games = d.path + "/games"
        STORE.mkdir(games)
        body = HEADER + [b"%d: pass" % (i % 3 + 1) for i in range(40)]
        write(games + "/current.txt", b"".join(l + b"\n" for l in body))
        clock = Clock()
        told = []
        link = mqtt_link.Link({"host": "127.0.0.1", "port": 1, "box": "t1", "password": "pw"},
                              Cursor(STORE, games), clock, Joined(), told.append)
        brokers = [Broker(True), Broker(False)]

        def connect(now):   # instead of a TCP connect: the next broker's socket, connected
            link.sock = link.poll = brokers[link.dropped]
            link.state = TCP
            link.since = now
        link._open = connect
        assert getattr(mqtt_link, "_TCP", TCP) == TCP
        held = 0
        for _ in range(600):
            link.step()
            held = max(held, len(link.out))
            clock.now += 10
            if link.dropped:
                break
        flood = brokers[0]
        assert flood.taken == ROOM, (flood.taken, told[-3:])   # the box's socket filled up
        assert held <= ONE_PACKET, held
        assert link.dropped == 1 and told[-1] == "x the broker does not read what the box " \
            "sends", told[-3:]
        for _ in range(600):   # after the back-off, a broker that reads
            link.step()
            held = max(held, len(link.out))
            clock.now += 50
            if link.cursor.delivered():
                break
        assert link.cursor.delivered() and link.dropped == 1, told[-3:]
        assert [(seq, line.encode()) for _, seq, line in brokers[1].lines] == \
            [(i, l) for i, l in enumerate(body, 1)]
        assert held <= ONE_PACKET, held
