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
        hw.type("hall hello\n")
        link.step()
        assert hw.out == ["hall ready"]         # no acknowledgement yet: no line
        hw.type(_ack("b1", None, 0))
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
        hw.type("hall hello\n" + _ack("b1", gid, 9))
        for _ in range(10):
            link.step()
        # the line acknowledged last once more (where a rewritten record would show), then on
        assert [m["seq"] for m in _sent(hw)] == list(range(9, len(lines) + 1))
        hw.out = []
        hw.type("hall hello\n" + _ack("b2", gid, len(lines)))   # a new start of the hall
        for _ in range(10):
            link.step()
        assert [m["seq"] for m in _sent(hw)] == [len(lines)]     # only the last, once more


def test_nothing_sent_while_a_key_is_down_or_settling():
    with Folder() as folder:
        hw, app, link, lines = _box(folder)
        app.keys.hold(True)
        hw.type("hall hello\n" + _ack("b1", None, 0))
        link.step()
        assert hw.out == ["hall ready"]   # read, answered, but no journal line
        app.keys.hold(False, settled=False)   # released, not debounced yet
        link.step()
        assert hw.out == ["hall ready"]
        app.keys.hold(False)
        link.step()
        assert _sent(hw)


def test_window_and_budget():
    with Folder() as folder:
        hw, app, link, lines = _box(folder, actions=100)
        hw.type("hall hello\n" + _ack("b1", None, 0))
        link.step()
        assert 0 < len(_sent(hw)) <= WINDOW
        hw.out = []
        hw.type("hall hello\n" + _ack("b2", None, 0))

        def tick():
            hw.now += 1
            return hw.now
        hw.ticks_ms = tick
        link.step()   # each line costs 1 ms here: the step stops at its budget
        assert 0 < len(_sent(hw)) <= usb_link.BUDGET_MS
        hw.usb.close()


def test_malformed_lines_are_dropped_with_an_error_and_change_nothing():
    with Folder() as folder:
        hw, app, link, lines = _box(folder)
        gid = game_id(1, b"".join(line + b"\n" for line in HEADER))
        hw.type("hall hello\n" + _ack("b1", gid, 3))
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
            hw.type(text)
            link.step()
            assert hw.out[:1] == [error], (text, hw.out)
            assert (link.cursor.boot, link.cursor.acked) == before
            hw.out = []
        hw.type(_ack("b1", gid, len(lines)) + "\r\n\n")   # CRLF and a blank line are fine
        link.step()
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
        hw.type("hall ping\n")
        link.step()
        assert hw.out == ["hall pong 0"]
        hw.type("hall hello\n" + _ack("b1", None, 0) + "hall ping\n")
        link.step()
        assert hw.out[:3] == ["hall pong 0", "hall ready", "hall pong 1"]


def test_an_idle_link_looks_at_the_journal_every_50_ms():
    with Folder() as folder:
        hw, app, link, lines = _box(folder)
        hw.type("hall hello\n" + _ack("b1", None, 0))
        for _ in range(5):
            link.step()
        assert len(_sent(hw)) == len(lines)
        STORE.append(folder.path + "/games/current.txt", b"99: pass\n")   # the next action
        hw.now += usb_link.REST_MS - 1
        link.step()
        assert len(_sent(hw)) == len(lines)   # resting: the journal is not read every pass
        hw.now += 1
        link.step()
        assert _sent(hw)[-1]["line"] == "99: pass"
        STORE.append(folder.path + "/games/current.txt", b"100: pass\n")
        link.step()
        assert len(_sent(hw)) == len(lines) + 1
        hw.type("hall ping\n")   # the computer said something: looked at once
        link.step()
        assert _sent(hw)[-1]["line"] == "100: pass"
