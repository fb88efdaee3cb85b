"""The hall's audience at scale: simulated tables at ten times a human pace into one `matchbox
hall serve` and thousands of viewers following its page's topics through the audience broker
(nats-server, MQTT over WebSockets), everything on 127.0.0.1 of this machine.

  - the tables: bench_hall's generator (boxes enrolled as `hall enrol` does, speaking the
    hall's protocol, random legal games at --speed times bench_emulated_pico's human pace), by
    default into Mosquitto as `hall mosquitto-conf` configures it (--broker embedded: the
    hall's own amqtt);
  - the viewers: --viewers (default 5000) connections to the audience broker's WebSocket, in
    --viewer-workers processes (tests/audience_viewers.py: a socket each in one selector loop,
    the page's subscriptions, each digest's number read as it comes); one more viewer keeps
    every message, to know which lines each digest shows; --stalled viewers subscribe and then
    never read (what the broker's bound does to them: nats.LIMITS);
  - every viewer must get every digest from its snapshot to the last one (none missed, none
    closed); latency: from the moment a table writes a line (its MQTT client has it) to the
    moment each viewer gets the first digest showing it; p50, p99, max over every (line,
    viewer); and the fan-out alone: how long after the first viewer each other one got each
    digest (the broker and the viewers, without the hall's own time);
  - the hall's, the audience broker's and the boxes' broker's CPU (% of one core over the
    measured window) and resident memory at its peak, from /proc; the generators' CPU; the
    machine's load before and after.

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
    read until told to stop, report what each got."""
    more_files()
    crowd = Crowd(settings["port"], settings["user"], settings["password"], count,
                  settings["live"], settings["tables"], settings["path"], keep=keep)
    stuck = Crowd(settings["port"], settings["user"], settings["password"], stalled,
                  settings["live"], settings["tables"], settings["path"], reading=False)
    t0 = time.monotonic()
    ok = crowd.connect(t0 + 60 + count / 50) and stuck.connect(time.monotonic() + 30)
    ready_pipe.send({"connected": ok, "connect_s": time.monotonic() - t0,
                     "refused": sum(v.closed for v in crowd.viewers)})
    cpu0 = sum(os.times()[:2])
    while True:
        crowd.turn(0.1)
        stuck.turn(0)
        if stop_pipe.poll(0):
            if stop_pipe.recv() == "stop":
                break
            lasts = [v.last or 0 for v in crowd.viewers if not v.closed] or [0]
            stop_pipe.send((min(lasts), max(lasts)))
    cpu = sum(os.times()[:2]) - cpu0
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
                     "times": v.times} for v in crowd.viewers],
        "kept": [v.kept for v in crowd.viewers] if keep else [],
        "cpu_s": cpu, "stalled_closed": closed_stalled})
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
    (game, seq), from one viewer's kept messages."""
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


def latencies(lines, shown, viewers):
    """A histogram (ms -> count) of every (line, viewer) latency, the lines no digest showed,
    and the (line, viewer) pairs whose digest a viewer did not get (numpy: 5000 viewers and
    40 000 lines are 200 million pairs)."""
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
    digests = sorted(by_n)
    got = numpy.full((len(viewers), len(digests)), numpy.nan)
    for row, v in enumerate(viewers):
        times = v["times"]
        first = times.get(v["snapshot"]) if v["snapshot"] is not None else None
        for col, n in enumerate(digests):
            # a line before a viewer's snapshot is in the snapshot it took: that moment
            t = times.get(n, first if v["snapshot"] is not None and n <= v["snapshot"] else None)
            if t is not None:
                got[row, col] = t
    hist = numpy.zeros(0, dtype=numpy.int64)
    missing = 0
    for col, n in enumerate(digests):
        column = got[:, col]
        here = column[~numpy.isnan(column)]
        writes = numpy.array(by_n[n])
        missing += (len(column) - len(here)) * len(writes)
        ms = ((here[:, None] - writes[None, :]) * 1000).astype(numpy.int64).ravel()
        counts = numpy.bincount(numpy.maximum(ms, 0))
        if len(counts) > len(hist):
            counts[:len(hist)] += hist
            hist = counts
        else:
            hist[:len(counts)] += counts
    return {ms: int(c) for ms, c in enumerate(hist) if c}, unseen, missing


