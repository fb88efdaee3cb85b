"""Many viewers of the hall's audience in one process: each a WebSocket connection to the
audience broker (ws://, or wss:// given a TLS context) speaking just enough MQTT to follow the
page's topics, as the page does (host_tools/hall/audience.py): the retained snapshot, then
every digest after it.

Hand-written (about 200 lines) because the audience tests and bench need thousands of viewers
on two cores: paho-mqtt over WebSockets is a client object, a thread (or a loop's callbacks)
and a full parse of every message a connection, where a viewer here is a socket in one selector
loop, its bytes read into one buffer the crowd shares, each digest's number read from its
first bytes and the moment it came kept. What proves a viewer got each digest whole without
unpacking every one: its numbers (none missing from its snapshot on) and, for one digest in
`sample` (n % sample == the viewer's number % sample, so that every digest is checked by some
viewers), the CRC-32 of its bytes, which the bench and the tests compare with those of a viewer
that keeps, unpacks and reads every message (`keep`). Frames it sends are masked with a zero
key (RFC 6455 allows any key); it never sends a payload over 125 bytes."""
import base64
import os
import re
import selectors
import socket
import ssl
import struct
import time
import zlib

NUMBER = re.compile(rb'\{"boot": "([0-9a-f]+)", "n": (\d+)')
READ = 1 << 16   # bytes a read takes at most (below malloc's mmap threshold: no mmap a read)
WAIT = (BlockingIOError, ssl.SSLWantReadError, ssl.SSLWantWriteError)


def _text(s):
    b = s.encode()
    return struct.pack("!H", len(b)) + b


def _frame(payload):
    """A client's binary WebSocket frame (masked with a zero key: the payload as it is)."""
    assert len(payload) < 126
    return bytes([0x82, 0x80 | len(payload)]) + b"\0\0\0\0" + payload


def connect_packet(client_id, user, password):
    body = _text("MQTT") + bytes([4, 0xC2]) + struct.pack("!H", 0) + _text(client_id) \
        + _text(user) + _text(password)
    return bytes([0x10, len(body)]) + body


def subscribe_packet(pid, topics):
    body = struct.pack("!H", pid) + b"".join(_text(t) + b"\0" for t in topics)
    return bytes([0x82, len(body)]) + body


def unsubscribe_packet(pid, topic):
    body = struct.pack("!H", pid) + _text(topic)
    return bytes([0xA2, len(body)]) + body


def publish_packet(topic, payload, retain=False):
    body = _text(topic) + payload
    return bytes([0x31 if retain else 0x30, len(body)]) + body


