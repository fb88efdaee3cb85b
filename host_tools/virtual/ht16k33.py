"""A virtual HT16K33 driving a 4-digit 7-segment backpack (Adafruit 0.56" layout).

Feed it the bytes of each I2C write transaction, exactly as a real chip receives them:

- 0x00-0x0F: display RAM address pointer; the following bytes are RAM data, the pointer
  auto-increments and wraps from 0x0F to 0x00;
- 0x20 | s: system setup, s = 1 starts the oscillator (0x21), 0 is standby (0x20);
- 0x80 | blink << 1 | on: display setup (blink 0 off, 1 = 2 Hz, 2 = 1 Hz, 3 = 0.5 Hz);
- 0xE0 | n: dimming, duty (n + 1)/16;
- 0xA0-0xA3 (ROW/INT setup) is accepted and ignored; any other byte, or data after a
  command byte, is kept in `unknown` so tests can insist on a clean stream.

The backpack shows RAM 0, 2, 6, 8 as digits 0-3 (bit 0 = a ... bit 6 = g, bit 7 = point)
and bit 1 of RAM 4 as the colon. text() reads the digits the way a person would, with its
own glyph table (independent of the firmware's font on purpose): one character per digit
(' ' when blank, '?' for a shape it cannot name), '.' right after a digit whose point is
lit, and ':' between digits 1 and 2 when the colon is lit. So "F.2:5 " is F with its point,
2, colon, 5 and a blank digit; a blank digit with only its point reads " .".

Set `plugged = False` to pull the backpack off the bus: write() then returns False (a NACK,
which a bridge turns into OSError) and changes nothing; plugging it back in is a power-on,
which resets the chip (oscillator and display off, RAM cleared). read(register, n) answers
a read of the display RAM (a register write, a repeated start, n bytes). VirtualBus puts chips
behind a machine.I2C-like writeto(), readfrom_mem_into() and scan() for code that wants a bus.

Plain Python that also runs under MicroPython: the web page (host_tools/commands/web.py) runs this very
model in the browser, next to the firmware.
"""
import errno

DIGIT_ADDRESSES = (0, 2, 6, 8)
COLON_ADDRESS = 4
COLON_BIT = 0x02

# What a person reads from each lit shape (a = bit 0 ... g = bit 6).
READING = {
    0x3F: "0", 0x06: "1", 0x5B: "2", 0x4F: "3", 0x66: "4", 0x6D: "5", 0x7D: "6",
    0x07: "7", 0x7F: "8", 0x6F: "9", 0x77: "A", 0x7C: "b", 0x39: "C", 0x5E: "d",
    0x79: "E", 0x71: "F", 0x3D: "G", 0x76: "H",
    0x58: "c", 0x74: "h", 0x30: "I", 0x10: "i", 0x1E: "J", 0x38: "L", 0x54: "n",
    0x5C: "o", 0x73: "P", 0x67: "q", 0x50: "r", 0x78: "t", 0x3E: "U", 0x1C: "u",
    0x6E: "y", 0x40: "-", 0x08: "_", 0x48: "=",
}


class VirtualHT16K33:
    """One chip at an I2C address; see the module docstring for the command set."""

    def __init__(self, address=0x70):
        self.address = address
        self._plugged = True
        self.transactions = 0  # accepted write transactions
        self.bytes_received = 0  # payload bytes of accepted transactions
        self.unknown = []  # unexpected bytes, in arrival order
        self.power_on()

    def power_on(self):
        """State after power-up. (A real chip's RAM is undefined then; the model clears it.)"""
        self.ram = bytearray(16)
        self.oscillator = False
        self.on = False
        self.blink = 0
        self.brightness = 15
        self._pointer = 0

    @property
    def plugged(self):
        return self._plugged

    @plugged.setter
    def plugged(self, value):
        if value and not self._plugged:
            self.power_on()
        self._plugged = bool(value)

    def write(self, data):
        """One I2C write transaction to this chip; returns False (NACK) when unplugged."""
        if not self._plugged:
            return False
        data = bytes(data)
        self.transactions += 1
        self.bytes_received += len(data)
        if not data:
            return True  # an address probe
        cmd, rest = data[0], data[1:]
        if cmd <= 0x0F:
            p = cmd
            for b in rest:
                self.ram[p] = b
                p = (p + 1) & 0x0F
            self._pointer = p
            return True
        high = cmd & 0xF0
        if high == 0x20 and cmd <= 0x21:
            self.oscillator = bool(cmd & 1)
        elif high == 0x80 and cmd <= 0x87:
            self.on = bool(cmd & 1)
            self.blink = (cmd >> 1) & 3
        elif high == 0xE0:
            self.brightness = cmd & 0x0F
        elif high == 0xA0 and cmd <= 0xA3:
            pass
        else:
            self.unknown.append(cmd)
        self.unknown.extend(rest)
        return True

    def read(self, register, n):
        """One I2C read of n bytes after the pointer was set to `register` (a repeated
        start); None (a NACK) when unplugged. The pointer auto-increments and wraps."""
        if not self._plugged:
            return None
        p = register & 0x0F
        out = bytearray(n)
        for i in range(n):
            out[i] = self.ram[p]
            p = (p + 1) & 0x0F
        self._pointer = p
        return bytes(out)

    @property
    def lit(self):
        """Whether anything can be seen: oscillator running and display on."""
        return self.oscillator and self.on

    @property
    def colon(self):
        return bool(self.ram[COLON_ADDRESS] & COLON_BIT)

    def digits(self):
        """The four digit masks, left to right, including the point (bit 7)."""
        return [self.ram[a] for a in DIGIT_ADDRESSES]

    def text(self):
        """What a person reads from the RAM (whether or not the display is lit)."""
        out = []
        for i, m in enumerate(self.digits()):
            shape = m & 0x7F
            out.append(" " if not shape else READING.get(shape, "?"))
            if m & 0x80:
                out.append(".")
            if i == 1 and self.colon:
                out.append(":")
        return "".join(out)


class VirtualBus:
    """A machine.I2C-like bus (writeto, scan) holding virtual chips; absent or unplugged
    chips raise OSError(ENODEV) like a bus that got no ACK."""

    def __init__(self, chips=()):
        self.chips = {c.address: c for c in chips}

    def writeto(self, addr, buf, stop=True):
        chip = self.chips.get(addr)
        if chip is None or not chip.write(buf):
            raise OSError(errno.ENODEV, "no ACK from 0x%02x" % addr)
        return len(buf)

    def readfrom_mem_into(self, addr, memaddr, buf, addrsize=8):
        chip = self.chips.get(addr)
        data = None if chip is None else chip.read(memaddr, len(buf))
        if data is None:
            raise OSError(errno.ENODEV, "no ACK from 0x%02x" % addr)
        for i in range(len(buf)):
            buf[i] = data[i]

    def scan(self):
        """The addresses that answer: the chips that are plugged in, in order."""
        return sorted([a for a in self.chips if self.chips[a].plugged])
