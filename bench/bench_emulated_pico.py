"""Figures of the firmware on an emulated RP2040 (rp2040js): official MicroPython (the RPI_PICO
UF2 given, v1.28.0 or later) with the box on its littlefs as `matchbox uf2` puts it there.

Emulated time is the emulator's clock: an estimate of a Pico, not a measurement of one
(rp2040js counts about one cycle per instruction at 125 MHz, models no flash-cache stalls, and
its flash erases and programs take no time at all). No Pico was used.

Prints, with PASS/MISSED per goal:
  - free heap after boot (gc.mem_free()) and the resident firmware heap (gc.mem_alloc() after
    gc.collect() with the app booted by main.py and in its main loop, less what was allocated
    before main.py ran),
    fresh and resuming a 500-action game: goal <= 40 KB (and, not judged, resuming the
    longest game: a game's own record grows with it);
  - the engine heap in the steady state (bench/mpy_engine_bench.py on the board): 16 KB;
  - boot to the first key the box can take (its first keypad scan, which the game's first
    frame follows at once), fresh (goal <= 500 ms) and resuming (goal <= 500 ms at any
    length: 500 actions; 500 actions with an UNDO every 8; the longest game the bench makes;
    the longest journal, with undo/redo), each checked to show the resumed game;
  - key press to the display write, after the 20 ms debounce: goal <= 20 ms (with --usb-link
    also with the box's USB link to the hall running, box.usb_link);
  - I2C bytes per key press over a human-paced game against Adafruit's Seg7x4 (its
    CircuitPython driver, run here) rewriting only the displays whose content changed, same
    content, same run: goal <= 0.35x;
  - flash erases and bytes programmed per accepted action and per UNDO;
  - the hall's uplink cursor (box.uplink, which a Pico W runs) over the 5001-line journal:
    each line it gives, finding its place 4000 lines on, a call once caught up, its heap;
  - with --hall (or only that, --hall-only), on RPI_PICO_W: the human-paced game and the
    fresh resident heap with `hall.json` on the flash, the hall's MQTT link running, beside
    the same without it (hall_*). The emulator has no CYW43 radio: every Wi-Fi join the link
    starts fails ("[CYW43] Failed to start CYW43"), so this is the link with Wi-Fi down; no
    radio, join, broker or socket is measured.

Run: .venv/bin/python bench/bench_emulated_pico.py [--uf2 PATH] [--bootrom PATH] [--json]
[--strict] [--usb-link] [--hall | --hall-only]
(the UF2 and the RP2040 boot ROM: --uf2 and --bootrom, else MATCHBOX_PICO_UF2 and
MATCHBOX_PICO_BOOTROM; neither is in the repository or CI, and without them the bench prints
one line saying what to give and exits 0; where the littlefs is, and the board, come from the
UF2's binary info; about 10 minutes). --json prints one JSON object: the figures with stable
keys, "goals" and "missed". --strict exits 1 when a goal is missed.
"""
import argparse
import concurrent.futures
import json
import os
import re
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
for path in (ROOT, os.path.join(ROOT, "tests", "portable"), os.path.join(ROOT, "firmware", "lib"),
             HERE):
    if path not in sys.path:
        sys.path.insert(0, path)

from host_tools.virtual import box as vbox  # noqa: E402
from host_tools.virtual import emulated_pico as ep  # noqa: E402
from host_tools.virtual.ht16k33 import VirtualHT16K33  # noqa: E402

KB = 1024
# The budgets on official MicroPython, whose littlefs .mpy modules load their code into the heap:
# resident heap 40 KB, boot 500 ms fresh and resuming, a key 20 ms, I2C 0.35x Adafruit's bytes.
GOALS = {"resident_heap_bytes": 40 * KB, "engine_steady_heap_bytes": 16 * KB,
         "boot_ms_fresh": 500, "boot_ms_resume_500": 500, "boot_ms_resume_undo_500": 500,
         "boot_ms_resume_longest": 500, "boot_ms_resume_longest_journal": 500,
         "key_to_display_ms_max": 20, "i2c_ratio_vs_adafruit": 0.35}
GOAL_I2C_RATIO = GOALS["i2c_ratio_vs_adafruit"]
# --hall: the same goals with the hall's link running (hall.json on the flash)
HALL_GOALS = {"hall_key_to_display_ms_max": GOALS["key_to_display_ms_max"],
              "hall_resident_heap_bytes": GOALS["resident_heap_bytes"]}
# The settings `matchbox hall enrol --wifi-ssid` writes (host_tools/hall/uplink.py), for a
# broker at a TEST-NET address: on the emulated board (no CYW43 radio) the link never gets past
# its Wi-Fi join.
HALL_URL = "mqtt://bench:benchpass@192.0.2.1:1883"
HALL_SSID = "BenchWiFi"
CYW43_FAILED = "Failed to start CYW43"   # what the Pico W's firmware prints when the radio
                                         # does not start (the emulator has none)
RESUME_ACTIONS = 500
LONG_JOURNAL_LINES = 5000   # at least: 500 actions and undo/redo pairs to make it up
ENGINE_SEED = 2024       # the 284-action 8-player game of bench_engine.py
# The human-paced game: 4 players with G/H, a think before each action, keys a moment apart,
# an UNDO (and the action keyed again) every UNDO_EVERY actions.
HUMAN_SETUP = (4, 2, "gh4", 4, 12, [6, 6, 6, 6])
HUMAN_SEED = 1
THINK_MS = (1000, 3000)
KEY_HOLD_MS = 100
KEY_GAP_MS = 250
UNDO_EVERY = 8
# A typical NOR flash (W25Q16JV, the Pico's): 4 KB sector erase 45 ms, 256-byte page program
# 0.4 ms (datasheet typical values). Only used to say what the emulation leaves out.
ERASE_MS = 45.0
PAGE_PROGRAM_MS = 0.4

