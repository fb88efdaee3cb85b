"""The box's USB link to `matchbox uplink` (box.usb_link) against a fake board: what it sends
for what it is told, and every malformed line refused with its error line, the link going
on as before. CPython and MicroPython."""
import json
import select
import sys

from box import usb_link
from box.keys import COUNT
from box.uplink import WINDOW, game_id
from files import Folder, STORE

HEADER = [b"matchbox 1", b"players 2", b"dealer 1", b"expansion none", b"revolution 5",
          b"sticks 40"]


MPY = sys.implementation.name == "micropython"

if MPY:
    import io

    class Usb(io.IOBase):
        """The USB serial's input as the unix-port board gives it (pollable, readinto)."""

        def __init__(self):
            self.data = bytearray()

        def ioctl(self, req, arg):
            if req == 3:   # MP_STREAM_POLL
                return arg & 1 if self.data else 0
            return -1

        def readinto(self, buf):
            n = min(len(buf), len(self.data))
            buf[:n] = self.data[:n]
            self.data = self.data[n:]
            return n

        def type(self, data):
            self.data.extend(data)

        def close(self):
            pass
else:
    import os

    class Usb:
        """The USB serial's input: a pipe, which select.poll takes on CPython."""

        def __init__(self):
            self.r, self.w = os.pipe()

        def fileno(self):
            return self.r

        def readinto(self, buf):
            data = os.read(self.r, len(buf))
            buf[:len(data)] = data
            return len(data)

        def type(self, data):
            os.write(self.w, bytes(data))

        def close(self):
            os.close(self.r)
            os.close(self.w)


class Hw:
    """The members of hw the link uses: the USB serial both ways and a clock."""

    def __init__(self):
        self.usb = Usb()
        self.out = []
        self.now = 1000

    def emit(self, line):
        self.out.append(line)

    def ticks_ms(self):
        return self.now

    def type(self, text):
        self.usb.type(text.encode() if isinstance(text, str) else text)


class Keys:
    """box.keys.Keys' readings: raw and debounced, one byte a key (1 = down)."""

    def __init__(self):
        self._raw = bytearray(COUNT)
        self._state = bytearray(COUNT)

    def hold(self, down, settled=True):
        self._raw[3] = 1 if down else 0
        if settled:
            self._state[3] = self._raw[3]


class Journal:
    def __init__(self, root):
        self.root = root
        self.store = STORE
        self.changes = 0   # box.journal.Journal's count of its writes

    def append(self, line):
        STORE.append(self.root + "/current.txt", line)
        self.changes += 1


class App:
    def __init__(self, root):
        self.keys = Keys()
        self.journal = Journal(root)


def _box(folder, actions=10):
    root = folder.path + "/games"
    STORE.mkdir(root)
    lines = HEADER + [("%d: pass" % (i + 1)).encode() for i in range(actions)]
    STORE.write(root + "/current.txt", [line + b"\n" for line in lines])
    hw = Hw()
    app = App(root)
    poll = select.poll()
    poll.register(hw.usb, select.POLLIN)
    return hw, app, usb_link.UsbLink(hw, app, poll), lines


def _take(hw, link, text):
    """Type `text` to the box and step the link until it has read all of it: a step reads
    usb_link.READ bytes at most, and one that ends a line does nothing else."""
    hw.type(text)
    for _ in range(1000):
        if not usb_link._waiting(link.poll) and link.n == 0:
            return
        link.step()
    raise AssertionError("the link did not read what was typed")


def _sent(hw):
    out = [json.loads(line[len("hall line "):]) for line in hw.out
           if line.startswith("hall line ")]
    return out


def _ack(boot, game, seq):
    return "hall ack " + json.dumps({"hall": boot, "game": game, "seq": seq}) + "\n"


def test_hello_then_the_halls_ack_then_lines():
    with Folder() as folder:
        hw, app, link, lines = _box(folder)
        link.step()
        assert hw.out == []                      # nothing said: nothing sent
        _take(hw, link, "hall hello\n")
        assert hw.out == ["hall ready"]         # no acknowledgement yet: no line
        _take(hw, link, _ack("b1", None, 0))
        for _ in range(20):
            link.step()
        sent = _sent(hw)
        gid = game_id(1, b"".join(line + b"\n" for line in HEADER))
        assert [(m["game"], m["seq"], m["line"]) for m in sent] == \
            [(gid, i + 1, line.decode()) for i, line in enumerate(lines)]
        assert sent[0]["prev"] is None
        assert link.sent == len(lines)


def test_sends_from_the_halls_ack_after_hello():
    with Folder() as folder:
        hw, app, link, lines = _box(folder)
        gid = game_id(1, b"".join(line + b"\n" for line in HEADER))
        _take(hw, link, "hall hello\n" + _ack("b1", gid, 9))
        for _ in range(10):
            link.step()
        # the line acknowledged last once more (where a rewritten record would show), then on
        assert [m["seq"] for m in _sent(hw)] == list(range(9, len(lines) + 1))
        hw.out = []
        _take(hw, link, "hall hello\n" + _ack("b2", gid, len(lines)))   # a new start of the hall
        for _ in range(10):
            link.step()
        assert [m["seq"] for m in _sent(hw)] == [len(lines)]     # only the last, once more


class Passes(Exception):
    pass


