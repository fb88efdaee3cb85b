"""The box's hall link (box.mqtt_link) against the key path, on the MicroPython unix port.

Plays the seeded game of bench/mpy_uplink_bench.py (4 players, four displays on a fake bus,
the real journal) under the unix port, once without a link and once with the link running in
the main loop against each broker below, and prints key press to display write (from the start
of the link step the key waited behind) and the link step itself, p50/p99/max, side by side:
  - none:        no hall.json: no link at all;
  - up:          `matchbox hall serve` with its embedded broker on 127.0.0.1, the box enrolled:
                 lines go out and the hall acknowledges them;
  - down:        nothing listens on the port (each connect refused at once);
  - unreachable: a host that never answers: a listening socket whose accept queue is full, so
                 the box's SYNs are dropped and its connect stays under way until CONNECT_MS;
  - slow:        the hall's broker behind a proxy that passes 64 bytes every 100 ms each way
                 after 300 ms (the box's CONNECT, lines and the hall's acks all crawl).
Goal: key to display <= 20 ms in every case. Also the link's heap on the unix port (its
modules as imported, and a running link's objects). Wall-clock figures of this machine, not of
a Pico W (none was used; the emulated Pico has no radio and no socket module).

Run: .venv/bin/python bench/bench_uplink.py [--json] [--strict] (about a minute).
"""
import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
for path in (ROOT, os.path.join(ROOT, "tests")):
    if path not in sys.path:
        sys.path.insert(0, path)

from host_tools.device.tools import find  # noqa: E402

GOAL_MS = 20
CASES = ("none", "up", "down", "unreachable", "slow")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_game(host=None, port=None, box=None):
    """The figures of mpy_uplink_bench.py, as a dict."""
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, MICROPYPATH=os.pathsep.join(
            [os.path.join(ROOT, "firmware", "lib"), os.path.join(ROOT, "tests", "portable"),
             HERE]))
        argv = [find("micropython"), os.path.join(HERE, "mpy_uplink_bench.py"),
                os.path.join(tmp, "games")]
        if host:
            argv += [host, str(port)]
        if box:
            argv += [box[0], box[1]]
        out = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600,
                             check=True).stdout
    figures = {}
    for word in out.split():
        key, _, value = word.partition("=")
        figures[key] = int(value)
    return figures


class Unanswering:
    """A port whose accept queue is full: connects to it are never answered."""

    def __init__(self):
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(0)
        self.port = self.listener.getsockname()[1]
        self.fill = []
        for _ in range(4):
            s = socket.socket()
            s.setblocking(False)
            try:
                s.connect(("127.0.0.1", self.port))
            except OSError:
                pass
            self.fill.append(s)
        time.sleep(0.2)

    def close(self):
        for s in self.fill + [self.listener]:
            s.close()


class SlowProxy:
    """Forwards to the broker 64 bytes every 100 ms each way, each chunk 300 ms late."""

    def __init__(self, port):
        self.target = port
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(8)
        self.port = self.listener.getsockname()[1]
        self.stop = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while not self.stop.is_set():
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
            upstream = socket.create_connection(("127.0.0.1", self.target))
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    def _pipe(self, src, dst):
        try:
            while not self.stop.is_set():
                data = src.recv(64)
                if not data:
                    break
                time.sleep(0.3)
                dst.sendall(data)
                time.sleep(0.1)
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.close()
            except OSError:
                pass

    def close(self):
        self.stop.set()
        self.listener.close()


def measure():
    from hall_helpers import Hall, enrol
    from host_tools.hall import protocol
    results = {"none": run_game()}
    with tempfile.TemporaryDirectory() as tmp:
        hall = Hall(os.path.join(tmp, "hall"))
        # two boxes: the game is the same each run, and the slow one must send it too
        up = protocol.parse_url(enrol(hall.folder, "bench", hall.mqtt))[2:]
        slow = protocol.parse_url(enrol(hall.folder, "slow", hall.mqtt))[2:]
        hall.start()
        try:
            results["up"] = run_game("127.0.0.1", hall.mqtt, up)
            results["down"] = run_game("127.0.0.1", free_port())
            dead = Unanswering()
            try:
                results["unreachable"] = run_game("127.0.0.1", dead.port)
            finally:
                dead.close()
            proxy = SlowProxy(hall.mqtt)
            try:
                results["slow"] = run_game("127.0.0.1", proxy.port, slow)
            finally:
                proxy.close()
        finally:
            hall.stop()
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(prog="bench_uplink.py", description=__doc__.split("\n")[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object instead")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a goal is missed")
    args = parser.parse_args(argv)
    results = measure()
    missed = [case for case in CASES if results[case]["key_max_us"] > GOAL_MS * 1000]
    if args.json:
        print(json.dumps({"rung": "micropython unix port", "goal_key_to_display_ms": GOAL_MS,
                          "cases": results, "missed": missed}, indent=1))
    else:
        print("Key press to display write with the hall's link, MicroPython unix port (%d key "
              "presses a case):" % results["none"]["presses"])
        print("  %-12s %27s %27s %6s %8s" % ("broker", "key to display p50/p99/max",
                                             "link step p50/p99/max", "sent", "dropped"))
        for case in CASES:
            r = results[case]
            print("  %-12s %27s %27s %6d %8d" % (
                case, "%.2f / %.2f / %.2f ms" % (r["key_p50_us"] / 1000, r["key_p99_us"] / 1000,
                                                r["key_max_us"] / 1000),
                "%.2f / %.2f / %.2f ms" % (r["step_p50_us"] / 1000, r["step_p99_us"] / 1000,
                                          r["step_max_us"] / 1000) if case != "none" else "-",
                r["sent"], r["dropped"]))
        print("  goal: key to display <= %d ms in every case: %s" % (
            GOAL_MS, "PASS" if not missed else "MISSED (%s)" % ", ".join(missed)))
        up = results["up"]
        print("  the link's heap (unix port, 64-bit): its modules as imported %d B; a running "
              "link (objects, buffers, socket, the cursor's window) %d B" % (
                  up["heap_modules"], up["heap_link"]))
    return 1 if args.strict and missed else 0


if __name__ == "__main__":
    sys.exit(main())
