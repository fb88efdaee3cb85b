"""The box's user interface on fake hardware: setup, entry, errors, announcements, undo, paging."""
import sys

from app_helpers import make_box, press, screen
from box import app as A
from box import runtime
from box import keys as K
from box import screens as S
from box.buzzer import REJECT, Buzzer
from tycoon import notation
from tycoon.writer import to_json

MPY = sys.implementation.name == "micropython"

TWO = "players 2\nhands 3 3\n"


def started(record=TWO, ndisplays=4):
    return make_box(ndisplays, record)


def test_boot_without_game_opens_setup_with_defaults():
    app, bus, clock, journal = make_box()
    assert app.view.mode == A.SETUP
    assert screen(app, bus) == "PL 4|5Et |    |    "
    # the record reader is let go once boot has read the journal, and again once the menu has
    # read the last setup (its reading loads the reader again)
    assert journal.forgotten == 2


def test_setup_menu_defaults_start_a_four_player_game():
    app, bus, clock, journal = make_box()
    press(app, *(["PLAY"] * 9))   # players, dealer, G/H, revolution, sticks, 4 hands
    assert app.view.mode == A.PLAY
    game = app.game
    assert game.players == 4 and list(game.hands) == [14, 14, 14, 14]
    assert journal.record.startswith("players 4\n")
    assert journal.setup["players"] == 4


def test_setup_menu_values_are_typed_on_the_keypad():
    app, bus, clock, journal = make_box()
    press(app, "3", "PLAY")            # players 3
    assert screen(app, bus).startswith("dL 1")
    press(app, "2", "PLAY")            # dealer seat 2
    press(app, "2", "PLAY")            # G/H, two copies
    press(app, "4", "PLAY")            # house revolution of 4
    press(app, "5", "2", "PLAY")       # 52 sticks (German edition)
    assert screen(app, bus).startswith("1=15")
    press(app, "1", "0", "PLAY", "PLAY", "PLAY")
    game = app.game
    assert (game.players, game.dealer, game.expansion, game.revolution_size, game.total_sticks) == \
        (3, 2, "gh2", 4, 52)
    assert list(game.hands) == [10, 15, 15]
    assert game.turn == 2


def test_the_first_digit_typed_on_an_item_replaces_its_value():
    """As on a calculator: on seat 1's 15 cards, 9 makes 9 (not 59), the next digit follows it
    (9 then 2 makes 92, a third shifts in: 21), and coming back to an item, or UNDO's default
    on it, starts replacing again."""
    app, bus, clock, journal = make_box()
    press(app, "3", "PLAY", "PLAY", "PLAY", "PLAY")      # 3 players, on to the sticks
    assert screen(app, bus).startswith("5t40")
    press(app, "7")
    assert screen(app, bus).startswith("5t 7")
    press(app, "PLAY")
    assert screen(app, bus).startswith("1=15")
    press(app, "9")
    assert screen(app, bus).startswith("1= 9")
    press(app, "2")
    assert screen(app, bus).startswith("1=92")
    press(app, "1")
    assert screen(app, bus).startswith("1=21")
    press(app, "DEL", "3")                                # back to the sticks: replaced again
    assert screen(app, bus).startswith("5t 3")
    press(app, "PLAY", "9")                               # and on to seat 1 again
    assert screen(app, bus).startswith("1= 9")
    press(app, "UNDO", "8")                               # its default, then replaced
    assert screen(app, bus).startswith("1= 8")
    press(app, "PLAY", "PLAY", "PLAY")
    assert app.view.mode == A.PLAY
    assert app.game.total_sticks == 3 and list(app.game.hands) == [8, 15, 15]


def test_setup_refuses_impossible_values():
    app, bus, clock, journal = make_box()
    press(app, "9")
    assert app.setup.players == 4
    press(app, "1")
    assert app.setup.players == 4


def test_the_last_setup_is_remembered():
    app, bus, clock, journal = make_box()
    press(app, "6", *(["PLAY"] * 11))
    assert app.game.players == 6
    app2, bus2, clock2, journal2 = make_box()
    journal2.setup = journal.setup
    runtime.boot(app2)
    assert app2.setup.players == 6


def test_resume_shows_the_game():
    app, bus, clock, journal = started(TWO + "play 3\n")
    assert app.view.mode == A.PLAY
    assert screen(app, bus) == "1-3 |P2 F|c  3|5t 1"