def fanout(viewers):
    """A histogram (ms -> count) of how long after the first viewer each viewer got each
    digest: the broker's fan-out and the viewers' own pace, without the hall's."""
    first = {}
    for v in viewers:
        for n, t in v["times"].items():
            if n != v["snapshot"]:
                first[n] = min(first.get(n, t), t)
    hist = collections.Counter()
    for v in viewers:
        for n, t in v["times"].items():
            if n != v["snapshot"]:
                hist[int((t - first[n]) * 1000)] += 1
    return hist


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


def proc_stats(pid, cpu0, seconds, peak):
    return {"cpu_pct": round(100 * (bh.cpu_s(pid) - cpu0) / seconds, 1),
            "rss_mb_peak": round(peak, 1)}


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
        viewer_pipes = []
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
            viewer_pipes.append((ready_a, stop_a))
        t0 = time.monotonic()
        ready = [r.recv() for r, _ in viewer_pipes]
        if not all(r["connected"] for r in ready):
            raise SystemExit("bench_audience: not every viewer connected (%d refused)"
                             % sum(r["refused"] for r in ready))
        viewers_connect_s = time.monotonic() - t0
        rss_viewers = {k: bh.rss_mb(p) for k, p in pids.items()}
        # the tables
        table_pipes = []
        slices = [boxes[i::args.workers] for i in range(args.workers)]
        for n, part in enumerate(s for s in slices if s):
            ours, theirs = ctx.Pipe()
            seeded = [(box, pw, 1000 * args.tables + 7 * j + n) for j, (box, pw) in enumerate(part)]
            p = ctx.Process(target=bh.generate, args=(hall.mqtt, seeded, args.speed,
                                                        args.seconds, args.drain, theirs))
            p.start()
            procs.append(p)
            table_pipes.append(ours)
        if not all(p.recv()["connected"] for p in table_pipes):
            raise SystemExit("bench_audience: not every table connected")
        load_before = os.getloadavg()
        time.sleep(2)
        start = time.monotonic() + 0.2
        for p in table_pipes:
            p.send(start)
        time.sleep(max(0.0, start - time.monotonic()))
        cpu0 = {k: bh.cpu_s(p) for k, p in pids.items()}
        peak = dict(rss_viewers)
        while time.monotonic() < start + args.seconds:
            time.sleep(0.5)
            for k, p in pids.items():
                peak[k] = max(peak[k], bh.rss_mb(p))
        stats = {k: dict(proc_stats(p, cpu0[k], args.seconds, peak[k]), rss_mb_idle=round(
            idle[k], 1), rss_mb_viewers_connected=round(rss_viewers[k], 1))
            for k, p in pids.items()}
        load_after = os.getloadavg()
        results = [p.recv() for p in table_pipes]
        settled(viewer_pipes, args.drain + 60)
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
    lines = [line for r in results for line in r["lines"]]
    viewers = [v for s in seen[:-1] for v in s["viewers"]]
    shown = digests_showing(seen[-1]["kept"][0])
    hist, unseen, missing = latencies(lines, shown, viewers)
    spread = fanout(viewers)
    last = max(v["last"] or 0 for v in viewers)
    sizes = [len(p) for t, p in seen[-1]["kept"][0] if t == audience.LIVE]
    incomplete = sum(1 for v in viewers if v["closed"] or v["gaps"] or v["last"] != last)
    return {
        "tables": args.tables, "viewers": args.viewers, "seconds": args.seconds,
        "speed": args.speed, "broker": args.broker, "stalled": args.stalled,
        "lines": len(lines), "lines_per_s": round(len(lines) / args.seconds, 1),
        "digests": last, "digest_kb_mean": round(sum(sizes) / max(1, len(sizes)) / 1024, 1),
        "digest_kb_max": round(max(sizes or [0]) / 1024, 1),
        "viewer_mb_per_s": round(sum(sizes) / MB / args.seconds, 3),
        "viewers_incomplete": incomplete, "lines_unseen": unseen, "pairs_missing": missing,
        "p50_ms": quantile(hist, 0.5), "p99_ms": quantile(hist, 0.99),
        "max_ms": max(hist) if hist else None, "pairs": sum(hist.values()),
        "fanout_p50_ms": quantile(spread, 0.5), "fanout_p99_ms": quantile(spread, 0.99),
        "fanout_max_ms": max(spread) if spread else None,
        "stalled_closed_by_broker": sum(s["stalled_closed"] for s in seen),
        "processes": stats,
        "viewer_cpu_pct": round(100 * sum(s["cpu_s"] for s in seen) / args.seconds, 1),
        "generator_cpu_pct": round(100 * sum(r["cpu_s"] for r in results) / args.seconds, 1),
        "generator_lag_ms": round(1000 * max(r["lag_s"] for r in results), 1),
        "unacknowledged": sum(r["unacked"] for r in results),
        "enrol_s": round(enrol_s, 1), "viewers_connect_s": round(viewers_connect_s, 1),
        "load_before": [round(v, 2) for v in load_before],
        "load_after": [round(v, 2) for v in load_after],
        "cpus": os.cpu_count(),
    }


