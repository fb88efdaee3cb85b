"""The repair of a damaged journal line by its checksum tag (docs/notation.md).

A line of a tagged record that fails, but still ends in a whole tag, is read as the one legal
action at that point whose tagged text, written as the writer writes it, makes the stored tag,
when exactly one does and the lines after it read as written. tycoon.notation imports this
module only when such a line fails, so a box whose journal is whole never loads it.

The legal actions are found without applying any: the CRC is linear, so the tag of a play
`S: play F1 ... Fn as V` is a constant of its layout XOR one table value per character: the
faces but the last two are walked, those two looked up in a table of every pair, and only a
text that makes the tag is put to the rules. A line's grammar and tag come from tycoon.line,
as the reader's do: this module does not import the reader.
"""
from tycoon.cards import CHARS, G, card_type, const, cost
from tycoon.game import EXPANSIONS, MAX_PLAY, PLAY, PASS, RETURN, IllegalAction
from tycoon.line import _BYTE, LIMIT, UNDO, NotationError, _crc16, parse_line
from tycoon.writer import HEADERS, action_text

WINDOW = const(8)    # lines after a repaired one that must read as written (fewer at the end)


def repair(reader, raw):
    """The events of the one action the damaged line `raw` (line reader.lineno, refused) can
    be, now applied to reader.game; or None, the reader and its game as they were."""
    n = len(raw)
    if len(reader.header) < len(HEADERS) or n >= LIMIT or n < 9 or raw[n - 1] != 10 \
            or raw[n - 9:n - 5] != b"  #~" or raw[n - 5:n - 1].strip(b"0123456789abcdef"):
        return None
    index = reader.lineno
    kind = reader.kind
    want = int(raw[n - 5:n - 1], 16)
    start = _crc16(("%d|" % index).encode())
    text = raw[:n - 9]
    if _crc16(text, start) == want:
        return None   # the text is the one written there: its refusal stands
    game = reader.game
    if game is None:   # the first action: the game its header sets up
        try:
            game = reader.finish()
        except NotationError:
            reader.lineno = index   # the failure stays this line's, as without a repair
            return None
        finally:
            reader.game = None
    # One changed byte first: a CRC-16 tells apart every text one byte away from the line's,
    # so that damage is found exactly however many other legal actions make the tag. A text
    # that is itself a legal action as the box writes it is most likely whole, its tag damaged:
    # no other action is taken for it. Any other text: the one legal action that makes the tag.
    found = _one_byte(game, start, want, bytearray(text))
    if len(found) != 1 and _written(game, text) is None:
        found = _legal(game, start, want, reader.tick)
    if len(found) != 1:
        return None
    action = found[0]
    before = reader.game
    reader.game = game
    last = game.last_action()
    if action == UNDO:
        game.undo()
        events = 0
    else:
        events = game.apply(*action)
    if not _follows(reader):
        _back(game, last if action == UNDO else None)
        reader.game = before
        reader.kind = kind
        return None
    reader.kind = "action"
    if action == UNDO:
        reader.kind = "undo"
        reader.undos += 1
    reader.repaired.append(index)
    return events


def _one_byte(game, start, want, text):
    """The legal actions among the texts one byte away from `text` (a bytearray) that make the
    CRC `want` from `start`, as written (a list). The CRC is linear: changing byte i by d
    changes it by step^k(T[d]), k the bytes after i, so walking from the last byte, rewinding
    the difference to the stored tag one step a byte, gives at each place the one d, if any,
    that makes the tag: one look-up a byte."""
    found = []
    odd = -1   # the writer writes printable ASCII only: one other byte, and it is the one
    for i in range(len(text)):
        if not 32 <= text[i] <= 126:
            if odd >= 0:
                return found
            odd = i
    t = _BYTE
    inverse = bytearray(256)   # the low bytes of the table are all different
    for h in range(256):
        inverse[t[h] & 0xFF] = h
    x = want ^ _crc16(text, start)
    i = len(text)
    while x and i > 0:
        i -= 1
        d = inverse[x & 0xFF]
        c = text[i] ^ d
        if t[d] == x and 32 <= c <= 126 and (odd < 0 or i == odd):
            was = text[i]
            text[i] = c
            action = _written(game, bytes(text))
            text[i] = was
            if action is not None:
                found.append(action)
        h = inverse[x & 0xFF]   # one zero byte back: the x whose step gives this one
        x = (h << 8) | ((x >> 8) ^ (t[h] >> 8))
    return found


def _written(game, text):
    # The action (kind, faces, value, seat), or UNDO, when the bytes `text` are a legal action
    # of `game` as the writer writes it, its seat prefix included; else None. The game is left
    # as it was.
    if text == b"undo":
        return UNDO if len(game) else None
    try:
        parsed = parse_line(text.decode())
    except (NotationError, UnicodeError):
        return None
    if parsed is None or parsed[0] != "action" or parsed[3] is None:
        return None
    _what, kind, (faces, value), seat = parsed
    try:
        game.apply(kind, faces, value, seat)
    except IllegalAction:
        return None
    same = action_text(*game.last_action()).encode()[:-1] == text
    game.undo()
    return (kind, faces, value, seat) if same else None


def _back(game, last):
    # Take back what a line did: an action (last None), or an undo of the action `last`.
    if last is None:
        game.undo()
    else:
        game.apply(last[0], last[2], last[3] if last[4] else None, last[1])