def test_the_loop_steps_the_link_only_while_no_key_is_down_or_settling():
    """box.app.loop: a pass over the keys (app.step), then the link's step only while no
    key is down, settling or bouncing."""
    from box import runtime
    with Folder() as folder:
        hw, app, link, lines = _box(folder)
        app.link = link
        _take(hw, link, "hall hello\n" + _ack("b1", None, 0))
        before = len(_sent(hw))
        held = [(True, True), (True, True), (False, False), (False, True), (False, True)]
        seen = []

        def step():   # the app's pass over the keys: these readings, one pass each
            if not held:
                raise Passes()
            down, settled = held.pop(0)
            app.keys.hold(down, settled)

        real = link.step

        def link_step():
            seen.append(len(held))
            real()
        app.step = step
        link.step = link_step
        hw.idle = lambda: None
        try:
            runtime.loop(hw, app)
        except Passes:
            pass
        # stepped after the last two passes only: before, a key was down or not yet settled up
        assert seen == [1, 0]
        assert len(_sent(hw)) == before + 2   # a line a step


def test_one_line_a_step_and_the_window():
    with Folder() as folder:
        hw, app, link, lines = _box(folder, actions=100)
        hw.type("hall hello\n" + _ack("b1", None, 0))
        counts = []
        for _ in range(WINDOW + 10):
            before = len(_sent(hw))
            link.step()
            counts.append(len(_sent(hw)) - before)
        assert max(counts) == 1                      # a step gives one line at most
        assert [m["seq"] for m in _sent(hw)] == list(range(1, WINDOW + 1))   # the window
        hw.usb.close()


def test_malformed_lines_are_dropped_with_an_error_and_change_nothing():
    with Folder() as folder:
        hw, app, link, lines = _box(folder)
        gid = game_id(1, b"".join(line + b"\n" for line in HEADER))
        _take(hw, link, "hall hello\n" + _ack("b1", gid, 3))
        for _ in range(len(lines)):   # every line out, a line a step
            link.step()
        before = (link.cursor.boot, link.cursor.acked)
        hw.out = []
        bad = [
            ("hall ack " + "x" * 200 + "\n", "hall error: a line of more than 160 bytes, dropped"),
            ("print('hi')\n", "hall error: not a hall line, dropped"),
            ("hall frobnicate\n", "hall error: unknown: frobnicate, dropped"),
            ("hall ack {nope\n", "hall error: ack: not JSON, dropped"),
            ("hall ack [1, 2]\n", "hall error: ack: not a JSON object, dropped"),
            (_ack("", gid, 4), "hall error: ack: no hall id, dropped"),
            (_ack("b1", "1-zz", 4), "hall error: ack: game is not a game id (NNN-crc32), dropped"),
            (_ack("b1", gid, -1), "hall error: ack: seq is not a line number, dropped"),
            (_ack("b1", gid, "4"), "hall error: ack: seq is not a line number, dropped"),
            (b"hall ack \xff\xfe\n", "hall error: not UTF-8, dropped"),
        ]
        for text, error in bad:
            _take(hw, link, text)
            assert hw.out[:1] == [error], (text, hw.out)
            assert (link.cursor.boot, link.cursor.acked) == before
            hw.out = []
        _take(hw, link, _ack("b1", gid, len(lines)) + "\r\n\n")   # CRLF, a blank line: fine
        assert hw.out == []
        assert link.cursor.acked == (gid, len(lines))


def test_a_line_split_over_steps():
    with Folder() as folder:
        hw, app, link, lines = _box(folder)
        text = "hall hello\n"
        for ch in text:
            hw.type(ch)
            link.step()
        assert hw.out == ["hall ready"]


def test_ping_says_whether_the_link_has_an_acknowledgement():
    with Folder() as folder:
        hw, app, link, lines = _box(folder)
        _take(hw, link, "hall ping\n")
        assert hw.out == ["hall pong 0"]
        _take(hw, link, "hall hello\n" + _ack("b1", None, 0) + "hall ping\n")
        said = [x for x in hw.out if not x.startswith("hall line ")]
        assert said == ["hall pong 0", "hall ready", "hall pong 1"]


def test_an_idle_link_looks_at_the_journal_again_only_after_it_wrote():
    with Folder() as folder:
        hw, app, link, lines = _box(folder)
        _take(hw, link, "hall hello\n" + _ack("b1", None, 0))
        for _ in range(len(lines) + 2):
            link.step()
        assert len(_sent(hw)) == len(lines)
        gid = game_id(1, b"".join(line + b"\n" for line in HEADER))
        _take(hw, link, _ack("b1", gid, len(lines)))   # the hall has it all
        link.step()
        assert len(_sent(hw)) == len(lines)
        STORE.append(folder.path + "/games/current.txt", b"99: pass\n")   # not the journal's
        for _ in range(3):
            hw.now += 500
            link.step()
        assert len(_sent(hw)) == len(lines)   # resting: no read of the flash for nothing
        app.journal.append(b"100: pass\n")   # the journal writes the next action
        link.step()
        link.step()
        assert [m["line"] for m in _sent(hw)[-2:]] == ["99: pass", "100: pass"], hw.out[-3:]
        link.step()   # nothing new: resting again
        STORE.append(folder.path + "/games/current.txt", b"101: pass\n")
        link.step()
        assert _sent(hw)[-1]["line"] == "100: pass"
        _take(hw, link, "hall ping\n")   # the computer said something: looked at once
        link.step()
        assert _sent(hw)[-1]["line"] == "101: pass"


def test_a_step_reads_a_few_bytes_and_ends_with_a_whole_line():
    """A step reads usb_link.READ bytes at most, and one that ends a line from the computer
    sends no journal line: each step stays short on a Pico."""
    with Folder() as folder:
        hw, app, link, lines = _box(folder)
        _take(hw, link, "hall hello\n" + _ack("b1", None, 0))
        link.step()
        assert len(_sent(hw)) == 1
        text = "hall ping\n"
        hw.type(text + text)
        for _ in range(len(text) // usb_link.READ):
            link.step()
        assert hw.out[-1].startswith("hall line ")   # part of the ping read, a line sent
        link.step()   # the ping's end: answered, and nothing else in that step
        assert hw.out[-1] == "hall pong 1"
