"""What the boxes and the hall say to each other over MQTT (docs/hall-reference.md#protocol).

    matchbox/BOX/journal   box -> hall, QoS 1: one journal line
        {"game": "003-1a2b3c4d", "seq": 7, "line": "1: play 6  #~729a", "prev": null}
    matchbox/BOX/ack       hall -> box, QoS 1, retained: the hall has stored every line of
                           the box's games up to and including `seq` of `game`
        {"hall": "BOOT", "game": "003-1a2b3c4d", "seq": 7}

A game's id is its number on the box (the number its record gets in games/archive/, the
current game's one more than the highest archived) and the CRC-32 of its first six lines (its
header), begun from the CRC of the name of the journal's id file when the box has one
(games/id-XXXXXXXX, drawn when its game 001 began), so that a box whose flash was wiped,
numbering again from 001, does not continue an old game, nor take its id (the same setup
makes the same header). `seq` is the line's number in the record (1 = the first line, as the checksum tags
count). The first line of a game names the game before it on the box and that game's length
(`"prev": ["002-...", 40]`): the hall stores a new game only once it has the one before whole.
A line 1 sent because the box has fewer lines of the game than the hall acknowledged (its
record rewritten, every line it kept the same) says so: `"over": 40`, the hall's acknowledged
count it replaces; the hall then sets its copy aside and takes the game again from it.
`hall` in an ack changes each time the hall starts: a box that sees a new one sends again from
the ack. Every message is checked field by field; anything else is refused with a reason.
"""
import ipaddress
import json
import re
import urllib.parse
import zlib

ROOT = "matchbox"
MAX_PAYLOAD = 1024
MAX_PACKET = 2 * MAX_PAYLOAD   # both brokers close a connection sending a longer MQTT packet
MAX_LINE = 199          # a record line's text, without its newline (docs/notation.md)
GAME = re.compile(r"^[0-9]{3,6}-[0-9a-f]{8}\Z")
# A host name: labels of letters, digits, _ and - (not at either end) joined by dots (at most
# 253 characters, check_host counts), a final dot allowed
_LABEL = r"[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?"
HOST_NAME = re.compile(r"%s(?:\.%s)*\.?\Z" % (_LABEL, _LABEL))


class ProtocolError(ValueError):
    """A message or a URL that is not what the protocol says; the text says why."""


def client(client_id, user, password, owner, clean_session=True, tls=None):
    """A paho-mqtt client logged in as user, its callbacks the owner's _on_connect,
    _on_disconnect and _on_message, reconnecting every 1-2 s when the broker is away; over
    TLS when `tls` is an ssl.SSLContext (host_tools.hall.certs.client_context)."""
    import paho.mqtt.client as mqtt
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id,
                    clean_session=clean_session)
    if tls is not None:
        c.tls_set_context(tls)
    c.username_pw_set(user, password)
    c.reconnect_delay_set(1, 2)
    c.on_connect = owner._on_connect
    c.on_disconnect = owner._on_disconnect
    c.on_message = owner._on_message
    return c


def journal_topic(box):
    return "%s/%s/journal" % (ROOT, box)


def ack_topic(box):
    return "%s/%s/ack" % (ROOT, box)


def setup_topic(box):
    """hall -> box, retained: the box's table's setup in the round being played (docs/event.md)."""
    return "%s/%s/setup" % (ROOT, box)


def box_of(topic, kind):
    """The box of a topic `matchbox/BOX/KIND`, or None."""
    parts = topic.split("/")
    if len(parts) == 3 and parts[0] == ROOT and parts[2] == kind and parts[1]:
        return parts[1]
    return None


def game_id(number, header, journal=b""):
    """The id of game `number` whose record starts with the bytes `header` (six lines), in the
    journal whose id file is named `journal` (b"": a journal without one)."""
    return "%03d-%08x" % (number, zlib.crc32(header, zlib.crc32(journal)) & 0xFFFFFFFF)


def game_number(game):
    return int(game.split("-")[0])


def line_message(game, seq, line, prev=None, over=None):
    message = {"game": game, "seq": seq, "line": line, "prev": prev}
    if over:
        message["over"] = over
    return json.dumps(message, separators=(",", ":")).encode()


def _check_game(game, what="game"):
    if not isinstance(game, str) or not GAME.match(game):
        raise ProtocolError("%s is not a game id (NNN-crc32)" % what)
    return game


def _check_seq(seq, low=1, what="seq"):
    if type(seq) is not int or not low <= seq <= 10 ** 7:
        raise ProtocolError("%s is not a line number" % what)
    return seq