def test_a_play_is_previewed_then_accepted():
    app, bus, clock, journal = started()
    press(app, "4")
    assert screen(app, bus) == "----|P1 F|4   |=4: 0"
    press(app, "AS", "9")
    assert screen(app, bus) == "----|P1 F|4   |=9: 2"
    press(app, "DEL")
    assert app.entry.as_key and app.entry.declared == -1
    assert screen(app, bus) == "----|P1 F|4   |=_: -"   # AS waits for its value
    press(app, "DEL", "DEL")
    press(app, "7", "AS", "C", "PLAY")
    game = app.game
    assert game.table == (12, 1, 1, 1)
    assert journal.record.endswith("1: play 7 as C\n")
    assert screen(app, bus) == "1-C |P2 F|c  3|5t 1"


def test_an_illegal_play_shows_its_code_and_changes_nothing():
    app, bus, clock, journal = started(TWO + "play 9\n")
    before = to_json(app.game)
    record = journal.record
    press(app, "5", "PLAY")
    assert screen(app, bus) == "1-9 |P2 F|Lo  |Err "   # table and turn stay in view
    assert to_json(app.game) == before and journal.record == record
    clock.now += 2500
    app.step()
    assert screen(app, bus) == "1-9 |P2 F|5   |=5: 0"   # the entry stays, to mend with DEL


def test_an_armed_as_shows_in_the_preview():
    app, bus, clock, journal = started("players 2\nhands 5 5\n")
    press(app, "1", "2")
    assert screen(app, bus) == "----|P1 F|12  |=-: -"   # two faces, not one value
    press(app, "AS")
    assert screen(app, bus) == "----|P1 F|12  |=_: -"   # AS armed: a value key is awaited
    press(app, "8")
    assert screen(app, bus) == "----|P1 F|12  |=8: 7"   # 1 as 8 costs 5, 2 as 8 costs 2
    press(app, "DEL", "DEL")
    assert screen(app, bus) == "----|P1 F|12  |=-: -"   # AS cancelled again


def test_as_alone_keeps_the_table_in_view_and_waits():
    app, bus, clock, journal = started()
    press(app, "AS")
    assert screen(app, bus) == "----|P1 F|-   |=_: -"


def test_every_error_code_has_a_display_code():
    codes = ("not-your-turn", "game-over", "must-return", "has-cards", "cannot-pass",
             "too-many-cards", "not-in-hand", "wrong-count", "not-stronger", "no-such-value",
             "no-such-card", "impossible-shape", "mixed-values", "not-enough-sticks")
    shown = []
    table = S.errors()
    assert sorted(table) == sorted(codes + ("flash-full",))
    for code in codes:
        text = table[code]
        assert S.error_slot(code) == codes.index(code)
        assert 1 <= len(text) <= 4
        assert text not in shown
        shown.append(text)
    # any other code, a part of one among them too, shows 'Err'
    other = S.error_slot("no-such-code")
    assert other == S.error_slot("turn") == S.error_slot("flash") == S.error_slot("") == len(table)


def test_a_key_clears_the_error_at_once():
    app, bus, clock, journal = started()
    press(app, "PASS")
    assert screen(app, bus) == "----|P1 F|LEAd|Err "
    press(app, "3")
    assert screen(app, bus) == "----|P1 F|3   |=3: 0"


def test_pass_and_return_and_going_out():
    app, bus, clock, journal = started("players 2\nhands 1 3\n")
    press(app, "5", "PLAY")           # seat 1 plays its last card, keeps its stick
    press(app, "PASS")                # seat 2 passes: table clears, seat 1 leads with no cards
    assert app.game.must_return()
    assert screen(app, bus) == "----|P1 F|rEtn|5t 1"
    press(app, "PLAY")                # PLAY confirms the return: seat 1 is out, game over
    assert app.view.mode == A.FINISHED
    assert screen(app, bus) == "End |1 P1|2 P2|    "


def test_strongest_value_is_announced_and_does_not_block():
    app, bus, clock, journal = started("players 3\n")
    press(app, "F", "PLAY")
    assert screen(app, bus) == "----|P1 F|PA55|ALL "
    assert app.game.sticks == [1, 2, 2]
    press(app, "3")                   # entry starts at once
    assert screen(app, bus) == "----|P1 F|3   |=3: 0"


