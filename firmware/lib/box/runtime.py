"""The box's start: builds drivers from the board object and the pin map, then runs the main
loop (box.app.loop).

`hw` is the board (see docs): the Pico's real parts from box.hw_pico, or the simulator's
virtual ones. Everything the firmware touches goes through it. Power-up only: on the Pico
box.powerup calls power_up() (the board, maintenance mode, the watchdog, the app) and lets this
module and box.pins go once the app is started. Its work once at power-up (the keypad's
codes, the maintenance key, the app's boot) lives here for that: official MicroPython holds a
loaded module's code in the heap, and this module's goes back once the app runs.
"""
from box import pins
from box.app import App, loop
from box.buzzer import Buzzer
from box.journal import Journal
from box.keys import COUNT, DEL, MENU, Keys


def keypad(hw, pinmap=None):
    """The keys of the map's keypad on hw's pins, long presses for the keys the app takes them
    from (MENU, DEL)."""
    m = pinmap or pins.load()
    codes = pins.key_codes(m["keypad"]["legend"], hw.buttons, len(hw.rows) * len(hw.cols))
    keys = Keys(hw.rows, hw.cols, hw.buttons, codes, hw.ticks_ms)
    for k in range(COUNT):
        keys.set_long(k, k == MENU or k == DEL)
    return keys


def maintenance(keys):
    """True when the maintenance key (MENU) is held at power-up: skip the app, keep the REPL."""
    return held_now(keys, MENU)


def held_now(keys, key):
    """Whether a key is down, read straight from the pins now without debouncing (at
    power-up, before the keys are polled)."""
    for i in range(len(keys.buttons)):
        if keys._bcode[i] == key:
            return keys.buttons[i].value() == 0
    ncols = len(keys.cols)
    for i in range(len(keys._mcode)):
        if keys._mcode[i] == key:
            row = keys.rows[i // ncols]
            row.value(0)
            down = keys.cols[i % ncols].value() == 0
            row.value(1)
            return down
    return False


def display(kind, i2c, address):
    """The driver of one display of the map, for each of pins.KINDS, dark until its init();
    ValueError for any other kind. Every driver has the same small interface
    (docs/architecture.md): online, init(), raw(pos, mask), colon(on), show(),
    service(now_ms), check()."""
    if kind == "ht16k33":
        from box.ht16k33 import HT16K33
        return HT16K33(i2c, address, 15, False)
    raise ValueError("no driver for display kind %r" % kind)


def build(hw, pinmap=None, keys=None):
    """The App wired to hw, with a driver for every display of the map, dark until
    boot(app) has read the journal: the panels are shared out over those that answer, and one
    that answers later (plugged in, or slow at power-up) is picked up and lit by the app.
    `keys`: the keypad already made (power-up made it to look for the maintenance key; making
    it takes about 4 ms on a Pico, emulated)."""
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
    boot(app)
    return app


def boot(app):
    """Resume the journalled game, or open the setup menu; then light the displays (made dark
    at power-up): keys are read from the next pass of the loop, and a key pressed while the
    journal is read (up to half a second on a Pico) would not be."""
    app.setup = None   # the menu opens with the journal's last setup
    j = app.journal
    game, _dropped = j.resume()
    if game is not None:
        app.game = game
    app._home()   # without a game, the menu reads the last setup with the same reading
    j.forget_reader()   # read only at boot: its heap goes back to the game
    for d in app.displays:
        d.init()
    if j.lost or j.repaired:
        app.view.notice(j.kept is None, j.repaired, j.lost)   # until a key is pressed
    app.redraw()
    if (j.lost or j.repaired) and app.emit is not None:
        # on USB too, a line that is not a state (matchbox watch names it)
        app.emit('{"lost": %d, "repaired": %d, "kept": %s}' % (
            j.lost, j.repaired, '"%s"' % j.kept if j.kept else "null"))


def power_up():
    """(hw, app) of the Pico at power-up, the app started and the watchdog running; None in
    maintenance mode (MENU held, or a file `maintenance` in the root). A Ctrl-C while the app
    starts stops the watchdog and goes on up."""
    from box import hw_pico
    m = pins.load()   # read once (about 9 ms on the emulated Pico): board, check and app
    hw = hw_pico.build(m)
    keys = keypad(hw, m)
    if _flag_file() or maintenance(keys):
        print("Matchbox: maintenance mode. The app and the watchdog are off; the REPL is yours.")
        return None
    # Any other error ends the loop with a traceback; the watchdog then restarts the box,
    # which resumes the game from its journal.
    hw.watchdog(8000)
    try:
        return hw, start(hw, m, keys)   # the keypad made once
    except KeyboardInterrupt:
        hw.stop_watchdog()
        raise


def _flag_file():
    import os
    try:
        os.stat("maintenance")
        return True
    except OSError:
        return False


def run(hw, pinmap=None):
    """Boot the app and loop forever. (The web page, which cannot loop, calls start() and then
    app.step() from a timer.)"""
    loop(hw, start(hw, pinmap))
