"""A line of a record: its grammar (parse_line), its checksum tag (untag) and what is wrong
with it (NotationError), shared by the record reader (tycoon.notation) and the repair of a
damaged line (tycoon.repair), which import it; it imports neither. The grammar: docs/notation.md.
"""
from array import array

from tycoon.cards import const, parse_char
from tycoon.game import PLAY, PASS, RETURN
from tycoon.writer import _NIBBLE, HEADERS

UNDO = const(3)     # the journal's 'undo' line: takes back the last action
LIMIT = const(200)  # bytes in a line, its newline included
DIGITS = const(4)   # digits in a number at most

# Messages, numbered: on MicroPython one long string takes much less heap than a dozen
# string constants, and a message is only spelled out when a line is refused. The reader's
# own (a header, the record as a whole) are tycoon.notation's.
_MESSAGES = const("bad number '%s'|'%s' is not a card|seat %d: with no action|"
                  "a seat prefix goes only before an action|unexpected '%s' after %s|"
                  "unknown word '%s'|'as' needs a value|play needs at least one card|"
                  "character U+%04X outside a comment|number '%s...' longer than %d digits|"
                  "damaged checksum tag|line without a checksum tag after a tagged line")
_BAD_NUMBER = const(0)
_NOT_A_CARD = const(1)
_SEAT_ALONE = const(2)
_SEAT_ON_HEADER = const(3)
_UNEXPECTED = const(4)
_UNKNOWN_WORD = const(5)
_AS_ALONE = const(6)
_NO_CARDS = const(7)
_CHARACTER = const(8)
_BIG_NUMBER = const(9)
_BAD_TAG = const(10)
_UNTAGGED = const(11)


class NotationError(Exception):
    """A line that is not valid notation. `message` says what is wrong (a number: one of
    this module's messages, filled in with `args`)."""

    def __init__(self, message, *args):
        if isinstance(message, int):
            message = _MESSAGES.split("|")[message] % args
        super().__init__(message)
        self.message = message


def number(text):
    """The int a number of the notation is (ASCII digits, at most DIGITS); NotationError else."""
    # ASCII digits only (CPython's isdigit() also accepts the likes of '²'): stripping the
    # digits off both ends leaves nothing only when every character is a digit
    if not text or text.strip("0123456789"):
        raise NotationError(_BAD_NUMBER, text)
    if len(text) > DIGITS:
        raise NotationError(_BIG_NUMBER, text[:DIGITS + 2], DIGITS)
    return int(text)


def utf8(raw, end):
    """True when raw[:end] is well-formed UTF-8 (no overlong forms, surrogates or values
    past U+10FFFF), the verdict CPython's strict decode gives."""
    i = 0
    while i < end:
        b = raw[i]
        i += 1
        if b < 0x80:
            continue
        if 0xC2 <= b <= 0xDF:
            n, lo, hi = 1, 0x80, 0xBF
        elif 0xE0 <= b <= 0xEF:
            n, lo, hi = 2, 0xA0 if b == 0xE0 else 0x80, 0x9F if b == 0xED else 0xBF
        elif 0xF0 <= b <= 0xF4:
            n, lo, hi = 3, 0x90 if b == 0xF0 else 0x80, 0x8F if b == 0xF4 else 0xBF
        else:
            return False
        if i + n > end or not lo <= raw[i] <= hi:
            return False
        for k in range(i + 1, i + n):
            if not 0x80 <= raw[k] <= 0xBF:
                return False
        i += n
    return True


# --- checksum tags ------------------------------------------------------------------------------

# Resuming checks the tag of every line after the resume snapshot: here a look-up a byte does in
# half the time what the writer's nibble table does in two. The table (256 CRCs, 512 bytes, let
# go with the reader) is made at import from the writer's: a CRC is linear, so the CRC of byte
# hi lo is that of hi 0 xor that of lo (the nibble table's entry); the inner loop is one xor an
# entry (about 2 ms on the emulated Pico, against 5 ms for the writer's two steps an entry; a
# table written out as a constant costs the .mpy 512 bytes).
def _byte_table():
    t = array("H", bytes(512))
    n = _NIBBLE
    i = 0
    for hi in range(16):
        c = n[hi]
        c = ((c << 4) & 0xFFFF) ^ n[c >> 12]   # crc16(bytes((hi << 4,)), 0)
        for lo in n:
            t[i] = c ^ lo
            i += 1
    return t