def test_revolution_is_announced():
    app, bus, clock, journal = started("players 2\nhands 6 6\n")
    press(app, "8", "8", "8", "8", "0", "AS", "8", "PLAY")
    assert app.game.revolution
    assert screen(app, bus) == "5-8 |P2r0|rEuo|Hi 0"
    clock.now += 2000
    app.step()
    assert screen(app, bus) == "5-8 |P2r0|c  6|5t 1"


def test_five_faces_show_a_point_and_a_sixth_is_refused():
    app, bus, clock, journal = started("players 2\nhands 6 6\n")
    press(app, "8", "8", "8", "8", "8")
    assert screen(app, bus).split("|")[2] == "8888."
    press(app, "8")
    assert app.entry.n == 5 and screen(app, bus) == "----|P1 F|1-5 |Err "
    press(app, "9")                        # after a refusal a face key starts a new play
    assert screen(app, bus) == "----|P1 F|9   |=9: 0"


def test_after_a_refused_play_a_face_key_starts_a_new_one_and_del_or_as_mend_it():
    app, bus, clock, journal = started()
    press(app, "1", "7", "PLAY")           # seat 1: two values and no AS, refused
    assert screen(app, bus) == "----|P1 F|diFF|Err "
    press(app, "AS", "7", "PLAY")          # AS mends the refused entry: 1 7 as 7, 1 stick
    assert app.game.last_action()[2:] == ((1, 7), 7, True)
    press(app, "5", "5", "PLAY")           # seat 2: two 5s are not stronger than two 7s
    assert screen(app, bus) == "2-7 |P2 F|Lo  |Err "
    press(app, "9")                        # a face key starts a new play, not 5 5 9
    assert screen(app, bus) == "2-7 |P2 F|9   |=9: 0"
    press(app, "9", "PLAY")
    assert app.game.last_action()[2:] == ((9, 9), 9, False)
    press(app, "PASS")                     # seat 1 passes: seat 2 leads, one card left
    press(app, "A", "A", "PLAY")           # more cards than the seat holds, refused
    assert screen(app, bus).split("|")[2:] == ["HAnd", "Err "]
    press(app, "DEL")                      # DEL mends it: one A left
    assert screen(app, bus).split("|")[2:] == ["A   ", "=A: 0"]
    press(app, "PLAY")
    assert app.game.last_action()[2:] == ((10,), 10, False)


def test_undo_takes_back_actions_to_the_start():
    app, bus, clock, journal = started()
    press(app, "3", "PLAY", "PASS")
    assert len(app.game) == 2
    press(app, "UNDO")
    assert len(app.game) == 1 and journal.plain() == notation.write(app.game)
    press(app, "UNDO", "UNDO")
    assert len(app.game) == 0 and app.game.turn == 1


class PWM:
    """Records the tones a Buzzer starts: (frequency, duty) at each change."""

    def __init__(self):
        self.hz = 0
        self.changes = []

    def freq(self, hz):
        self.hz = hz

    def duty_u16(self, duty):
        self.changes.append((self.hz, duty))


def test_undo_with_nothing_to_take_back_sounds_the_low_tone():
    app, bus, clock, journal = started()
    pwm = PWM()
    app.buzzer = Buzzer(pwm, clock)
    press(app, "UNDO")
    assert len(app.game) == 0 and pwm.changes[-1] == (REJECT[0][0], 32768)
    pwm.changes = []
    press(app, "3", "UNDO")          # an entry to clear: no tone
    assert pwm.changes == [] and app.entry.n == 0


def test_undo_clears_an_entry_first():
    app, bus, clock, journal = started()
    press(app, "3", "PLAY", "4")
    press(app, "UNDO")
    assert app.entry.n == 0 and len(app.game) == 1


