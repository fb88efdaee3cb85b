"""Virtual board parts for the simulator: the MicroPython side of host_tools/virtual/box.py.

Runs under the MicroPython unix port next to the real firmware. Every part the firmware
touches talks to the host over stdio in text lines (protocol: docs/simulator.md):
I2C writes go out as `@w` (a read asks the host, `@m`), the main loop's idle() hands control to the host (`@i`) and
the host answers with commands (keys, unplugged displays, time to run, dumps). Key and
button states become pin levels, so the firmware's own matrix scan and debouncing run.
"""
import sys
import errno
import binascii
import time as _wall   # the real clock: the hall's broker runs in real time, not the board's
import io

from box import journal as _journal

MASK = (1 << 30) - 1  # MicroPython's ticks period is 2**30
HALF = 1 << 29


def send(line):
    """One protocol line to the host (protocol lines start with '@')."""
    sys.stdout.write("@" + line + "\n")


def ticks_diff(a, b):
    """time.ticks_diff for the 2**30 tick period."""
    return ((a - b + HALF) & MASK) - HALF


def ticks_add(t, d):
    return (t + d) & MASK


# --- pins -------------------------------------------------------------------------------------


class Pin:
    """machine.Pin-like: value(), value(v), on/off/low/high/toggle, init, call."""

    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    ALT = 3
    PULL_UP = 1
    PULL_DOWN = 2
    IRQ_FALLING = 4
    IRQ_RISING = 8

    def __init__(self, gpio, level=1):
        self.gpio = gpio
        self.level = level  # what an output drives (1 = released for open drain)

    def init(self, *args, **kw):
        if "value" in kw and kw["value"] is not None:
            self.level = 1 if kw["value"] else 0

    def read(self):
        return self.level

    def value(self, v=None):
        if v is None:
            return self.read()
        self.level = 1 if v else 0

    def __call__(self, v=None):
        return self.value(v)

    def on(self):
        self.level = 1

    def off(self):
        self.level = 0

    high = on
    low = off

    def toggle(self):
        self.level ^= 1

    def irq(self, *args, **kw):
        return None


class ColumnPin(Pin):
    """A keypad column input with pull-up: low when a pressed key connects it to a low row."""

    def __init__(self, board, index, gpio):
        Pin.__init__(self, gpio)
        self.board = board
        self.index = index

    def read(self):
        return self.board.column_level(self.index)


class ButtonPin(Pin):
    """A button input with pull-up: 0 while the host holds the button down."""

    def __init__(self, board, name, gpio):
        Pin.__init__(self, gpio)
        self.board = board
        self.name = name

    def read(self):
        return 0 if self.name in self.board.down else 1


# --- bus, buzzer, watchdog -----------------------------------------------------------------


class I2C:
    """machine.I2C-like bus. A write to a device that is absent or unplugged raises
    OSError(EIO), as the Pico's hardware I2C does when the address gets no ACK."""

    def __init__(self, board):
        self.board = board

    def _check(self, addr):
        b = self.board
        if addr not in b.devices or addr in b.unplugged:
            send("n %02x" % addr)
            raise OSError(errno.EIO)

    def writeto(self, addr, buf, stop=True):
        self._check(addr)
        send("w %02x %s" % (addr, binascii.hexlify(buf).decode()))
        return len(buf)

    def writevto(self, addr, vector, stop=True):
        data = b"".join([bytes(v) for v in vector])
        return self.writeto(addr, data, stop)

    def readfrom_into(self, addr, buf, stop=True):
        self._check(addr)
        for i in range(len(buf)):
            buf[i] = 0  # the HT16K33 key RAM of a backpack without keys

    def readfrom_mem_into(self, addr, memaddr, buf, addrsize=8):
        """Set the chip's address pointer, then read len(buf) bytes (a repeated start): the
        host's model of the chip answers (`@m`, then the board waits for `m HEX`)."""
        self._check(addr)
        send("m %02x %02x %d" % (addr, memaddr, len(buf)))
        while True:
            line = sys.stdin.readline()
            if not line:
                sys.exit(0)  # the host went away
            if line.startswith("m "):
                break
        data = binascii.unhexlify(line[2:].strip())
        for i in range(len(buf)):
            buf[i] = data[i]

    def readfrom(self, addr, n, stop=True):
        buf = bytearray(n)
        self.readfrom_into(addr, buf, stop)
        return bytes(buf)

    def scan(self):
        b = self.board
        return sorted([a for a in b.devices if a not in b.unplugged])


