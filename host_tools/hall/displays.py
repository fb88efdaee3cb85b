"""A table's four displays on the hall's page, as the box shows them between two keys.

The panels are drawn by the firmware's own code (box.screens: the play on top, whose turn
and the strongest value, the cards and the sticks of the seat to act; once the game is over
`End` and the places, the first three of them) from the game the hall replayed, and turned
into a picture by the docs' renderer (host_tools.virtual.display_svg). What the box shows for
a moment only (an entry being keyed, an error, an announcement) is not in the record, so it
is not on the page.
"""
import sys

from host_tools import resources
from host_tools.virtual import display_svg

DISPLAYS = 4


def _screens():
    """box.panels and box.screens, the firmware's (firmware/lib, or the package's copy)."""
    if resources.FIRMWARE_LIB not in sys.path:
        sys.path.append(resources.FIRMWARE_LIB)
    from box import panels, screens
    return panels, screens


class _App:
    """What box.screens reads of the app: the game and the panel buffer."""

    def __init__(self, game, size):
        self.game = game
        self.buf = bytearray(size)


def panels_of(game):
    """[(masks, colon, lit)] of the four displays for a game (None: all dark)."""
    panels, screens = _screens()
    if game is None:
        return [((0, 0, 0, 0), False, False)] * DISPLAYS
    app = _App(game, panels.SIZE * screens.MAX_PANELS)
    if game.finished:
        n = screens.ranking(app)
    else:
        screens.table(app, 0)
        screens.turn(app, 1)
        screens.seat(app, 2)
        screens.sticks(app, 3)
        n = 4
    out = []
    for p in range(DISPLAYS):
        o = p * panels.SIZE
        out.append((tuple(app.buf[o:o + 4]), bool(app.buf[o + 4]), p < n))
    return out


def picture(game):
    """The SVG text of the four displays for a game, without labels: the page names the
    displays under the picture in the reader's language, at the page's size of text."""
    return display_svg.picture(panels_of(game))


def compact(game):
    """The four displays of a game as the views carry them: [m0, m1, m2, m3, colon, lit] a
    display (the web page's frames say them so too)."""
    return [list(masks) + [int(colon), int(lit)] for masks, colon, lit in panels_of(game)]


def template():
    """The page's picture of the four displays, every segment dark, each part with an id
    (display_svg's: d0-0a is segment a of the first digit of the first display): the page
    lights a copy of it a table, and names the displays under it in the reader's language."""
    dark = [((0, 0, 0, 0), False, True)] * DISPLAYS
    svg = display_svg.picture(dark, ident=["d%d" % i for i in range(DISPLAYS)])
    return svg.replace("<svg ", '<svg class="displays" role="img" ', 1)


def segment_style():
    """The CSS that lights a segment of the template: display_svg's colours and its glow."""
    return "\n".join(["svg .on { fill: %s; filter: url(#d0-glow); }" % display_svg.LIT,
                      "svg .dark polygon, svg .dark circle { fill: %s; }" % display_svg.OFF])
