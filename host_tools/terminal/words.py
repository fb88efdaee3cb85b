"""What the box shows, in words, for the terminal simulator: the firmware's error codes and
buzzer tones (imported from the firmware, never parsed), announcements, hints, and two status
lines about the setup and the game. Pure functions; the engine's notation reader only."""
from host_tools import resources
from host_tools import words as players
from tycoon import notation

# Plain words for the firmware's error codes (the displays show box.screens' text of the code
# and "Err"), and for those the setup menu means something else by: the players' English words
# (host_tools.words, those of the table card).
ERROR_HELP = players.words("en")["code_rules"]
SETUP_ERROR_HELP = players.words("en")["code_setup"]

# The buzzer's sequences (box.buzzer) -> what the box means by them.
TONE_WORDS = {
    "REJECT": "low tone: refused",
    "ACCEPT": "beep: accepted",
    "REVOLUTION": "fanfare: revolution",
}

# Announcements: the first display's reading -> what happened.
ANNOUNCEMENTS = {
    "rEuo": "Revolution: the order of strength is reversed",
    "PA55": "Strongest card: every other player passes, the table clears",
    "out ": "A player went out",
    "End ": "Game over: the final ranking",
}

# What to do next, by the app's mode (shown when nothing else is to be said).
HINTS = {
    "setup": "Type a value, then PLAY; DEL goes back",
    "play": "Key the faces, then Space (PLAY); p passes",
    "ref": "Press a face; MENU goes back",
    "finished": "m: the setup menu for a new game",
}

# Quitting a game the simulator does not keep (no --flash folder): asked first, and said after
# Ctrl-C, which quits at once.
QUIT_UNKEPT = "Without --flash DIR this game is lost: q again quits, any other key plays on"
LOST_UNKEPT = "the game was not kept: `matchbox sim --flash DIR` keeps games across restarts"

STATUS_WIDTH = 78   # a status line's most characters: it starts in column 2 of 80

EXPANSION_WORDS = {"none": "no G/H cards", "gh2": "G/H 2 each", "gh4": "G/H 4 each"}


def firmware_errors():
    """The firmware's error texts (box.screens.errors(): error code -> display text)."""
    screens = resources.firmware_module("box.screens")
    return {code: text.decode() for code, text in screens.errors().items()}


def firmware_tones():
    """{frequency in Hz: sequence name} of the firmware's buzzer sequences (box.buzzer)."""
    buzzer = resources.firmware_module("box.buzzer")
    out = {}
    for name in TONE_WORDS:
        for hz, _ms in getattr(buzzer, name):
            if hz:
                out.setdefault(hz, name)
    return out


def tone_words(hz, tones):
    """What a tone of hz means, from firmware_tones(); 'tone N Hz' when it is none of them."""
    name = tones.get(hz)
    return TONE_WORDS[name] if name else "tone %d Hz" % hz


def setup_of(journal):
    """The game the header of a record sets up, every setting filled in (the ones the record
    leaves out take their defaults), or None when the header does not set up a game."""
    reader = notation.Reader()
    try:
        for line in journal.splitlines():
            parsed = notation.parse_line(line)
            if parsed is not None and parsed[0] != "header":
                break
            reader.feed(line)
        return reader.finish()
    except notation.NotationError:
        return None


def _plural(n, word):
    return "%d %s%s" % (n, word, "" if n == 1 else "s")


def status_lines(mode, game, journal):
    """Two lines about the setup and the game, each at most STATUS_WIDTH characters (an 80-column
    terminal): `mode` and `game` as VBox.dump() gives them, `journal` the text of
    games/current.txt."""
    if mode == "setup" or game is None:
        return ["Setup  PL players · dL dealer · Gh G/H cards 0/2/4 · rE revolution 4/5",
                "       St sticks · 1=15 seat 1's cards ... · PLAY: next, the last one starts"]
    setup = setup_of(journal)
    if setup is None:
        first = "Game  %d players" % game.get("players", 0)
    else:
        first = "Game  %d players · dealer %d · %s · revolution at %d · %d sticks" % (
            setup.players, setup.dealer, EXPANSION_WORDS[setup.expansion],
            setup.revolution_size, setup.total_sticks)
    if mode == "ref":
        return [first, "Ref   a face key: 3-9.1 = 3 as 9 for 1 stick; the same key: next · "
                       "MENU: back"]
    if game.get("finished"):
        ranking = " ".join("P%d" % s for s in game.get("ranking", []))
        return [first, "Game over · ranking %s · MENU: new game · UNDO: take back" % ranking]
    turn = game.get("turn", 0)
    seat = _seat_to_act(game)
    table = game.get("table")
    parts = ["P%d" % turn if table else "P%d (dealer)" % turn]
    if seat is not None:
        parts.append(_plural(seat["cards"], "card"))
        parts.append(_plural(seat["sticks"], "stick"))
    if table:
        parts.append("top %d×%s by P%d" % (table["count"], table["value"], table["seat"]))
    if game.get("revolution"):
        parts.append("REVOLUTION")
    parts.append("supply %d" % game.get("supply", 0))
    return [first, "Turn  " + " · ".join(parts)]


def _seat_to_act(game):
    turn = game.get("turn", 0)
    return next((s for s in game.get("seats", []) if s.get("seat") == turn), None)


def hint(mode, game):
    """What to do next (the message line when nothing else is to be said): HINTS by mode, and
    for a seat with no cards left, that PLAY returns a stick."""
    seat = _seat_to_act(game) if mode == "play" and game else None
    if seat is not None and seat["cards"] == 0:
        return "No cards left: Space (PLAY) returns a stick"
    return HINTS.get(mode, "")


def explain(readings, errors, mode="play"):
    """A sentence for an error code or an announcement on the displays, else ''.
    `readings`: VBox.displays(); `errors`: firmware_errors(); `mode`: the app's mode."""
    # the code and "Err" on displays 1 and 2, or on 3 and 4 beside the table and the turn
    for i in range(len(readings) - 1):
        if readings[i + 1].startswith("Err"):
            for code, text in errors.items():
                if _reads_as(readings[i], text):
                    words = SETUP_ERROR_HELP.get(code) if mode == "setup" else None
                    return "Error %s: %s" % (text, words or ERROR_HELP.get(code, code))
            return "Error"
    for reading in readings:
        for shown, words in ANNOUNCEMENTS.items():
            if reading == shown:
                return words
    return ""


def _reads_as(reading, text):
    """Whether a display reading (VirtualHT16K33.text()) is the firmware's text: the
    reading names shapes, so S reads as 5 and O as 0."""
    want = text.replace("S", "5").replace("O", "0").ljust(4)
    return reading == want