# Run at the raw REPL of a board booted in maintenance mode (no app), after a soft reset: the
# same clean interpreter on both firmwares, the code imported from where the firmware keeps it.
# It runs the box as the board does at power-up, counted from before anything of it is loaded:
# main.py compiled and run (its code held while the box runs, as MicroPython holds a running
# main.py), box.powerup.run() (the map read once, power-up's modules let go once the app is
# started: BOOT_ONLY), and box.app.loop, whose 40th pass (its hw.idle() counted) collects the
# garbage, prints the heap and leaves as Ctrl-C does (powerup stops the watchdog). The loop's
# passes are the box's own: its poll of the USB serial, or a step of the hall's link when the
# flash holds hall.json. It goes on the flash as heap_probe.py and is imported (a probe of
# about 600 bytes typed at once into the emulated board's raw REPL was never run; not looked
# into further), its names kept in its function so that the module's globals do not grow.
HEAP_PROBE = b'''import gc
import os
def run():
    os.remove("maintenance")   # the board was booted in maintenance mode; power-up now runs
    idle = [None, 0]
    def counted(hw):
        idle[0](hw)
        idle[1] += 1
        if idle[1] == 40:
            gc.collect()
            print("HEAP %d %d %d" % (base, gc.mem_alloc(), gc.mem_free()))
            raise KeyboardInterrupt
    main = {"__name__": "__main__"}
    gc.collect()
    base = gc.mem_alloc()
    from box.pico import PicoHw
    idle[0] = PicoHw.idle
    PicoHw.idle = counted
    f = open("main.py")
    code = compile(f.read(), "main.py", "exec")
    f.close()
    f = None
    exec(code, main)
run()
import micropython
micropython.qstr_info()
'''

ENGINE_PROBE = b'''import sys
while sys.argv:
    sys.argv.pop()
sys.argv.append("engine_bench")
sys.argv.append("record.txt")
sys.argv.append("journal.txt")
import engine_bench
'''


CURSOR_PROBE = b'''import gc, time
gc.collect()
base = gc.mem_alloc()
from box.journal import Store
from box.uplink import Cursor, game_number
c = Cursor(Store(), "games")
c.connected()
c.ack("b1", None, 0, 0)
steps = []
sent = 0
while sent < LINES:
    t = time.ticks_us()
    item = c.next(0)
    steps.append(time.ticks_diff(time.ticks_us(), t))
    if item is None:
        if c.busy:
            continue
        break
    sent += 1
    c.ack("b1", item[0], item[1], 0)
gc.collect()
heap = gc.mem_alloc() - base
steps.sort()
c.ack("b2", item[0], item[1] + 4000, 0)   # a new hall start that has 4000 lines more
calls = 0
worst = 0
while True:
    t = time.ticks_us()
    got = c.next(0)
    d = time.ticks_diff(time.ticks_us(), t)
    calls += 1
    worst = max(worst, d)
    if got is not None or calls > 500:
        break
f = open("games/current.txt", "rb")
total = 0
while True:
    chunk = f.read(512)
    if not chunk:
        break
    total += chunk.count(b"\\n")
f.close()
c.ack("b3", item[0], total, 0)   # the hall has it all: caught up, the next calls only look
for _ in range(200):
    if c.next(0) is None and not c.busy:
        break
idle = 0
for _ in range(20):
    t = time.ticks_us()
    c.next(0)
    idle = max(idle, time.ticks_diff(time.ticks_us(), t))
print("CURSOR %d %d %d %d %d %d %d %d" % (sent, steps[len(steps) // 2], steps[-1], heap, calls,
                                          worst, got[1] if got else -1, idle))
'''
CURSOR_LINES = 300   # lines the cursor gives on the emulated Pico (a call of next() each,
                     # or two when the next line is past the block read)


def kb(n):
    return "%d B (%.1f KB)" % (n, n / KB)


class Firmware:
    """What the emulated board runs: a UF2 and the littlefs it starts from."""

    def __init__(self, name, uf2, files, board="pico"):
        self.name = name
        self.uf2 = uf2
        self.files = files
        self.board_name = board   # what the UF2's binary info names (pico, pico_w)

    def board(self, extra=None, maintenance=False):
        files = dict(self.files)
        files.update(extra or {})
        if maintenance:
            files["maintenance"] = b"bench\n"
        return ep.EmulatedPico(uf2=self.uf2, files=files)


# --- records and journals ---------------------------------------------------------------------

def _games_files(write):
    """{path: bytes} of the games/ folder the box's own journal code (run here on CPython)
    leaves after write(journal)."""
    from box.journal import Journal
    with tempfile.TemporaryDirectory() as tmp:
        journal = Journal(os.path.join(tmp, "games"))
        write(journal)
        out = {}
        for name in sorted(os.listdir(os.path.join(tmp, "games"))):
            path = os.path.join(tmp, "games", name)
            if os.path.isfile(path):
                with open(path, "rb") as f:
                    out["games/" + name] = f.read()
    return out


def journal_files(game, undo_every=0, pairs=0):
    """The games/ files of a box that journalled `game` action by action as keyed, its resume
    snapshot included: with an UNDO and the action keyed again every `undo_every` actions, and
    `pairs` undo/redo pairs of the last action at the end. Returns ({path: bytes}, journal
    lines)."""
    from tycoon.game import Game
    actions = list(game.actions())
    setup = (game.players, game.dealer, game.expansion, game.revolution_size, game.total_sticks,
             list(game.hands))

    def again(live, action):
        kind, seat, faces, value, explicit = action
        live.apply(kind, faces, value if explicit else None, seat)

    def write(journal):
        # as the app journals: each line, then the resume snapshot when one is due
        live = Game(*setup)
        journal.start(live)
        for n, action in enumerate(actions, 1):
            again(live, action)
            journal.append(live)
            journal.checkpoint(live)
            if undo_every and n % undo_every == 0 and n < len(actions):
                last = live.last_action()
                live.undo()
                journal.undo(live, last)
                journal.checkpoint(live)
                again(live, action)
                journal.append(live)
                journal.checkpoint(live)
        for _ in range(pairs):
            last = live.last_action()
            live.undo()
            journal.undo(live, last)
            journal.checkpoint(live)
            again(live, actions[-1])
            journal.append(live)
            journal.checkpoint(live)
    files = _games_files(write)
    return files, files["games/current.txt"].count(b"\n")
# --- counting I2C -----------------------------------------------------------------------------

class CountingBus:
    """The busio.I2C surface Adafruit's driver uses (locking, writeto with slices), counting
    the bytes it writes and its writes (each one also puts the address byte on the bus)."""

    def __init__(self):
        self.bytes = 0
        self.writes = 0

    def try_lock(self):
        return True

    def unlock(self):
        pass

    def writeto(self, address, buf, *, start=0, end=None):
        self.bytes += len(bytes(buf[start:end]))
        self.writes += 1

    def readfrom_into(self, address, buf, *, start=0, end=None):
        raise OSError(19)