class PWM:
    """machine.PWM-like buzzer output; every change of tone is reported as `@b`."""

    def __init__(self, board, pin=None, freq=None, duty_u16=None):
        self.board = board
        self._freq = 1000
        self._duty = 0
        if freq is not None:
            self.freq(freq)
        if duty_u16 is not None:
            self.duty_u16(duty_u16)

    def freq(self, hz=None):
        if hz is None:
            return self._freq
        if hz != self._freq:
            self._freq = hz
            if self._duty:
                self._report()

    def duty_u16(self, d=None):
        if d is None:
            return self._duty
        if d != self._duty:
            self._duty = d
            self._report()

    def deinit(self):
        self.duty_u16(0)

    def _report(self):
        send("b %d %d %d" % (self.board.now, self._freq, self._duty))


class WDT:
    """machine.WDT-like: reports its creation (`@g wdt MS`) and counts feeds."""

    def __init__(self, board, id=0, timeout=5000):
        self.timeout = timeout
        self.feeds = 0
        board.wdt = self
        send("g wdt %d" % timeout)

    def feed(self):
        self.feeds += 1


# --- flash -----------------------------------------------------------------------------------


class _File:
    """A file open for writing whose bytes count against the cut budget."""

    def __init__(self, flash, f):
        self._flash = flash
        self._f = f

    def write(self, data):
        n = len(data)
        k = self._flash.allow(n)
        if k:
            self._f.write(data if k == n else data[:k])
        if k < n:
            self._f.close()
            self._flash.cut()
        return n

    def read(self, n=-1):
        return self._f.read(n)

    def readline(self, limit=-1):
        return self._f.readline(limit)

    def flush(self):
        self._f.flush()

    def close(self):
        self._f.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._f.close()


class FlashStore(_journal.Store):
    """The journal's file store on the box's (virtual) flash: the real box.journal.Store,
    plus a power cut the host can schedule (`c N`): the operation that would take the
    budget below zero is done partly (a write keeps the bytes that fit) and then the
    board stops dead (`@x`) until the host kills the process. Units: each byte written,
    each open for writing (it may truncate), each rename, remove and mkdir."""

    def __init__(self):
        self.budget = -1  # -1: no cut scheduled
        self.ops = 0

    def allow(self, n):
        if self.budget < 0:
            self.ops += n
            return n
        k = n if n <= self.budget else self.budget
        self.budget -= k
        self.ops += k
        return k

    def _op(self):
        if self.allow(1) < 1:
            self.cut()

    def cut(self):
        send("x %d" % self.ops)
        while sys.stdin.readline():
            pass  # the host kills the process here
        sys.exit(3)

    def open(self, path, mode):
        if "r" in mode and "+" not in mode:
            return _journal.Store.open(self, path, mode)
        self._op()
        return _File(self, _journal.Store.open(self, path, mode))

    def rename(self, src, dst):
        self._op()
        _journal.Store.rename(self, src, dst)

    def remove(self, path):
        self._op()
        _journal.Store.remove(self, path)

    def mkdir(self, path):
        self._op()
        _journal.Store.mkdir(self, path)


# --- the board ---------------------------------------------------------------------------


