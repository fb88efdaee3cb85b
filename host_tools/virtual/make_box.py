"""The box a simulator runs: the unix port's virtual box (VBox), or the emulated Pico (the
Pico's own MicroPython in rp2040js) for `--pico`. Shared by `matchbox sim`'s headless mode and
the terminal screen (host_tools.terminal.tui)."""
import os

from host_tools.files import write_whole
from host_tools.virtual.box import BoxError, VBox


def make_box(args, record=None, devices=None):
    """The box to simulate for the parsed command line `args`: the unix port's VBox, or with --pico the emulated Pico; `record`
    (bytes) becomes its games/current.txt. BoxError (--pico: why) when the emulated Pico cannot run
    here."""
    if getattr(args, "pico", False):
        from host_tools.device.image import ImageError
        from host_tools.virtual import emulated_pico
        uf2 = getattr(args, "uf2", None)
        bootrom = getattr(args, "bootrom", None)
        reason = emulated_pico.missing(uf2, bootrom)
        if reason:
            raise BoxError("--pico", reason)
        files = emulated_pico.firmware_files()
        if record is not None:
            files["games/current.txt"] = record
        try:
            return emulated_pico.EmulatedPico(files=files, devices=devices, uf2=uf2,
                                              bootrom=bootrom)
        except (ImageError, OSError) as exc:
            raise BoxError("--pico", str(exc)) from None
    flash = getattr(args, "flash", None)
    box = VBox(flash=os.path.abspath(flash) if flash else None, devices=devices)
    if record is not None:
        write_whole(os.path.join(box.flash, "games", "current.txt"), record)
    return box