def report(out):
    print("The hall's audience: %d tables at %gx a human pace (%s lines/s) into `hall serve` "
          "(boxes' broker: %s), %d viewers over MQTT over WebSockets (nats-server), %d CPUs, "
          "%g s" % (out["tables"], out["speed"], out["lines_per_s"], out["broker"],
                    out["viewers"], out["cpus"], out["seconds"]))
    print("  digests: %d, %.1f KB on average (max %.1f), %.3f MB/s to each viewer"
          % (out["digests"], out["digest_kb_mean"], out["digest_kb_max"], out["viewer_mb_per_s"]))
    print("  viewers that missed an update or were closed: %d; lines no digest showed: %d; "
          "(line, viewer) pairs not delivered: %d of %d"
          % (out["viewers_incomplete"], out["lines_unseen"], out["pairs_missing"],
             out["pairs"] + out["pairs_missing"]))
    print("  latency, a line written to a viewer's message: p50 %s ms, p99 %s ms, max %s ms"
          % (out["p50_ms"], out["p99_ms"], out["max_ms"]))
    print("  fan-out, from the first viewer to get a digest to each other: p50 %s ms, p99 %s ms, "
          "max %s ms" % (out["fanout_p50_ms"], out["fanout_p99_ms"], out["fanout_max_ms"]))
    print("  %d viewers that never read: %d closed by the audience broker"
          % (out["stalled"], out["stalled_closed_by_broker"]))
    for name, s in out["processes"].items():
        print("  %-32s CPU %5.1f %%  memory %6.1f MB idle, %6.1f MB viewers connected, %6.1f MB "
              "peak" % (name, s["cpu_pct"], s["rss_mb_idle"], s["rss_mb_viewers_connected"],
                        s["rss_mb_peak"]))
    print("  viewers' processes CPU %s %%, table generators %s %% (lag %s ms); viewers connected "
          "in %s s; load %.1f -> %.1f" % (out["viewer_cpu_pct"], out["generator_cpu_pct"],
                                          out["generator_lag_ms"], out["viewers_connect_s"],
                                          out["load_before"][0], out["load_after"][0]))
    print("  goal: every viewer every update, p99 <= %d ms: %s" % (
        GOAL_P99_MS, "MISSED" if out["missed"] else "PASS"))


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
    out["missed"] = bool(out["viewers_incomplete"] or out["lines_unseen"] or out["pairs_missing"]
                         or out["p99_ms"] is None or out["p99_ms"] > GOAL_P99_MS)
    if args.json:
        print(json.dumps(out, indent=1, sort_keys=True))
    else:
        report(out)
    return 1 if out["missed"] and args.strict else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
