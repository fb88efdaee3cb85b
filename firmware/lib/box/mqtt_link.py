"""The box's MQTT link to the hall (docs/hall.md): carries the journal lines box.uplink's Cursor
gives to the broker and brings back the hall's acknowledgement, over Wi-Fi on a Pico W.

Imported only when the flash holds the hall's settings (`hall.json`, written by `matchbox hall
enrol`): a box without a hall pays nothing. The main loop calls `step()` between keys, never
while one is handled, and every step is bounded: the Wi-Fi join is started once and its status
polled; the TCP connect is non-blocking and polled with select.poll(0); the socket never
blocks (a read takes what has come, a write what the socket takes); a QoS 1 publish does not
wait for its PUBACK (the hall's acknowledgement is the delivery signal: PUBACK and SUBACK are
read and checked as they come, keeping the stream in step). At most one packet waits to go
out: a line is taken from the cursor only once the one before it is on its way, so nothing
grows while the broker is slow or away; a packet from the broker that needs an answer
(PUBACK, SUBSCRIBE) while another still waits drops the connection (a broker that sends and
reads nothing would have a PUBACK kept for each of its messages). A lost connection, a connect that does not answer in
_CONNECT_MS, a broker silent for 1.5 keepalives, or lines sent again _STALLS times with no
acknowledgement between (a connection the broker no longer routes the acks to) closes the
socket; the next attempt comes after a back-off doubling from 1 s to 16 s (set back to 1 s
once the broker has the box).

With the hall's CA in the settings ("ca", base64 DER: a hall served to a room speaks only TLS)
the socket is wrapped in TLS once it is connected (`_tls`, MicroPython's mbedTLS; loaded only
then): the broker's certificate must be signed by that CA and name the host the box connects
to. The handshake runs on in the reads and writes of the steps that follow (non-blocking; the
step that gets the broker's certificate does its checks and the key exchange: 55-70 ms on the
unix port here, docs/performance.md). A certificate refused (mbedTLS's ValueError) or any other
fault of the link is one line on the box's USB serial, `{"hall": "..."}`, and the connection
is dropped and tried again after the back-off; the journal waits, nothing is lost.

Names in the settings are resolved once per connect attempt, by socket.getaddrinfo: that call
blocks (lwIP's resolver on a Pico W: up to its timeout when the DNS server does not answer), so
a hall given by name can hold one step that long, once per attempt; give an IP address
(what `matchbox hall enrol --host` prints) to keep every step short.

The MQTT 3.1.1 client is this module's own (the packets below, written from the OASIS
standard): the box needs five packets out (CONNECT with user, password and a clean session;
PUBLISH at QoS 1; SUBSCRIBE; PUBACK; PINGREQ) and five in, and a loop that never waits for
the broker. No MicroPython MQTT client on PyPI fits that loop: micropython-lib's umqtt blocks
on the socket in its connect, publish and subscribe, and the asyncio clients need a scheduler
the box does not run. A packet from the broker is read whole into a bounded buffer
(_MAX_PACKET) before it is looked at, and one that is malformed, too long or not expected
drops the connection, never the box.
"""
import json
import select
import socket   # pyright: ignore[reportMissingImports]  (the Pico W's; the stubs are the Pico's)

from box import forget, ticks_diff
from box.uplink import Cursor, message

try:
    from micropython import const
except ImportError:
    def const(x):
        return x

SETTINGS = "hall.json"
_KEEPALIVE_S = const(30)
_CONNECT_MS = const(5000)     # connect, CONNACK and SUBACK: each must come within this
_JOIN_MS = const(20000)       # a Wi-Fi join that has not got an address in this long: again
_JOIN_PAUSE_MS = const(5000)  # after a failed join, this long before the next, doubling
_JOIN_PAUSE_MAX_MS = const(300000)   # up to this
# A join's request goes to the radio in the step (a few commands to the chip): one starts only
# once the loop has run this long with no key down
_JOIN_QUIET_MS = const(3000)
_GAP_MS = const(60)           # steps further apart than this: a key was down (or the app busy)
_BACKOFF_MS = const(1000)     # first pause before connecting again; doubles up to _BACKOFF_MAX
_BACKOFF_MAX = const(16000)
_READ = const(512)            # bytes read from the socket at most in one step
_MAX_PACKET = const(1100)     # a packet from the broker larger than this drops the connection
_LINES = const(1)             # lines published at most in one step (a next() on a Pico: ms)
_STALLS = const(3)            # sent again this many times with no acknowledgement between:
                              # connect again (a connection the broker no longer routes acks to)