def _object(payload):
    if len(payload) > MAX_PAYLOAD:
        raise ProtocolError("more than %d bytes" % MAX_PAYLOAD)
    try:
        message = json.loads(bytes(payload).decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise ProtocolError("not JSON") from None
    if not isinstance(message, dict):
        raise ProtocolError("not a JSON object")
    return message


def read_line_message(payload):
    """(game, seq, line, prev, over) of a journal message; ProtocolError says what is
    wrong."""
    message = _object(payload)
    game = _check_game(message.get("game"))
    seq = _check_seq(message.get("seq"))
    line = message.get("line")
    if not isinstance(line, str) or len(line.encode("utf-8", "replace")) > MAX_LINE:
        raise ProtocolError("line is not a record line of at most %d bytes" % MAX_LINE)
    if any(ch < " " and ch != "\t" or "\x7f" <= ch <= "\x9f" or "\ud800" <= ch <= "\udfff"
           for ch in line):
        raise ProtocolError("line holds a control character")
    prev = message.get("prev")
    if prev is not None:
        if not isinstance(prev, list) or len(prev) != 2:
            raise ProtocolError("prev is not [game, lines]")
        prev = (_check_game(prev[0], "prev's game"), _check_seq(prev[1], 0))
    over = message.get("over")
    if over is not None:
        _check_seq(over, 1, "over")
        if seq != 1:
            raise ProtocolError("over comes with line 1 only")
    return game, seq, line, prev, over


def ack_message(boot, game, seq):
    return json.dumps({"hall": boot, "game": game, "seq": seq}, separators=(",", ":")).encode()


def read_ack(payload):
    """(boot, game or None, seq) of an acknowledgement; ProtocolError when it is not one."""
    message = _object(payload)
    boot = message.get("hall")
    if not isinstance(boot, str) or not boot:
        raise ProtocolError("no hall id")
    game = message.get("game")
    if game is None:
        return boot, None, 0
    return boot, _check_game(game), _check_seq(message.get("seq"), 0)


PORTS = {"mqtt": 1883, "mqtts": 8883}   # MQTT's registered ports, plain and over TLS


def is_tls(url):
    """Whether an URL parse_url takes is MQTT over TLS (mqtts://)."""
    return url.lower().startswith("mqtts://")


def check_host(host):
    """host when it is a host name or an IP address (IPv6 without brackets or a zone), else
    ProtocolError saying so: nothing else may go into a URL, a box's settings or a broker's
    configuration (no / ? # @, blanks, line breaks or other control characters)."""
    if isinstance(host, str) and "%" not in host:
        try:
            ipaddress.ip_address(host)
            return host
        except ValueError:
            if HOST_NAME.match(host) and len(host.rstrip(".")) <= 253:
                return host
    raise ProtocolError("%r is not a host name or an IP address" % (host,))


def _port(host_port, default):
    """The port of a URL's HOST[:PORT] (`default` when it names none), or ProtocolError: 0, a
    number past 65535 or anything not a number is no port (never taken as 1883)."""
    after = host_port.rpartition("]")[2] if host_port.startswith("[") else host_port
    if ":" not in after or not after.partition(":")[2]:
        return default
    text = after.partition(":")[2]
    if re.fullmatch(r"[0-9]{1,5}", text) and 1 <= int(text) <= 65535:
        return int(text)
    raise ProtocolError("not an mqtt:// URL: its port %s is not one of 1 to 65535" % (
        int(text) if re.fullmatch(r"[0-9]+", text) else repr(text)))


def parse_url(url, need_account=True):
    """(host, port, user, password) of `mqtt://[USER:PASSWORD@]HOST[:PORT]` (mqtts://: over
    TLS, is_tls); ProtocolError says what is wrong."""
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError as exc:
        raise ProtocolError("not an mqtt:// URL (%s)" % exc) from None
    if parts.scheme not in PORTS or not parts.hostname:
        raise ProtocolError("not an mqtt://HOST:PORT URL")
    try:
        check_host(parts.hostname)
    except ProtocolError as exc:
        raise ProtocolError("not an mqtt:// URL: %s" % exc) from None
    port = _port(parts.netloc.rpartition("@")[2], PORTS[parts.scheme])
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise ProtocolError("an mqtt:// URL has no path, query or fragment")
    user = urllib.parse.unquote(parts.username) if parts.username else None
    password = urllib.parse.unquote(parts.password) if parts.password else None
    if need_account and not (user and password):
        raise ProtocolError("no box name and password in it (mqtt://BOX:PASSWORD@HOST:PORT, "
                            "as `matchbox hall enrol` prints it)")
    return parts.hostname, port, user, password