class VirtualBoard:
    """The virtual Pico: pins, bus, buzzer, clock and the host link, wired per the pin map.

    devices: I2C addresses that have a chip; held: names of keys down at power-up;
    t0: the clock at power-up; step: ms that one idle() lets pass (the Pico sleeps 1 ms; 5 ms
    here keeps simulations quick).
    """

    def __init__(self, pinmap, devices, held=(), t0=0, step=5):
        kp = pinmap["keypad"]
        self.legend = [row.upper() for row in kp["legend"]]
        self.down = set([h.upper() for h in held])
        self.devices = set(devices)
        self.unplugged = set()
        self.now = t0 & MASK
        self.step = step
        self.budget = 0  # ms the host lets run before the next `@i`
        self.usb_in = bytearray()   # bytes the host typed on the USB serial, not read yet
        self.wdt = None
        self.pico_hw = None   # with board=pico: the hw the real box.hw_pico made (mpy/board.py)
        self.gpio = {}  # gpio -> part, for the virtual `machine` module
        self.rows = []
        for g in kp["rows"]:
            p = Pin(g)
            self.rows.append(p)
            self.gpio[g] = p
        self.cols = []
        for i, g in enumerate(kp["cols"]):
            p = ColumnPin(self, i, g)
            self.cols.append(p)
            self.gpio[g] = p
        self.buttons = []
        for b in pinmap["buttons"]:
            p = ButtonPin(self, b["name"].upper(), b["gpio"])
            self.buttons.append((b["name"], p))
            self.gpio[b["gpio"]] = p
        self.i2c = I2C(self)
        bz = pinmap.get("buzzer")
        self.buzzer_gpio = bz["gpio"] if bz else None
        self.pwm = PWM(self) if bz else None
        self.flash = FlashStore()
        self.hw = HW(self)

    # --- the keypad as wires: a pressed key joins its row and column ---
    def column_level(self, c):
        if not self.down:
            return 1   # no key down (most passes): no wire joins a column to a row
        pressed = []
        for r in range(len(self.legend)):
            row = self.legend[r]
            for cc in range(len(row)):
                if row[cc] in self.down:
                    pressed.append((r, cc))
        if not pressed:
            return 1
        # Walk the wires joined by pressed keys (several keys can ghost, as on a real
        # matrix without diodes); the column is low when it reaches a row driven low.
        cols = [c]
        rows = []
        i = 0
        while i < len(cols):
            for r, cc in pressed:
                if cc == cols[i] and r not in rows:
                    if self.rows[r].level == 0:
                        return 0
                    rows.append(r)
                    for r2, c2 in pressed:
                        if r2 == r and c2 not in cols:
                            cols.append(c2)
            i += 1
        return 1

    # --- clock and the host link ---
    def ticks_ms(self):
        return self.now

    def idle(self):
        """One main-loop pause: feed the watchdog, let `step` ms pass (asking the host for
        more time when the last grant is used up)."""
        if self.wdt is not None:
            self.wdt.feed()
        self.sleep(self.step)

    def sleep(self, ms):
        while ms > 0:
            if self.budget <= 0:
                self.serve()
            d = ms if ms < self.budget else self.budget
            self.budget -= d
            ms -= d
            self.now = (self.now + d) & MASK

    def serve(self):
        """Report `@i NOW` and obey host commands until one grants time (`t N`)."""
        send("i %d" % self.now)
        while True:
            line = sys.stdin.readline()
            if not line:
                sys.exit(0)  # the host went away
            parts = line.split()
            if not parts:
                continue
            op = parts[0]
            if op == "t":
                self.budget = int(parts[1])
                if self.budget > 0:
                    return
            elif op == "k":
                if parts[2] == "1":
                    self.down.add(parts[1].upper())
                else:
                    self.down.discard(parts[1].upper())
            elif op == "C":
                raise KeyboardInterrupt  # Ctrl-C on the USB serial, as mpremote sends it
            elif op == "u":
                self.unplugged.add(int(parts[1], 16))
            elif op == "p":
                self.unplugged.discard(int(parts[1], 16))
            elif op == "c":
                self.flash.budget = int(parts[1])
            elif op == "s":
                self.usb_in.extend(binascii.unhexlify(parts[1]))   # bytes on the USB serial
            elif op == "d":
                self.dump()
            elif op == "q":
                sys.exit(0)
            else:
                send("e unknown command: " + line.strip())

    def dump(self):
        """`@d {...}`: the clock, flash units used, heap in use, whether a watchdog runs,
        the app's mode, whether the hall's link (box.mqtt_link) is imported, and the
        game as state JSON."""
        from tycoon.writer import to_json
        app = getattr(self.hw, "app", None) or getattr(self.pico_hw, "app", None)
        mode = "none"
        game = None
        if app is not None:
            game = app.game
            import box.app as a
            for name in ("SETUP", "PLAY", "REF", "FINISHED"):
                if getattr(a, name, None) == app.view.mode:
                    mode = name.lower()
        import gc
        gc.collect()
        linked = "box.mqtt_link" in sys.modules
        send('d {"time": %d, "flash_ops": %d, "heap": %d, "watchdog": %s, "mode": "%s", '
             '"hall_link": %s, "game": %s}' % (
                 self.now, self.flash.ops, gc.mem_alloc(),
                 "true" if self.wdt is not None else "false", mode,
                 "true" if linked else "false", to_json(game)))