class Viewer:
    """One page: its socket, what it has read, the digests it got and when."""

    def __init__(self, crowd, number):
        self.crowd = crowd
        self.number = number
        self.id = "view-%s-%d" % (crowd.name, number)
        self.sock = socket.socket()
        self.sock.setblocking(False)
        if crowd.tls is not None:   # its TLS begins once the TCP connection is made
            self.sock = crowd.tls.wrap_socket(self.sock, server_hostname=crowd.host,
                                              do_handshake_on_connect=False)
        self.state = "connecting"
        self.ws = bytearray()     # bytes of WebSocket frames not yet taken
        self.mqtt = bytearray()   # bytes of MQTT packets not yet taken
        self.refused = None       # why it was refused (TLS, the upgrade, CONNACK's, SUBACK's)
        self.closed = False
        self.boot = None
        self.snapshot = None      # the n of the snapshot it took
        self.last = None          # the n of the last digest it has
        self.gaps = 0             # digests it missed (a gap before one it got)
        self.times = {}           # n -> when it came (the snapshot's n included)
        self.sums = {}            # n -> CRC-32 of the digest's bytes, for its sample of them
        self.kept = []            # (topic, payload) of every message, when the crowd keeps them
        self.early = []           # (boot, n) of digests that came before its snapshot

    def start(self):
        if not self.crowd.reading:   # a small window: the broker's bound is met soon
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        self.sock.connect_ex((self.crowd.address, self.crowd.port))

    def send(self, data):
        try:
            self.sock.sendall(data)
        except OSError:
            self.close()

    def opening(self):
        """The socket is ready while connecting: its TLS handshake's next step, then the
        WebSocket's upgrade."""
        if self.crowd.tls is not None:
            self.state = "handshake"
            try:
                self.sock.do_handshake()
            except ssl.SSLWantReadError:
                return self.crowd.watch(self, selectors.EVENT_READ)
            except ssl.SSLWantWriteError:
                return self.crowd.watch(self, selectors.EVENT_WRITE)
            except (ssl.SSLError, OSError) as exc:
                self.refused = "TLS: %s" % (getattr(exc, "verify_message", None)
                                            or getattr(exc, "reason", None) or exc)
                return self.close()
        key = base64.b64encode(os.urandom(16)).decode()
        self.send(("GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: "
                   "Upgrade\r\nSec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n"
                   "Sec-WebSocket-Protocol: mqtt\r\n\r\n" % (self.crowd.path, self.crowd.host,
                                                             key)).encode())
        if not self.closed:
            self.state = "upgrading"
            self.crowd.watch(self, selectors.EVENT_READ)

    def read(self):
        """Take what came (and, over TLS, what its layer holds already)."""
        while not self.closed:
            try:
                n = self.sock.recv_into(self.crowd.buffer)
            except WAIT:
                return
            except OSError:
                n = 0
            if not n:
                return self.close()
            if self.ws:   # a partial frame before: joined (a copy, only then)
                self.ws += memoryview(self.crowd.buffer)[:n]
                data, self.ws = self.ws, bytearray()
                self.frames(data, len(data))
            else:
                self.frames(self.crowd.buffer, n)
            if self.crowd.tls is None or not self.sock.pending():
                return

    def frames(self, data, end):
        """The whole frames in data[:end], parsed where they lie; what is left of a partial
        frame or packet is copied (the crowd's buffer is the next read's)."""
        pos = 0
        if self.state == "upgrading":
            head = data.find(b"\r\n\r\n", 0, end)
            if head < 0:
                self.ws += data[:end]
                return
            if not data.startswith(b"HTTP/1.1 101"):
                self.refused = bytes(data[:head]).split(b"\r\n")[0].decode(errors="replace")
                return self.close()
            pos = head + 4
            self.state = "connack"
            self.send(_frame(connect_packet(self.id, self.crowd.user, self.crowd.password)))
        while end - pos >= 2 and not self.closed:
            size, at = data[pos + 1] & 0x7F, pos + 2
            if size == 126:
                if end - pos < 4:
                    break
                size, at = (data[pos + 2] << 8) | data[pos + 3], pos + 4
            elif size == 127:
                if end - pos < 10:
                    break
                size, at = struct.unpack_from("!Q", data, pos + 2)[0], pos + 10
            if at + size > end:
                break
            op = data[pos] & 0x0F
            if op in (0, 2):
                if self.mqtt:
                    self.mqtt += data[at:at + size]
                    self._packets(self.mqtt, 0, len(self.mqtt), True)
                else:
                    self._packets(data, at, at + size, False)
            elif op == 9:   # a ping: the pong
                self.send(bytes([0x8A, 0x80]) + b"\0\0\0\0")
            elif op == 8:
                return self.close()
            pos = at + size
        if pos < end and not self.closed:
            self.ws += data[pos:end]

    def _packets(self, m, pos, end, buffered):
        """The MQTT packets in m[pos:end]; a partial one is kept (in self.mqtt)."""
        while end - pos >= 2:
            size, shift, at, whole = 0, 0, pos + 1, False
            while at < end:   # the remaining length: 1 to 4 bytes, 7 bits each
                byte = m[at]
                at += 1
                size |= (byte & 0x7F) << shift
                shift += 7
                if not byte & 0x80:
                    whole = True
                    break
            if not whole or at + size > end:
                break
            kind = m[pos] >> 4
            if kind == 3:
                tlen = (m[at] << 8) | m[at + 1]
                self.message(m[at + 2:at + 2 + tlen], m, at + 2 + tlen, at + size)
            elif kind == 2:   # CONNACK
                if m[at + 1] != 0:
                    self.refused = "CONNACK %d" % m[at + 1]
                    return self.close()
                self.state = "live"
                self.send(_frame(subscribe_packet(1, [self.crowd.live, self.crowd.tables])))
            elif kind == 9 and any(c >= 0x80 for c in m[at + 2:at + size]):   # SUBACK: refused
                self.refused = "SUBACK %s" % list(m[at + 2:at + size])
            pos = at + size
        if buffered:
            del self.mqtt[:pos]
        elif pos < end:
            self.mqtt += m[pos:end]

    def message(self, topic, m, start, stop):
        """A PUBLISH on topic whose payload is m[start:stop]."""
        now = time.monotonic()
        if self.crowd.keep:
            self.kept.append((bytes(topic).decode(), bytes(m[start:stop])))
        found = NUMBER.match(m, start, min(stop, start + 64))
        if found is None:
            return
        boot, n = found.group(1), int(found.group(2))
        if topic == self.crowd.tables_b:
            if self.snapshot is None or boot != self.boot:
                self.send(_frame(unsubscribe_packet(2, self.crowd.tables)))
                self.boot, self.snapshot, self.last = boot, n, n
                self.times.setdefault(n, now)
                early, self.early = sorted(self.early), []
                for number in (k for b, k in early if b == boot):
                    self.digest(number, now)   # shown once the snapshot is, as the page does
            return
        if self.snapshot is None or boot != self.boot:
            if len(self.early) < 64:
                self.early.append((boot, n))   # before its snapshot: kept for after it
            return
        if self.digest(n, now) and (self.crowd.keep or n % self.crowd.sample
                                    == self.number % self.crowd.sample):
            self.sums[n] = zlib.crc32(memoryview(m)[start:stop])

    def digest(self, n, now):
        """Take digest n; whether it is new."""
        if n <= self.last:
            return False
        if n != self.last + 1:
            self.gaps += n - self.last - 1
        self.last = n
        self.times[n] = now
        return True

    def close(self):
        if not self.closed:
            self.closed = True
            self.crowd.forget(self)
            self.sock.close()


