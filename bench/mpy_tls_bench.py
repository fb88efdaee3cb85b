"""The box's link connecting to the hall, plain or over TLS; run by bench_tls.py under the
MicroPython unix port: `micropython mpy_tls_bench.py HALL_JSON GAMES_DIR [CERT KEY]` (DER).

Makes the link of box.mqtt_link from the settings HALL_JSON (with "ca": TLS) on an empty
journal and steps it, a 1 ms sleep between steps as the box's idle, until the broker has the
box and its subscription, then 200 steps more. Prints one line of key=value figures: the
link's modules as imported and the running link after gc.collect() (MicroPython's heap: on
the unix port mbedTLS's own memory is the C heap's, which bench_tls.py measures), the steps
to connect, the longest step (the one that gets the broker's certificate: checks and key
exchange) and the connect's time. With CERT KEY, once connected it loads them into a TLS
context of its own: the mark bench_tls.py finds in the C heap's record (`load_cert_chain`).
"""
import gc
import json
import sys
import time

UP = 4   # box.mqtt_link's state _UP, subscribed (a const MicroPython folds away)


def main():
    from box.journal import Journal
    settings_path, root = sys.argv[1], sys.argv[2]
    with open(settings_path) as f:
        settings = json.load(f)
    journal = Journal(root)
    gc.collect()
    heap0 = gc.mem_alloc()
    from box import mqtt_link
    from box.uplink import Cursor
    gc.collect()
    heap1 = gc.mem_alloc()

    class Joined:
        def up(self, now):
            return True
    link = mqtt_link.Link(settings, Cursor(journal.store, root, journal), time.ticks_ms,
                          Joined())
    began = time.ticks_ms()
    steps = longest = 0
    while link.state != UP and time.ticks_diff(time.ticks_ms(), began) < 20000:
        t = time.ticks_us()
        link.step()
        longest = max(longest, time.ticks_diff(time.ticks_us(), t))
        steps += 1
        time.sleep_ms(1)
    connect_ms = time.ticks_diff(time.ticks_ms(), began)
    up = link.state == UP
    for _ in range(200):
        link.step()
        time.sleep_ms(1)
    gc.collect()
    heap2 = gc.mem_alloc()
    if len(sys.argv) > 4:   # the mark: a context of its own, with a certificate and key
        import tls
        with open(sys.argv[3], "rb") as f:   # DER, and the key as SEC1 DER
            cert = f.read()
        with open(sys.argv[4], "rb") as f:
            key = f.read()
        tls.SSLContext(tls.PROTOCOL_TLS_SERVER).load_cert_chain(cert, key)
    print("up=%d steps=%d step_max_us=%d connect_ms=%d dropped=%d heap_modules=%d "
          "heap_link=%d" % (up, steps, longest, connect_ms, link.dropped, heap1 - heap0,
                            heap2 - heap1))


main()