def adafruit_bytes(writes, since_us=0):
    """What Adafruit's CircuitPython driver (adafruit_ht16k33.segments.Seg7x4, a dev
    dependency) sends for the same content: one Seg7x4 per display, auto_write off, and each
    time a display's content changes its digits and colon are set and show() is called (the
    whole buffer goes out); a change of its setup (on, blink, brightness) is set through its
    properties. `writes`: (us, address, bytes) in order; the writes to one display a moment
    apart (one flush of the app) are one change. Counts from `since_us` on; returns (bytes on
    the bus, the address byte of each write included; payload bytes only)."""
    from adafruit_ht16k33.segments import Seg7x4
    from box.ht16k33 import POSITIONS
    bus = CountingBus()
    chips = {}
    drivers = {}
    last = {}     # address -> (us of its last write, (RAM, setup) before that group)

    def setup(chip):
        return (chip.on, chip.blink, chip.brightness)

    def close(addr):
        us, (ram, was) = last.pop(addr)
        chip = chips[addr]
        disp = drivers[addr]
        before = (bus.bytes, bus.writes)
        if setup(chip) != was:
            disp.blink_rate = chip.blink
            disp.brightness = chip.brightness / 15
        if bytes(chip.ram) != ram:
            for pos, at in enumerate(POSITIONS):
                disp.set_digit_raw(pos, chip.ram[at])
            disp.colon = bool(chip.ram[4] & 2)
            disp.show()
        if us < since_us:
            bus.bytes, bus.writes = before

    for us, addr, data in writes:
        if addr not in chips:
            chips[addr] = VirtualHT16K33(addr)
            before = (bus.bytes, bus.writes)
            drivers[addr] = Seg7x4(bus, address=addr, auto_write=False)
            bus.bytes, bus.writes = before   # its own set-up at construction is not counted
        chip = chips[addr]
        if addr in last and us - last[addr][0] > 2000:
            close(addr)
        if addr not in last:
            last[addr] = (us, (bytes(chip.ram), setup(chip)))
        else:
            last[addr] = (us, last[addr][1])
        chip.write(data)
    for addr in list(last):
        close(addr)
    return bus.bytes + bus.writes, bus.bytes


def read_bytes(reads, since_us=0):
    """Reads of a display's RAM from `since_us` on: (bytes on the bus: the address byte of
    the pointer write and of the read, the register, the data; payload bytes: register and
    data). `reads`: (us, address, register or None, n)."""
    bus = payload = 0
    for us, _a, reg, n in reads:
        if us >= since_us:
            sent = (0 if reg is None else 1) + n
            bus += sent + (1 if reg is None else 2)
            payload += sent
    return bus, payload


def ours_bytes(writes, since_us=0, reads=()):
    """Our writes (and reads) from `since_us` on: (bytes on the bus, the address byte of each
    transfer included; payload bytes only)."""
    sent = [len(data) for us, _a, data in writes if us >= since_us]
    rbus, rpayload = read_bytes(reads, since_us)
    return sum(sent) + len(sent) + rbus, sum(sent) + rpayload


def refresh_bytes(writes, since_us=0, reads=()):
    """Bytes of the safeguard against a chip that lost power: the canary reads (every read
    of a display's RAM) and the displays' re-initialisations (the oscillator command 0x21
    and the writes to that display within 2 ms after it). Returns (bytes on the bus, address
    bytes included; payload bytes only)."""
    total = 0
    count = 0
    started = {}
    for us, addr, data in writes:
        if data[:1] == b"\x21":
            started[addr] = us
        elif addr not in started or us - started[addr] >= 2000:
            continue
        if us >= since_us:
            total += len(data)
            count += 1
    rbus, rpayload = read_bytes(reads, since_us)
    return total + count + rbus, total + rpayload


# --- frames ---------------------------------------------------------------------------------------

def first_drawn(writes, n0):
    """The first write from index n0 on that draws (a RAM write that is not part of a display's
    periodic re-initialisation, which starts with the oscillator command 0x21); None if none."""
    refreshing = {}
    for us, addr, data in writes[n0:]:
        if data[:1] == b"\x21":
            refreshing[addr] = us
        elif addr in refreshing and us - refreshing[addr] < 2000:
            continue
        elif data[0] < 0x10:
            return us, addr, data
    return None


# --- the emulated Pico --------------------------------------------------------------------------

def wait_line(pico, prefix, within_ms):
    pico.run_until(lambda: any(line.startswith(prefix) for line in pico.console), within_ms)
    for line in pico.console:
        if line.startswith(prefix):
            return line
    raise RuntimeError("the emulated board never printed %r:\n%s" % (
        prefix, "\n".join(pico.console[-20:])))


def run_probe(fw, code, prefix, extra=None, within_ms=60000, console=False):
    """Boot in maintenance mode (no app), enter the raw REPL, soft-reset it for a clean
    interpreter, run `code` (pasted: keep it short, a longer probe goes on the flash as a
    module to import); returns the first line it prints starting with `prefix` (with console,
    every line the board printed by then)."""
    with fw.board(extra, maintenance=True) as pico:
        pico.boot(wait_lit=False)
        for send, wait in ((b"", b">>> "), (b"\x01", b"raw REPL; CTRL-B to exit\r\n>"),
                           (b"\x04", b"soft reboot")):
            mark = len(pico.serial)
            pico.write_serial(send)
            if not pico.run_until(lambda: wait in pico.serial[mark if send else 0:], 30000):
                raise RuntimeError("the emulated board's REPL did not answer:\n%s"
                                   % pico.serial[-300:].decode("utf-8", "replace"))
        pico.run_until(lambda: pico.serial.endswith(b"\r\n>"), 5000)
        pico.write_serial(b"print()\n" + code + b"\x04")   # raw REPL's "OK" on a line of its own
        line = wait_line(pico, prefix, within_ms)
        return list(pico.console) if console else line


def pico_heap(fw, extra):
    """(resident heap, free heap, qstrs interned at run time, their pools) after a fresh boot
    and 40 passes of the main loop. MicroPython keeps the names and short strings of the code
    it loads in pools that never shrink, each new pool twice the last: one more name past a
    pool's end costs the whole next pool (3.9 KB for the sixth)."""
    files = dict(extra)
    files["heap_probe.py"] = HEAP_PROBE
    console = run_probe(fw, b"import heap_probe\n", "qstr pool", files, console=True)
    words = next(line for line in console if line.startswith("HEAP ")).split()
    base, alloc, free = (int(w) for w in words[1:4])
    pools = re.search(r"n_pool=(\d+), n_qstr=(\d+)", "\n".join(console))
    return alloc - base, free, int(pools.group(2)), int(pools.group(1))