class Crowd:
    """`count` viewers of the audience broker's WebSocket at host:port in one selector loop;
    `keep`: keep every message's payload (a few viewers that check what they got); `tls`: an
    ssl.SSLContext for wss:// (the server's certificate checked for `host`); `sample`: a
    viewer keeps the CRC-32 of one digest in `sample` (of every digest when it keeps them)."""

    def __init__(self, port, user, password, count, live, tables, path="/mqtt", keep=False,
                 reading=True, tls=None, host="127.0.0.1", sample=16):
        self.port, self.user, self.password = port, user, password
        self.live, self.tables, self.path, self.keep = live, tables, path, keep
        self.tls, self.host, self.sample = tls, host, sample
        self.address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][4][0]
        self.tables_b = tables.encode()
        self.reading = reading   # False: viewers that never read (the broker's queue bound)
        self.name = os.urandom(4).hex()   # in each viewer's client id (a broker's one session)
        self.buffer = bytearray(READ)   # every read's bytes, parsed before the next read
        self.selector = selectors.DefaultSelector()
        self.viewers = [Viewer(self, i) for i in range(count)]

    def watch(self, viewer, events):
        self.selector.modify(viewer.sock, events, viewer)

    def forget(self, viewer):
        try:
            self.selector.unregister(viewer.sock)
        except (KeyError, ValueError):
            pass

    def connect(self, deadline, at_once=64):
        """Open every viewer's connection (at_once at a time) until each has its snapshot;
        True when every one has (none refused or closed)."""
        started = 0
        while time.monotonic() < deadline:
            done = sum(1 for v in self.viewers[:started] if v.closed or v.snapshot is not None)
            while started < len(self.viewers) and started - done < at_once:
                v = self.viewers[started]
                v.start()
                self.selector.register(v.sock, selectors.EVENT_WRITE, v)
                started += 1
            if done == len(self.viewers):
                return not any(v.closed for v in self.viewers)
            self.turn(0.05)
        return False

    def turn(self, timeout):
        for key, events in self.selector.select(timeout):
            v = key.data
            if v.state in ("connecting", "handshake"):
                v.opening()
            elif v.state != "live" or self.reading or v.snapshot is None:
                v.read()
                if v.state == "live" and v.snapshot is not None and not self.reading:
                    self.forget(v)   # from now on it never reads

    def run(self, seconds):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.turn(min(0.2, max(0.0, end - time.monotonic())))

    def close(self):
        for v in self.viewers:
            v.close()
        self.selector.close()
