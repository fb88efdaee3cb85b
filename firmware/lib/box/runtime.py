"""The box's main loop: builds drivers from the board object and the pin map, then runs.

`hw` is the board (see docs): the Pico's real parts from box.hw_pico, or the simulator's
virtual ones. Everything the firmware touches goes through it.
"""
from box import pins
from box.app import App
from box.buzzer import Buzzer
from box.journal import Journal
from box.keys import Keys, MENU


def keypad(hw, pinmap=None):
    """The keys of the map's keypad on hw's pins."""
    m = pinmap or pins.load()
    return Keys(hw.rows, hw.cols, hw.buttons, hw.ticks_ms, legend=m["keypad"]["legend"])


def maintenance(keys):
    """True when the maintenance key (MENU) is held at power-up: skip the app, keep the REPL."""
    return keys.read(MENU)


def display(kind, i2c, address):
    """The driver of one display of the map, for each of pins.KINDS; ValueError for any other
    kind. Every driver has the same small interface (docs/architecture.md): online,
    raw(pos, mask), colon(on), show(), service(now_ms), check()."""
    if kind == "ht16k33":
        from box.ht16k33 import HT16K33
        return HT16K33(i2c, address)
    raise ValueError("no driver for display kind %r" % kind)


def build(hw, pinmap=None, keys=None):
    """The App wired to hw, with a driver for every display of the map: the panels are shared
    out over those that answer, and one that answers later (plugged in, or slow at power-up)
    is picked up and lit by the app. `keys`: the keypad already made (power-up made it to
    look for the maintenance key; making it takes about 4 ms on a Pico, emulated)."""
    m = pinmap or pins.load()
    displays = [display(kind, hw.i2c, a) for kind, a in pins.displays(m)]
    keys = keys or keypad(hw, m)
    buzzer = Buzzer(hw.buzzer, hw.ticks_ms)
    journal = Journal(hw.games, hw.store, feed=hw.feed)   # a long read feeds the watchdog
    return App(displays, keys, buzzer, journal, hw.ticks_ms, hw.emit)


def start(hw, pinmap=None, keys=None):
    """The app, built and booted (resuming the journalled game), ready for app.step(). With the
    hall's settings on the flash its link is made first: a Pico W's radio starts there, and
    its start holds the box, so it comes before the game is shown and any key is read."""
    app = build(hw, pinmap, keys)
    hw.app = app   # lets a simulator or debugger reach the running game
    if app.journal.store.exists("hall.json"):   # the hall's settings: its link (box.mqtt_link)
        try:
            from box import mqtt_link
        except ImportError:   # no network stack: a Pico, not a Pico W
            hw.emit('{"hall": "hall.json: this board has no network"}')
        else:
            app.link = mqtt_link.build(hw, app)   # pyright: ignore[reportAttributeAccessIssue]
    app.boot()
    return app


def run(hw, pinmap=None):
    """Boot the app and loop forever. (The web page, which cannot loop, calls start() and then
    app.step() from a timer.)"""
    loop(hw, start(hw, pinmap))


def loop(hw, app):
    """The main loop of a booted app, forever: between two passes over the keys, a step of
    the app's link (app.link: the hall's MQTT link, or the USB link) when it has one and no
    key is down, settling or bouncing. A step never waits on what it carries and gives one
    journal line at most, but may take a millisecond or two on a Pico (a block of the journal
    read from flash): a key that goes down meanwhile is read right after it, and no step runs
    until the key is up again. Without a link the loop only polls the USB serial's input
    (hw.usb; ipoll allocates nothing), and its first bytes start the USB link
    (box.usb_link). After a pass that handled a key the garbage is collected (about 3 ms on
    a Pico, emulated): MicroPython's allocator searches past all garbage since the last
    collection, so the next key's allocations would grow slower through a game. The link's
    steps leave garbage between keys too: it is collected when a key goes down, while the key
    settles (its 20 ms debounce), so that the key's work does not meet it."""
    import gc
    import select
    usb = select.poll()
    usb.register(hw.usb, select.POLLIN)
    raw, settled = app.keys._raw, app.keys._state   # the keys as last read, 1 = down
    stepped = False   # the link stepped since the last collection
    while True:
        if app.step():
            gc.collect()   # a key's work is done: its garbage goes now, not in a later key's
            stepped = False
        if app.link is not None:
            if raw.find(b"\x01") < 0 and settled.find(b"\x01") < 0:
                app.link.step()
                stepped = True
            elif stepped:
                gc.collect()
                stepped = False
        else:
            for _ in usb.ipoll(0):
                from box.usb_link import UsbLink
                app.link = UsbLink(hw, app, usb)
                break
        hw.idle()
