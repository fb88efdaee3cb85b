"""The hall's audience at scale: simulated tables at ten times a human pace into one `matchbox
hall serve` and thousands of viewers following its page's topics through the audience broker
(nats-server, MQTT over WebSockets), everything on 127.0.0.1 of this machine.

  - the tables: bench_hall's generator (boxes enrolled as `hall enrol` does, speaking the
    hall's protocol, random legal games at --speed times bench_emulated_pico's human pace), by
    default into Mosquitto as `hall mosquitto-conf` configures it (--broker embedded: the
    hall's own amqtt);
  - the viewers: --viewers (default 5000) connections to the audience broker's WebSocket, in
    --viewer-workers processes (tests/audience_viewers.py: a socket each in one selector loop,
    the page's subscriptions, each digest's number and arrival kept as it comes, the CRC-32 of
    one digest in 16 of each viewer); one more viewer keeps, unpacks and reads every message,
    to know which lines each digest shows and what each digest's bytes are; --stalled viewers
    subscribe and then never read (what the broker's bound does to them: nats.LIMITS);
  - every viewer must get every digest from its snapshot to the last one (none missed, none
    closed), and every digest whose CRC-32 a viewer kept must be the reading viewer's bytes;
    latency: from the moment a table writes a line (its MQTT client has it) to the moment each
    viewer gets the first digest showing it; p50, p99, max over every (line, viewer); split at
    the moment the hall published that digest (its header's `t`): the hall's side (a line
    written to its digest published: the boxes' broker, the store, the wait for the next
    digest; and, beside it, a line written to the box's acknowledgement of it) and the
    audience broker's (published to each viewer's read);
  - CPU seconds (user + system) over the measured window of every process: the hall, the
    audience broker, the boxes' broker, the viewers' and the generators' processes, from
    /proc; resident memory at its peak; the machine's load before and after.

Goal: every viewer gets every update and p99 <= 1 s at 200 tables and 5000 viewers (PASS /
MISSED).

Run: .venv/bin/python bench/bench_audience.py [--tables 200] [--viewers 5000] [--seconds 60]
[--speed 10] [--broker mosquitto|embedded] [--stalled 20] [--json] [--strict]
(`make bench-audience`; BENCH_AUDIENCE passes options). Develop with small sizes (--tables 20
--viewers 200 --seconds 15).
"""
import argparse
import collections
import json
import multiprocessing
import os
import shutil
import sys
import tempfile
import time
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
for path in (ROOT, os.path.join(ROOT, "tests"), os.path.join(ROOT, "tests", "portable"),
             os.path.join(ROOT, "firmware", "lib"), HERE):
    if path not in sys.path:
        sys.path.insert(0, path)

import bench_hall as bh  # noqa: E402
from audience_viewers import Crowd  # noqa: E402
from hall_helpers import MOSQUITTO, Hall, Mosquitto, free_port, more_files  # noqa: E402
from host_tools.hall import accounts, audience, nats, protocol  # noqa: E402

GOAL_P99_MS = 1000
MB = 1024 * 1024


