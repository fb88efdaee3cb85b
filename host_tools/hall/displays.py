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