_FIRST_ACK_MS = const(1000)   # subscribed and no acknowledgement (a hall that has none for
                              # this box yet): send from the first line of the oldest game

# link states
_WIFI = const(0)      # waiting for the Wi-Fi join (or for the back-off to end)
_TCP = const(1)       # TCP connect under way
_CONNACK = const(2)   # CONNECT sent, waiting for CONNACK
_SUBACK = const(3)    # SUBSCRIBE sent, waiting for SUBACK
_UP = const(4)        # subscribed: lines go out

# MQTT 3.1.1's packet types (the high nibble of a packet's first byte)
_P_CONNECT = const(0x10)
_P_CONNACK = const(0x20)
_P_PUBLISH = const(0x30)
_P_PUBACK = const(0x40)
_P_SUBSCRIBE = const(0x82)   # with the flags the standard fixes for it (0b0010)
_P_SUBACK = const(0x90)
_P_PINGRESP = const(0xD0)

_EAGAIN = (11, 115, 114)   # EAGAIN, EINPROGRESS, EALREADY (MicroPython's and Linux's numbers)
_FAIL = const(0x18)        # POLLERR | POLLHUP


class SettingsError(ValueError):
    """hall.json is not what `matchbox hall enrol` writes; the text says what is wrong."""


def load(store, path=SETTINGS):
    """The settings in `path` as a dict, SettingsError saying what is wrong with them."""
    try:
        f = store.open(path, "rb")
        try:
            data = json.loads(f.read(2049))
        finally:
            f.close()
    except ValueError:
        raise SettingsError("%s: not JSON (or over 2 KB)" % path)
    if not isinstance(data, dict):
        raise SettingsError("%s: not a JSON object" % path)
    for key in ("host", "box", "password"):
        v = data.get(key)
        if not isinstance(v, str) or not v or len(v) > 64:
            raise SettingsError("%s: %s is not a string of 1 to 64 characters" % (path, key))
    port = data.get("port", 1883)
    if not isinstance(port, int) or isinstance(port, bool) or not 0 < port < 65536:
        raise SettingsError("%s: port is not 1-65535" % path)
    for key, most in (("ssid", 64), ("wifi_password", 64), ("ca", 1400)):
        v = data.get(key)
        if v is not None and (not isinstance(v, str) or len(v) > most):
            raise SettingsError("%s: %s is not a string of at most %d characters"
                                % (path, key, most))
    return data


def read_ack(msg):
    """(hall, game or None, seq) of the hall's acknowledgement (host_tools/hall/protocol.py),
    ValueError saying what is wrong with it."""
    if len(msg) > 1024:
        raise ValueError("over 1 KB")
    data = json.loads(msg)   # ValueError when it is not JSON
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    boot = data.get("hall")
    if not isinstance(boot, str) or not boot or len(boot) > 64:
        raise ValueError("no hall id")
    game = data.get("game")
    if game is None:
        return boot, None, 0
    if not _is_game(game):
        raise ValueError("game is not a game id")
    seq = data.get("seq")
    if not isinstance(seq, int) or isinstance(seq, bool) or not 0 <= seq <= 10000000:
        raise ValueError("seq is not a line number")
    return boot, game, seq


def _is_game(game):
    if not isinstance(game, str):
        return False
    number, dash, crc = game.partition("-")
    if not dash or not 3 <= len(number) <= 6 or not number.isdigit() or len(crc) != 8:
        return False
    for ch in crc:
        if ch not in "0123456789abcdef":
            return False
    return True


# --- MQTT 3.1.1's packets ------------------------------------------------------------------

def _encode(first, *parts):
    """One packet: its first byte, the remaining length (MQTT 3.1.1, 2.2.3: seven bits a byte,
    the least significant first, the top bit set while another follows; at most four bytes)
    and `parts` one after the other."""
    size = 0
    for part in parts:
        size += len(part)
    if size > 0xFFFFFFF:
        raise ValueError("over 256 MB")
    out = bytearray((first,))
    while size > 0x7F:
        out.append(size & 0x7F | 0x80)
        size >>= 7
    out.append(size)
    for part in parts:
        out += part
    return out


def _field(data):
    """A string in a packet: its length in two bytes, the high one first, then its bytes."""
    if len(data) > 0xFFFF:
        raise ValueError("a field over 64 KB")
    return len(data).to_bytes(2, "big") + data