def watch(settings, count, keep, stalled, ready_pipe, stop_pipe):
    """A viewers' process: connect `count` viewers (and `stalled` that never read), say so,
    read until told to stop, report what each got (for each: its snapshot, its last digest,
    its gaps, whether it was closed, when each digest came, its CRC-32s)."""
    more_files()
    crowd = Crowd(settings["port"], settings["user"], settings["password"], count,
                  settings["live"], settings["tables"], settings["path"], keep=keep)
    stuck = Crowd(settings["port"], settings["user"], settings["password"], stalled,
                  settings["live"], settings["tables"], settings["path"], reading=False)
    t0 = time.monotonic()
    ok = crowd.connect(t0 + 60 + count / 50) and stuck.connect(time.monotonic() + 30)
    ready_pipe.send({"connected": ok, "connect_s": time.monotonic() - t0,
                     "refused": sum(v.closed for v in crowd.viewers)})
    while True:
        crowd.turn(0.1)
        stuck.turn(0)
        if stop_pipe.poll(0):
            if stop_pipe.recv() == "stop":
                break
            lasts = [v.last or 0 for v in crowd.viewers if not v.closed] or [0]
            stop_pipe.send((min(lasts), max(lasts)))
    closed_stalled = 0
    for v in stuck.viewers:   # the broker's bound: did it close them?
        v.sock.setblocking(True)
        v.sock.settimeout(0.5)
        try:
            while v.sock.recv(1 << 20):
                pass
            closed_stalled += 1
        except OSError as exc:
            closed_stalled += not isinstance(exc, TimeoutError)
    stop_pipe.send({
        "viewers": [{"snapshot": v.snapshot, "last": v.last, "gaps": v.gaps, "closed": v.closed,
                     "times": v.times, "sums": v.sums} for v in crowd.viewers],
        "kept": [v.kept for v in crowd.viewers] if keep else [],
        "stalled_closed": closed_stalled})
    crowd.close()
    stuck.close()


def settled(viewer_pipes, timeout):
    """Wait until every viewer has the last digest and none came for 2 s (or timeout)."""
    deadline = time.monotonic() + timeout
    last, since = None, time.monotonic()
    while time.monotonic() < deadline:
        for _, stop in viewer_pipes:
            stop.send("status")
        spans = [stop.recv() for _, stop in viewer_pipes]
        top = max(high for _, high in spans)
        if top != last:
            last, since = top, time.monotonic()
        if all(low == top for low, _ in spans) and time.monotonic() - since >= 2:
            return True
        time.sleep(0.25)
    return False


def digests_showing(kept):
    """{box: [((game number, seq), n)]}: the digest n in which each table first showed each
    (game, seq), from one viewer's kept messages (each unpacked and read whole)."""
    shown = collections.defaultdict(list)
    for topic, payload in kept:
        _, n, tables, _ = audience.read(payload)
        for t in tables:
            if t["game"] is None:
                continue
            key = (protocol.game_number(t["game"]), t["seq"])
            if not shown[t["box"]] or key > shown[t["box"]][-1][0]:
                shown[t["box"]].append((key, n))
    return shown


def published(kept, clock):
    """{n: (when the hall published digest n, on this process's monotonic clock; its
    CRC-32)} from the kept messages' headers (`t`, the hall's wall clock; `clock`: wall clock
    minus monotonic clock here)."""
    out = {}
    for topic, payload in kept:
        if topic == audience.LIVE:
            head = json.loads(payload.partition(b"\n")[0])
            out[head["n"]] = (head["t"] - clock, zlib.crc32(payload))
    return out


def checked_sums(viewers, digests):
    """(CRC-32s compared, those that differ from the reading viewer's bytes)."""
    compared = differ = 0
    for v in viewers:
        for n, crc in v["sums"].items():
            compared += 1
            differ += n not in digests or digests[n][1] != crc
    return compared, differ


