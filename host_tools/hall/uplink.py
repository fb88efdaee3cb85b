"""The host's side of a box's uplink: the box's settings for the hall, and how far the hall
has got with a simulated box's journal.

The uplink itself is the firmware's (box.uplink's Cursor, carried by box.mqtt_link, the
box's own MQTT client); on a Pico W it runs over Wi-Fi, in the simulator under the unix
port, which tells the host what it learns in `@u` lines (VBox.link). This module writes the settings file the box
reads (`hall.json`: the broker, the box's account, the Wi-Fi network), reads a flash folder's
games as the cursor sends them (`Flash`), and waits until the hall has acknowledged every
line (`deliver`, for `matchbox sim --uplink`).
"""
import base64
import json
import os
import time

from host_tools import files
from host_tools.hall import protocol

HEADER_LINES = 6
POLL_S = 0.02        # wall time between two looks at the box while waiting for the hall
STEP_MS = 20         # the box's time let pass each look (its link runs on the wall clock)
SETTINGS = "hall.json"
# CONNACK's refusal codes (MQTT 3.1.1), in the words paho-mqtt uses
REFUSALS = {1: "Unsupported protocol version", 2: "Client identifier not valid",
            3: "Server unavailable", 4: "Bad user name or password", 5: "Not authorized"}


def _complete_lines(path):
    """The whole lines of a file (newline dropped); a torn last line is not one yet."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    end = data.rfind(b"\n") + 1
    return [raw.decode("utf-8", "replace") for raw in data[:end].split(b"\n")[:-1]]


class Flash:
    """The games on a box's flash folder, in the box's order, with their ids."""

    def __init__(self, flash):
        self.games = os.path.join(flash, "games")
        self.journal = b""   # the name of the journal's id file, as last listed

    def list(self):
        """[(game id, lines, final)] oldest first: archived games (final) then the current
        one. A current game whose header (six lines) is not complete yet is left out."""
        archive = os.path.join(self.games, "archive")
        numbers = []
        try:
            self.journal = max([n.encode() for n in os.listdir(self.games)
                                if n.startswith("id-")] or [b""])
        except OSError:
            self.journal = b""
        try:
            for name in os.listdir(archive):
                if name.startswith("game-") and name.endswith(".txt") and name[5:-4].isdigit():
                    numbers.append(int(name[5:-4]))
        except OSError:
            pass
        out = []
        for number in sorted(numbers):
            lines = _complete_lines(os.path.join(archive, "game-%03d.txt" % number))
            if lines:
                out.append((self._id(number, lines), lines, True))
        lines = _complete_lines(os.path.join(self.games, "current.txt"))
        if lines and len(lines) >= HEADER_LINES:
            out.append((self._id(max(numbers, default=0) + 1, lines), lines, False))
        return out

    def _id(self, number, lines):
        return protocol.game_id(number, "".join(l + "\n" for l in lines[:HEADER_LINES]).encode(),
                                self.journal)


def check_url(url, what="--uplink", ca=None):
    """The URL of a box's account (`--uplink`, `uplink URL`), or MatchboxError saying what is
    wrong with it: plain MQTT only to this computer (127.0.0.1), mqtts:// (TLS) only with the
    hall's CA (`ca`, a file)."""
    from host_tools.errors import MatchboxError
    from host_tools.hall import certs
    try:
        host = protocol.parse_url(url)[0]
    except protocol.ProtocolError as exc:
        raise MatchboxError(what, str(exc)) from None
    if protocol.is_tls(url) and ca is None:
        raise MatchboxError(what, "mqtts:// is checked against the hall's CA: give its "
                            "certificate (the hall's tls/ca.pem)")
    if not protocol.is_tls(url) and not certs.loopback(host):
        raise MatchboxError(what, "plain MQTT only to this computer (127.0.0.1): a hall on the "
                            "room's network speaks mqtts:// (the URL `hall enrol --host %s` "
                            "prints)" % host)
    return url


