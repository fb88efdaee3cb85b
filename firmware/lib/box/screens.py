"""What the displays show in each mode of the app, drawn into its panel buffer.

`draw(app, nd)` fills `app.buf` with the panels of what `app.view` says is on screen (the
mode, or the error, announcement or notice on top of it), from `app.game`, the play being
keyed (`app.entry`) and the setup menu while it is open (`app.setup`), for `nd` displays, and
returns how many panels it drew; the app pages them over its displays and sends them. Those
five fields are all it reads of the app. The play being keyed (Entry) and what is on screen
besides the game (View) are the state it draws, kept by the app. Nothing here allocates:
panels are drawn from bytes constants and the game's ints. What each panel means:
docs/display.md.
"""
try:
    from micropython import const
except ImportError:
    def const(x):
        return x

from box import panels
from tycoon import game as engine
from tycoon.cards import cost

# The app's modes.
SETUP = const(0)     # the new-game menu
PLAY = const(1)      # entering plays
REF = const(2)       # the quick reference
FINISHED = const(3)  # the final ranking

# What lies on top of the mode for a moment (View.overlay).
NONE = const(0)
ERROR = const(1)
ANNOUNCE = const(2)
NOTICE = const(3)    # what boot could not resume: shown until a key is pressed

MAX_PANELS = const(6)

# What the displays show for a refusal (README: error codes): the codes, then their texts in
# slots of 4 bytes in the same order, and 'Err' for any other code. Two constants: a dict of
# them took 0.6 KB of the box's heap for as long as it ran.
_CODES = const("not-your-turn game-over must-return has-cards cannot-pass too-many-cards "
               "not-in-hand wrong-count not-stronger no-such-value no-such-card "
               "impossible-shape mixed-values not-enough-sticks flash-full ")
_TEXTS = const(b"turnEnd rEtnHAS LEAd1-5 HAndCnt Lo  uAL CArdSHAPdiFFStICFULLErr ")


def error_slot(code):
    """The slot of the text the displays show for the refusal `code` (View.err): the last,
    'Err', for a code the table does not hold. Allocates nothing."""
    at = _CODES.find(code)
    if at < 0 or not _CODES.startswith(" ", at + len(code)) \
            or (at and not _CODES.startswith(" ", at - 1)):
        return len(_TEXTS) // 4 - 1
    return _CODES.count(" ", 0, at)


def errors():
    """{code: the text shown for it (bytes)}: the table, for the host and the tests."""
    codes = _CODES.split()
    return {codes[i]: _TEXTS[4 * i:4 * i + 4].rstrip() for i in range(len(codes))}


class Entry:
    """The play being keyed: faces so far, AS and the declared value, and what it plays as.
    The app feeds it face, AS and DEL keys; the screens draw from it; PLAY hands its faces
    and value to the engine. No allocation: the faces live in a preallocated bytearray."""

    def __init__(self):
        self.faces = bytearray(engine.MAX_PLAY)   # the faces keyed so far: faces[:n]
        self.n = 0
        self.as_key = False   # AS pressed: the next face key is the declared value
        self.declared = -1    # the declared value, -1 = none

    def keyed(self):
        """Anything keyed (a face or AS): the entry is on the displays."""
        return self.n > 0 or self.as_key

    def clear(self):
        self.n = 0
        self.as_key = False
        self.declared = -1

    def face(self, code):
        """A face key: a face of the play, or the declared value after AS. Returns None, or
        the engine's code of the refusal ('mixed-values', 'too-many-cards'); unchanged then."""
        if self.as_key and self.declared < 0:
            self.declared = code
        elif self.as_key:
            return "mixed-values"   # a second value after AS
        elif self.n < engine.MAX_PLAY:
            self.faces[self.n] = code
            self.n += 1
        else:
            return "too-many-cards"
        return None

    def toggle_as(self):
        self.as_key = not self.as_key
        self.declared = -1

    def delete(self):
        """DEL: the declared value, else AS, else the last face."""
        if self.declared >= 0:
            self.declared = -1
        elif self.as_key:
            self.as_key = False
        elif self.n:
            self.n -= 1

    def save(self):
        """What restore() puts back (a play the flash could not take goes back as keyed)."""
        return self.n, self.as_key, self.declared

    def restore(self, saved):
        self.n, self.as_key, self.declared = saved

    def value(self):
        """The value the entry plays as, or -1 while it is not one value."""
        if self.declared >= 0:
            return self.declared
        if self.as_key or not self.n:
            return -1
        v = self.faces[0]
        for i in range(1, self.n):
            if self.faces[i] != v:
                return -1
        return v

    def cost(self, value):
        """The sticks the entry costs played as `value`, or -1 when a face cannot become it."""
        total = 0
        for i in range(self.n):
            c = cost(self.faces[i], value)
            if c is None:
                return -1
            total += c
        return total