def latencies(lines, shown, viewers, digests):
    """Histograms (ms -> count) of every (line, viewer) latency, of the hall's side of each
    (the line written to its digest published) and of the broker's (published to the viewer's
    read); the lines no digest showed, and the (line, viewer) pairs whose digest a viewer did
    not get (numpy: 5000 viewers and 40 000 lines are 200 million pairs)."""
    import bisect
    import numpy
    by_n = collections.defaultdict(list)
    unseen = 0
    for box, number, seq, written in lines:
        keys = shown.get(box, [])
        i = bisect.bisect_left(keys, ((number, seq), -1))
        if i == len(keys):
            unseen += 1
            continue
        by_n[keys[i][1]].append(written)
    order = sorted(by_n)
    got = numpy.full((len(viewers), len(order)), numpy.nan)
    for row, v in enumerate(viewers):
        times = v["times"]
        first = times.get(v["snapshot"]) if v["snapshot"] is not None else None
        for col, n in enumerate(order):
            # a line before a viewer's snapshot is in the snapshot it took: that moment
            t = times.get(n, first if v["snapshot"] is not None and n <= v["snapshot"] else None)
            if t is not None:
                got[row, col] = t
    hists = [numpy.zeros(0, dtype=numpy.int64) for _ in range(3)]

    def add(which, ms, weights=None):
        counts = numpy.bincount(numpy.maximum(ms.astype(numpy.int64), 0), weights)
        counts = counts.astype(numpy.int64)
        hist = hists[which]
        if len(counts) > len(hist):
            counts[:len(hist)] += hist
            hists[which] = counts
        else:
            hist[:len(counts)] += counts
    missing = 0
    for col, n in enumerate(order):
        column = got[:, col]
        here = column[~numpy.isnan(column)]
        writes = numpy.array(by_n[n])
        missing += (len(column) - len(here)) * len(writes)
        add(0, ((here[:, None] - writes[None, :]) * 1000).ravel())
        if n in digests:   # each side, weighted by the lines it carries
            add(1, (digests[n][0] - writes) * 1000, numpy.full(len(writes), len(here)))
            add(2, (here - digests[n][0]) * 1000, numpy.full(len(here), len(writes)))
    return [{ms: int(c) for ms, c in enumerate(h) if c} for h in hists], unseen, missing


def quantile(hist, q):
    total = sum(hist.values())
    if not total:
        return None
    want, seen = q * (total - 1), 0
    for ms in sorted(hist):
        seen += hist[ms]
        if seen > want:
            return ms
    return max(hist)