def test_flash_full_rejects_the_action():
    app, bus, clock, journal = started()
    pwm = PWM()
    app.buzzer = Buzzer(pwm, clock)
    emitted = []
    app.emit = emitted.append
    journal.fail = True
    press(app, "3", "3", "PLAY")
    assert len(app.game) == 0
    assert screen(app, bus) == "----|P1 F|FULL|Err "
    # the play was drawn before the journal failed: no accept tone, no state line, and the
    # entry is back as it was keyed, so PLAY once there is room makes it
    assert pwm.changes[-1] == (REJECT[0][0], 32768) and emitted == []
    assert (app.entry.n, app.entry.as_key, app.entry.declared) == (2, False, -1)
    journal.fail = False
    press(app, "PLAY")
    assert len(app.game) == 1 and len(emitted) == 1
    assert app.game.last_action()[2:] == ((3, 3), 3, False)


def test_the_resume_snapshot_is_asked_for_after_each_line_is_written():
    # checkpoint comes once the line is in the journal and the game is what it holds: after a
    # play, after an UNDO (the game one action back), never after a write that failed
    app, bus, clock, journal = started()
    press(app, "3", "PLAY")
    assert journal.checkpoints[-1] == (1, journal.record)
    press(app, "PASS")
    assert journal.checkpoints[-1] == (2, journal.record)
    press(app, "UNDO")
    assert journal.checkpoints[-1] == (1, journal.record) and journal.record.endswith("undo\n")
    calls = len(journal.checkpoints)
    journal.fail = True
    press(app, "PASS")
    press(app, "UNDO")
    assert len(journal.checkpoints) == calls


def test_quick_reference_cycles_values_and_costs():
    app, bus, clock, journal = started()
    press(app, "MENU")
    assert screen(app, bus).startswith("rEF ")
    press(app, "3")
    assert screen(app, bus).startswith("3-3.0")
    press(app, "3")
    assert screen(app, bus).startswith("3-6.1")
    press(app, "MENU")
    assert app.view.mode == A.PLAY


def test_the_menu_and_the_reference_are_loaded_only_while_they_are_used():
    """box.setup and box.ref are imported when they open and let go (out of sys.modules) once
    a game starts from the menu or the reference closes, and the journal's box.resume and
    box.newgame once they have read the record and started the game; the menu opens again
    with the last setup the journal keeps, the reference as before."""
    import box
    for name in ("box.setup", "box.resume", "box.newgame"):
        box.forget(name)   # loaded by the tests before (the journal's, in the same process)
    app, bus, clock, journal = started()
    assert "box.setup" not in sys.modules and app.setup is None   # resumed: no menu loaded
    assert "box.resume" not in sys.modules   # the journal's power-up reading, let go
    press(app, "MENU")
    assert "box.ref" in sys.modules
    press(app, "3")
    assert screen(app, bus).startswith("3-3.0")
    press(app, "DEL")
    assert app.view.mode == A.PLAY and "box.ref" not in sys.modules
    press(app, "MENU", "3")
    assert screen(app, bus).startswith("3-3.0")          # loaded again
    app.key(K.LONG | K.MENU)                              # the menu, from the reference
    app.step()
    assert "box.ref" not in sys.modules and "box.setup" in sys.modules
    assert screen(app, bus).startswith("PL 4")
    press(app, "3", *(["PLAY"] * 8))                      # a 3-player game starts
    assert app.game.players == 3 and app.view.mode == A.PLAY
    assert "box.setup" not in sys.modules and app.setup is None
    assert "box.newgame" not in sys.modules   # the journal's work between games, let go too
    app.key(K.LONG | K.MENU)
    app.step()
    assert screen(app, bus).startswith("PL 3")            # the journal's last setup
    press(app, "4", "MENU")                               # back to the game, the menu kept
    assert app.view.mode == A.PLAY and app.setup.players == 4


def test_a_setup_the_journal_could_not_keep_stays_with_the_menu():
    app, bus, clock, journal = make_box()
    def full(*args):
        raise OSError(28)
    journal.save_setup = full                             # no room to save the setup
    press(app, "5", *(["PLAY"] * 10))
    assert app.game.players == 5 and "box.setup" in sys.modules
    app.key(K.LONG | K.MENU)
    app.step()
    assert screen(app, bus).startswith("PL 5")


def test_one_display_pages_through_the_panels():
    app, bus, clock, journal = started(ndisplays=1)
    seen = []
    for _ in range(4):
        seen.append(screen(app, bus))
        clock.now += A.PAGE_MS
        app.step()
    assert seen == ["----", "P1 F", "c  3", "5t 1"]