_BYTE = _byte_table()


def _crc16(data, crc=0xFFFF):
    """crc16 (tycoon.writer) by the byte table."""
    t = _BYTE
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ t[(crc >> 8) ^ byte]
    return crc


def untag(text, index, strict=0):
    """(text without its tag, whether it had one) for line `index`. A tag is `  #~hhhh` at the
    very end and must match; `#~` elsewhere or a tag-shaped ending with another character than
    `~` is damage; with `strict` (a tagged line came before) a line must have a tag unless
    it is empty."""
    n = len(text)
    at = text.find("#~")
    if at >= 0:   # the line must be exactly what the writer makes of its text at this index
        body = text[:n - 8]
        if at != n - 6 or text[n - 8:n - 6] != "  " \
                or text[n - 4:] != "%04x" % _crc16(("%d|%s" % (index, body)).encode()):
            raise NotationError(_BAD_TAG)
        return body, True
    if n >= 8 and text[n - 8:n - 5] == "  #" and not text[n - 4:].strip("0123456789abcdef"):
        raise NotationError(_BAD_TAG)
    if strict and n:   # an empty line is no risk: damage cannot make one from a tagged line
        raise NotationError(_UNTAGGED)
    return text, False


# --- lines ---------------------------------------------------------------------------------------

def parse_line(line):
    """Parse one line of text. Returns None (blank or comment), ("header", key, args, None),
    ("action", kind, (faces, value), seat) with seat None when no prefix is given, or
    ("undo", UNDO, ((), None), None)."""
    # 'S: pass' and 'S: return', most lines of a long journal, the short way (resuming on a
    # Pico reads every line): what the general path below gives them, in fewer steps.
    n = len(line)
    if (n == 7 or n == 9) and line[1:3] == ": " and "0" <= line[0] <= "9":
        word = line[3:]
        if word == "pass" or word == "return":
            return ("action", PASS if n == 7 else RETURN, ((), None), ord(line[0]) - 48)
    hash_at = line.find("#")
    if hash_at >= 0:
        line = line[:hash_at]
    raw = line.encode()   # min and max run in C: most lines need no look at each character
    if raw and (min(raw) < 32 or max(raw) > 126):
        for ch in line:   # outside a comment: printable ASCII, space and tab, nothing else
            if ch != "\t" and not " " <= ch <= "~":
                raise NotationError(_CHARACTER, ord(ch))
    words = line.split()   # only space and tab are left to split on
    if not words:
        return None
    seat = None
    colon = words[0].find(":")
    if colon >= 0:
        rest = words[0][colon + 1:]
        seat = number(words[0][:colon])
        words = ([rest] if rest else []) + words[1:]
        if not words:
            raise NotationError(_SEAT_ALONE, seat)
    word = words[0].lower()
    args = words[1:]
    if word in HEADERS or word == "undo":
        if seat is not None:
            raise NotationError(_SEAT_ON_HEADER)
        if word == "undo":
            if args:
                raise NotationError(_UNEXPECTED, args[0], word)
            return ("undo", UNDO, ((), None), None)
        return ("header", word, args, None)
    if word == "pass" or word == "return":
        if args:
            raise NotationError(_UNEXPECTED, args[0], word)
        return ("action", PASS if word == "pass" else RETURN, ((), None), seat)
    if word != "play":
        raise NotationError(_UNKNOWN_WORD, words[0])
    faces = []
    at = -1   # where 'as' is: the one card after it is the value
    for i in range(len(args)):
        token = args[i]
        if at < 0 and token.lower() == "as":
            if i + 1 >= len(args):
                raise NotationError(_AS_ALONE)
            if i + 2 < len(args):
                raise NotationError(_UNEXPECTED, args[i + 2], "the value")
            at = i
            continue
        card = parse_char(token)
        if card < 0:
            raise NotationError(_NOT_A_CARD, token)
        faces.append(card)
    value = faces.pop() if at >= 0 else None
    if not faces:
        raise NotationError(_NO_CARDS)
    return ("action", PLAY, (faces, value), seat)
