"""A virtual Pico for tests: the MicroPython unix port behind a pseudo-terminal.

`PtyBoard(flash_dir)` runs `micropython -i` with a small support layer and relays its
stdio to a pty whose path (`.port`) mpremote or our flash/pull tools open like a USB serial
port. The board's filesystem is flash_dir: the support layer maps board paths into it
(`/lib/x.mpy`, `lib/x.mpy` and `:lib/x.mpy` in mpremote all land in flash_dir/lib/x.mpy; ".."
cannot leave it) and sys.path is ['', '.frozen', 'lib'] like the Pico's ['', '.frozen', '/lib'].

Soft reset: on the unix port Ctrl-D (at the friendly prompt, or on an empty raw-REPL command)
ends the process. The relay then prints "MPY: soft reboot", starts a fresh interpreter and, if
the old one was in the raw REPL, puts the new one there too, so mpremote's automatic soft reset
and `mpremote soft-reset` behave as on a Pico. boot.py/main.py are NOT run on reboot (the
firmware needs real hardware). `mpremote reset` (machine.reset) does not exist on the unix
port and fails there. `capacity=N` makes the filesystem report N bytes in os.statvfs and raise
OSError(ENOSPC) when a write would exceed them, to test a full flash; `version="1.27.0"` makes
the board say it runs that MicroPython (sys.implementation.version, as the host asks for it);
`bootrom=FILE` makes uctypes.bytearray_at(0, n) read that file as the board's memory
(`bootrom="refuse"`: raise OSError, as a board that will not let it be read).
"""
import errno
import os
import pty
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import tty

from host_tools.device import tools
from host_tools.errors import MatchboxError
from host_tools.files import write_whole

RAW_MARK = b"raw REPL; CTRL-B to exit\r\n"
FRIENDLY_MARK = b">>> "
SOFT_REBOOT = b"MPY: soft reboot\r\n"
MAX_HOST_BUFFER = 1 << 16  # output nobody reads is dropped past this, as on a USB port

# Imported as `os` on the virtual board: the real module's functions, with paths mapped
# into the flash folder, plus the optional capacity limit.
OS_SHIM = r'''
import sys
_p = sys.path
sys.path = ()
try:
    import os as _os
finally:
    sys.path = _p
del _p
import builtins

for _n in dir(_os):
    if not _n.startswith("__"):
        globals()[_n] = getattr(_os, _n)
_ROOT = _os.getenv("VPICO_ROOT")
_CAP = int(_os.getenv("VPICO_CAPACITY") or 0)
_open = builtins.open


def getcwd():
    cwd = _os.getcwd()
    return cwd[len(_ROOT):] if cwd.startswith(_ROOT + "/") else "/"


def _real(path):
    if isinstance(path, bytes):
        path = path.decode()
    if not path.startswith("/"):
        path = getcwd() + "/" + path
    parts = []
    for part in path.split("/"):
        if part == "..":
            if parts:
                parts.pop()
        elif part and part != ".":
            parts.append(part)
    return _ROOT + "".join("/" + p for p in parts)


def stat(path):
    return _os.stat(_real(path))


def listdir(path="."):
    return _os.listdir(_real(path))


def ilistdir(path="."):
    real = _real(path)
    for entry in _os.ilistdir(real):  # the unix port gives no size: add it, as a Pico does
        size = 0
        if entry[1] != 0x4000:
            try:
                size = _os.stat(real + "/" + entry[0])[6]
            except OSError:
                pass
        yield (entry[0], entry[1], entry[2], size)


def mkdir(path, *args):
    return _os.mkdir(_real(path), *args)


def remove(path):
    return _os.remove(_real(path))


def rmdir(path):
    return _os.rmdir(_real(path))


def rename(old, new):
    return _os.rename(_real(old), _real(new))


def chdir(path):
    return _os.chdir(_real(path))


def _usage(path=None):
    total = 0
    for entry in _os.ilistdir(path or _ROOT):
        full = (path or _ROOT) + "/" + entry[0]
        if entry[1] == 0x4000:
            total += _usage(full)
        else:
            total += _os.stat(full)[6]
    return total


def statvfs(path="/"):
    if not _CAP:
        return _os.statvfs(_real(path))
    free = max(0, _CAP - _usage()) // 4096
    return (4096, 4096, _CAP // 4096, free, free, 0, 0, 0, 0, 255)


class _Limited:
    def __init__(self, f, budget):
        self._f = f
        self._budget = budget

    def write(self, data):
        if len(data) > self._budget:
            raise OSError(28)
        self._budget -= len(data)
        return self._f.write(data)

    def __getattr__(self, name):
        return getattr(self._f, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._f.close()


def open(path, mode="r", *args, **kw):
    if isinstance(path, int):
        return _open(path, mode, *args, **kw)
    f = _open(_real(path), mode, *args, **kw)
    if _CAP and ("w" in mode or "a" in mode or "+" in mode):
        return _Limited(f, _CAP - _usage())  # measured after "w" truncated the file
    return f


builtins.open = open
'''