def read_ca(path, what):
    """The DER bytes of the CA certificate file `path` (certs.read_ca), or MatchboxError."""
    from host_tools.errors import MatchboxError
    from host_tools.hall import certs
    try:
        return certs.read_ca(path)
    except certs.CertError as exc:
        raise MatchboxError(what, str(exc)) from None


def settings(url, ssid=None, wifi_password=None, ca=None):
    """The box's hall.json (box.mqtt_link.load reads it) for the URL `hall enrol` prints; an
    mqtts:// URL (TLS) needs `ca`, the hall's CA certificate (DER), which the box checks the
    broker's certificate against (carried as base64)."""
    host, port, box, password = protocol.parse_url(url)
    data = {"host": host, "port": port, "box": box, "password": password}
    if protocol.is_tls(url):
        if ca is None:
            raise protocol.ProtocolError("an mqtts:// URL needs the hall's CA certificate")
        data["ca"] = base64.b64encode(ca).decode()
    if ssid is not None:
        data["ssid"] = ssid
        data["wifi_password"] = wifi_password or ""
    return data


def write_settings(path, data):
    """Write hall.json (mode 0600: it holds the box's password and the Wi-Fi's), replacing
    what was there."""
    files.write_whole(path, json.dumps(data, separators=(",", ":")) + "\n", mode=files.PRIVATE)


def delivered(box, flash):
    """Whether the hall, heard from on the box link's connection, has acknowledged every
    whole line of the flash's journal (with no journal: whether the broker took the box)."""
    link = box.link
    games = Flash(flash).list()
    if not games:
        return link["connected"]
    if link["hall"] is None:
        return False
    game, lines, _ = games[-1]
    return link["acked"] == (game, len(lines))


def progress(box, flash):
    """How far the hall has got, in words."""
    games = Flash(flash).list()
    total = sum(len(lines) for _, lines, _ in games)
    acked = box.link["acked"]
    if acked is None or acked[0] is None:
        done = "nothing acknowledged" if acked else "no acknowledgement from the hall"
    else:
        done = "the hall has line %d of game %s" % (acked[1], acked[0])
    return "%s; the journal has %d line%s in %d game%s" % (
        done, total, "" if total == 1 else "s", len(games), "" if len(games) == 1 else "s")


def pump(box, check, timeout):
    """Let the box run (its link steps in its main loop) until check() or timeout seconds;
    returns check()'s last value."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value or time.monotonic() > deadline or not box.on:
            return value
        box.advance(STEP_MS)
        time.sleep(POLL_S)


def deliver(box, flash, url, timeout):
    """Run the box until the hall has acknowledged every journal line; after `timeout`
    seconds, or when the broker refuses the box's account, MatchboxError saying how far it
    got."""
    from host_tools.errors import MatchboxError
    name = protocol.parse_url(url)[2]
    refused = []

    def done():
        if delivered(box, flash):
            return True
        code = box.link["refused"]
        if code is not None and not box.link["connected"]:
            refused.append(code)
            return True
        why = box.link["why"] or ""
        if "certificate" in why and not box.link["connected"]:   # mbedTLS's refusal
            refused.append(why)
            return True
        return False
    ok = pump(box, done, timeout)
    if refused and isinstance(refused[-1], str):
        raise MatchboxError("--uplink", "the box refused the broker's certificate (%s): is "
                            "--uplink-ca the CA of this hall, and the URL's host a name its "
                            "certificate carries?" % refused[-1])
    if refused:
        raise MatchboxError("--uplink", "the broker refused box %r: %s" % (
            name, REFUSALS.get(refused[-1], "code %d" % refused[-1])))
    if not ok:
        why = box.link["why"]
        raise MatchboxError("--uplink", "not all delivered after %g s: %s%s" % (
            timeout, progress(box, flash), "; the box's last connection: %s" % why
            if why and not box.link["connected"] else ""))