def test_one_display_shows_the_entry_first():
    app, bus, clock, journal = started(ndisplays=1)
    clock.now += A.PAGE_MS
    app.step()
    press(app, "4")
    assert screen(app, bus) == "4   "


def test_two_displays_show_entry_and_preview():
    app, bus, clock, journal = started(ndisplays=2)
    press(app, "4", "AS", "9")
    assert screen(app, bus) == "4   |=9: 2"


def test_long_menu_opens_setup_and_a_new_game_archives_the_old():
    app, bus, clock, journal = started()
    press(app, "3", "PLAY")
    press(app, "MENU:long")
    assert app.view.mode == A.SETUP
    press(app, "2", *(["PLAY"] * 7))
    assert app.view.mode == A.PLAY and len(app.game) == 0
    assert journal.archived and "1: play 3" in journal.archived[0]


def test_face_keys_allocate_nothing():
    if not MPY:
        return
    import micropython
    app, bus, clock, journal = started()
    press(app, "4")                       # warm up
    press(app, "DEL")
    micropython.heap_lock()
    try:
        app.key(4)
        app.key(K.AS)                     # the preview's awaited value
        app.key(K.DEL)
        app.key(K.DEL)
        app.step()
    finally:
        micropython.heap_unlock()


def test_three_displays_keep_the_entry_in_view():
    app, bus, clock, journal = started(ndisplays=3)
    press(app, "4")
    for _ in range(3):
        clock.now += A.PAGE_MS
        app.step()
        assert screen(app, bus) == "----|4   |=4: 0"


def test_a_long_undo_takes_back_one_action_only():
    app, bus, clock, journal = started()
    press(app, "3", "PLAY", "PASS")
    app.key(K.UNDO)
    app.key(K.LONG | K.UNDO)      # the same press, held: no second undo
    assert len(app.game) == 1


def test_a_display_replugged_while_nothing_changed_lights_again():
    app, bus, clock, journal = started()
    before = screen(app, bus)
    bus.unplugged.add(0x70)       # unplugged and plugged back between two writes:
    bus.power_cycle(0x70)         # the chip powers up blank, and no write ever failed
    bus.unplugged.discard(0x70)
    assert screen(app, bus) != before
    # one display in turn is checked every REFRESH_MS: this one's turn comes within a round
    for _ in range(len(app.displays)):
        clock.now += A.REFRESH_MS
        app.step()
        if screen(app, bus) == before:
            break
    assert screen(app, bus) == before


def _logged(bus):
    seen = []
    real = bus.writeto

    def writeto(addr, buf):
        seen.append((addr, bytes(buf)))
        return real(addr, buf)
    bus.writeto = writeto
    return seen


def test_the_safeguard_reads_one_display_at_a_time_and_writes_nothing():
    app, bus, clock, journal = started()
    seen = _logged(bus)
    reads, sent = bus.reads, bus.bytes
    for _ in range(len(app.displays)):
        clock.now += A.REFRESH_MS
        app.step()
    # nothing changed on the screen: each display's canary read once (register + 2 bytes)
    assert seen == [] and bus.reads - reads == len(app.displays)
    assert bus.bytes - sent == 3 * len(app.displays)


def test_the_safeguard_re_sends_a_display_that_cannot_be_read():
    app, bus, clock, journal = started()
    before = screen(app, bus)
    seen = _logged(bus)

    def readfrom_mem_into(addr, reg, buf):
        raise OSError(5)   # a chip or bridge that answers writes but not reads
    bus.readfrom_mem_into = readfrom_mem_into
    for _ in range(2 * len(app.displays)):
        clock.now += A.REFRESH_MS
        app.step()
    # each display re-sent at each of its checks (20 payload bytes), none taken offline
    assert sorted(a for a, buf in seen if buf == bytes([0x21])) == sorted(list(bus.ram) * 2)
    assert sum(len(buf) for _a, buf in seen) == 20 * 2 * len(app.displays)
    assert screen(app, bus) == before and app.shown() == len(app.displays)


def test_an_undo_the_flash_cannot_take_leaves_game_and_journal_as_they_were():
    app, bus, clock, journal = started()
    press(app, "3", "PLAY", "PASS")
    before = to_json(app.game)
    record = journal.record
    journal.fail = True
    press(app, "UNDO")
    assert to_json(app.game) == before and journal.record == record
    assert screen(app, bus).split("|")[2:] == ["FULL", "Err "]


