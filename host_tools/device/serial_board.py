"""Talk to a MicroPython board over USB serial through mpremote's SerialTransport.

`connect(port)` opens the port ("auto": the one Pico running MicroPython, by its USB ids;
never another USB serial device), enters the raw REPL and returns a `SerialBoard`; every failure to get
there is a `BoardError` with a one-line message naming the cause (no board, busy, no
permission, not MicroPython). Board paths are absolute ("/lib/box/keys.mpy").
"""
import ast
import base64
import contextlib
import errno
import io
import os
import struct
import time

import serial
import serial.tools.list_ports
from mpremote.transport import TransportError, TransportExecError
from mpremote.transport_serial import SerialTransport

from host_tools.errors import MatchboxError

RASPBERRY_PI_VID = 0x2E8A
CONNECT_TIMEOUT = 10.0
REBOOT_WAIT = 20.0  # seconds for a Pico to come back on USB after machine.reset()
READ_TIMEOUT = 2  # a blocking serial read gives up after this (mpremote waits forever on a pty)
BUSY_RETRIES = 5
CHUNK = 768  # bytes per write command (base64 keeps the command short and exact)


# What a dropped, silent or garbled connection raises inside mpremote's transport.
COMM_ERRORS = (TransportError, serial.SerialException, OSError, struct.error)


class BoardError(MatchboxError):
    """A problem with the board or the port: the message is meant for the user as is."""


class NoPico(BoardError):
    """`--port auto` found no Pico running MicroPython on USB (flash --dry-run says it plainly)."""


MICROPYTHON_PICO = (RASPBERRY_PI_VID, 0x0005)   # MicroPython's USB ids on an RP2040
# A module of the box's code, where `matchbox flash` and `matchbox uf2` put it (littlefs)
BOX_MODULES = ("/lib/box/version.mpy",)


BOOTSEL = (" (a Pico in BOOTSEL mode is a USB drive, not a serial port: copy the MicroPython "
           "UF2 onto it first)")


def _usb_name(p):
    return "%s (%04x:%04x%s)" % (p.device, p.vid, p.pid, ", " + p.product if p.product else "")


def find_pico(wanted="Pico running MicroPython", hint=""):
    """`--port auto` for flash and watch: the one USB serial device with MicroPython's Pico
    ids (2e8a:0005), a Matchbox or a fresh one, told by its USB identity alone (the port is
    not opened, so a running box is not disturbed). Returns its device; BoardError names the
    devices seen when none or several fit (`wanted` and `hint` word the message)."""
    ports = [p for p in serial.tools.list_ports.comports() if p.vid is not None and p.pid is not None]
    picos = sorted([p for p in ports if (p.vid, p.pid) == MICROPYTHON_PICO], key=lambda p: p.device)
    if not picos:
        seen = "; USB serial devices seen: %s" % ", ".join(_usb_name(p) for p in ports) if ports else ""
        plugged = "no Pico running MicroPython (USB 2e8a:0005) is plugged in"
        found = plugged if wanted == "Pico running MicroPython" else "no %s found: %s" % (
            wanted, plugged)
        raise NoPico("%s%s; give --port to use another device%s" % (found, seen, hint))
    if len(picos) > 1:
        raise BoardError("%d Picos running MicroPython are plugged in: %s; give --port with "
                         "the one to use" % (len(picos), ", ".join(p.device for p in picos)))
    return picos[0].device


def find_box(timeout=CONNECT_TIMEOUT):
    """`--port auto` for commands that need a Matchbox (pull, doctor): the one Pico running
    MicroPython (find_pico) that, in its raw REPL, has the Matchbox firmware
    (/lib/box/version.mpy). Returns a connected SerialBoard; BoardError names the devices seen
    when none or several fit. Other boards are never opened."""
    port = find_pico("Matchbox")
    board = connect(port, timeout=timeout)
    if all(board.file_size(path) is None for path in BOX_MODULES):
        board.restart(hard=False)
        board.close()
        raise BoardError("%s runs MicroPython but has no Matchbox firmware (no "
                         "/lib/box/version.mpy): give --port with the box's, or `matchbox flash` "
                         "it first" % port)
    return board


def probe_port(port):
    """Open and close the port once to turn OS errors into clear messages."""
    if os.name != "nt" and "://" not in port and not os.path.exists(port):
        raise BoardError("no board at %s: no such device (is the Pico plugged in? "
                         "`mpremote connect list` shows the serial ports)" % port)
    try:
        probe = serial.Serial(port, baudrate=115200, exclusive=True, timeout=0)
    except serial.SerialException as exc:
        code = exc.errno if isinstance(exc.errno, int) else None
        text = str(exc)
        if code in (errno.EACCES, errno.EPERM):
            raise BoardError("permission denied on %s: add your user to the serial group "
                             "(dialout or uucp) and log in again" % port) from None
        if code in (errno.EBUSY, errno.EAGAIN, errno.EWOULDBLOCK) or "lock" in text:
            raise BoardError("%s is busy: another program (mpremote, Thonny, a serial "
                             "monitor, `matchbox watch`) has it open" % port) from None
        if code == errno.ENOENT:
            raise BoardError("no board at %s: no such device" % port) from None
        if "configure" in text:
            raise BoardError("%s is not a serial port" % port) from None
        raise BoardError("cannot open %s: %s" % (port, text)) from None
    probe.close()