class _OnTheNetwork:
    """Stands in for the Pico W's Wi-Fi join (box.mqtt_link.Wifi): joined already."""

    def up(self, now):
        return True


class UsbIn(io.IOBase):
    """The USB serial's input: what the host typed (`s HEX`), pollable (select.poll) and read
    with readinto(), as sys.stdin.buffer on the Pico (the process's stdin is the protocol)."""

    def __init__(self, board):
        self.board = board

    def ioctl(self, req, arg):
        if req == 3:   # MP_STREAM_POLL
            return arg & 1 if self.board.usb_in else 0   # POLLIN
        return -1      # no file descriptor (MP_STREAM_GET_FILENO), nothing else

    def readinto(self, buf):
        data = self.board.usb_in
        n = min(len(buf), len(data))
        buf[:n] = data[:n]
        self.board.usb_in = data[n:]
        return n


class Select:
    """The board's `select` module (board.py puts it in sys.modules before main.py runs).
    A poll answers for the USB serial's input (UsbIn) at once, from the bytes the host typed,
    and hands every other object (the hall link's sockets) to the unix port's select.poll.
    The unix port's poll asks an object without a file descriptor after sleeping 1 ms of the
    wall's clock (poll(NULL, 0, 1)), even with a timeout of 0: the main loop polls hw.usb on
    every pass, and the board's time is virtual, so that millisecond was only the host's wait
    (most of the time a simulated game took)."""

    def __init__(self):
        import select
        self._select = select
        self.POLLIN = select.POLLIN
        self.POLLOUT = select.POLLOUT
        self.POLLERR = select.POLLERR
        self.POLLHUP = select.POLLHUP

    def poll(self):
        return Poll(self._select)


class Poll:
    """select.poll of the virtual board: UsbIn here, everything else in a real poll."""

    def __init__(self, select):
        self._select = select
        self._usb = []      # [UsbIn, event mask]
        self._real = None   # the unix port's poll, made at the first other object

    def register(self, obj, mask=5):   # POLLIN | POLLOUT, as select.poll's default
        if isinstance(obj, UsbIn):
            for entry in self._usb:
                if entry[0] is obj:
                    entry[1] = mask
                    return
            self._usb.append([obj, mask])
            return
        if self._real is None:
            self._real = self._select.poll()
        self._real.register(obj, mask)

    def modify(self, obj, mask):
        if isinstance(obj, UsbIn):
            for entry in self._usb:
                if entry[0] is obj:
                    entry[1] = mask
                    return
            raise OSError(errno.ENOENT)
        if self._real is None:
            raise OSError(errno.ENOENT)
        self._real.modify(obj, mask)

    def unregister(self, obj):
        if isinstance(obj, UsbIn):
            self._usb = [entry for entry in self._usb if entry[0] is not obj]
        elif self._real is not None:
            self._real.unregister(obj)

    def poll(self, timeout=-1):
        ready = [(obj, 1) for obj, mask in self._usb if mask & 1 and obj.ioctl(3, 1)]   # POLLIN
        if self._real is not None:
            ready.extend(self._real.poll(0 if ready else timeout))
        return ready

    def ipoll(self, timeout=-1, flags=0):
        for obj, mask in self._usb:
            if mask & 1 and obj.ioctl(3, 1):
                return self.poll(0)
        if self._real is not None:
            return self._real.ipoll(timeout, flags)
        return ()   # nothing typed: nothing to wait for on the board's virtual clock