def tagged_journal(record):
    """The record as box.journal writes it (each line with its checksum tag)."""
    from tycoon import writer
    lines = record.split("\n")[:-1]
    return b"".join(writer.tagged(i + 1, text) for i, text in enumerate(lines))


def pico_engine(fw, record):
    with open(os.path.join(HERE, "mpy_engine_bench.py"), "rb") as f:
        probe = f.read()
    extra = {"engine_bench.py": probe, "record.txt": record.encode(),
             "journal.txt": tagged_journal(record)}
    return json.loads(run_probe(fw, ENGINE_PROBE, '{"', extra, within_ms=120000))


def unix_displays(extra):
    """What the unix port's virtual box shows after booting with these files: the displays a
    resumed game must show."""
    with vbox.VBox() as box:
        for path, data in extra.items():
            os.makedirs(os.path.dirname(os.path.join(box.flash, path)), exist_ok=True)
            with open(os.path.join(box.flash, path), "wb") as f:
                f.write(data)
        box.boot()
        box.advance(300)
        return box.displays()


def pico_cursor(fw, extra):
    """The uplink's cursor (box.uplink) on the board over a journal: the cost of each call of
    next() while it gives the first CURSOR_LINES lines, acknowledged one by one (emulated us),
    the heap it and its modules take, finding its place 4000 lines on after a new hall start
    (calls of one block read each, the slowest call), and a call once caught up (the
    journal's last block read again)."""
    files = dict(extra)
    files["cursor_probe.py"] = CURSOR_PROBE.replace(b"LINES", b"%d" % CURSOR_LINES)
    words = run_probe(fw, b"import cursor_probe\n", "CURSOR ", files, within_ms=600000).split()
    sent, p50, worst, heap, calls, find_worst, found, idle = (int(w) for w in words[1:9])
    return {"cursor_lines": sent, "cursor_next_us_median": p50, "cursor_next_us_max": worst,
            "cursor_heap_bytes": heap, "cursor_find_calls": calls,
            "cursor_find_us_max": find_worst, "cursor_found_seq": found,
            "cursor_caught_up_us_max": idle}


def pico_boot(fw, extra):
    """(emulated ms from power-up to the first key the box can take, its first keypad scan,
    or None; what the displays show 300 ms later)."""
    with fw.board(extra) as pico:
        pico.boot(wait_lit=False)
        pico.run_until(lambda: pico.scanned_at is not None, 30000, step=20)
        ms = pico.scanned_at
        pico.advance(300)
        return ms, pico.displays()


class Run:
    """What one box did over the human-paced game."""

    def __init__(self):
        self.latency = {"face": [], "action": [], "undo": []}
        self.flash = {"action": [], "undo": []}
        self.presses = 0
        self.not_shown = 0    # presses the displays did not answer within 300 ms
        self.finished = None  # whether the game came to its end on the box
        self.writes = []
        self.reads = []
        self.since_us = 0
        self.emulated_ms = 0


def key_kind(key, kind):
    if kind == "undo":
        return "undo"
    return "action" if key in ("PLAY", "PASS") else "face"


def human_game():
    """The keys of the human-paced game: [(think ms, [key, ...], kind)], kind "action",
    "undo" or "setup"."""
    import engine_helpers as eh
    from host_tools.virtual.box import action_keys, setup_keys
    from tycoon.game import Game
    rng = eh.Lcg(HUMAN_SEED)
    think = eh.Lcg(HUMAN_SEED + 100)
    game = Game(*HUMAN_SETUP)
    steps = [(500, setup_keys(*HUMAN_SETUP), "setup")]
    n = 0
    while not game.finished:
        eh.step(game, rng)
        n += 1
        wait = THINK_MS[0] + think.below(THINK_MS[1] - THINK_MS[0])
        steps.append((wait, action_keys(*list(game.actions())[-1]), "action"))
        if n % UNDO_EVERY == 0 and not game.finished:
            steps.append((1500, ["UNDO"], "undo"))
            steps.append((1500, action_keys(*list(game.actions())[-1]), "action"))
    return steps, game


class UsbHall:
    """What `matchbox uplink` and the hall say to the box over USB, played here: hello, then
    an acknowledgement of the journal lines the box sends, as soon as they are sent (each
    advance of the board), the latest one at most every ACK_GAP_S as the bridge passes them
    on; `lines` counts them. With acks False the hall never acknowledges (away, or its
    broker: the box sends its window again every 1.5 s)."""

    def __init__(self, pico, acks=True):
        from host_tools.commands.uplink import ACK_GAP_S
        self.pico = pico
        self.acks = acks
        self.gap_ms = ACK_GAP_S * 1000
        self.seen = 0
        self.lines = 0
        self.due = None       # the acknowledgement not yet passed on
        self.sent_at = None   # when the last one was (emulated ms)
        self._advance = pico.advance
        pico.advance = self.advance
        pico.write_serial(b'hall hello\nhall ack {"hall": "bench", "game": null, "seq": 0}\n')

    def advance(self, ms):
        self._advance(ms)
        console = self.pico.console
        while self.seen < len(console):
            line = console[self.seen]
            self.seen += 1
            if line.startswith("hall line "):
                m = json.loads(line[len("hall line "):])
                self.lines += 1
                if self.acks:
                    self.due = (m["game"], m["seq"])
        now = self.pico.now
        if self.due and (self.sent_at is None or now - self.sent_at >= self.gap_ms):
            self.pico.write_serial(('hall ack {"hall": "bench", "game": "%s", "seq": %d}\n'
                                    % self.due).encode())
            self.due = None
            self.sent_at = now


def hall_files():
    """{"hall.json": bytes} as `matchbox hall enrol` writes it (HALL_URL, HALL_SSID)."""
    from host_tools.hall import uplink
    data = uplink.settings(HALL_URL, HALL_SSID, "benchwifi")
    return {"hall.json": (json.dumps(data, separators=(",", ":")) + "\n").encode()}