def connect(port="auto", timeout=CONNECT_TIMEOUT, soft_reset=True):
    """Open the board on port and enter its raw REPL; returns a Board or raises BoardError.

    soft_reset=True gives a clean interpreter (the running main.py is stopped first with
    Ctrl-C; a soft reset in the raw REPL does not start main.py again).
    """
    if not port or port == "auto":
        port = find_pico(hint=BOOTSEL)
    elif port.startswith("port:"):
        port = port[len("port:"):]
    transport = None
    for attempt in range(BUSY_RETRIES + 1):
        # A port can be locked for a moment (e.g. by a process being spawned, which holds
        # copies of open descriptors until it runs): retry before calling it busy.
        try:
            probe_port(port)
            transport = SerialTransport(port, baudrate=115200, timeout=READ_TIMEOUT)
            break
        except BoardError as exc:
            if attempt == BUSY_RETRIES or "busy" not in str(exc):
                raise
        except TransportError:
            if attempt == BUSY_RETRIES:
                raise BoardError("%s is busy or went away while opening it" % port) from None
        time.sleep(0.1)
    board = SerialBoard(transport, port)
    try:
        with contextlib.redirect_stdout(io.StringIO()):  # mpremote prints what it got
            transport.enter_raw_repl(soft_reset=soft_reset, timeout_overall=timeout)
    except COMM_ERRORS:
        board.close()
        raise BoardError(
            "%s does not answer as MicroPython (no raw REPL within %gs): is MicroPython "
            "installed, and does main.py let Ctrl-C stop it?" % (port, timeout)) from None
    return board


def reconnect(port, timeout=CONNECT_TIMEOUT, wait=REBOOT_WAIT):
    """Connect again after the board reset itself (a Pico's USB port goes away for a while)."""
    deadline = time.monotonic() + wait
    while True:
        time.sleep(0.5)
        try:
            return connect(port, timeout=timeout)
        except BoardError:
            if time.monotonic() > deadline:
                raise


