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
grows while the broker is slow or away. A lost connection, a connect that does not answer in
_CONNECT_MS, a broker silent for 1.5 keepalives, or lines sent again _STALLS times with no
acknowledgement between (a connection the broker no longer routes the acks to) closes the
socket; the next attempt comes after a back-off doubling from 1 s to 16 s (set back to 1 s
once the broker has the box).

Names in the settings are resolved once per connect attempt, by socket.getaddrinfo: that call
blocks (lwIP's resolver on a Pico W: up to its timeout when the DNS server does not answer), so
a hall given by name can hold one step that long, once per attempt; give an IP address
(what `matchbox hall enrol --host` prints) to keep every step short.

Built on micropython-lib's umqtt.simple (lib/umqtt, unchanged): its client forms the packets
(its _send_str, ping) and parses a received PUBLISH (wait_msg, with its PUBACK); `Client`
below changes what does not fit a loop that must not wait: the connect (umqtt's blocks on the
socket and on CONNACK), publish (umqtt's waits for PUBACK) and subscribe (waits for SUBACK).
Umqtt writes to and reads from `_Wire`, a buffer this module moves to and from the socket.
"""
import json
import select
import socket   # pyright: ignore[reportMissingImports]  (the Pico W's; the stubs are the Pico's)

from box import ticks
from box.uplink import Cursor, message
from umqtt.simple import MQTTClient

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
_STALLS = const(3)            # sent again this many times with no acknowledgement: connect
                              # again (a connection the broker no longer routes acks to)
_FIRST_ACK_MS = const(1000)   # subscribed and no acknowledgement (a hall that has none for
                              # this box yet): send from the first line of the oldest game

# link states
_WIFI = const(0)      # waiting for the Wi-Fi join (or for the back-off to end)
_TCP = const(1)       # TCP connect under way
_CONNACK = const(2)   # CONNECT sent, waiting for CONNACK
_SUBACK = const(3)    # SUBSCRIBE sent, waiting for SUBACK
_UP = const(4)        # subscribed: lines go out

_EAGAIN = (11, 115, 114)   # EAGAIN, EINPROGRESS, EALREADY (MicroPython's and Linux's numbers)
_FAIL = const(0x18)        # POLLERR | POLLHUP


class SettingsError(ValueError):
    """hall.json is not what `matchbox hall enrol` writes; the text says what is wrong."""


def load(store, path=SETTINGS):
    """The settings in `path` as a dict, SettingsError saying what is wrong with them."""
    try:
        f = store.open(path, "rb")
        try:
            data = json.loads(f.read(1025))
        finally:
            f.close()
    except ValueError:
        raise SettingsError("%s: not JSON (or over 1 KB)" % path)
    if not isinstance(data, dict):
        raise SettingsError("%s: not a JSON object" % path)
    for key in ("host", "box", "password"):
        v = data.get(key)
        if not isinstance(v, str) or not v or len(v) > 64:
            raise SettingsError("%s: %s is not a string of 1 to 64 characters" % (path, key))
    port = data.get("port", 1883)
    if not isinstance(port, int) or isinstance(port, bool) or not 0 < port < 65536:
        raise SettingsError("%s: port is not 1-65535" % path)
    for key in ("ssid", "wifi_password"):
        v = data.get(key)
        if v is not None and (not isinstance(v, str) or len(v) > 64):
            raise SettingsError("%s: %s is not a string of at most 64 characters" % (path, key))
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


class _Wire:
    """What umqtt's client takes for its socket: writes go into `out` (the link sends them as
    the socket takes them), reads come from the one whole packet received in `data`."""

    def __init__(self):
        self.out = bytearray()
        self.data = b""
        self.at = 0

    def write(self, buf, n=None):
        self.out += buf if n is None else buf[:n]

    def read(self, n):
        at = self.at
        self.at = at + n
        return self.data[at:at + n]

    def setblocking(self, flag):
        pass

    def close(self):
        pass


class Client(MQTTClient):
    """umqtt's client whose packets go to a _Wire: nothing here waits for the broker."""

    def __init__(self, box, server, port, password):
        MQTTClient.__init__(self, ("box-" + box).encode(), server, port, box.encode(),
                            password.encode(), _KEEPALIVE_S)
        self.sock = _Wire()

    def hello(self):
        """The CONNECT packet (clean session, user and password, keepalive), as umqtt's
        connect() forms it, without its socket and without waiting for CONNACK."""
        head = bytearray(b"\x10\0\0\0\0\0")   # its last 0: the protocol name's length's
        var = bytearray(b"\x04MQTT\x04\xc2\0\0")   # high byte, as umqtt writes it
        var[7] = self.keepalive >> 8
        var[8] = self.keepalive & 0xFF
        user = self.user or b""
        pswd = self.pswd or b""
        size = 10 + 2 + len(self.client_id) + 2 + len(user) + 2 + len(pswd)
        w = self.sock
        w.write(head, _length(head, size) + 1)
        w.write(var)
        self._send_str(self.client_id)
        self._send_str(user)
        self._send_str(pswd)

    def _next_pid(self):
        self.pid = self.pid % 65535 + 1   # umqtt's counts past 65535, which "!H" cannot pack
        return self.pid

    def publish(self, topic, msg, retain=False, qos=0):
        """Publish without waiting for the PUBACK (QoS 0 or 1)."""
        head = bytearray(b"\x30\0\0\0\0")
        head[0] |= qos << 1 | retain
        size = 2 + len(topic) + len(msg) + (2 if qos else 0)
        w = self.sock
        w.write(head, _length(head, size))
        self._send_str(topic)
        if qos:
            pid = self._next_pid()
            w.write(bytes((pid >> 8, pid & 0xFF)))
        w.write(msg)

    def subscribe(self, topic, qos=0):
        """Send SUBSCRIBE and return its packet id; the link checks the SUBACK when it comes."""
        pid = self._next_pid()
        w = self.sock
        w.write(bytes((0x82, 2 + 2 + len(topic) + 1, pid >> 8, pid & 0xFF)))
        self._send_str(topic)
        w.write(bytes((qos,)))
        return pid


def _length(head, size):
    """Write MQTT's remaining length `size` into head from byte 1; the header's length."""
    i = 1
    while size > 0x7F:
        head[i] = (size & 0x7F) | 0x80
        size >>= 7
        i += 1
    head[i] = size
    return i + 1


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
        if self.last is None or ticks.diff(now, self.last) > _GAP_MS:
            self.quiet = now
        self.last = now
        if w.isconnected():
            self.pause = _JOIN_PAUSE_MS
            return True
        if self.since is None:
            if self.after is not None and ticks.diff(now, self.after) < 0:
                return False
            if ticks.diff(now, self.quiet) < _JOIN_QUIET_MS:
                return False
            self.since = now
            try:
                w.connect(self.ssid, self.password)
            except OSError as exc:   # a radio that did not start (the emulated Pico W's)
                self.why = exc.args[0] if exc.args else -1
                self._failed(now)
            return False
        status = w.status()   # < 0: wrong password, no such network, failed
        if status < 0 or ticks.diff(now, self.since) > _JOIN_MS:
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
    `x WHY` the connection dropped."""

    def __init__(self, settings, cursor, clock, wifi, tell=None):
        self.box = settings["box"]
        self.client = Client(self.box, settings["host"], settings.get("port", 1883),
                             settings["password"])
        self.client.set_callback(self._message)
        self.journal_topic = ("matchbox/%s/journal" % self.box).encode()
        self.ack_topic = ("matchbox/%s/ack" % self.box).encode()
        self.cursor = cursor
        self.clock = clock
        self.wifi = wifi
        self.tell = tell
        self.state = _WIFI
        self.sock = None
        self.poll = None
        self.inb = b""
        self.since = 0       # when the current state began
        self.heard = 0       # when the broker last sent something
        self.said = 0        # when the link last sent something
        self.retry_at = clock()
        self.backoff = _BACKOFF_MS
        self.sub_pid = 0
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
            if state == _WIFI:
                if ticks.diff(now, self.retry_at) >= 0 and self.wifi.up(now):
                    self._open(now)
                return
            if state == _TCP:
                self._connecting(now)
                return
            self._read(now)
            if self.sock is None:
                return
            if self.state != _UP and ticks.diff(now, self.since) > _CONNECT_MS:
                self._drop(now, "no answer from the broker")
                return
            if self.state == _UP:
                self._lines(now)
                if self.sock is None:   # dropped: no acknowledgement for too long
                    return
            if ticks.diff(now, self.heard) > _KEEPALIVE_S * 1500:
                self._drop(now, "the broker is silent")
                return
            if not self.client.sock.out and ticks.diff(now, self.said) > _KEEPALIVE_S * 500:
                self.client.ping()
            self._write(now)
        except OSError as exc:
            self._drop(now, "socket error %s" % (exc.args[0] if exc.args else "?"))
        except Exception as exc:   # a fault of the link must not stop the box: said, dropped
            self._drop(now, "%s: %s" % (type(exc).__name__, exc))

    # --- connecting ----------------------------------------------------------------------------

    def _open(self, now):
        c = self.client
        addr = socket.getaddrinfo(c.server, c.port)[0][-1]   # a name: a DNS lookup (see above)
        s = socket.socket()
        s.setblocking(False)
        try:
            s.connect(addr)
        except OSError as exc:
            if exc.args[0] not in _EAGAIN:
                s.close()
                raise
        self.sock = s
        self.poll = select.poll()
        self.poll.register(s, select.POLLOUT)
        self.state = _TCP
        self.since = now

    def _connecting(self, now):
        ready = self.poll.poll(0)
        if not ready:
            if ticks.diff(now, self.since) > _CONNECT_MS:
                self._drop(now, "no answer from the broker")
            return
        if ready[0][1] & _FAIL:
            self._drop(now, "connection refused")
            return
        self.poll.modify(self.sock, select.POLLIN)
        c = self.client
        c.sock.out = bytearray()
        c.pid = 0
        c.hello()
        self.inb = b""
        self.state = _CONNACK
        self.since = self.heard = now
        self._write(now)

    def _drop(self, now, why):
        """Close the connection; the next attempt after the back-off."""
        if self.sock is not None:
            try:
                self.sock.close()
            except OSError:
                pass
            self.dropped += 1
        if self.tell:
            self.tell("x " + why)
        self.sock = None
        self.poll = None
        self.inb = b""
        self.stalls = 0
        self.client.sock.out = bytearray()
        self.state = _WIFI
        self.retry_at = now + self.backoff
        self.backoff = min(self.backoff * 2, _BACKOFF_MAX)
        self.cursor.connected()   # no acknowledgement of this connection counts any more

    # --- the wire ------------------------------------------------------------------------------

    def _write(self, now):
        out = self.client.sock.out
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
            self.client.sock.out = out[n:]

    def _read(self, now):
        if not self.poll.poll(0):
            return
        try:
            data = self.sock.recv(_READ)
        except OSError as exc:
            if exc.args[0] not in _EAGAIN:
                raise
            return
        if not data:
            self._drop(now, "the broker closed the connection")
            return
        self.heard = now
        inb = self.inb + data
        while len(inb) >= 2:
            size = 0
            shift = 0
            i = 1
            while True:   # the remaining length: at most 4 bytes
                if i >= len(inb):
                    self.inb = inb
                    return
                b = inb[i]
                size |= (b & 0x7F) << shift
                i += 1
                if not b & 0x80:
                    break
                shift += 7
                if i > 4:
                    self._drop(now, "a packet with a bad length from the broker")
                    return
            end = i + size
            if end > _MAX_PACKET:
                self._drop(now, "a packet of %d bytes from the broker" % end)
                return
            if end > len(inb):
                break
            if not self._packet(inb[:end], i, now):
                return
            inb = inb[end:]
        self.inb = inb

    def _packet(self, packet, body, now):
        """Handle one whole packet (its body from byte `body`); False when it dropped the
        connection."""
        op = packet[0] & 0xF0
        c = self.client
        if op == 0x30 or op == 0xD0:   # PUBLISH (the hall's ack) or PINGRESP: umqtt's reader
            if op == 0x30 and packet[0] & 6 == 4:
                self._drop(now, "a QoS 2 message from the broker")
                return False
            w = c.sock
            w.data = packet
            w.at = 0
            try:
                c.wait_msg()
            except (IndexError, AssertionError):
                self._drop(now, "a malformed packet from the broker")
                return False
            return True
        if op == 0x40:   # PUBACK: the broker has a line (the hall's ack says delivered)
            return True
        if op == 0x20 and self.state == _CONNACK and len(packet) == 4:
            if packet[3]:
                self.refused = packet[3]
                if self.tell:
                    self.tell("r %d" % packet[3])
                self._drop(now, "refused")
                return False
            self.refused = None
            self.cursor.connected()
            self.sub_pid = c.subscribe(self.ack_topic, 1)
            self.state = _SUBACK
            self.since = now
            if self.tell:
                self.tell("c")
            return True
        if op == 0x90 and self.state == _SUBACK and len(packet) == 5:
            if packet[2] << 8 | packet[3] != self.sub_pid or packet[4] & 0x80:
                if self.tell:
                    self.tell("s")
                self._drop(now, "the broker refused the subscription")
                return False
            self.state = _UP
            self.since = now
            self.backoff = _BACKOFF_MS
            return True
        self._drop(now, "an unexpected packet 0x%02x from the broker" % packet[0])
        return False

    def _message(self, topic, msg):
        """umqtt's callback: the hall's acknowledgement; anything else is counted and left."""
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

    # --- the journal -------------------------------------------------------------------------

    def _lines(self, now):
        cursor = self.cursor
        if cursor.boot is None and ticks.diff(now, self.since) > _FIRST_ACK_MS:
            cursor.ack("", None, 0, now)   # "": no hall's start known; its first ack rewinds
        if cursor.stalled(now, ticks.diff):
            self.stalls += 1
            if self.stalls >= _STALLS:
                self._drop(now, "no acknowledgement from the hall")
                return
        if cursor.resting(now, ticks.diff):
            return
        for _ in range(_LINES):
            if self.client.sock.out:   # the packet before is not all on its way yet
                return
            item = cursor.next(now)
            if item is None:
                return
            self.client.publish(self.journal_topic, message(item).encode(), False, 1)
            self.sent += 1
            self._write(now)


def build(hw, app):
    """The link of the app whose flash holds hall.json (box.runtime.start calls it; `build`,
    a name the box has already: no new string in its heap); settings that are not right: one
    line on USB (hw.emit) and None, the box plays on without a link."""
    try:
        return link(hw, app.journal)
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
                getattr(hw, "tell", None))