class View:
    """What is on screen besides the game and the entry: the app's mode, what lies on top of
    it, and what those show. The app sets it; draw() reads it."""

    def __init__(self):
        self.mode = SETUP
        self.overlay = NONE
        self.err = 0          # ERROR: the slot of its text (error_slot)
        self.event = 0        # ANNOUNCE: the play's event flags
        self.ref_face = -1    # REF: the face looked up (-1: none yet), the option shown
        self.ref_index = 0
        self.full = False     # NOTICE: no room to keep the damaged record, lines repaired,
        self.repaired = 0     # lines lost
        self.lost = 0

    def notice(self, full, repaired, lost):
        """Show what boot found damaged until a key is pressed."""
        self.overlay = NOTICE
        self.full = full
        self.repaired = repaired
        self.lost = lost


def draw(app, nd):
    """Draw the panels of what is on screen for `nd` displays; returns how many."""
    buf = app.buf
    view = app.view
    # With four displays during a game, the table and the turn stay on displays 1 and 2 and
    # everything else comes and goes on 3 and 4: less changes at each key (docs/display.md).
    fixed = nd >= 4 and view.mode == PLAY and view.overlay != NOTICE
    if fixed and view.overlay == ERROR:
        table(app, 0)
        turn(app, 1)
        panels.text(buf, 2, _TEXTS, 4 * view.err)
        panels.text(buf, 3, b"Err")
        n = 4
    elif view.overlay == ERROR:
        panels.text(buf, 0, _TEXTS, 4 * view.err)
        panels.text(buf, 1, b"Err")
        n = 2
    elif view.overlay == ANNOUNCE:
        n = announcement(app, fixed)
    elif view.overlay == NOTICE:
        n = notice(buf, view)
    elif view.mode == SETUP:
        app.setup.draw(buf, 0)   # the menu draws its own item
        panels.text(buf, 1, b"SEt")
        n = 2
    elif view.mode == REF:
        from box import ref   # loaded while the quick reference is open
        n = ref.draw(app)
    elif view.mode == FINISHED:
        n = ranking(app)
    elif app.entry.keyed():
        # the entry first; with three or more displays the table stays in view
        if nd >= 4:
            table(app, 0)
            turn(app, 1)
            faces(app, 2)
            preview(app, 3)
            n = 4
        elif nd == 3:
            table(app, 0)
            faces(app, 1)
            preview(app, 2)
            n = 3
        else:
            faces(app, 0)
            preview(app, 1)
            n = 2
    else:
        table(app, 0)
        turn(app, 1)
        seat(app, 2)
        sticks(app, 3)
        n = 4
    return n


def table(app, p):
    """The play on top: count and value ('3-9'), '----' when the table is empty."""
    game = app.game
    buf = app.buf
    if game.top_value < 0:
        panels.text(buf, p, b"----")
        return
    panels.clear(buf, p)
    panels.number(buf, p, 0, 1, game.top_count)
    panels.put(buf, p, 1, panels.DASH)
    panels.card(buf, p, 2, game.top_value)