def pico_human(fw, steps, usb_link=False, extra=None):
    """The human-paced game on the emulated box; with usb_link ("acked" or "stalled"), with the
    USB link to the hall running all along (UsbHall); `extra` files on its flash (hall.json)."""
    run = Run()
    with fw.board(extra) as pico:
        pico.boot()
        # a Pico W's radio starts before the game is shown (in short steps: rp2040js stalls in
        # the radio's start when run on in one long step)
        pico.run_until(lambda: pico.framed_at is not None, 5000)
        hall = UsbHall(pico, acks=usb_link == "acked") if usb_link else None
        for wait, keys, kind in steps:
            pico.advance(wait)
            if kind == "setup":
                for key in keys:
                    pico.tap(key)
                pico.advance(500)
                run.since_us = pico.now * 1000
                continue
            log0 = len(pico.flash_log)
            for key in keys:
                t0 = pico.now
                n0 = len(pico.writes)
                pico.press(key)
                pico.run_until(lambda: first_drawn(pico.writes, n0) is not None, 300, step=2)
                drawn = first_drawn(pico.writes, n0)
                if drawn is not None:
                    run.latency[key_kind(key, kind)].append(drawn[0] / 1000 - t0)
                else:
                    run.not_shown += 1
                pico.advance(max(0, KEY_HOLD_MS - (pico.now - t0)))
                pico.release(key)
                pico.advance(KEY_GAP_MS)
                run.presses += 1
            pico.advance(300)
            ops = pico.flash_log[log0:]
            run.flash["undo" if kind == "undo" else "action"].append((
                sum(1 for k, _o, _c in ops if k == "e"), sum(c for k, _o, c in ops if k == "p")))
        pico.advance(3000)   # the last announcement ends
        run.writes = list(pico.writes)
        run.reads = list(pico.reads)
        run.emulated_ms = pico.now - run.since_us / 1000
        run.finished = bool(pico.last_state and pico.last_state["finished"])
        assert run.finished or extra, "the game did not finish"
        run.cyw43_failed = sum(1 for x in pico.console if CYW43_FAILED in x)
        if hall is not None:
            run.usb_lines = hall.lines
            run.usb_errors = [x for x in pico.console if x.startswith("hall error")]
    return run


def pico_files(main=None, extra=None):
    """The littlefs as `matchbox flash` fills it, with another main.py (a probe of a bench run
    there)."""
    files = ep.firmware_files()
    if main is not None:
        files["main.py"] = main
    files.update(extra or {})
    return files


def unix_human(steps):
    """The same keys at the same pace on the virtual box; writes stamped with the box's
    clock (its 5 ms steps)."""
    run = Run()
    with vbox.VBox() as box:
        log = []
        for addr, chip in box.chips.items():
            def write(data, chip=chip, addr=addr, real=chip.write):
                log.append(((box.now or 0) * 1000, addr, bytes(data)))
                return real(data)
            chip.write = write
        box.boot()
        box.advance(300)

        def wait(ms):
            while ms > 0:
                box.advance(min(ms, 5))
                ms -= 5
        for pause, keys, kind in steps:
            wait(pause)
            if kind == "setup":
                for key in keys:
                    box.tap(key)
                wait(500)
                run.since_us = box.now * 1000
                continue
            for key in keys:
                t0 = box.now
                n0 = len(log)
                box.press(key)
                spent = 0
                while first_drawn(log, n0) is None and spent < 300:
                    box.advance(5)
                    spent += 5
                drawn = first_drawn(log, n0)
                if drawn is not None:
                    run.latency[key_kind(key, kind)].append(drawn[0] / 1000 - t0)
                wait(max(0, KEY_HOLD_MS - (box.now - t0)))
                box.release(key)
                wait(KEY_GAP_MS)
                run.presses += 1
            wait(300)
        wait(3000)
        run.writes = log
        run.reads = [(ms * 1000, a, reg, n) for ms, a, reg, n in box.reads]
        run.emulated_ms = box.now - run.since_us / 1000
        assert box.game()["finished"], "the game did not finish"
    return run


# --- one firmware's figures ---------------------------------------------------------------------