BOOT = r'''
import sys
sys.path.insert(0, %r)
import os
os.chdir("/")
sys.path[:] = ["", ".frozen", "lib"]


def _vpico_fakes(version, rom):
    # `version=`: what `__import__('sys').implementation.version` says (how the host asks);
    # `bootrom=`: what uctypes.bytearray_at() reads from address 0 on, or an OSError
    import builtins
    real_import = builtins.__import__

    class Proxy:
        def __init__(self, real, **faked):
            self._real = real
            for k in faked:
                setattr(self, k, faked[k])

        def __getattr__(self, name):
            return getattr(self._real, name)

    faked = {}
    if version:
        faked["sys"] = Proxy(sys, implementation=Proxy(
            sys.implementation, version=tuple(int(x) for x in version.split("."))))
    if rom:
        host_open = os._open   # the host's file, not one of the board's

        def bytearray_at(at, n):
            if rom == "refuse":
                raise OSError(1)
            with host_open(rom, "rb") as f:
                data = f.read()
            if at + n > len(data):
                raise OSError(14)
            return bytearray(data[at:at + n])
        faked["uctypes"] = Proxy(real_import("uctypes"), bytearray_at=bytearray_at)
    if faked:
        builtins.__import__ = lambda name, *a: faked.get(name) or real_import(name, *a)


_vpico_fakes(os.getenv("VPICO_VERSION"), os.getenv("VPICO_BOOTROM"))
for _m in ("sys", "os", "_m", "_vpico_fakes"):
    globals().pop(_m, None)
'''


class PtyBoardError(MatchboxError):
    """The virtual Pico could not start or stopped answering."""


