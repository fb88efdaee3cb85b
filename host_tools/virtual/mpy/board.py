"""The simulator's board process: runs the real firmware/main.py on virtual hardware.

Started by host_tools/virtual/box.py as `micropython board.py KEY=VALUE ...` with the box's flash
folder as working directory (the pin map at its root, the journal in games/):
  main=PATH         the firmware's main.py (required)
  devices=70,71     I2C addresses (hex) that have a chip (default: every display of the map)
  unplugged=73      of those, the ones pulled off the bus at power-up
  held=MENU,5       keys down at power-up
  t0=N  step=N      the clock at power-up; ms one idle() lets pass (default 0 and 5)
  cut=N             a power cut after N flash units, counted from power-up
  board=virtual|pico  virtual: box.hw_pico.build() returns the virtual `hw` directly;
                    pico: the real box.hw_pico runs on virtual `machine` and `time` modules.
When main.py returns (maintenance mode) or raises, the board reports `@r return` or
`@r exception` and then idles like a board sitting at the REPL.
"""
import sys

import parts
from box import pins


def options(argv):
    opts = {"main": "", "devices": "", "held": "", "t0": "0", "step": "5", "board": "virtual",
            "cut": "-1", "unplugged": ""}
    for arg in argv:
        key, _, value = arg.partition("=")
        if key not in opts:
            raise ValueError("unknown option " + key)
        opts[key] = value
    return opts


class _HwPico:
    """Stands in for box.hw_pico: build() hands out the virtual board's hw."""

    def __init__(self, board):
        self._board = board

    def build(self, pinmap=None):
        return self._board.hw


def watch_hw(board):
    """Let the board find the running app (for `d` dumps), with board=pico only: there the
    real box.hw_pico makes the `hw` that box.runtime.start hands the app to (hw.app, as the
    hw contract says), so the board keeps that hw as it is made; the app is not touched.
    (With board=virtual the board's own hw is the one.)"""
    import box.hw_pico as hw_pico
    build = hw_pico.build

    def keep(pinmap=None):
        hw = board.pico_hw = build(pinmap)
        # the USB serial's input is the host's `s HEX` (the process's stdin is the protocol)
        hw.usb = board.hw.usb
        return hw

    hw_pico.build = keep


def main():
    opts = options(sys.argv[1:])
    pinmap = pins.load()   # the firmware's own reader, from the flash folder
    if opts["devices"]:
        devices = [int(a, 16) for a in opts["devices"].split(",") if a]
    else:
        devices = [d["address"] for d in pinmap["displays"]]
    held = [h for h in opts["held"].split(",") if h]
    board = parts.VirtualBoard(pinmap, devices, held, int(opts["t0"]), int(opts["step"]))
    for a in opts["unplugged"].split(","):
        if a:
            board.unplugged.add(int(a, 16))
    board.flash.budget = int(opts["cut"])
    sys.modules["select"] = parts.Select()   # polls hw.usb without the unix port's 1 ms sleep
    if opts["board"] == "pico":
        sys.modules["machine"] = parts.Machine(board)
        sys.modules["time"] = parts.Time(board)
        watch_hw(board)   # imports box.hw_pico, which imports machine: after it is in place
    else:
        import box
        stub = _HwPico(board)
        sys.modules["box.hw_pico"] = stub
        box.hw_pico = stub
    with open(opts["main"]) as f:
        source = f.read()
    why = "return"
    try:
        exec(source, {"__name__": "__main__"})
    except Exception as exc:  # the firmware crashed: show it, as the REPL would
        sys.print_exception(exc, sys.stdout)
        why = "exception"
    parts.send("r " + why)
    while True:  # at the REPL: nothing runs, time still passes
        board.sleep(1000)


main()