def _follows(reader):
    # True when the WINDOW lines after the one just repaired (all of them, when fewer are
    # left) read as written: tags, notation and rules, a last line cut short by a power cut
    # being the end. The reader and its game are put back as they were either way; the lines
    # stay read ahead for the reader to take.
    game = reader.game
    saved = (reader.lineno, reader.size, reader.undos)
    done = []   # for each line taken: None (an action) or the action its undo took back
    ok = True
    for k in range(WINDOW):
        raw = _peek(reader, k)
        if not raw:
            break
        last = game.last_action()
        try:
            reader.feed_bytes(raw, False)
        except (NotationError, IllegalAction):
            ok = len(raw) < LIMIT and raw[-1] != 10   # torn: the end of the record
            break
        if reader.kind == "undo":
            done.append(last)
        elif reader.kind == "action":
            done.append(None)
    while done:
        _back(game, done.pop())
    reader.lineno, reader.size, reader.undos = saved
    return ok


def _peek(reader, k):
    # Line k (from 0) after the one being read, read ahead of the file; b"" past its end.
    ahead = reader.ahead
    while len(ahead) <= k:
        raw = reader.source.readline(LIMIT)
        if not raw:
            return raw
        ahead.append(raw)
    return ahead[k]


def _try(game, found, faces, value, seat):
    # Keep the play when the rules allow it.
    try:
        game.check_play(faces, value, seat)
    except IllegalAction:
        return
    found.append((PLAY, tuple(faces), value, seat))


def _step(x, k):
    # A CRC difference carried through k more bytes (the same in both texts).
    t = _BYTE
    for _ in range(k):
        x = ((x << 8) & 0xFFFF) ^ t[x >> 8]
    return x


def _legal(game, start, want, tick=None):
    """The legal actions of `game` whose text, as the writer writes it, makes the CRC `want`
    from `start` (the CRC of 'INDEX|'): a list, cut at two. `tick` is called for each count
    and value of a play (the box's watchdog)."""
    found = []
    if len(game) and _crc16(b"undo", start) == want:
        found.append(UNDO)
    seat = game.turn
    if not seat:
        return found
    p = seat - 1
    start = _crc16(("%d: " % seat).encode(), start)
    if game.must_return():
        if _crc16(b"return", start) == want:
            found.append((RETURN, (), None, seat))
        return found
    top = game.top_value
    if top >= 0 and _crc16(b"pass", start) == want:
        found.append((PASS, (), None, seat))
    start = _crc16(b"play ", start)
    cards = game.cards[p]
    if top >= 0:
        counts = (game.top_count,) if game.top_count <= cards else ()
    else:
        counts = range(1, min(MAX_PLAY, cards) + 1)
    values = game.values
    for n in counts:   # the faces alike, no 'as'
        for f in range(values):
            if _crc16((" ".join([CHARS[f]] * n)).encode(), start) == want:
                _try(game, found, [f] * n, None, seat)
    t = _BYTE
    budget = game.sticks[p]
    most = 2 * EXPANSIONS.index(game.expansion)   # copies of G and H; 4 of the others
    copies = [(most if f >= G else 4) - game._played[card_type(f)] for f in range(values)]
    for n in counts:
        # 'play F1 ... Fn as V' with each of those bytes zero: its CRC; then what each face
        # adds at each place (2 bytes apart, the last 5 before the end), and V (at the end)
        base = _crc16(b"\0 " * n + b"as \0", start)
        row = [_step(t[ord(CHARS[f])], 5) for f in range(values)]
        add = [row]
        for _ in range(n - 1):
            row = [_step(x, 2) for x in row]
            add.insert(0, row)
        pairs = {}   # what the last two faces add -> those faces (a << 5 | b), to look up
        if n > 1:
            for a in range(values):
                for b in range(values):
                    k = add[n - 2][a] ^ add[n - 1][b]
                    if k in pairs:
                        pairs[k].append(a << 5 | b)
                    else:
                        pairs[k] = [a << 5 | b]
        for v in range(values):
            if top >= 0 and not game.beats(v, top):
                continue
            if tick is not None:
                tick()
            costs = [cost(f, v) for f in range(values)]
            options = []   # the faces that can be this value, with a copy left to play
            for f in range(values):
                c = costs[f]
                if c is not None and c <= budget and copies[f] > 0:
                    options.append((c, f))
            if not options:
                continue
            options.sort()
            x = want ^ base ^ t[ord(CHARS[v])]
            faces = [0] * n
            if n == 1:
                for c, f in options:
                    if add[0][f] == x:
                        faces[0] = f
                        _try(game, found, faces, v, seat)
            else:
                _walk(game, found, faces, 0, x, budget, (options, costs, add, pairs, v, seat))
            if len(found) > 1:
                return found
    return found


def _walk(game, found, faces, i, x, budget, fixed):
    # Fill faces[i:] within `budget` sticks so that they add `x` to the CRC, the last two
    # looked up; the legal plays that make it go to `found`.
    options, costs, add, pairs, value, seat = fixed
    n = len(faces)
    if i == n - 2:
        for ab in pairs.get(x, ()):
            a = ab >> 5
            b = ab & 31
            ca = costs[a]
            cb = costs[b]
            if ca is not None and cb is not None and ca + cb <= budget:
                faces[i] = a
                faces[i + 1] = b
                _try(game, found, faces, value, seat)
        return
    least = options[0][0] * (n - 1 - i)   # the cheapest faces for the places after this one
    row = add[i]
    for c, f in options:
        if c + least > budget or len(found) > 1:
            break
        faces[i] = f
        _walk(game, found, faces, i + 1, x ^ row[f], budget - c, fixed)
