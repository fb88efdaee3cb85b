"""What the box writes of a game: the lines of a record (canonical header and action lines,
and the journal's checksum tags) and the state line, its snapshot as JSON (`to_json`, written
by hand so that CPython and MicroPython print byte-identical output: MicroPython's dicts do not
keep insertion order). This is the part of the notation the box keeps while a game is
played; tycoon.notation (the one reader of a record, which offers everything here too) is
imported only to read one, and the box lets it go once it has read its journal at boot.
"""
from tycoon.cards import char
from tycoon.game import PLAY, PASS

HEADERS = ("players", "dealer", "expansion", "revolution", "sticks", "hands")


# The CRC of each 4-bit value: two look-ups a byte instead of eight shifts (resuming a long
# journal on a Pico spends most of its time here), for 16 small ints of heap.
_NIBBLE = (0x0000, 0x1021, 0x2042, 0x3063, 0x4084, 0x50A5, 0x60C6, 0x70E7,
           0x8108, 0x9129, 0xA14A, 0xB16B, 0xC18C, 0xD1AD, 0xE1CE, 0xF1EF)


def crc16(data, crc=0xFFFF):
    """CRC-16/CCITT-FALSE (polynomial 0x1021) of bytes, continuing from `crc`."""
    t = _NIBBLE
    for byte in data:
        crc = ((crc << 4) & 0xFFFF) ^ t[(crc >> 12) ^ (byte >> 4)]
        crc = ((crc << 4) & 0xFFFF) ^ t[(crc >> 12) ^ (byte & 15)]
    return crc


def tagged(index, text):
    """The journal line (bytes, newline-terminated) for `text` as line `index` (from 1). The
    checksum covers the line index too, with a separator, so a line moved elsewhere fails."""
    return ("%s  #~%04x\n" % (text, crc16(("%d|%s" % (index, text)).encode()))).encode()


def header_text(game):
    """The canonical header lines of a game, newline-terminated, in the order of HEADERS."""
    values = (game.players, game.dealer, game.expansion, game.revolution_size, game.total_sticks,
              " ".join(map(str, game.hands)))
    text = ""
    for i in range(6):
        text += "%s %s\n" % (HEADERS[i], values[i])
    return text


def action_text(kind, seat, faces=(), value=-1, explicit=False):
    """One canonical action line, newline-terminated: '2: play 6 9 as 9'."""
    if kind == PLAY:
        text = "%d: play %s" % (seat, " ".join(map(char, faces)))
        if explicit:
            text += " as " + char(value)
        return text + "\n"
    return "%d: %s\n" % (seat, "pass" if kind == PASS else "return")


def to_json(game):
    """One line of JSON: the schema of `matchbox replay --json` (see docs/notation.md)."""
    if game is None:
        return "null"
    table = game.table
    if table is None:
        table_json = "null"
    else:
        table_json = '{"value": "%s", "count": %d, "seat": %d, "sticks": %d}' % (
            char(table[0]), table[1], table[2], table[3])
    seats = []
    for i in range(game.players):
        seats.append('{"seat": %d, "cards": %d, "sticks": %d, "rank": %s}' % (
            i + 1, game.cards[i], game.sticks[i], game.ranks[i] or "null"))
    return ('{"players": %d, "turn": %s, "table": %s, "revolution": %s, "strongest": "%s", '
            '"seats": [%s], "supply": %d, "finished": %s, "ranking": [%s]}') % (
        game.players, game.turn or "null", table_json,
        "true" if game.revolution else "false", char(game.strongest()),
        ", ".join(seats), game.supply(), "true" if game.finished else "false",
        ", ".join(map(str, game.ranking)))
