"""What TLS costs the box's link (box.mqtt_link) on the MicroPython unix port: the TLS
handshake's heap and time, beside a plain connection.

Runs bench/mpy_tls_bench.py under the unix port twice, against `matchbox hall serve` on
127.0.0.1 (the embedded broker): plain, and with --tls (the box checking the hall's
certificate against the CA its settings carry). Prints, for each: the steps to connect, the
longest step (the TLS one that gets the broker's certificate, checks it and does the key
exchange) and the connect's time, the running link's MicroPython heap; and for TLS mbedTLS's
own memory, which the unix port takes from the C heap (malloc), measured by heaptrack
(Debian's `heaptrack`; without it those figures are left out, said in one line): its peak
while connecting and what it holds while connected, as the unix port allocates it and as a
Pico W's MicroPython would hold the same allocations in its heap (each one 8 bytes more, in
16-byte blocks: MicroPython's m_tracked_calloc, where rp2's mbedTLS takes its memory). The
sizes are those of a 64-bit build; a Pico's 32-bit ones differ somewhat. Wall-clock time of
this machine, not a Pico W's (none was used).

Run: .venv/bin/python bench/bench_tls.py [--json] (about half a minute).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
for path in (ROOT, os.path.join(ROOT, "tests")):
    if path not in sys.path:
        sys.path.insert(0, path)

from host_tools.device.tools import find  # noqa: E402

MARK = "ssl_context_load_cert_chain"   # mpy_tls_bench.py's mark, once connected


def run(settings, games, cert=None, trace=None):
    """The figures of mpy_tls_bench.py, as a dict (under heaptrack, into `trace`, when given)."""
    env = dict(os.environ, MICROPYPATH=os.pathsep.join(
        [os.path.join(ROOT, "firmware", "lib"), HERE]))
    argv = [find("micropython"), os.path.join(HERE, "mpy_tls_bench.py"), settings, games]
    if cert:
        argv += list(cert)
    if trace:
        argv = ["heaptrack", "-o", trace] + argv
    out = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300,
                         check=True).stdout
    figures = {}
    line = [l for l in out.splitlines() if l.startswith("up=")][-1]   # heaptrack says more
    for word in line.split():
        key, _, value = word.partition("=")
        figures[key] = int(value)
    return figures


def c_heap(trace):
    """mbedTLS's C heap in a heaptrack record: every allocation made under an mbedtls_
    function, replayed in order up to the mark (the first allocation under MARK): (peak,
    held at the mark, allocations held at the mark), in bytes as allocated and as a Pico's
    MicroPython heap would hold them (each + 8 B, in 16 B blocks)."""
    data = subprocess.run(["zstdcat", trace], capture_output=True, check=True).stdout
    strings, ips, traces, allocs = [None], [None], [(False, False)], []
    held = peak = held_pico = peak_pico = count = 0
    for line in data.decode("utf-8", "replace").splitlines():
        kind = line[:1]
        if kind == "s":
            strings.append(line.split(" ", 2)[2] if line.count(" ") >= 2 else "")
        elif kind == "i":   # ip, module, then (function, file, line) a frame (inlined ones)
            parts = line.split()[1:]
            names = [strings[int(parts[j], 16)] or "" for j in range(2, len(parts), 3)]
            ips.append((any(n.startswith("mbedtls_") for n in names), MARK in names))
        elif kind == "t":
            ip, parent = (int(x, 16) for x in line.split()[1:])
            up = traces[parent]
            traces.append((ips[ip][0] or up[0], ips[ip][1] or up[1]))
        elif kind == "a":
            size, trace_id = (int(x, 16) for x in line.split()[1:])
            allocs.append((size, traces[trace_id]))
        elif kind in "+-":
            size, (tls, mark) = allocs[int(line.split()[1], 16)]
            if mark:
                break
            if tls:
                sign = 1 if kind == "+" else -1
                held += sign * size
                held_pico += sign * ((size + 8 + 15) // 16 * 16)
                count += sign
                peak, peak_pico = max(peak, held), max(peak_pico, held_pico)
    return {"c_heap_peak": peak, "c_heap_connected": held, "c_allocations_connected": count,
            "pico_heap_peak": peak_pico, "pico_heap_connected": held_pico}


def mark(hall, tmp):
    """(certificate, key) files for the mark: the hall's page's, DER (the key SEC1's, which
    MicroPython's mbedTLS reads)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import serialization
    from host_tools.hall import certs
    cert_path, key_path = certs.pem(hall, certs.WEB)
    with open(cert_path, "rb") as f:
        cert = x509.load_pem_x509_certificate(f.read())
    with open(key_path, "rb") as f:
        key = serialization.load_pem_private_key(f.read(), None)
    out = (os.path.join(tmp, "mark.der"), os.path.join(tmp, "mark.key"))
    for path, data in ((out[0], cert.public_bytes(serialization.Encoding.DER)),
                       (out[1], key.private_bytes(serialization.Encoding.DER,
                                                  serialization.PrivateFormat.TraditionalOpenSSL,
                                                  serialization.NoEncryption()))):
        with open(path, "wb") as f:
            f.write(data)
    return out


def measure(trace=True):
    from hall_helpers import Hall, enrol
    from host_tools.hall import certs
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for kind in ("plain", "tls"):
            hall = Hall(os.path.join(tmp, kind), tls=kind == "tls")
            enrol(hall.folder, "bench", hall.mqtt, tls=kind == "tls")
            hall.start()
            try:
                settings = os.path.join(hall.folder, "boxes", "bench", "hall.json")
                games = os.path.join(tmp, kind + "-games")
                figures = run(settings, games)
                if kind == "tls" and trace:   # again, for its C heap (heaptrack slows it)
                    record = os.path.join(tmp, "heap")
                    run(settings, games + "-traced", mark(hall.folder, tmp), record)
                    found = [n for n in os.listdir(tmp) if n.startswith("heap")]
                    figures.update(c_heap(os.path.join(tmp, found[0])))
                results[kind] = figures
            finally:
                hall.stop()
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(prog="bench_tls.py", description=__doc__.split("\n")[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object instead")
    args = parser.parse_args(argv)
    traced = shutil.which("heaptrack") is not None and shutil.which("zstdcat") is not None
    results = measure(traced)
    plain, tls = results["plain"], results["tls"]
    if args.json:
        print(json.dumps({"rung": "micropython unix port (64-bit)", "heaptrack": traced,
                          "cases": results}, indent=1))
        return 0
    print("The box's link connecting to the hall's embedded broker, MicroPython unix port:")
    print("  %-6s %6s %16s %12s %22s" % ("", "steps", "longest step", "connect", "running link heap"))
    for name, r in (("plain", plain), ("TLS", tls)):
        print("  %-6s %6d %13.1f ms %9d ms %20d B" % (name, r["steps"], r["step_max_us"] / 1000,
                                                     r["connect_ms"], r["heap_link"]))
    if not traced:
        print("  mbedTLS's own memory not measured: install heaptrack (apt-get install heaptrack)")
        return 0
    print("  mbedTLS's memory (the unix port's C heap; on a Pico W MicroPython's heap):")
    print("    peak while connecting %d B (a Pico's heap: about %d B)" % (
        tls["c_heap_peak"], tls["pico_heap_peak"]))
    print("    held while connected  %d B in %d allocations (a Pico's heap: about %d B)" % (
        tls["c_heap_connected"], tls["c_allocations_connected"], tls["pico_heap_connected"]))
    extra = tls["heap_link"] - plain["heap_link"]
    print("  TLS's cost on a Pico W, estimated: %d B more while connecting, %d B while "
          "connected (the running link's %d B more in MicroPython's heap, and mbedTLS's)"
          % (extra + tls["pico_heap_peak"], extra + tls["pico_heap_connected"], extra))
    return 0


if __name__ == "__main__":
    sys.exit(main())