class PtyBoard:
    """Context manager: a MicroPython board on a pty. `.port` is the device path."""

    def __init__(self, flash_dir, capacity=None, micropython=None, start_timeout=10.0, trace=False,
                 version=None, bootrom=None):
        self.flash_dir = os.path.abspath(flash_dir)
        self.capacity = capacity
        self.version = version   # "1.27.0": the MicroPython version the board says it runs
        self.bootrom = bootrom   # a file the board reads as its memory from 0, or "refuse"
        self.micropython = micropython or _find_micropython()
        self.start_timeout = start_timeout
        self.port = None
        self.reboots = 0  # soft reboots (process restarts) so far
        self._proc = None
        self._thread = None
        self._stopping = threading.Event()
        self._master = self._slave = None
        self._support = None
        self._raw = False
        self._tail = b""
        self._to_host = bytearray()
        self._to_child = bytearray()
        self._ready = threading.Event()
        self._error = None
        self.trace = [] if trace else None  # (seconds, "host>"/"<child"/"event", bytes) for debugging
        self._hold = None  # time a Ctrl-D went to the child; later host bytes wait (see _from_host)
        self._held = bytearray()
        self._after = b""
        self._host_raw = False
        self._hold_until_exit = False
        self._after_at = 0.0

    # -- lifecycle -------------------------------------------------------------------
    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()

    def start(self):
        os.makedirs(self.flash_dir, exist_ok=True)
        self._support = tempfile.mkdtemp(prefix="vpico-support-")
        write_whole(os.path.join(self._support, "os.py"), OS_SHIM)
        write_whole(os.path.join(self._support, "vpico_boot.py"), BOOT % self._support)
        self._master, self._slave = pty.openpty()
        tty.setraw(self._slave)
        os.set_blocking(self._master, False)
        self.port = os.ttyname(self._slave)
        try:
            self._spawn()
            self._thread = threading.Thread(target=self._relay, name="vpico-relay", daemon=True)
            self._thread.start()
            if not self._ready.wait(self.start_timeout):
                raise PtyBoardError("virtual Pico did not show a prompt in %ss" % self.start_timeout)
            if self._error:
                raise PtyBoardError(self._error)
        except BaseException:
            self.stop()
            raise

    def stop(self):
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(5)
            self._thread = None
        self._kill()
        for fd in (self._master, self._slave):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._master = self._slave = None
        if self._support:
            shutil.rmtree(self._support, ignore_errors=True)
            self._support = None

    @property
    def alive(self):
        return self._thread is not None and self._thread.is_alive() and self._error is None

    # -- child process ---------------------------------------------------------------
    def _spawn(self):
        env = dict(os.environ)
        env["VPICO_ROOT"] = self.flash_dir
        env["VPICO_CAPACITY"] = str(self.capacity or 0)
        env["VPICO_VERSION"] = self.version or ""
        env["VPICO_BOOTROM"] = self.bootrom or ""
        env["MICROPYPATH"] = ":.frozen:lib"
        self._proc = subprocess.Popen(
            [self.micropython, "-i", os.path.join(self._support, "vpico_boot.py")],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            cwd=self.flash_dir, env=env, start_new_session=True,
        )
        os.set_blocking(self._proc.stdout.fileno(), False)
        os.set_blocking(self._proc.stdin.fileno(), False)

    def _kill(self):
        proc, self._proc = self._proc, None
        if proc is None:
            return
        for stream in (proc.stdin, proc.stdout):
            try:
                stream.close()
            except OSError:
                pass
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                proc.wait(2)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(2)

    def _reboot(self):
        """The interpreter ended (Ctrl-D, sys.exit, crash): start a fresh one, as a soft reset."""
        was_raw = self._raw
        self._log("event", b"reboot raw=%d" % was_raw)
        self._kill()
        self.reboots += 1
        self._queue_host(SOFT_REBOOT)
        self._spawn()
        out = self._read_child_until(FRIENDLY_MARK)
        if out is None:
            return False
        if not was_raw:
            self._queue_host(out)
            self._raw = self._host_raw = False
            return True
        self._to_child += b"\r\x01"
        self._host_raw = True
        self._flush_child()
        out = self._read_child_until(RAW_MARK)
        if out is None:
            return False
        # a Pico in raw mode shows no banner after a soft reboot: drop the child's
        self._queue_host(out[out.index(RAW_MARK):])
        self._raw = True
        return True

    def _read_child_until(self, mark, timeout=10.0):
        fd = self._proc.stdout.fileno()
        out = b""
        deadline = time.monotonic() + timeout
        while mark not in out:
            if self._stopping.is_set() or time.monotonic() > deadline:
                return None
            r, _, _ = select.select([fd], [], [], 0.05)
            if r:
                chunk = _read(fd)
                if not chunk:
                    return None
                out += chunk
        return out

    # -- relay -----------------------------------------------------------------------
    def _queue_host(self, data):
        self._to_host += data
        if len(self._to_host) > MAX_HOST_BUFFER:
            del self._to_host[: len(self._to_host) - MAX_HOST_BUFFER]

    def _flush_child(self):
        if self._to_child and self._proc is not None:
            try:
                n = os.write(self._proc.stdin.fileno(), self._to_child)
                del self._to_child[:n]
            except BlockingIOError:
                pass
            except (BrokenPipeError, OSError):
                pass  # the child is ending; its stdout EOF triggers the reboot

    def _from_host(self, data):
        """Forward host bytes, but hold those after a Ctrl-D until the child has answered it.

        A Ctrl-D may end the interpreter (soft reset): bytes sent right after it would reach
        the dying process and be lost, so they wait for its answer, or for the restart when
        the answer is only the "\r\n" / "OK\r\n" printed before exiting.
        """
        if self._hold is not None:
            self._held += data
            return
        i = data.find(b"\x04")
        head = data if i < 0 else data[: i + 1]
        for c in head:  # the mode the child will be in when it reads the Ctrl-D
            if c == 1:
                self._host_raw = True
            elif c == 2:
                self._host_raw = False
        self._to_child += head
        if i < 0:
            return
        self._log("event", b"hold")
        self._hold, self._after = time.monotonic(), b""
        self._hold_until_exit = not self._host_raw  # Ctrl-D at the friendly prompt always ends it
        self._held += data[i + 1:]

    def _log(self, what, data):
        if self.trace is not None:
            self.trace.append((time.monotonic(), what, bytes(data)))

    def _release(self):
        self._log("event", b"release " + bytes(self._held))
        held = bytes(self._held)
        self._held = bytearray()
        self._hold = None
        if held:
            self._from_host(held)

    def _check_hold(self, child_data=None):
        if self._hold is None:
            return
        now = time.monotonic()
        if self._hold_until_exit:
            if now - self._hold > 3.0:
                self._release()  # Ctrl-D on a non-empty line: no exit after all
        elif child_data:
            self._after += child_data
            self._after_at = now
            if not self._after.endswith(b"\r\n"):
                self._release()
        elif self._after and now - self._after_at > 0.15:
            self._release()  # printed "\r\n" but did not exit
        elif now - self._hold > 1.0:
            self._release()

    def _track_mode(self, data):
        text = self._tail + data
        raw_at, friendly_at = text.rfind(RAW_MARK), text.rfind(FRIENDLY_MARK)
        if raw_at >= 0 or friendly_at >= 0:
            self._raw = raw_at > friendly_at
            self._ready.set()
        self._tail = text[-32:]

    def _relay(self):
        failures = 0
        try:
            while not self._stopping.is_set():
                child_out = self._proc.stdout.fileno()
                writers = [self._master] if self._to_host else []
                if self._to_child:
                    writers.append(self._proc.stdin.fileno())
                r, w, _ = select.select([self._master, child_out], writers, [], 0.05)
                if self._master in r:
                    data = _read(self._master)
                    if data:
                        self._log("host>", data)
                        self._from_host(data)
                if child_out in r:
                    data = _read(child_out)
                    if data:
                        self._log("<child", data)
                        failures = 0
                        self._track_mode(data)
                        self._queue_host(data)
                        self._check_hold(data)
                    elif data is not None:  # EOF: the interpreter ended
                        if self._stopping.is_set():
                            break
                        self._to_child = bytearray()  # what the old interpreter did not read is gone
                        if self._reboot():
                            failures = 0
                            self._release()
                        else:
                            failures += 1
                            if failures >= 3:
                                self._error = "virtual Pico interpreter keeps failing to start"
                                self._ready.set()
                                break
                self._check_hold()
                if self._to_host:
                    try:
                        n = os.write(self._master, self._to_host)
                        del self._to_host[:n]
                    except BlockingIOError:
                        pass
                self._flush_child()
        except Exception as exc:  # keep the reason for the test that sees a dead board
            self._error = "virtual Pico relay failed: %r" % (exc,)
            self._ready.set()