def _remaining(buf):
    """(remaining length, where the variable header starts) of the packet at the start of
    `buf`; None while its fixed header is not all in; ValueError when the length does not end
    within four bytes."""
    size = 0
    i = 1
    while i < len(buf):
        b = buf[i]
        size |= (b & 0x7F) << (7 * i - 7)
        i += 1
        if not b & 0x80:
            return size, i
        if i > 4:
            raise ValueError("a packet with a bad length")
    return None


def _publish_in(packet, at):
    """(topic, payload, packet id: b"" at QoS 0) of the whole PUBLISH `packet` whose variable
    header starts at `at`; ValueError saying what is wrong (the box subscribes at QoS 1, so a
    QoS 2 message is refused; QoS 3 is no QoS)."""
    qos = packet[0] >> 1 & 3
    if qos > 1:
        raise ValueError("a QoS %d message" % qos)
    end = len(packet)
    if at + 2 > end:
        raise ValueError("a malformed packet")
    topic = at + 2 + (packet[at] << 8 | packet[at + 1])
    body = topic + 2 * qos
    if body > end or qos and not packet[topic] | packet[topic + 1]:
        raise ValueError("a malformed packet")
    return packet[at + 2:topic], packet[body:], packet[topic:body]


def _tls(sock, ca, host):
    """The connected `sock` in TLS, the broker's certificate checked against the CA `ca`
    (base64 DER) and for the name `host`; wrap_socket does not wait for the handshake."""
    import tls   # pyright: ignore[reportMissingImports]  (MicroPython's mbedTLS)
    from binascii import a2b_base64
    ctx = tls.SSLContext(tls.PROTOCOL_TLS_CLIENT)
    ctx.verify_mode = tls.CERT_REQUIRED
    ctx.load_verify_locations(a2b_base64(ca))
    return ctx.wrap_socket(sock, server_hostname=host, do_handshake_on_connect=False)


class Wifi:
    """The Pico W's station join through network.WLAN. The radio is brought up here, when the
    link is made: box.runtime.start makes it at power-up before the game is shown and any key
    is read, because the radio's start holds the box (the CYW43's firmware loaded over SPI:
    0.6-1.1 s on the emulated Pico W, where it fails; a real Pico W's time is not measured here).
    A radio that did not start stays down until the next power-up: every join then fails at
    once (the driver's EPERM), and the journal waits for a link. A join is started and its
    status polled each step (rp2's WLAN.connect returns once the radio has the request: a few
    commands to the chip, not timed here); one starts only after _JOIN_QUIET_MS with no key
    down, and after a failed one the pause before the next doubles from _JOIN_PAUSE_MS to
    _JOIN_PAUSE_MAX_MS."""

    def __init__(self, ssid, password):
        import network   # pyright: ignore[reportMissingImports]  (a Pico W's module)
        self.wlan = network.WLAN(network.STA_IF)
        self.wlan.active(True)   # the radio's start (see above)
        self.ssid = ssid
        self.password = password
        self.since = None   # ticks_ms the join was started; None: not started
        self.after = None   # ticks_ms before which no new join starts (after a failed one)
        self.pause = _JOIN_PAUSE_MS   # the pause after the next failed join
        self.why = None     # the last failed join's status
        self.last = None    # ticks_ms of the last call; a gap means a key was down
        self.quiet = None   # ticks_ms since when the calls came with no gap

    def up(self, now):
        """Whether the box has its address; starts or restarts the join when due."""
        w = self.wlan
        if self.last is None or ticks_diff(now, self.last) > _GAP_MS:
            self.quiet = now
        self.last = now
        if w.isconnected():
            self.pause = _JOIN_PAUSE_MS
            return True
        if self.since is None:
            if self.after is not None and ticks_diff(now, self.after) < 0:
                return False
            if ticks_diff(now, self.quiet) < _JOIN_QUIET_MS:
                return False
            self.since = now
            try:
                w.connect(self.ssid, self.password)
            except OSError as exc:   # a radio that did not start (the emulated Pico W's)
                self.why = exc.args[0] if exc.args else -1
                self._failed(now)
            return False
        status = w.status()   # < 0: wrong password, no such network, failed
        if status < 0 or ticks_diff(now, self.since) > _JOIN_MS:
            self.why = status
            w.disconnect()
            self._failed(now)
        return False

    def _failed(self, now):
        self.since = None
        self.after = now + self.pause
        self.pause = min(self.pause * 2, _JOIN_PAUSE_MAX_MS)