class HW:
    """The `hw` object the firmware gets (the contract: docs/architecture.md; same members as box.hw_pico)."""

    def __init__(self, board):
        self.board = board
        self.i2c = board.i2c
        self.rows = board.rows
        self.cols = board.cols
        self.buttons = board.buttons
        self.buzzer = board.pwm
        self.ticks_ms = board.ticks_ms
        self.idle = board.idle
        self.games = "games"
        self.store = board.flash
        self.wdt = None
        self.usb = UsbIn(board)
        # the hall's link (box.mqtt_link): the unix port is on the network already (no
        # Wi-Fi to join), and its timers run on the wall's clock, as the broker does
        self.wifi = _OnTheNetwork()
        self.net_ms = _wall.ticks_ms

    def tell(self, text):
        """What the hall's link learns (box.mqtt_link.Link), to the host as `@u TEXT`."""
        send("u " + text)

    def watchdog(self, timeout_ms=8000):
        self.wdt = WDT(self.board, timeout=timeout_ms)

    def stop_watchdog(self):
        self.wdt = None
        self.board.wdt = None
        send("g wdt 0")

    def feed(self):
        if self.wdt is not None:
            self.wdt.feed()

    def emit(self, line):
        send("s " + line)



class _PinMaker:
    """machine.Pin of the virtual `machine`: Pin(gpio, ...) gives the board's part."""

    IN = Pin.IN
    OUT = Pin.OUT
    OPEN_DRAIN = Pin.OPEN_DRAIN
    ALT = Pin.ALT
    PULL_UP = Pin.PULL_UP
    PULL_DOWN = Pin.PULL_DOWN
    IRQ_FALLING = Pin.IRQ_FALLING
    IRQ_RISING = Pin.IRQ_RISING

    def __init__(self, board):
        self.board = board

    def __call__(self, gpio, *args, **kw):
        part = self.board.gpio.get(gpio)
        if part is None:
            part = Pin(gpio)
            self.board.gpio[gpio] = part
        part.init(*args, **kw)
        return part


class _Mem32:
    """machine.mem32 of the virtual `machine`: only the watchdog's CTRL register is wired.
    Clearing CTRL.ENABLE (bit 30) through the atomic-clear alias stops the watchdog."""

    CLEAR_ENABLE = (0x40058000 + 0x3000, 0x400D8000 + 0x3000)   # RP2040, RP2350

    def __init__(self, board):
        self.board = board

    def __getitem__(self, addr):
        return 0

    def __setitem__(self, addr, value):
        if addr in self.CLEAR_ENABLE and value & (1 << 30):
            self.board.wdt = None
            send("g wdt 0")


class Machine:
    """A stand-in for the `machine` module whose parts are the board's virtual ones,
    picked by GPIO number (for running the real box.hw_pico)."""

    def __init__(self, board):
        self.board = board
        b = board

        self.Pin = _PinMaker(board)

        def _i2c(*args, **kw):
            return b.i2c

        def _pwm(pin, *args, **kw):
            if b.pwm is None or pin.gpio != b.buzzer_gpio:
                return PWM(b)
            return b.pwm

        def _wdt(id=0, timeout=5000):
            return WDT(b, id, timeout)

        self.I2C = _i2c
        self.SoftI2C = _i2c
        self.PWM = _pwm
        self.WDT = _wdt
        self.mem32 = _Mem32(board)

    def freq(self, hz=None):
        return 125000000 if hz is None else None

    def unique_id(self):
        return b"VBOX0001"

    def reset(self):
        send("g reset")
        sys.exit(4)

    soft_reset = reset

    def idle(self):
        pass


class Time:
    """A stand-in for the `time` module on the virtual clock: sleeping lets virtual time
    pass (asking the host for it); ticks wrap at 2**30 like MicroPython's."""

    def __init__(self, board):
        self.board = board

    def ticks_ms(self):
        return self.board.now

    def ticks_us(self):
        return self.board.now * 1000 & MASK

    def ticks_diff(self, a, b):
        return ticks_diff(a, b)

    def ticks_add(self, t, d):
        return ticks_add(t, d)

    def sleep_ms(self, ms):
        self.board.sleep(ms)

    def sleep_us(self, us):
        self.board.sleep((us + 999) // 1000)

    def sleep(self, s):
        self.board.sleep(int(s * 1000))

    def time(self):
        return self.board.now // 1000
