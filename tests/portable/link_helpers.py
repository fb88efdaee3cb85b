"""Stand-ins shared by the tests of the box's uplink (box.uplink's cursor, box.mqtt_link), on
CPython and the MicroPython unix port: a clock, a Wi-Fi already joined, a game's header, and
every line a cursor gives."""

HEADER = [b"players 3", b"dealer 1", b"expansion none", b"revolution 5", b"sticks 40",
          b"hands 4 3 4"]


class Clock:
    def __init__(self):
        self.now = 1000

    def __call__(self):
        return self.now


class Joined:
    def up(self, now):
        return True


def drain(cursor, now=0, acks=True):
    """Every line the cursor gives (at most 10 000), the hall acknowledging each at once."""
    sent = []
    for _ in range(10000):
        item = cursor.next(now)
        if item is None:
            if cursor.busy:   # it stopped after one file read: call again
                continue
            return sent
        sent.append(item)
        if acks:
            cursor.ack(cursor.boot, item[0], item[1], now)
    raise AssertionError("the cursor gives lines without end")