class Link:
    """The link's state machine. `settings` as load() gives them, `cursor` a box.uplink.Cursor,
    `clock` the ticks_ms the network's timers run on, `wifi` has up(now) (the Wi-Fi class
    above, or a board's stand-in), `tell(text)` (optional) hears what the link learns:
    `c` connected, `a HALL GAME SEQ` an acknowledgement (GAME `-` for none), `r CODE` the
    broker refused the box (CONNACK's code), `s` the broker refused the subscription,
    `x WHY` the connection dropped; `emit(line)` (optional) is the box's USB serial, where a
    fault of the link (a certificate refused) is said."""

    def __init__(self, settings, cursor, clock, wifi, tell=None, emit=None):
        self.box = settings["box"]
        self.server = settings["host"]
        self.port = settings.get("port", 1883)
        self.password = settings["password"]
        self.ca = settings.get("ca")   # the hall's CA: TLS
        self.journal_topic = ("matchbox/%s/journal" % self.box).encode()
        self.ack_topic = ("matchbox/%s/ack" % self.box).encode()
        self.setup_topic = ("matchbox/%s/setup" % self.box).encode()   # an event's round
        self.setup = None    # a round's setup from the hall, waiting to be shown (_table)
        self.app = None      # the app it is shown on (build)
        self.cursor = cursor
        self.clock = clock
        self.wifi = wifi
        self.tell = tell
        self.emit = emit
        self.state = _WIFI
        self.sock = None
        self.raw = None      # the TCP socket (under the TLS one)
        self.poll = None
        self.inb = b""
        self.out = bytearray()   # what waits to go out: one packet at most
        self.pid = 0         # the last packet id used
        self.since = 0       # when the current state began
        self.heard = 0       # when the broker last sent something
        self.said = 0        # when the link last sent something
        self.retry_at = clock()
        self.backoff = _BACKOFF_MS
        self.sub_pid = b""   # SUBSCRIBE's packet id
        self.refused = None  # CONNACK's code of the last refusal
        self.dropped = 0     # connections closed (lost, timed out, refused)
        self.bad = 0         # messages from the broker that were refused
        self.sent = 0        # lines published
        self.stalls = 0      # times the cursor went back with no acknowledgement between

    # --- one step ----------------------------------------------------------------------------

    def step(self):
        """One bounded step: join, connect, read, write; never waits."""
        now = self.clock()
        state = self.state
        try:
            if self.setup is not None and self.app is not None:
                self._table()
            if state == _WIFI:
                if ticks_diff(now, self.retry_at) >= 0 and self.wifi.up(now):
                    self._open(now)
                return
            if state == _TCP:
                self._connecting(now)
                return
            self._read(now)
            if self.sock is None:
                return
            if self.state != _UP and ticks_diff(now, self.since) > _CONNECT_MS:
                self._drop(now, "no answer from the broker")
                return
            if self.state == _UP:
                self._lines(now)
                if self.sock is None:   # dropped: no acknowledgement for too long
                    return
            if ticks_diff(now, self.heard) > _KEEPALIVE_S * 1500:
                self._drop(now, "the broker is silent")
                return
            if not self.out and ticks_diff(now, self.said) > _KEEPALIVE_S * 500:
                self.out += b"\xc0\x00"   # PINGREQ
            self._write(now)
        except OSError as exc:
            self._drop(now, "socket error %s" % (exc.args[0] if exc.args else "?"))
        except Exception as exc:   # a fault of the link, or mbedTLS refusing the broker's
            # certificate (ValueError), must not stop the box: said in one line, dropped
            why = " ".join(("%s: %s" % (type(exc).__name__, exc)).split())
            if self.emit:
                self.emit('{"hall": "%s"}' % why.replace('"', "'"))
            self._drop(now, why)

    # --- connecting ----------------------------------------------------------------------------

    def _open(self, now):
        # a name: a DNS lookup (see above)
        addr = socket.getaddrinfo(self.server, self.port)[0][-1]
        s = socket.socket()
        s.setblocking(False)
        try:
            s.connect(addr)
        except OSError as exc:
            if exc.args[0] not in _EAGAIN:
                s.close()
                raise
        self.sock = self.raw = s
        self.poll = select.poll()
        self.poll.register(s, select.POLLOUT)
        self.state = _TCP
        self.since = now

    def _connecting(self, now):
        ready = self.poll.poll(0)
        if not ready:
            if ticks_diff(now, self.since) > _CONNECT_MS:
                self._drop(now, "no answer from the broker")
            return
        if ready[0][1] & _FAIL:
            self._drop(now, "connection refused")
            return
        if self.ca:   # the handshake goes on in the reads and writes of the next steps
            self.sock = _tls(self.sock, self.ca, self.server)
            self.poll = select.poll()   # the TLS socket's: it knows what mbedTLS holds
            self.poll.register(self.sock, select.POLLIN)
        else:
            self.poll.modify(self.sock, select.POLLIN)
        box = self.box.encode()
        # CONNECT: the protocol's name and level (4: 3.1.1), the flags user name, password and
        # clean session, the keepalive; the client id, the user name and the password
        self.out = _encode(_P_CONNECT, b"\x00\x04MQTT\x04\xc2", _KEEPALIVE_S.to_bytes(2, "big"),
                           _field(b"box-" + box), _field(box), _field(self.password.encode()))
        self.pid = 0
        self.inb = b""
        self.state = _CONNACK
        self.since = self.heard = now
        self._write(now)

    def _drop(self, now, why):
        """Close the connection; the next attempt after the back-off."""
        if self.sock is not None:
            for s in (self.sock, self.raw):   # mbedTLS lets go of a socket it failed on
                try:
                    if s is not None:
                        s.close()
                except OSError:
                    pass
            self.dropped += 1
        if self.tell:
            self.tell("x " + why)
        self.sock = self.raw = None
        self.poll = None
        self.inb = b""
        self.stalls = 0
        self.out = bytearray()
        self.state = _WIFI
        self.retry_at = now + self.backoff
        self.backoff = min(self.backoff * 2, _BACKOFF_MAX)
        self.cursor.connected()   # no acknowledgement of this connection counts any more

    # --- the wire ------------------------------------------------------------------------------

    def _write(self, now):
        out = self.out
        if not out:
            return
        try:
            n = self.sock.send(out)
        except OSError as exc:
            if exc.args[0] not in _EAGAIN:
                raise
            return
        if n:
            self.said = now
            self.out = out[n:]

    def _read(self, now):
        if not self.poll.poll(0):
            return
        try:
            data = self.sock.recv(_READ)
        except OSError as exc:
            if exc.args[0] not in _EAGAIN:
                raise
            return
        if data is None:   # TLS: a record with nothing for the box yet (the handshake's)
            return
        if not data:
            self._drop(now, "the broker closed the connection")
            return
        self.heard = now
        inb = self.inb + data
        while len(inb) >= 2:
            try:
                got = _remaining(inb)
            except ValueError as exc:
                self._drop(now, "%s from the broker" % exc)
                return
            if got is None:
                break
            size, at = got
            end = at + size
            if end > _MAX_PACKET:
                self._drop(now, "a packet of %d bytes from the broker" % end)
                return
            if end > len(inb):
                break
            if not self._packet(inb[:end], at, now):
                return
            inb = inb[end:]
        self.inb = inb

    def _packet(self, packet, at, now):
        """Handle one whole packet (its variable header from byte `at`); False when it dropped
        the connection."""
        first = packet[0]
        op = first & 0xF0
        if op == _P_PUBLISH:   # the hall's acknowledgement
            try:
                topic, msg, pid = _publish_in(packet, at)
            except ValueError as exc:
                self._drop(now, "%s from the broker" % exc)
                return False
            if pid and not self._answer(_encode(_P_PUBACK, pid), now):
                return False
            self._message(topic, msg)
            return True
        if first == _P_PUBACK and len(packet) == 4:   # the broker has a line (the hall's
            return True                              # acknowledgement says it is delivered)
        if first == _P_PINGRESP and len(packet) == 2:
            return True
        if first == _P_CONNACK and self.state == _CONNACK and len(packet) == 4:
            if packet[3]:
                self.refused = packet[3]
                if self.tell:
                    self.tell("r %d" % packet[3])
                self._drop(now, "refused")
                return False
            self.refused = None
            self.cursor.connected()
            self.sub_pid = pid = self._next_pid()
            if not self._answer(_encode(_P_SUBSCRIBE, pid, _field(self.ack_topic), b"\x01",
                                        _field(self.setup_topic), b"\x01"), now):   # both QoS 1
                return False
            self.state = _SUBACK
            self.since = now
            if self.tell:
                self.tell("c")
            return True
        if first == _P_SUBACK and self.state == _SUBACK and len(packet) == 6:
            # the acks' subscription must be granted; the setup's may not be (an older hall)
            if packet[2:4] != self.sub_pid or packet[4] & 0x80:
                if self.tell:
                    self.tell("s")
                self._drop(now, "the broker refused the subscription")
                return False
            self.state = _UP
            self.since = now
            self.backoff = _BACKOFF_MS
            return True
        self._drop(now, "an unexpected packet 0x%02x from the broker" % first)
        return False

    def _answer(self, packet, now):
        """`packet` to go out once what waits is on its way; when it cannot be (the broker
        reads nothing), the connection dropped and False."""
        self._write(now)
        if self.out:
            self._drop(now, "the broker does not read what the box sends")
            return False
        self.out = packet
        return True

    def _next_pid(self):
        """The next packet id (1-65535, then 1 again), as its two bytes."""
        self.pid = self.pid % 65535 + 1
        return self.pid.to_bytes(2, "big")

    def _message(self, topic, msg):
        """A message from the broker: the hall's acknowledgement, or a round's setup (kept for
        _table); anything else is counted and left."""
        if topic == self.setup_topic:
            self.setup = msg
            return
        if topic != self.ack_topic:
            self.bad += 1
            return
        try:
            boot, game, seq = read_ack(msg)
        except ValueError:
            self.bad += 1
            return
        if self.cursor.acked != (game, seq):
            self.stalls = 0
        self.cursor.ack(boot, game, seq, self.clock())
        if self.tell:
            self.tell("a %s %s %d" % (boot, game or "-", seq))

    def _table(self):
        """Show the round's setup that came (box.tablesetup, loaded for it and let go) once no
        game is in progress: none, finished, or the menu open (SETUP is mode 0)."""
        app = self.app   # set by build() (step calls this only then)
        game = app.game   # pyright: ignore[reportAttributeAccessIssue]
        mode = app.view.mode   # pyright: ignore[reportAttributeAccessIssue]
        if game is not None and not game.finished and mode:
            return
        msg = self.setup
        self.setup = None
        from box import tablesetup
        tablesetup.show(app, msg)
        forget("box.tablesetup")

    # --- the journal -------------------------------------------------------------------------

    def _lines(self, now):
        cursor = self.cursor
        if cursor.boot is None and ticks_diff(now, self.since) > _FIRST_ACK_MS:
            cursor.ack("", None, 0, now)   # "": no hall's start known; its first ack rewinds
        if cursor.stalled(now, ticks_diff):
            self.stalls += 1
            if self.stalls >= _STALLS:
                self._drop(now, "no acknowledgement from the hall")
                return
        if cursor.resting(now, ticks_diff):
            return
        for _ in range(_LINES):
            if self.out:   # the packet before is not all on its way yet
                return
            item = cursor.next(now)
            if item is None:
                return
            # PUBLISH at QoS 1, not retained
            self.out += _encode(_P_PUBLISH | 2, _field(self.journal_topic), self._next_pid(),
                                message(item).encode())
            self.sent += 1
            self._write(now)