def turn(app, p):
    """'P' and the seat to act, 'r' in a revolution, then the strongest value."""
    game = app.game
    buf = app.buf
    panels.text(buf, p, b"P")
    panels.number(buf, p, 1, 1, game.turn)
    if game.revolution:
        panels.char(buf, p, 2, "r")
    panels.card(buf, p, 3, game.strongest())


def seat(app, p):
    """Cards in hand of the seat to act; a bare seat must return a stick."""
    game = app.game
    if game.must_return():
        panels.text(app.buf, p, b"rEtn")
        return
    panels.text(app.buf, p, b"c")
    panels.number(app.buf, p, 1, 3, game.cards[game.turn - 1])


def sticks(app, p):
    """Matchsticks of the seat to act."""
    game = app.game
    panels.text(app.buf, p, b"St")
    panels.number(app.buf, p, 2, 2, game.sticks[game.turn - 1])


def faces(app, p):
    """The faces keyed so far; a fifth card lights the point of the fourth digit."""
    buf = app.buf
    entry = app.entry
    panels.clear(buf, p)
    for i in range(min(entry.n, 4)):
        panels.card(buf, p, i, entry.faces[i])
    if entry.n == engine.MAX_PLAY:
        panels.dot(buf, p, 3)   # a fifth card: the point says "and one more"
    if not entry.n:
        panels.put(buf, p, 0, panels.DASH)


def preview(app, p):
    """'=V' and the sticks it costs after the colon, e.g. '=9: 1'; '=_' while AS waits for
    its value key."""
    buf = app.buf
    entry = app.entry
    panels.text(buf, p, b"=")
    value = entry.value()
    if value < 0 and entry.as_key:
        panels.char(buf, p, 1, "_")   # AS pressed: the value key is awaited
    else:
        panels.card(buf, p, 1, value)
    panels.colon(buf, p)
    c = entry.cost(value) if value >= 0 else -1
    if c < 0:
        panels.put(buf, p, 3, panels.DASH)
    else:
        panels.number(buf, p, 2, 2, c)


def notice(buf, view):
    """What boot found damaged in the record: 'rEPr' and how many lines it repaired by their
    checksum tags, 'LoSt' and how many lines it could not resume; 'FULL' first when the
    flash had no room to keep the damaged file aside (it stays as it is until it has)."""
    n = 0
    if view.full:
        panels.text(buf, 0, b"FULL")
        n = 1
    for word, count in ((b"rEPr", view.repaired), (b"LoSt", view.lost)):
        if count:
            panels.text(buf, n, word)
            panels.clear(buf, n + 1)
            panels.number(buf, n + 1, 0, 4, min(count, 9999))
            n += 2
    return n


def announcement(app, fixed):
    """A revolution, a forced pass, a seat going out or the end, with the turn and table:
    announced first, or after them (`fixed`: four displays, table and turn in place)."""
    buf = app.buf
    events = app.view.event
    game = app.game
    if events & engine.FINISHED:
        return ranking(app)
    a = 2 if fixed else 0
    if events & engine.OUT:
        panels.text(buf, a, b"out")
        panels.text(buf, a + 1, b"P")
        panels.number(buf, a + 1, 1, 1, game.ranking[-1])
    elif events & engine.FORCED:
        panels.text(buf, a, b"PASS")
        panels.text(buf, a + 1, b"ALL")
    else:
        panels.text(buf, a, b"rEuo")
        panels.text(buf, a + 1, b"Hi")
        panels.card(buf, a + 1, 3, game.strongest())
    if fixed:
        table(app, 0)
        turn(app, 1)
    else:
        turn(app, 2)
        table(app, 3)
    return 4


def ranking(app):
    """'End', then one panel per rank: '1 P3'."""
    game = app.game
    buf = app.buf
    panels.text(buf, 0, b"End")
    n = 1
    for i in range(min(len(game.ranking), MAX_PANELS - 1)):
        panels.clear(buf, n)
        panels.number(buf, n, 0, 1, i + 1)
        panels.char(buf, n, 2, "P")
        panels.number(buf, n, 3, 1, game.ranking[i])
        n += 1
    return n