def test_setup_refuses_hands_bigger_than_the_deck():
    app, bus, clock, journal = make_box()
    press(app, "2", "PLAY", "PLAY", "PLAY", "PLAY", "PLAY")   # 2 players, on to the hands
    press(app, "4", "0", "PLAY", "4", "0", "PLAY")            # 40 + 40 > 56 cards
    assert app.view.mode == A.SETUP and app.game is None
    assert screen(app, bus).startswith("CArd|Err ")
    press(app, "1", "5", "PLAY")                              # 40 + 15 fits
    assert app.view.mode == A.PLAY and list(app.game.hands) == [40, 15]


def test_a_new_game_the_flash_cannot_take_keeps_the_menu_open():
    app, bus, clock, journal = make_box()
    journal.fail = True
    press(app, *(["PLAY"] * 9))
    assert app.view.mode == A.SETUP and app.game is None
    assert screen(app, bus).startswith("FULL")


def test_face_keys_of_a_seat_that_must_return_are_refused():
    # seat 1 plays its last card; later seat 1 must return a stick: cards keyed are refused
    app, bus, clock, journal = started("players 2\nhands 1 3\nsticks 40\n")
    press(app, "3", "PLAY")            # seat 1 goes to 0 cards; seat 2 to act
    press(app, "PASS")                 # seat 2 passes: the trick clears, seat 1 leads
    assert app.game.must_return() and app.game.turn == 1
    press(app, "5")
    assert app.entry.n == 0
    assert screen(app, bus) == "----|P1 F|rEtn|Err "
    press(app, "PLAY")                 # PLAY confirms the return
    assert app.game.last_action()[0] == 2   # RETURN


def test_the_displays_light_once_the_journal_is_read():
    """Power-up makes the displays dark (box.runtime.display); runtime.boot() lights them once
    the journal is read, so that keys are read from the moment they light: on a Pico the
    reading takes up to half a second, and keys pressed while the displays were lit and the
    journal was still being read went unseen. A display absent then is set up when it answers."""
    from app_helpers import Bus, Clock, Journal, Keys
    from box.app import App
    from box.buzzer import Buzzer
    bus = Bus([0x70, 0x71, 0x72, 0x73])
    bus.unplugged.add(0x73)
    journal = Journal(TWO + "play 3\n")
    written = []

    def resume():
        written.append(bus.bytes)   # what the displays had been sent when the journal was read
        return Journal.resume(journal)
    journal.resume = resume
    clock = Clock()
    app = App([runtime.display("ht16k33", bus, 0x70 + i) for i in range(4)], Keys(),
              Buzzer(None), journal, clock)
    assert bus.bytes == 0 and not any(d.online for d in app.displays)
    runtime.boot(app)
    assert written == [0] and [d.online for d in app.displays] == [True, True, True, False]
    app.step()
    assert screen(app, bus).startswith("1-3 |P2 F|")
    bus.unplugged.discard(0x73)
    clock.now += 2000
    app.step()
    app.step()
    assert app.displays[3].online


def test_a_display_absent_at_power_up_is_lit_when_it_appears():
    from app_helpers import Bus, Clock, Journal, Keys
    from box.app import App
    from box.buzzer import Buzzer
    from box.ht16k33 import HT16K33
    bus = Bus([0x70, 0x71, 0x72, 0x73])
    bus.unplugged.add(0x72)            # not answering at power-up
    clock = Clock()
    app = App([HT16K33(bus, 0x70 + i) for i in range(4)], Keys(), Buzzer(None),
              Journal(TWO), clock)
    runtime.boot(app)
    app.step()
    assert not app.displays[2].online
    # three answer: the four panels page over them (none is lost on the absent one)
    seen = []
    for _ in range(2):
        seen += [t for t in screen(app, bus).split("|") if t != "    "]
        clock.now += A.PAGE_MS
        app.step()
    assert sorted(set(seen)) == ["----", "5t 1", "P1 F", "c  3"]
    first = screen(app, bus)
    bus.unplugged.discard(0x72)        # plugged in
    clock.now += 1000
    app.step()
    clock.now += 1000
    app.step()
    assert app.displays[2].online
    assert screen(app, bus) == "----|P1 F|c  3|5t 1"
    assert screen(app, bus) != first
    # and it stays in use: no paging over three any more
    for _ in range(3):
        clock.now += A.PAGE_MS
        app.step()
        assert screen(app, bus) == "----|P1 F|c  3|5t 1"