def build(hw, app):
    """The link of the app whose flash holds hall.json (box.runtime.start calls it; `build`,
    a name the box has already: no new string in its heap); settings that are not right: one
    line on USB (hw.emit) and None, the box plays on without a link."""
    try:
        made = link(hw, app.journal)
        made.app = app
        return made
    except (ValueError, OSError) as exc:
        hw.emit('{"hall": "%s"}' % str(exc).replace('"', "'"))
        return None


def link(hw, journal, path=SETTINGS):
    """The link of a box whose flash holds `path`: its journal's Cursor, the board's Wi-Fi
    (hw.wifi, a stand-in on a board without a radio) or network.WLAN's, and the network's
    clock (hw.net_ms where the board's own clock is not the wall's, as in the simulator).
    SettingsError when the file is not right."""
    settings = load(journal.store, path)
    wifi = getattr(hw, "wifi", None)
    if wifi is None:
        if not settings.get("ssid"):
            raise SettingsError("%s: no ssid: a Pico W joins a Wi-Fi network (`matchbox hall "
                                "enrol --wifi-ssid`)" % path)
        wifi = Wifi(settings["ssid"], settings.get("wifi_password") or "")
    clock = getattr(hw, "net_ms", None) or hw.ticks_ms
    return Link(settings, Cursor(journal.store, journal.root, journal), clock, wifi,
                getattr(hw, "tell", None), getattr(hw, "emit", None))