def cpu_split(pid):
    """(user, system) CPU seconds of a process so far, from /proc."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) / os.sysconf("SC_CLK_TCK"), int(fields[12]) / os.sysconf("SC_CLK_TCK")


def cpu_used(before, after, seconds):
    """What a component used between two cpu_split()s (summed over its processes)."""
    user = sum(a[0] - b[0] for b, a in zip(before, after))
    system = sum(a[1] - b[1] for b, a in zip(before, after))
    return {"cpu_user_s": round(user, 2), "cpu_sys_s": round(system, 2),
            "cpu_pct": round(100 * (user + system) / seconds, 1)}


def nats_pid(hall_pid):
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open("/proc/%s/stat" % name) as f:
                    fields = f.read().rsplit(")", 1)
                with open("/proc/%s/comm" % name) as f:
                    comm = f.read().strip()
                if int(fields[1].split()[1]) == hall_pid and comm.startswith("nats"):
                    return int(name)
            except (OSError, ValueError, IndexError):
                continue
    return None


def run(args, work):
    ctx = multiprocessing.get_context("fork")
    t0 = time.monotonic()
    boxes = bh.enrol_boxes(os.path.join(work, "enrolled"), args.tables)
    enrol_s = time.monotonic() - t0
    folder = os.path.join(work, "hall")
    shutil.copytree(accounts.folder(os.path.join(work, "enrolled")), accounts.folder(folder))
    broker = None
    if args.broker == "mosquitto":
        broker = Mosquitto(folder, free_port()).start()
    hall = Hall(folder, broker.port if broker else None).start(60)
    procs = []
    try:
        settings = hall.audience()
        pids = {"hall": hall.proc.pid, "audience broker (nats-server)": nats_pid(hall.proc.pid),
                "boxes' broker (%s)" % args.broker: broker.proc.pid if broker
                else bh.child_of(hall.proc.pid)}
        if args.broker != "mosquitto":   # the hall's children: amqtt's process, nats-server
            pids["boxes' broker (embedded)"] = next(
                int(p) for p in open("/proc/%d/task/%d/children" % (hall.proc.pid, hall.proc.pid))
                .read().split() if int(p) != pids["audience broker (nats-server)"])
        idle = {k: bh.rss_mb(p) for k, p in pids.items()}
        # the viewers
        split = [args.viewers // args.viewer_workers + (i < args.viewers % args.viewer_workers)
                 for i in range(args.viewer_workers)]
        viewer_pipes, viewer_pids = [], []
        for i, count in enumerate(split + [1]):   # the last: the one that keeps every message
            ready_a, ready_b = ctx.Pipe()
            stop_a, stop_b = ctx.Pipe()
            keep = i == len(split)
            p = ctx.Process(target=watch, args=(settings, count, keep,
                                                0 if keep else args.stalled // args.viewer_workers
                                                + (i < args.stalled % args.viewer_workers),
                                                ready_b, stop_b))
            p.start()
            procs.append(p)
            viewer_pids.append(p.pid)
            viewer_pipes.append((ready_a, stop_a))
        t0 = time.monotonic()
        ready = [r.recv() for r, _ in viewer_pipes]
        if not all(r["connected"] for r in ready):
            raise SystemExit("bench_audience: not every viewer connected (%d refused)"
                             % sum(r["refused"] for r in ready))
        viewers_connect_s = time.monotonic() - t0
        rss_viewers = {k: bh.rss_mb(p) for k, p in pids.items()}
        # the tables
        table_pipes, generator_pids = [], []
        slices = [boxes[i::args.workers] for i in range(args.workers)]
        for n, part in enumerate(s for s in slices if s):
            ours, theirs = ctx.Pipe()
            seeded = [(box, pw, 1000 * args.tables + 7 * j + n) for j, (box, pw) in enumerate(part)]
            p = ctx.Process(target=bh.generate, args=(hall.mqtt, seeded, args.speed,
                                                        args.seconds, args.drain, theirs))
            p.start()
            procs.append(p)
            generator_pids.append(p.pid)
            table_pipes.append(ours)
        if not all(p.recv()["connected"] for p in table_pipes):
            raise SystemExit("bench_audience: not every table connected")
        load_before = os.getloadavg()
        time.sleep(2)
        start = time.monotonic() + 0.2
        for p in table_pipes:
            p.send(start)
        time.sleep(max(0.0, start - time.monotonic()))
        groups = dict({k: [p] for k, p in pids.items()}, **{
            "viewers' processes (%d)" % len(viewer_pids): viewer_pids,
            "table generators (%d)" % len(generator_pids): generator_pids})
        cpu0 = {k: [cpu_split(p) for p in ps] for k, ps in groups.items()}
        peak = dict(rss_viewers)
        while time.monotonic() < start + args.seconds:
            time.sleep(0.5)
            for k, p in pids.items():
                peak[k] = max(peak[k], bh.rss_mb(p))
        cpu = {k: cpu_used(cpu0[k], [cpu_split(p) for p in ps], args.seconds)
               for k, ps in groups.items()}
        for k in pids:
            cpu[k].update(rss_mb_idle=round(idle[k], 1), rss_mb_peak=round(peak[k], 1),
                          rss_mb_viewers_connected=round(rss_viewers[k], 1))
        load_after = os.getloadavg()
        results = [p.recv() for p in table_pipes]
        quiet = settled(viewer_pipes, args.drain + 60)
        for _, stop in viewer_pipes:
            stop.send("stop")
        seen = [stop.recv() for _, stop in viewer_pipes]
    finally:
        for p in procs:
            p.join(60)
            if p.is_alive():
                p.kill()
        hall.stop()
        if broker is not None:
            broker.kill()
    clock = time.time() - time.monotonic()
    lines = [line for r in results for line in r["lines"]]
    viewers = [v for s in seen[:-1] for v in s["viewers"]]
    kept = seen[-1]["kept"][0]
    shown = digests_showing(kept)
    digests = published(kept, clock)
    (hist, hall_side, broker_side), unseen, missing = latencies(lines, shown, viewers, digests)
    compared, differ = checked_sums(viewers, digests)
    acked = collections.Counter(ms for r in results for ms in r["acked_ms"])
    last = max(v["last"] or 0 for v in viewers)
    sizes = [len(p) for t, p in kept if t == audience.LIVE]
    return {
        "tables": args.tables, "viewers": args.viewers, "seconds": args.seconds,
        "speed": args.speed, "broker": args.broker, "stalled": args.stalled,
        "digest_s": audience.DIGEST_S,
        "lines": len(lines), "lines_per_s": round(len(lines) / args.seconds, 1),
        "digests": last, "digest_kb_mean": round(sum(sizes) / max(1, len(sizes)) / 1024, 1),
        "digest_kb_max": round(max(sizes or [0]) / 1024, 1),
        "viewer_mb_per_s": round(sum(sizes) / MB / args.seconds, 3),
        "viewers_closed": sum(1 for v in viewers if v["closed"]),
        "viewers_with_gaps": sum(1 for v in viewers if v["gaps"]),
        "digests_missed": sorted(collections.Counter(
            n for v in viewers if v["gaps"] for n in range(v["snapshot"], v["last"])
            if n not in v["times"]).items()),
        "viewers_behind": sum(1 for v in viewers if not v["closed"] and v["last"] != last),
        "settled": quiet, "lines_unseen": unseen, "pairs_missing": missing,
        "crc_compared": compared, "crc_differ": differ,
        "p50_ms": quantile(hist, 0.5), "p99_ms": quantile(hist, 0.99),
        "max_ms": max(hist) if hist else None, "pairs": sum(hist.values()),
        "hall_side_p50_ms": quantile(hall_side, 0.5), "hall_side_p99_ms": quantile(hall_side, 0.99),
        "acked_p50_ms": quantile(acked, 0.5), "acked_p99_ms": quantile(acked, 0.99),
        "broker_side_p50_ms": quantile(broker_side, 0.5),
        "broker_side_p99_ms": quantile(broker_side, 0.99),
        "broker_side_max_ms": max(broker_side) if broker_side else None,
        "stalled_closed_by_broker": sum(s["stalled_closed"] for s in seen),
        "processes": cpu,
        "cpu_total_pct": round(sum(c["cpu_pct"] for c in cpu.values()), 1),
        "generator_lag_ms": round(1000 * max(r["lag_s"] for r in results), 1),
        "unacknowledged": sum(r["unacked"] for r in results),
        "enrol_s": round(enrol_s, 1), "viewers_connect_s": round(viewers_connect_s, 1),
        "load_before": [round(v, 2) for v in load_before],
        "load_after": [round(v, 2) for v in load_after],
        "cpus": os.cpu_count(),
    }


def missed(out):
    """What of the goal a run missed, in words ([] when it met it)."""
    why = []
    for key, what in (("viewers_closed", "viewers closed"),
                      ("viewers_with_gaps", "viewers missed a digest"),
                      ("viewers_behind", "viewers without the last digest"),
                      ("lines_unseen", "lines no digest showed"),
                      ("pairs_missing", "(line, viewer) pairs not delivered"),
                      ("crc_differ", "digests whose bytes differ")):
        if out[key]:
            why.append("%d %s" % (out[key], what))
    if out["p99_ms"] is None or out["p99_ms"] > GOAL_P99_MS:
        why.append("p99 %s ms > %d ms" % (out["p99_ms"], GOAL_P99_MS))
    return why


def report(out):
    print("The hall's audience: %d tables at %gx a human pace (%s lines/s) into `hall serve` "
          "(boxes' broker: %s), %d viewers over MQTT over WebSockets (nats-server), %d CPUs, "
          "%g s" % (out["tables"], out["speed"], out["lines_per_s"], out["broker"],
                    out["viewers"], out["cpus"], out["seconds"]))
    print("  digests: %d, one every %g s at most, %.1f KB on average (max %.1f), %.3f MB/s to "
          "each viewer" % (out["digests"], out["digest_s"], out["digest_kb_mean"],
                           out["digest_kb_max"], out["viewer_mb_per_s"]))
    print("  viewers closed: %d; that missed a digest: %d; without the last: %d%s; lines no "
          "digest showed: %d; (line, viewer) pairs not delivered: %d of %d"
          % (out["viewers_closed"], out["viewers_with_gaps"], out["viewers_behind"],
             "" if out["settled"] else " (they did not settle)", out["lines_unseen"],
             out["pairs_missing"], out["pairs"] + out["pairs_missing"]))
    print("  digests' bytes checked (CRC-32, a sample of each viewer's): %d, %d differ"
          % (out["crc_compared"], out["crc_differ"]))
    print("  latency, a line written to a viewer's message: p50 %s ms, p99 %s ms, max %s ms"
          % (out["p50_ms"], out["p99_ms"], out["max_ms"]))
    print("    the hall's side (written to its digest published): p50 %s ms, p99 %s ms (to "
          "the box's acknowledgement: p50 %s ms, p99 %s ms); the audience broker's (published "
          "to each viewer): p50 %s ms, p99 %s ms, max %s ms"
          % (out["hall_side_p50_ms"], out["hall_side_p99_ms"], out["acked_p50_ms"],
             out["acked_p99_ms"], out["broker_side_p50_ms"], out["broker_side_p99_ms"],
             out["broker_side_max_ms"]))
    print("  %d viewers that never read: %d closed by the audience broker"
          % (out["stalled"], out["stalled_closed_by_broker"]))
    print("  CPU over the %g s (user + system, %% of one core), memory:" % out["seconds"])
    for name, s in out["processes"].items():
        print("    %-34s %6.2f + %5.2f s = %5.1f %%%s" % (
            name, s["cpu_user_s"], s["cpu_sys_s"], s["cpu_pct"],
            "  memory %.1f MB idle, %.1f MB viewers connected, %.1f MB peak"
            % (s["rss_mb_idle"], s["rss_mb_viewers_connected"], s["rss_mb_peak"])
            if "rss_mb_peak" in s else ""))
    print("    %-34s %23.1f %%" % ("together", out["cpu_total_pct"]))
    print("  generators' lag behind their schedule %s ms; viewers connected in %s s; load %.1f "
          "-> %.1f" % (out["generator_lag_ms"], out["viewers_connect_s"], out["load_before"][0],
                       out["load_after"][0]))
    print("  goal: every viewer every update, p99 <= %d ms: %s" % (
        GOAL_P99_MS, "MISSED (%s)" % ", ".join(out["missed"]) if out["missed"] else "PASS"))


def main(argv=()):
    parser = argparse.ArgumentParser(prog="bench_audience.py", description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--viewers", type=int, default=5000)
    parser.add_argument("--seconds", type=float, default=60, help="play time")
    parser.add_argument("--drain", type=float, default=15)
    parser.add_argument("--speed", type=float, default=10, help="times a human pace")
    parser.add_argument("--broker", choices=("mosquitto", "embedded"),
                        default="mosquitto" if MOSQUITTO else "embedded",
                        help="the boxes' broker (default Mosquitto when installed)")
    parser.add_argument("--stalled", type=int, default=20, help="viewers that never read")
    parser.add_argument("--workers", type=int, default=2, help="table generator processes")
    parser.add_argument("--viewer-workers", type=int, default=3, help="viewer processes")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--strict", action="store_true", help="exit 1 when the goal is missed")
    args = parser.parse_args(list(argv))
    if nats.find() is None:
        print("bench_audience: skipped: %s" % nats.NO_SERVER.split(", or")[0])
        return 0
    with tempfile.TemporaryDirectory(prefix="bench-audience-") as work:
        out = run(args, work)
    out["missed"] = missed(out)
    if args.json:
        print(json.dumps(out, indent=1, sort_keys=True))
    else:
        report(out)
    return 1 if out["missed"] and args.strict else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