def test_picking_up_a_display_allocates_nothing():
    if not MPY:
        return
    import micropython
    from app_helpers import Bus, Clock, Journal, Keys
    from box.app import App
    from box.buzzer import Buzzer
    from box.ht16k33 import HT16K33
    bus = Bus([0x70, 0x71])
    bus.unplugged.add(0x71)
    clock = Clock()
    app = App([HT16K33(bus, 0x70), HT16K33(bus, 0x71)], Keys(), Buzzer(None), Journal(TWO), clock)
    runtime.boot(app)
    for _ in range(3):
        clock.now += 700
        app.step()
    bus.unplugged.discard(0x71)
    micropython.heap_lock()
    try:
        for _ in range(3):
            clock.now += 700
            app.step()
            app.key(4)
            app.key(21)
    finally:
        micropython.heap_unlock()
    assert app.displays[1].online


def _boot_on(record, ndisplays=4, budget=None):
    """A box booted on a real journal whose current.txt holds `record` (bytes)."""
    import os
    import files
    from app_helpers import Bus, Clock, Keys
    from box.app import App
    from box.ht16k33 import HT16K33
    from box.journal import Journal
    from cut_store import CutStore
    folder = files.Folder().__enter__()
    os.mkdir(folder.path + "/games")
    files.write(folder.path + "/games/current.txt", record)
    addresses = [0x70 + i for i in range(ndisplays)]
    bus = Bus(addresses)
    clock = Clock()
    store = CutStore(budget, power_cut=False)
    app = App([HT16K33(bus, a) for a in addresses], Keys(), Buzzer(None),
              Journal(folder.path + "/games", store), clock)
    runtime.boot(app)
    app.step()
    return app, bus, clock, folder, store


def _tagged_record(texts):
    return b"".join([notation.tagged(i + 1, t) for i, t in enumerate(texts)])


DAMAGED = ["players 2", "dealer 1", "expansion none", "revolution 5", "sticks 40",
           "hands 15 15", "1: play 3", "2: play 5", "1: plya 7", "2: pass", "1: pass"]


def test_boot_that_lost_lines_says_so_until_a_key():
    app, bus, clock, folder, _store = _boot_on(_tagged_record(DAMAGED))
    try:
        assert len(app.game) == 2
        assert screen(app, bus) == "Lo5t|   3|    |    "
        clock.now += 60000          # it stays: no timer takes it away
        app.step()
        assert screen(app, bus) == "Lo5t|   3|    |    "
        press(app, "PASS")          # the first key only takes it away
        assert len(app.game) == 2 and screen(app, bus) == "1-5 |P1 F|c 14|5t 1"
        press(app, "PASS")
        assert len(app.game) == 3
    finally:
        folder.__exit__()


def test_boot_without_room_to_keep_the_damage_says_full_and_lost():
    app, bus, clock, folder, store = _boot_on(_tagged_record(DAMAGED), budget=0)
    try:
        assert screen(app, bus) == "FULL|Lo5t|   3|    "
        press(app, "PLAY")
        press(app, "PASS")          # cannot be kept: refused as on a full flash
        assert len(app.game) == 2 and screen(app, bus).split("|")[2:] == ["FULL", "Err "]
        store.budget = None         # room again: the damage is kept, then the action
        press(app, "PASS")
        assert len(app.game) == 3
        assert app.journal.kept.endswith("/damaged/001-current.txt")
    finally:
        folder.__exit__()


def test_boot_that_repaired_a_line_says_so_until_a_key():
    texts = DAMAGED[:8] + ["1: play 7", "2: pass"]
    record = bytearray(_tagged_record(texts))
    at = record.index(b"1: play 7")
    record[at + 8] = ord("8")              # the text damaged, its tag whole
    app, bus, clock, folder, _store = _boot_on(bytes(record))
    try:
        assert len(app.game) == 4           # every action, the damaged one repaired
        assert screen(app, bus) == "rEPr|   1|    |    "
        press(app, "PASS")
        assert len(app.game) == 4 and screen(app, bus).startswith("----|P1 F")
    finally:
        folder.__exit__()
