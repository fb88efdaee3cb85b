"""`matchbox uplink URL [--ca FILE] [--port SERIAL|auto] [--timeout S]`: a box without radio
reaches the hall over USB (docs/hall.md).

The bridge on a computer beside the box: it logs in to the hall's broker as the box (the
account of the URL `matchbox hall enrol` printed), forwards the hall's acknowledgements to the
box's USB serial and the journal lines the box answers with (box.usb_link) to the broker, one
QoS 1 message each (host_tools.hall.protocol); to a hall on the room's network over TLS
(`mqtts://`, the broker checked against the hall's CA, `--ca`, before anything else: a
certificate refused is one line). It keeps nothing: the box's journal and its
cursor (box.uplink) are the truth, and after a restart of either side the box sends again from
the hall's acknowledgement. Lines the box sends while the broker is away, or before it has
answered this connection's hello, are dropped (the box sends them again); so nothing queues up
here.

The USB lines (box.usb_link): to the box `hall hello`, `hall ack {...}`, `hall ping`; from it
`hall ready`, `hall pong 0|1`, `hall line {...}`, `hall error: ...`. Other lines from the box (the
state lines `matchbox watch` reads, the REPL) are skipped. Exit status: 130 on Ctrl-C, 143 on
SIGTERM, 2 for a URL, port or broker that does not serve (host_tools.errors).
"""
import queue
import time

import serial

from host_tools import files
from host_tools.commands import watch
from host_tools.device.serial_board import BoardError, find_pico
from host_tools.errors import MatchboxError, seconds_in
from host_tools.hall import protocol

FIRST_ACK_S = 1.0    # connected and no acknowledgement for this long: the hall has none yet
PING_S = 1.0         # nothing heard from the box for this long: ask whether it is there
ACK_GAP_S = 0.1      # the hall's acknowledgements go to the box at most this often, the
                     # latest one (the box reads its USB serial a few bytes a pass)
MAX_BOX_LINE = 4096  # a line from the box longer than this is noise (a journal line is < 1.2 KB)
MAX_TO_BOX = 160     # box.usb_link.MAX_IN: the longest line the box reads
NO_ACK = "none"      # the hall id of the acknowledgement the bridge gives when the hall has none


def add_arguments(parser):
    parser.add_argument("url", metavar="URL",
                        help="the box's account on the hall's broker, "
                             "mqtt[s]://BOX:PASSWORD@HOST:PORT as `matchbox hall enrol` prints it")
    parser.add_argument("--port", default="auto",
                        help="serial port of the box (default: auto, the one Pico running "
                             "MicroPython, told by its USB ids)")
    parser.add_argument("--ca", metavar="FILE",
                        help="with an mqtts:// URL (a hall on the room's network): the hall's "
                             "CA certificate (its tls/ca.pem), which the broker is checked against")
    parser.add_argument("--timeout", type=seconds_in(0, 3600), default=15.0, metavar="S",
                        help="seconds to wait for the broker to take the box and for the box "
                             "to answer (default %(default)s)")


def run(args):
    from host_tools.hall import certs, uplink
    uplink.check_url(args.url, "URL", args.ca)
    host, port, box, password = protocol.parse_url(args.url)
    scheme = "mqtts" if protocol.is_tls(args.url) else "mqtt"
    shown = "%s://%s@%s:%d" % (scheme, box, host, port)
    tls = None
    if scheme == "mqtts":
        tls = certs.client_context(cadata=uplink.read_ca(args.ca, "--ca"))
        why = certs.refusal(host, port, tls, args.timeout)
        if why:
            raise MatchboxError(shown, why)
    try:
        device, picked = args.port, ""
        if not device or device == "auto":   # by its USB ids alone, as watch: the box runs on
            device = find_pico("Matchbox")
            picked = ", the one Pico running MicroPython plugged in"
        ser = watch._open(device)
    except BoardError as exc:
        raise MatchboxError("", str(exc)) from None
    bridge = Bridge(ser, device, box, password, host, port, shown, args.timeout, tls)
    args.serving = True    # Ctrl-C, the way to stop it, is said `stopped` (cli)
    say("carrying the journal of the box on %s%s to the hall at %s (Ctrl-C to stop)"
        % (device, picked, shown))
    try:
        bridge.run()
    finally:
        bridge.close()
        say(bridge.summary())
    return 0