class SerialBoard:
    """An open raw-REPL session with helpers for files, hashes and reset."""

    def __init__(self, transport, port):
        self.transport = transport
        self.port = port
        self._helpers = False
        self._info = None
        self._dirs = set()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        try:
            self.transport.close()
        except (OSError, serial.SerialException):
            pass

    def exec(self, code):
        """Run code on the board; returns its output (bytes). Errors raise TransportExecError."""
        return self.transport.exec(code)

    def run(self, code, timeout=10):
        """Run code on the board and return its output as text, waiting up to `timeout` s."""
        out, err = self.transport.exec_raw(code, timeout=timeout)
        if err:
            raise TransportExecError(out, err.decode("utf-8", "replace"))
        return out.decode("utf-8", "replace")

    def eval(self, expression):
        return self.transport.eval(expression)

    def info(self):
        """dict(platform, version (tuple), mpy (int or None), machine (str)) of the board."""
        if self._info is None:
            platform, version, mpy, machine = self.eval(
                "(__import__('sys').platform, tuple(__import__('sys').implementation.version),"
                " getattr(__import__('sys').implementation, '_mpy', None),"
                " getattr(__import__('sys').implementation, '_machine', ''))")
            self._info = {"platform": platform, "version": tuple(version), "mpy": mpy, "machine": machine}
        return self._info

    def _ensure_helpers(self):
        if self._helpers:
            return
        self.exec(BOARD_HELPERS)
        self._helpers = True

    def hashes(self, paths=(), dirs=()):
        """sha256 hex of files on the board: {path: hex}, files that do not exist are left out.

        `paths` are single files, `dirs` are walked recursively (missing dirs are fine).
        Files are read in small chunks so a big file does not need a big buffer.
        """
        self._ensure_helpers()
        out = self.exec("_mbx_files(%r)\n_mbx_dirs(%r)" % (list(paths), list(dirs)))
        result = {}
        for line in out.decode("utf-8", "replace").splitlines():
            parts = line.split("\t")
            if len(parts) == 3 and parts[0] == "F":
                result[parts[1]] = parts[2] if parts[2] != "?" else None
        for path, digest in list(result.items()):
            if digest is None:  # no hashlib.sha256 on this board: hash it here
                import hashlib
                result[path] = hashlib.sha256(self.read_file(path)).hexdigest()
        return result

    def makedirs(self, path):
        """Create the parent folders of path on the board."""
        parts = path.strip("/").split("/")[:-1]
        for i in range(1, len(parts) + 1):
            folder = "/" + "/".join(parts[:i])
            if folder not in self._dirs:
                self.exec("try:\n import os\n os.mkdir(%r)\nexcept OSError:\n pass" % folder)
                self._dirs.add(folder)

    def write_file(self, path, data):
        """Write data to path on the board. OSError(ENOSPC) when the flash is full."""
        self.makedirs(path)
        try:
            self.exec("from binascii import a2b_base64 as _mbx_d\n_mbx_f=open(%r,'wb')" % path)
            for i in range(0, len(data), CHUNK):
                self.exec("_mbx_f.write(_mbx_d(%r))" % base64.b64encode(data[i:i + CHUNK]).decode())
            self.exec("_mbx_f.close()")
        except TransportExecError as exc:
            self.exec("try:\n _mbx_f.close()\nexcept Exception:\n pass")
            if "ENOSPC" in exc.error_output or "Errno 28" in exc.error_output or "OSError: 28" in exc.error_output:
                raise OSError(errno.ENOSPC, "no space left on the board", path) from None
            raise

    def read_file(self, path):
        """Contents of a file on the board (bytes)."""
        out = self.exec(
            "import binascii\nwith open(%r,'rb') as _mbx_f:\n while True:\n"
            "  _mbx_b=_mbx_f.read(%d)\n  if not _mbx_b:\n   break\n"
            "  print(binascii.b2a_base64(_mbx_b).decode().strip())" % (path, CHUNK))
        return b"".join(base64.b64decode(line) for line in out.split())

    def remove(self, path):
        self.exec("import os\nos.remove(%r)" % path)

    def file_size(self, path):
        """Size of a file on the board, or None when it does not exist."""
        try:
            return self.eval("__import__('os').stat(%r)[6]" % path)
        except TransportExecError:
            return None

    def list_files(self, folder):
        """Every file under folder on the board, recursively: sorted absolute paths, as the
        board names them (a name may hold any character, a tab or a line feed included: the
        board prints each path as a Python literal)."""
        self._ensure_helpers()
        out = self.exec("_mbx_list(%r)" % folder)
        paths = []
        for line in out.decode("utf-8", "replace").splitlines():
            try:
                path = ast.literal_eval(line.strip())
            except (ValueError, SyntaxError):
                continue
            if isinstance(path, str):
                paths.append(path)
        return sorted(paths)

    def free_bytes(self):
        """Free space of the board's filesystem, from os.statvfs('/')."""
        st = self.eval("__import__('os').statvfs('/')")
        return st[0] * st[4]

    def restart(self, hard=False):
        """Leave the raw REPL and reset so main.py runs again; returns 'hard reset' or 'soft reset'.

        hard: machine.reset() where the port has it (a Pico: USB drops and comes back);
        otherwise (the unix port used as a virtual board) a soft reset with Ctrl-D.
        """
        if hard and self.eval("hasattr(__import__('machine'), 'reset')"):
            self.transport.exec_raw_no_follow("import machine\nmachine.reset()")
            return "hard reset"
        self.transport.exit_raw_repl()
        self.transport.serial.write(b"\x04")  # Ctrl-D at the friendly prompt: soft reboot
        self.transport.serial.flush()
        return "soft reset"


# Defined once per session on the board. Chunked reads keep RAM use small.
BOARD_HELPERS = """
import os
try:
    import hashlib, binascii
    hashlib.sha256
except (ImportError, AttributeError):
    hashlib = None
def _mbx_hash(p):
    if hashlib is None:
        return '?'
    h = hashlib.sha256()
    b = bytearray(512)
    m = memoryview(b)
    with open(p, 'rb') as f:
        while True:
            n = f.readinto(b)
            if not n:
                break
            h.update(m[:n])
    return binascii.hexlify(h.digest()).decode()
def _mbx_files(ps):
    for p in ps:
        try:
            print('F', p, _mbx_hash(p), sep='\t')
        except OSError:
            pass
def _mbx_walk(d, hashes):
    try:
        es = list(os.ilistdir(d))
    except OSError:
        return
    for e in es:
        p = d.rstrip('/') + '/' + e[0]
        if e[1] == 0x4000:
            _mbx_walk(p, hashes)
        elif hashes is None:
            print(repr(p))
        else:
            print('F', p, _mbx_hash(p) if hashes else '-', sep='\t')
def _mbx_dirs(ds):
    for d in ds:
        _mbx_walk(d, True)
def _mbx_list(d):
    _mbx_walk(d, None)
"""
