"""A round's setup from the hall (docs/event.md): the table's players, first dealer, expansion,
revolution and matchsticks, shown in the setup menu for one PLAY.

The hall publishes it retained on the box's own setup topic (host_tools/hall/setups.py):

    {"dealer":1,"event":"5f3a09c1","expansion":0,"players":4,"revolution":5,"round":2,
     "sticks":40,"table":3}

box.mqtt_link keeps what comes and, between keys, once no game is in progress (none, a
finished one, or the menu open), imports this module for it: a box without an event never
loads it, and it goes from the heap with the item below. `show` opens the menu (box.setup)
with the setup's values, in front of it an item of its own, `Confirm`, showing `t  3` (the
table): PLAY starts the game (box.setup's own start), DEL or UNDO goes on to the menu's items
with those values, MENU goes back to a game as the menu does. `Confirm` stands in for the menu as the app's
`app.setup` (the app only calls its key, draw and begin), so the menu's own module is as it
was. A game in progress is never replaced: the setup waits until it is over, or until the
players open the menu.

A setup the box has played is written to the journal's folder (`played`, when its game
starts) and not shown again when the broker delivers it again (at every connection). What is
not a setup (over _MAX bytes, not JSON, a field missing, of the wrong kind or out of range) is
one line on USB, `{"hall": "setup: WHY: ignored"}`, and changes nothing; an empty message
(the hall clearing a box without a table this round) is nothing to show.
"""
import json

from box import keys as K
from box.buzzer import REJECT
from tycoon.game import BOUNDS

try:
    from micropython import const
except ImportError:
    def const(x):
        return x

FILE = "hall-setup.txt"   # in the journal's folder: the setup the last game started from
_MAX = const(200)


def read(msg):
    """(table, players, dealer, expansion index, revolution, sticks) of a setup message;
    ValueError saying what is wrong with it."""
    if len(msg) > _MAX:
        raise ValueError("over %d bytes" % _MAX)
    data = json.loads(msg)   # ValueError when it is not JSON
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    low, high, revolution, house = BOUNDS[0], BOUNDS[1], BOUNDS[2], BOUNDS[3]
    got = []
    for key, top in (("round", 99), ("table", 999), ("players", high), ("dealer", high),
                     ("expansion", 4), ("revolution", revolution), ("sticks", 99)):
        v = data.get(key)
        if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v <= top:
            raise ValueError("%s is not a number of 0 to %d" % (key, top))
        got.append(v)
    event = data.get("event")
    if not isinstance(event, str) or not 0 < len(event) <= 16:
        raise ValueError("event is not a short name")
    players = got[2]
    if players < low or not 1 <= got[3] <= players or got[4] % 2 or got[5] < house \
            or got[1] < 1:
        raise ValueError("players, dealer, expansion, revolution or table out of range")
    return got[1], players, got[3], got[4] // 2, got[5], got[6]


def _path(journal):
    return journal.root + "/" + FILE


def played(journal, msg=None):
    """The setup the last game was started from (b"" when none); with `msg`, write it there
    (box.setup, once the game it started is on flash)."""
    path = _path(journal)
    if msg is not None:
        journal._ensure(journal.root)
        journal._atomic(path, [msg])
        return msg
    try:
        f = journal.store.open(path, "rb")
    except OSError:
        return b""
    try:
        return f.read(_MAX + 1)
    finally:
        f.close()


class Confirm:
    """The menu's item of the hall's setup, in front of `menu` (a box.setup.Setup holding
    the setup's values)."""

    def __init__(self, menu, table, msg):
        self.menu = menu
        self.table = table
        self.msg = msg

    def begin(self):
        pass   # the menu opened again: still the hall's setup first

    def key(self, app, code, now):
        if code == K.PLAY:
            game = app.game
            self.menu.new_game(app, now)
            if app.game is not game:   # started: the setup is played
                try:
                    played(app.journal, self.msg)
                except OSError:
                    pass
                if app.setup is self:   # the journal could not keep the setup: the menu's
                    app.setup = self.menu
        elif code == K.DEL or code == K.UNDO:
            app.setup = self.menu
        elif code == K.MENU:
            self.menu.key(app, code, now)   # back to the game, if there is one
        else:
            app.buzzer.play(REJECT, now)

    def draw(self, buf, p):
        from box import panels
        panels.text(buf, p, b"t")
        panels.number(buf, p, 1, 3, self.table)


def show(app, msg):
    """Open the menu with the hall's setup `msg` for one PLAY (see above)."""
    if not msg:
        return
    try:
        table, players, dealer, expansion, revolution, sticks = read(msg)
    except ValueError as exc:
        if app.emit is not None:
            app.emit('{"hall": "setup: %s: ignored"}' % str(exc).replace('"', "'"))
        return
    msg = bytes(msg)
    if msg == played(app.journal):
        return
    shown = getattr(app.setup, "menu", None)   # a setup of the hall's shown already
    if shown is not None:
        app.setup = shown
    app._menu()
    s = app.setup
    s.players, s.dealer, s.expansion, s.revolution, s.sticks = (players, dealer, expansion,
                                                                revolution, sticks)
    s._deal()
    s.item = 0
    app.setup = Confirm(s, table, msg)
    app.redraw()
