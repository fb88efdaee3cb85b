"""A box on fake hardware for the UI tests: a bus of HT16K33 RAMs, an in-memory journal."""
from box import keys as K
from box import runtime
from box.app import App
from box.buzzer import Buzzer
from box.ht16k33 import HT16K33
from tycoon import notation

# Reverse font for reading displays back: mask (without dp) -> character.
GLYPHS = {0: " ", 0x40: "-", 0x48: "=", 0x08: "_", 0x3F: "0", 0x06: "1", 0x5B: "2", 0x4F: "3", 0x66: "4",
          0x6D: "5", 0x7D: "6", 0x07: "7", 0x7F: "8", 0x6F: "9", 0x77: "A", 0x7C: "b",
          0x39: "C", 0x5E: "d", 0x79: "E", 0x71: "F", 0x3D: "G", 0x76: "H", 0x58: "c",
          0x54: "n", 0x5C: "o", 0x73: "P", 0x50: "r", 0x78: "t", 0x1C: "u", 0x38: "L",
          0x3E: "U", 0x10: "i", 0x30: "I"}


class Bus:
    """I2C bus with HT16K33 chips at the given addresses; unplugged ones raise OSError."""

    def __init__(self, addresses):
        self.ram = {}
        for a in addresses:
            self.ram[a] = bytearray(16)
        self.unplugged = set()
        self.bytes = 0   # payload bytes: register or command and data, writes and reads
        self.reads = 0

    def writeto(self, addr, buf):
        if addr not in self.ram or addr in self.unplugged:
            raise OSError(19)
        self.bytes += len(buf)
        if len(buf) and buf[0] < 16:
            ram = self.ram[addr]
            for i in range(1, len(buf)):
                ram[(buf[0] + i - 1) & 15] = buf[i]
        return len(buf)

    def readfrom_mem_into(self, addr, reg, buf):
        if addr not in self.ram or addr in self.unplugged:
            raise OSError(19)
        self.reads += 1
        self.bytes += 1 + len(buf)
        ram = self.ram[addr]
        for i in range(len(buf)):
            buf[i] = ram[(reg + i) & 15]

    def power_cycle(self, addr):
        """The chip lost power and came back: RAM blank (as far as the box can tell)."""
        self.ram[addr] = bytearray(16)

    def scan(self):
        return [a for a in sorted(self.ram) if a not in self.unplugged]

    def text(self, addr):
        """What a person reads on the display: '3-9 ', with '.' after a lit point, ':' for the colon."""
        ram = self.ram[addr]
        out = ""
        for pos in (0, 2, 6, 8):
            out += GLYPHS.get(ram[pos] & 0x7F, "?")
            if ram[pos] & 0x80:
                out += "."
            if pos == 2 and ram[4] & 2:
                out += ":"
        return out


class Journal:
    """In-memory journal with the real one's interface; `fail` makes writes raise OSError."""

    def __init__(self, record=None):
        self.record = record
        self.archived = []
        self.setup = None
        self.fail = False
        self.forgotten = 0   # forget_reader calls
        self.checkpoints = []   # (actions in the game, the record then) at each checkpoint call
        self.lost = 0        # as the real journal's: lines resume could not use, and where
        self.repaired = 0    # (lines repaired by their tags)
        self.kept = None     # they are kept (None: the flash had no room)

    def resume(self):
        if self.record is None:
            return None, 0
        game, error = notation.load(self.record.splitlines())
        return (game if error is None else None), 0

    def forget_reader(self):
        self.forgotten += 1

    def _check(self):
        if self.fail:
            raise OSError(28)

    def start(self, game, old=None):
        self._check()
        if self.record is not None:   # the old record is archived once the new one is in place
            self.archived.append(notation.write(old) if old is not None else self.record)
        self.record = notation.header_text(game)

    def append(self, game):
        self._check()
        actions = list(game.actions())
        self.record += notation.action_text(*actions[-1])

    def undo(self, game, last):
        if self.fail:   # as the real one: the action taken back is made again
            kind, seat, faces, value, explicit = last
            game.apply(kind, faces, value if explicit else None, seat)
        self._check()
        self.record += "undo\n"

    def checkpoint(self, game):
        self.checkpoints.append((len(game), self.record))

    def plain(self):
        """The plain game record the journal holds (undo lines played out)."""
        game, error = notation.load(self.record.splitlines())
        assert error is None, error
        return notation.write(game)

    def save_setup(self, players, dealer, expansion, revolution, sticks, hands):
        self.setup = {"players": players, "dealer": dealer, "expansion": expansion,
                      "revolution": revolution, "sticks": sticks, "hands": list(hands)}

    def load_setup(self):
        return self.setup


class Keys:
    """Stands in for box.keys.Keys when a test feeds events straight to App.key()."""

    def __init__(self):
        self.events = bytearray(4)
        self.long = {}

    def set_long(self, key, on):
        self.long[key] = on

    def poll(self, now=None):
        return 0


class Clock:
    def __init__(self):
        self.now = 0

    def __call__(self):
        return self.now


def make_box(ndisplays=4, record=None):
    addresses = [0x70 + i for i in range(ndisplays)]
    bus = Bus(addresses)
    clock = Clock()
    journal = Journal(record)
    app = App([HT16K33(bus, a) for a in addresses], Keys(), Buzzer(None), journal, clock)
    runtime.boot(app)
    app.step()
    return app, bus, clock, journal


def press(app, *names):
    """Press keys by name: '3', 'AS', 'PLAY', 'MENU:long' ..."""
    for name in names:
        long = name.endswith(":long")
        code = K.code(name[:-5] if long else name)
        app.key(code | (K.LONG if long else 0))
        app.step()


def screen(app, bus):
    """The text of every display, left to right, joined by '|'."""
    return "|".join([bus.text(0x70 + i) for i in range(len(app.displays))])
