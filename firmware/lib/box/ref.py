"""The quick reference (REF: MENU during a game): a face key shows a value that face can be
played as and the sticks it costs ('3-9.1'), the same key again the next value; MENU or DEL goes
back to the game. Imported when it opens and let go when it closes (box.app): a game is played
without it in the heap."""
from box import keys as K
from box import panels
from tycoon.cards import becomes


def key(view, code):
    """A key while the reference is open; True when it closes it."""
    if code <= K.H:
        if code == view.ref_face:
            view.ref_index += 1
        else:
            view.ref_face = code
            view.ref_index = 0
        return False
    return code == K.MENU or code == K.DEL


def draw(app):
    """The face, a value it can become and what that costs; 'rEF ----' before a face key."""
    buf = app.buf
    view = app.view
    panels.text(buf, 1, b"rEF")
    if view.ref_face < 0:
        panels.text(buf, 0, b"rEF")
        panels.text(buf, 1, b"----")
        return 2
    options = becomes(view.ref_face, app.game.values)
    value, c = options[view.ref_index % len(options)]
    panels.clear(buf, 0)
    panels.card(buf, 0, 0, view.ref_face)
    panels.put(buf, 0, 1, panels.DASH)
    panels.card(buf, 0, 2, value)
    panels.dot(buf, 0, 2)
    panels.number(buf, 0, 3, 1, c)
    return 2