def say(text):
    print("uplink: " + text, flush=True)


class Bridge:
    """One box's serial port and its account on the broker, carried both ways."""

    def __init__(self, ser, device, box, password, host, port, shown, timeout, tls=None):
        self.ser = ser
        self.device = device
        self.box = box
        self.shown = shown
        self.timeout = timeout
        self.inbox = queue.Queue()     # ("connect", reason) / ("ack", (boot, game, seq)) /
                                       # ("disconnect", None) from the client's thread
        self.connected = False
        self.connected_at = 0.0
        self.refused = None
        self.ack = None                # (boot, game, seq): the hall's last acknowledgement
        self.heard = None              # monotonic time of the box's last `hall` line
        self.pinged = 0.0
        self.ready = False             # the box answered hello on this connection
        self.sent = 0                  # journal lines published
        self.dropped = 0               # journal lines the box sent while the broker was away
                                       # (or before it answered this connection's hello)
        self.shown_ack = None
        self.ack_due = False           # an acknowledgement not yet passed on to the box
        self.ack_sent = 0.0            # when the last one was
        self.client = protocol.client("box-" + box, box, password, self, tls=tls)
        self.client.connect_async(host, port, keepalive=10)
        self.client.loop_start()

    # --- the broker's side (the client's thread: only queues) --------------------------------

    def _on_connect(self, client, userdata, flags, reason, properties):
        if reason.is_failure:
            self.inbox.put(("refused", str(reason)))
            return
        client.subscribe(protocol.ack_topic(self.box), qos=1)
        self.inbox.put(("connect", None))

    def _on_disconnect(self, client, userdata, flags, reason, properties):
        self.inbox.put(("disconnect", str(reason)))

    def _on_message(self, client, userdata, message):
        try:
            self.inbox.put(("ack", protocol.read_ack(message.payload)))
        except protocol.ProtocolError as exc:
            self.inbox.put(("bad-ack", str(exc)))

    # --- the loop (main thread) --------------------------------------------------------------

    def run(self):
        started = time.monotonic()
        buf = b""
        while True:
            self._events()
            now = time.monotonic()
            if self.ack_due and now - self.ack_sent >= ACK_GAP_S:
                self._ack_to_box(now)
            if not self.connected and now - started > self.timeout:
                raise MatchboxError(self.shown, self.refused and "the broker refused box %r: %s"
                                    % (self.box, self.refused) or
                                    "the broker did not take box %r within %g s" % (
                                        self.box, self.timeout))
            if self.refused and not self.connected and self.ack is None:
                raise MatchboxError(self.shown, "the broker refused box %r: %s" % (
                    self.box, self.refused))
            if self.connected:
                if self.ack is None and now - self.connected_at > FIRST_ACK_S:
                    # the hall has no line of this box yet: it starts from its oldest game
                    self._got_ack((NO_ACK, None, 0))
                quiet = now - (self.heard or self.connected_at)
                if quiet > PING_S and now - self.pinged > PING_S:
                    self.pinged = now
                    self._to_box("hall ping")
                if self.heard is None and now - self.connected_at > self.timeout:
                    raise MatchboxError(self.device, "the box did not answer in %g s: is the "
                                        "Matchbox firmware running (not stopped at the REPL, "
                                        "nor in maintenance mode)?" % self.timeout)
            try:
                data = self.ser.read(self.ser.in_waiting or 1)
            except (serial.SerialException, OSError) as exc:
                raise MatchboxError(self.device, "the port went away (%s): the box was reset "
                                    "or unplugged; start `matchbox uplink` again once it is "
                                    "back" % (getattr(exc, "strerror", None) or exc)) from None
            if not data:
                continue
            lines, _, buf = files.whole_lines(buf + data, MAX_BOX_LINE)
            for line in lines:
                self._from_box(line)

    def _events(self):
        while True:
            try:
                kind, value = self.inbox.get_nowait()
            except queue.Empty:
                return
            if kind == "connect":
                self.connected = True
                self.connected_at = time.monotonic()
                self.refused = None
                self.ack = None   # the hall's retained acknowledgement comes again
                self.ready = False
                say("logged in to the broker as %s" % self.box)
                self._to_box("hall hello")
            elif kind == "disconnect":
                if self.connected:
                    say("lost the broker (%s); connecting again" % value)
                self.connected = False
            elif kind == "refused":
                self.refused = value
            elif kind == "bad-ack":
                say("dropped an acknowledgement from the hall: %s" % value)
            elif kind == "ack":
                self._got_ack(value)

    def _got_ack(self, ack):
        self.ack = ack
        self.ack_due = True
        boot, game, seq = ack
        if game is not None and (game, seq) != self.shown_ack:
            self.shown_ack = (game, seq)
            say("the hall has line %d of game %s" % (seq, game))
        elif game is None and boot != NO_ACK:
            say("the hall has no line of box %s yet" % self.box)

    def _ack_to_box(self, now):
        self.ack_due = False
        self.ack_sent = now
        self._to_box("hall ack " + protocol.ack_message(*self.ack).decode())

    def _to_box(self, text):
        data = text.encode() + b"\n"
        if len(data) - 1 > MAX_TO_BOX:
            say("not sent to the box (more than %d bytes): %s" % (MAX_TO_BOX, text[:60]))
            return
        try:
            self.ser.write(data)
        except (serial.SerialException, OSError) as exc:
            raise MatchboxError(self.device, "the port went away (%s)" % (
                getattr(exc, "strerror", None) or exc)) from None

    def _from_box(self, raw):
        if not raw.startswith(b"hall "):
            return   # a state line for `matchbox watch`, the REPL: not ours
        text = raw[5:].decode("utf-8", "replace")
        self.heard = time.monotonic()
        if text == "ready":
            if not self.ready:
                say("the box is ready")
            self.ready = True
            if self.ack is not None:
                self._ack_to_box(time.monotonic())
        elif text.startswith("pong "):
            if text != "pong 1" and self.connected:   # a box that started again: say hello
                self._to_box("hall hello")
        elif text.startswith("line "):
            try:
                game, seq, line, prev, over = protocol.read_line_message(raw[10:])
            except protocol.ProtocolError as exc:
                say("dropped a line from the box: %s" % exc)
                return
            if not (self.connected and self.ready):   # before the box's answer to this
                self.dropped += 1                      # connection's hello: sent for an
                return                                 # earlier one, and sent again
            self.client.publish(protocol.journal_topic(self.box),
                                protocol.line_message(game, seq, line,
                                                      list(prev) if prev else None, over),
                                qos=1)
            self.sent += 1
        elif text.startswith("error: "):
            say("the box dropped a line: %s" % text[7:])

    def summary(self):
        if self.shown_ack:
            where = "the hall has line %d of game %s" % (self.shown_ack[1], self.shown_ack[0])
        else:
            where = "no line of the box acknowledged by the hall"
        return "%d journal line%s carried to the broker; %s" % (
            self.sent, "" if self.sent == 1 else "s", where)

    def close(self):
        try:
            self.client.disconnect()
            self.client.loop_stop()
        except Exception:  # closing on the way out: nothing more to do about it
            pass
        try:
            self.ser.close()
        except (serial.SerialException, OSError):
            pass