def journals():
    """The resumed journals: [(key, label, files, actions, lines)]."""
    from bench_journal_flash import long_game, longest_game
    game = long_game(1, RESUME_ACTIONS, pass_chance=0.9)   # passing nine times in ten
    out = []
    files, lines = journal_files(game)
    out.append(("500", "%d actions" % len(game), files, len(game), lines))
    files, lines = journal_files(game, undo_every=UNDO_EVERY)
    out.append(("undo_500", "%d actions, an UNDO every %d" % (len(game), UNDO_EVERY), files,
                len(game), lines))
    longest = longest_game()
    files, lines = journal_files(longest)
    out.append(("longest", "the longest game (%d actions)" % len(longest), files, len(longest),
                lines))
    pairs = max(0, (LONG_JOURNAL_LINES - lines) // 2 + 1)
    files, lines = journal_files(longest, pairs=pairs)
    out.append(("longest_journal", "the longest game + %d undo/redo pairs (%d lines)"
                % (pairs, lines), files, len(longest), lines))
    return out


def key_figures(run, prefix=""):
    """Key press to display write after the debounce, from a human-paced run."""
    from box.keys import DEBOUNCE_MS
    f = {}
    every = []
    for kind in ("face", "action", "undo"):
        lat = [x - DEBOUNCE_MS for x in run.latency[kind]]
        every += lat
        f["%skey_to_display_ms_%s" % (prefix, kind)] = [round(statistics.median(lat), 1),
                                                        round(max(lat), 1), len(lat)] if lat else None
    f[prefix + "key_to_display_ms_median"] = round(statistics.median(every), 1)
    f[prefix + "key_to_display_ms_max"] = round(max(every), 1)
    return f


def measure_hall(name, uf2, files, steps, board, hall):
    """Key to display over the human-paced game and the resident heap (fresh), with the hall's
    link running when `hall` (hall.json on the flash; prefix hall_), else without it."""
    fw = Firmware(name, uf2, files, board)
    extra = hall_files() if hall else {}
    prefix = "hall_" if hall else ""
    heap, free, qstrs, pools = pico_heap(fw, extra)
    shown_ms, _shown = pico_boot(fw, extra)
    run = pico_human(fw, steps, extra=extra)
    f = key_figures(run, prefix)
    f[prefix + "boot_ms_fresh"] = shown_ms
    f.update({"hall_resident_heap_bytes" if hall else "resident_heap_fresh_bytes": heap,
              prefix + "free_heap_bytes": free,
              prefix + "qstrs": qstrs, prefix + "qstr_pools": pools,
              prefix + "key_presses": run.presses,
              prefix + "emulated_s": round(run.emulated_ms / 1000, 1),
              prefix + "cyw43_start_failures": run.cyw43_failed,
              prefix + "keys_not_shown": run.not_shown, prefix + "game_finished": run.finished})
    return f


def measure(name, uf2, files, steps, usb_link=False, board="pico"):
    """Every figure of one firmware, as a dict with the stable keys of --json; with usb_link
    also key to display with the USB link to the hall running (usb_link_key_to_display_*)."""
    fw = Firmware(name, uf2, files, board)
    f = {"board": board}
    if usb_link:
        for kind, prefix in (("acked", "usb_link_"), ("stalled", "usb_link_stalled_")):
            run = pico_human(fw, steps, usb_link=kind)
            f.update(key_figures(run, prefix))
            f[prefix + "lines_sent"] = run.usb_lines
            f[prefix + "errors"] = run.usb_errors
    resumed = journals()
    heap_fresh, free_fresh, qstrs, pools = pico_heap(fw, {})
    heap_500, free_500, _q, _p = pico_heap(fw, resumed[0][2])
    f.update(qstrs=qstrs, qstr_pools=pools)
    f.update(resident_heap_bytes=max(heap_fresh, heap_500), resident_heap_fresh_bytes=heap_fresh,
             resident_heap_resume_500_bytes=heap_500, free_heap_bytes=min(free_fresh, free_500))
    # the longest game the bench makes, for what a game's own record adds as it grows (the
    # goal is judged on the two above, as the budget was set)
    f["resident_heap_resume_longest_bytes"] = pico_heap(fw, resumed[2][2])[0]
    from bench_engine import long_game as engine_game
    from tycoon import notation
    engine = pico_engine(fw, notation.write(engine_game(ENGINE_SEED)))
    f.update(engine_steady_heap_bytes=engine["steady_heap"], engine_boot_heap_bytes=engine["boot_heap"])
    f["boot_ms_fresh"], _shown = pico_boot(fw, {})
    f["boot_shows"] = {}
    f["resume_actions"] = {}
    f["resume_journal_lines"] = {}
    for key, _label, extra, actions, lines in resumed:
        ms, shown = pico_boot(fw, extra)
        f["boot_ms_resume_" + key] = ms
        f["boot_shows"][key] = shown
        f["resume_actions"][key] = actions
        f["resume_journal_lines"][key] = lines
    f["resume_longest_actions"] = f["resume_actions"]["longest"]
    f["resume_longest_journal_lines"] = f["resume_journal_lines"]["longest_journal"]
    run = pico_human(fw, steps)
    f.update(key_figures(run))
    ours, ours_payload = ours_bytes(run.writes, run.since_us, run.reads)
    ada, ada_payload = adafruit_bytes(run.writes, run.since_us)
    f.update(i2c_ratio_vs_adafruit=round(ours / ada, 3) if ada else None, i2c_bytes_ours=ours,
             i2c_bytes_adafruit=ada, i2c_payload_ours=ours_payload,
             i2c_payload_adafruit=ada_payload,
             i2c_payload_ratio_vs_adafruit=round(ours_payload / ada_payload, 3) if ada_payload else None,
             i2c_bytes_safeguard=refresh_bytes(run.writes, run.since_us, run.reads)[0],
             key_presses=run.presses, emulated_s=round(run.emulated_ms / 1000, 1))
    for kind in ("action", "undo"):
        rows = run.flash[kind]
        f["flash_erases_per_%s" % kind] = round(statistics.mean(r[0] for r in rows), 2)
        f["flash_bytes_per_%s" % kind] = round(statistics.mean(r[1] for r in rows))
    f.update(pico_cursor(fw, resumed[-1][2]))   # the longest journal (5001 lines)
    return f


def resume_checks(figures):
    """The resumed journals' displays against the unix port's for the same files: each boot
    figure counts only if the box showed the resumed game."""
    ok = {}
    for key, _label, extra, _actions, _lines in journals():
        want = unix_displays(extra)
        ok[key] = {name: figures[name]["boot_shows"][key] == want for name in figures}
    return ok
# --- the report -----------------------------------------------------------------------------------

def verdict(value, key, missed):
    if value is None:
        missed.append(key)
        return "MISSED (no figure)"
    if value <= GOALS[key]:
        return "PASS"
    missed.append(key)
    return "MISSED"


def goals_missed(f):
    missed = []
    for key in GOALS:
        verdict(f.get(key), key, missed)
    for key, shown in f.get("resume_shows_game", {}).items():
        if not shown:
            missed.append("boot_ms_resume_%s (the displays did not show the resumed game)" % key)
    return missed


def row(label, figures, key, fmt="%s"):
    cells = []
    for name in figures:
        value = figures[name].get(key)
        cells.append("%-24s" % ("-" if value is None else fmt % value))
    return "   %-46s %s" % (label, " ".join(cells))


def report(figures, main_name, labels):
    names = list(figures)
    f = figures[main_name]
    print("   %-46s %s" % ("", " ".join("%-24s" % n for n in names)))
    print("\n1. Heap (resident: allocated with the app booted and looping, less what was "
          "allocated before the firmware's imports)")
    print(row("resident, fresh (setup menu)", figures, "resident_heap_fresh_bytes", "%d B"))
    print(row("resident, resumed 500-action game", figures, "resident_heap_resume_500_bytes", "%d B"))
    print(row("resident, resumed longest game (not judged)", figures,
              "resident_heap_resume_longest_bytes", "%d B"))
    print(row("free after boot (the lower)", figures, "free_heap_bytes", "%d B"))
    print(row("names interned at run time, fresh", figures, "qstrs", "%d qstrs"))
    print(row("  in pools (the next: twice the last)", figures, "qstr_pools", "%d"))
    missed = []
    print("   goal: resident <= 40 KB: %s" % verdict(f["resident_heap_bytes"], "resident_heap_bytes", missed))
    print("\n2. Engine heap in the steady state (bench/mpy_engine_bench.py on the board, a "
          "284-action 8-player game)")
    print(row("engine + a live game, the reader let go", figures, "engine_steady_heap_bytes", "%d B"))
    print(row("boot peak: engine + reader + journal read", figures, "engine_boot_heap_bytes", "%d B"))
    print("   budget 16 KB: %s" % verdict(f["engine_steady_heap_bytes"], "engine_steady_heap_bytes", missed))
    print("\n3. Boot to the first key the box can take (its first keypad scan), emulated ms "
          "(each resumed boot checked against the unix port's displays for the same journal)")
    print(row("fresh", figures, "boot_ms_fresh", "%.0f ms"))
    for key, label in labels:
        print(row("resuming %s" % label, figures, "boot_ms_resume_" + key, "%.0f ms"))
        shown = {n: figures[n]["resume_shows_game"][key] for n in names}
        print("   %-46s %s" % ("  ... showed the resumed game", " ".join(
            "%-24s" % ("yes" if shown[n] else "NO") for n in names)))
    print("   goal: fresh <= 500 ms: %s; resuming <= 500 ms at any length: %s" % (
        verdict(f["boot_ms_fresh"], "boot_ms_fresh", missed),
        ", ".join("%s %s" % (k, verdict(f["boot_ms_resume_" + k], "boot_ms_resume_" + k, missed))
                  for k, _l in labels if "boot_ms_resume_" + k in GOALS)))
    print("\n4. Key press to the first display write, less the 20 ms debounce (human-paced "
          "game: %d presses, %s s emulated)" % (f["key_presses"], f["emulated_s"]))
    for kind, label in (("face", "face, AS, DEL keys (median / max ms)"),
                        ("action", "PLAY / PASS"), ("undo", "UNDO")):
        print(row(label, figures, "key_to_display_ms_" + kind, "%s"))
    print("   goal: <= 20 ms, every press: %s (worst %.1f ms, median %.1f ms)" % (
        verdict(f["key_to_display_ms_max"], "key_to_display_ms_max", missed),
        f["key_to_display_ms_max"], f["key_to_display_ms_median"]))
    if "usb_link_key_to_display_ms_max" in f:
        print("   with the USB link to the hall running (--usb-link: %d journal lines sent, each "
              "acknowledged at once): worst %.1f ms, median %.1f ms" % (
                  f["usb_link_lines_sent"], f["usb_link_key_to_display_ms_max"],
                  f["usb_link_key_to_display_ms_median"]))
        print("   ... the hall never acknowledging (%d lines sent, the window again every 1.5 s): "
              "worst %.1f ms, median %.1f ms" % (
                  f["usb_link_stalled_lines_sent"], f["usb_link_stalled_key_to_display_ms_max"],
                  f["usb_link_stalled_key_to_display_ms_median"]))
    print("\n5. I2C bytes over the game, from the setup's last key to the end: every byte on the "
          "bus, each write's address byte included (the payload alone beside it)")
    print(row("ours", figures, "i2c_bytes_ours", "%d B"))
    print(row("  payload only", figures, "i2c_payload_ours", "%d B"))
    print(row("  of ours, displays re-sent in turn", figures, "i2c_bytes_safeguard", "%d B"))
    print(row("Adafruit Seg7x4 (changed displays only)", figures, "i2c_bytes_adafruit", "%d B"))
    print(row("  payload only", figures, "i2c_payload_adafruit", "%d B"))
    print(row("ratio with address bytes", figures, "i2c_ratio_vs_adafruit", "%.2fx"))
    print(row("ratio of the payloads", figures, "i2c_payload_ratio_vs_adafruit", "%.2fx"))
    print("   goal: <= 0.35x with the address bytes: %s" % verdict(
        f["i2c_ratio_vs_adafruit"], "i2c_ratio_vs_adafruit", missed))
    print("\n6. Flash per operation (emulated flash: boot-ROM erase/program calls counted)")
    print(row("erases per accepted action", figures, "flash_erases_per_action", "%.2f"))
    print(row("bytes programmed per accepted action", figures, "flash_bytes_per_action", "%d B"))
    print(row("erases per UNDO", figures, "flash_erases_per_undo", "%.2f"))
    print(row("bytes programmed per UNDO", figures, "flash_bytes_per_undo", "%d B"))
    erase = f["flash_erases_per_action"]
    pages = f["flash_bytes_per_action"] / 256
    print("   not in emulated time: the flash's own erase and program time; a typical W25Q16JV "
          "(4 KB erase %.0f ms, page %.1f ms) would take about %.0f ms a PLAY/PASS, after the "
          "displays show it" % (ERASE_MS, PAGE_PROGRAM_MS, erase * ERASE_MS + pages * PAGE_PROGRAM_MS))
    missed += [m for m in goals_missed(f) if m not in missed]
    print("\n7. The hall's uplink cursor (box.uplink; a Pico W runs it) over the %d-line journal, emulated us" % f["resume_journal_lines"]["longest_journal"])
    print(row("a call of next() giving lines, median", figures, "cursor_next_us_median", "%d us"))
    print(row("a call of next() giving lines, worst", figures, "cursor_next_us_max", "%d us"))
    print(row("finding its place 4000 lines on: calls", figures, "cursor_find_calls", "%d"))
    print(row("  the slowest call (one block)", figures, "cursor_find_us_max", "%d us"))
    print(row("caught up: a call (the last block read)", figures, "cursor_caught_up_us_max", "%d us"))
    print(row("its heap and its modules'", figures, "cursor_heap_bytes", "%d B"))
    return missed


def _measure(args):
    if args[0] == "hall":
        return measure_hall(*args[1:])
    return measure(*args)


def report_hall(f, full):
    """The side-by-side of --hall; returns the goals missed."""
    missed = []
    print("\n%sThe hall's MQTT link on the %s image, Wi-Fi down: hall.json on the flash (a broker "
          "at %s, Wi-Fi %r); the emulator has no CYW43 radio, so every Wi-Fi join the link starts "
          "fails (%r printed %d times over the game)" % (
              "8. " if full else "", f.get("board", "?"), HALL_URL.rsplit("@", 1)[1], HALL_SSID,
              CYW43_FAILED, f["hall_cyw43_start_failures"]))
    print("   %-46s %-24s %-24s" % ("", "no hall.json", "hall.json (link running)"))
    for key, label in (("boot_ms_fresh", "power-up to the first key scan (ms)"),
                       ("key_to_display_ms_median", "key to display, median (ms, less debounce)"),
                       ("key_to_display_ms_max", "key to display, max"),
                       ("key_to_display_ms_face", "  face, AS, DEL keys (median / max / n)"),
                       ("key_to_display_ms_action", "  PLAY / PASS"),
                       ("key_to_display_ms_undo", "  UNDO"),
                       ("resident_heap_fresh_bytes", "resident heap, fresh (B)"),
                       ("free_heap_bytes", "free heap after boot (B)"),
                       ("qstrs", "names interned at run time (qstrs)"),
                       ("qstr_pools", "  in pools (the next: twice the last)")):
        hall_key = "hall_" + ("resident_heap_bytes" if key == "resident_heap_fresh_bytes" else key)
        print("   %-46s %-24s %-24s" % (label, f.get(key), f.get(hall_key)))
    print("   %-46s %-24s %-24s" % ("presses the displays did not answer in 300 ms",
                                      f.get("keys_not_shown", 0), f["hall_keys_not_shown"]))
    print("   %-46s %-24s %-24s" % ("the game came to its end", f.get("game_finished", True),
                                      f["hall_game_finished"]))
    print("   presses: %d and %d; emulated s: %s and %s" % (
        f["key_presses"], f["hall_key_presses"], f["emulated_s"], f["hall_emulated_s"]))
    for key, goal in HALL_GOALS.items():
        print("   goal %s <= %s: %s" % (key, goal, _hall_verdict(f, key, missed)))
    if f["hall_keys_not_shown"]:
        print("   with the link: %d presses never shown: MISSED" % f["hall_keys_not_shown"])
    return missed


def _hall_verdict(f, key, missed):
    value = f.get(key)
    if key == "hall_key_to_display_ms_max" and f.get("hall_keys_not_shown"):
        value = None   # a press never shown: no time meets the goal
    if value is not None and value <= HALL_GOALS[key]:
        return "PASS"
    missed.append(key)
    if value is None and f.get("hall_keys_not_shown") and key == "hall_key_to_display_ms_max":
        return "MISSED (%d presses never shown)" % f["hall_keys_not_shown"]
    return "MISSED" if value is not None else "MISSED (no figure)"


def main(argv=()):
    parser = argparse.ArgumentParser(prog="bench_emulated_pico.py", description=__doc__.split("\n")[0])
    parser.add_argument("--uf2", help="the MicroPython UF2 for RPI_PICO (default: "
                                      "$MATCHBOX_PICO_UF2)")
    parser.add_argument("--bootrom", help="the RP2040 boot ROM, 16 KB (default: "
                                          "$MATCHBOX_PICO_BOOTROM)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a goal is missed")
    parser.add_argument("--usb-link", action="store_true",
                        help="also play the human-paced game on the image twice with the USB "
                             "link to the hall running (a stand-in for `matchbox uplink` and the "
                             "hall): every line acknowledged at once (usb_link_key_to_display_*), "
                             "and none (usb_link_stalled_key_to_display_*)")
    parser.add_argument("--hall", action="store_true",
                        help="also play the human-paced game and take the resident heap on the "
                             "image with hall.json on its flash, the hall's MQTT link running "
                             "(hall_*; on the emulator, with no radio, it stays in its Wi-Fi "
                             "join)")
    parser.add_argument("--hall-only", action="store_true",
                        help="only that side by side: the game and the fresh heap on the image "
                             "without and with hall.json (no other figure)")
    args = parser.parse_args(list(argv))
    reason = ep.missing(args.uf2, args.bootrom)
    if reason:
        print("emulated Pico: skipped: " + reason)
        return 0
    if args.bootrom:   # the measuring processes start their boards with it
        os.environ["MATCHBOX_PICO_BOOTROM"] = os.path.abspath(args.bootrom)
    uf2 = os.path.abspath(args.uf2 or ep.given_uf2())
    board = ep.uf2_board(uf2)
    files = ep.firmware_files()
    steps, _game = human_game()
    started = time.monotonic()
    if args.hall_only:
        tasks = [("hall", "image", uf2, files, steps, board, hall) for hall in (False, True)]
        with concurrent.futures.ProcessPoolExecutor(len(tasks)) as pool:
            f = {"board": board}
            for part in pool.map(_measure, tasks):
                f.update(part)
        return main_hall(f, uf2, args, started)
    runs = [("image", uf2, files, board)]
    tasks = [(n, u, f, steps, args.usb_link and n == "image", b) for n, u, f, b in runs]
    if args.hall:
        tasks.append(("hall", "image", uf2, files, steps, board, True))
    with concurrent.futures.ProcessPoolExecutor(len(tasks)) as pool:
        results = list(pool.map(_measure, tasks))
    figures = {name: f for (name, _u, _f, _b), f in zip(runs, results)}
    if args.hall:
        figures["image"].update(results[-1])
    checks = resume_checks(figures)
    labels = [(key, label) for key, label, _e, _a, _l in journals()]
    for name, f in figures.items():
        f["resume_shows_game"] = {key: checks[key][name] for key in checks}
        del f["boot_shows"]
    main_f = figures["image"]
    if args.json:
        out = dict(main_f)
        out["uf2"] = os.path.relpath(uf2, ROOT) if uf2.startswith(ROOT) else uf2
        out["goals"] = dict(GOALS, **(HALL_GOALS if args.hall else {}))
        out["missed"] = goals_missed(main_f)
        if args.hall:
            hall_missed = []
            for key in HALL_GOALS:
                _hall_verdict(main_f, key, hall_missed)
            out["missed"] += hall_missed
        print(json.dumps(out, indent=1, sort_keys=True))
        missed = out["missed"]
    else:
        print("The firmware on an emulated RP2040 (rp2040js). Emulated time is an estimate of a "
              "Pico, not a measurement: no Pico was used.")
        print("image: %s (board %s)" % (uf2, board))
        missed = report(figures, "image", labels)
        if args.hall:
            missed += report_hall(main_f, True)
        print("\n(%.0f s wall)" % (time.monotonic() - started))
        print("goals missed: %s" % (", ".join(missed) if missed else "none"))
    return 1 if missed and args.strict else 0


def main_hall(f, uf2, args, started):
    """--hall-only: print the side by side (or its JSON); the exit status."""
    if args.json:
        out = dict(f)
        out["uf2"] = os.path.relpath(uf2, ROOT) if uf2.startswith(ROOT) else uf2
        out["goals"] = HALL_GOALS
        out["missed"] = []
        for key in HALL_GOALS:
            _hall_verdict(f, key, out["missed"])
        print(json.dumps(out, indent=1, sort_keys=True))
        missed = out["missed"]
    else:
        print("The firmware on an emulated RP2040 (rp2040js). Emulated time is an estimate of a "
              "Pico, not a measurement: no Pico was used.")
        print("image: %s (board %s)" % (uf2, f["board"]))
        missed = report_hall(f, False)
        print("\n(%.0f s wall)" % (time.monotonic() - started))
        print("goals missed: %s" % (", ".join(missed) if missed else "none"))
    return 1 if missed and args.strict else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