def _read(fd):
    """Read what is there; b"" on EOF, None when nothing is ready."""
    try:
        return os.read(fd, 4096)
    except BlockingIOError:
        return None
    except OSError as exc:
        if exc.errno == errno.EIO:  # pty with no reader on the other side
            return None
        raise


def _find_micropython():
    path = tools.find("micropython")
    if not path:
        raise PtyBoardError(tools.missing("micropython", "the unix port"))
    return path


def main(argv=None):
    """`python -m host_tools.virtual.pty_board DIR`: keep a virtual Pico running and print its port."""
    import argparse
    parser = argparse.ArgumentParser(prog="python -m host_tools.virtual.pty_board", description=__doc__.split("\n")[0])
    parser.add_argument("flash_dir", help="folder that acts as the board's flash filesystem")
    parser.add_argument("--capacity", type=int, help="pretend the flash holds this many bytes")
    args = parser.parse_args(argv)

    def interrupt(*_):
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, interrupt)  # also when started in the background
    signal.signal(signal.SIGTERM, interrupt)
    with PtyBoard(args.flash_dir, capacity=args.capacity) as board:
        print("virtual Pico on %s (flash: %s); Ctrl-C to stop" % (board.port, board.flash_dir), flush=True)
        try:
            while board.alive:
                time.sleep(0.5)
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
