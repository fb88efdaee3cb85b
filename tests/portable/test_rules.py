"""Every rule and ruling of the rules page, pinned with small scenarios (tycoon.game)."""
from tycoon import game as G
from tycoon.game import Game, IllegalAction, default_hands, deck_size
from tycoon import notation
from engine_helpers import (faces, record, illegal, illegal_line, snapshot, stick_total, random_game,
                            random_setup, step, Lcg)


def seat_sticks(game):
    return list(game.sticks)


def raises_value_error(fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except ValueError:
        return True
    return False


# --- setup ------------------------------------------------------------------------------

def test_deck_sizes():
    assert deck_size("none") == 56
    assert deck_size("gh2") == 60
    assert deck_size("gh4") == 64


def test_default_deal_two_and_three_players():
    for exp in ("none", "gh2", "gh4"):
        assert list(Game(2, expansion=exp).hands) == [15, 15]
        assert list(Game(3, expansion=exp).hands) == [15, 15, 15]


def test_default_deal_four_or_more_splits_the_deck_extras_to_low_seats():
    assert default_hands(4) == [14, 14, 14, 14]
    assert default_hands(5) == [12, 11, 11, 11, 11]
    assert default_hands(6) == [10, 10, 9, 9, 9, 9]
    assert default_hands(7) == [8] * 7
    assert default_hands(8) == [7] * 8
    assert default_hands(5, "gh2") == [12] * 5
    assert default_hands(7, "gh2") == [9, 9, 9, 9, 8, 8, 8]
    assert default_hands(6, "gh4") == [11, 11, 11, 11, 10, 10]
    assert default_hands(5, "gh4") == [13, 13, 13, 13, 12]
    for exp in ("none", "gh2", "gh4"):
        for n in range(4, 9):
            hands = list(Game(n, expansion=exp).hands)
            assert sum(hands) == deck_size(exp)
            assert max(hands) - min(hands) <= 1
            assert hands == sorted(hands, reverse=True)


def test_hands_entered_by_the_table():
    g = Game(4, hands=[10, 14, 14, 14])
    assert list(g.cards) == [10, 14, 14, 14]
    assert raises_value_error(Game, 4, hands=[15, 15, 15, 15])   # 60 > 56
    assert not raises_value_error(Game, 4, expansion="gh2", hands=[15, 15, 15, 15])
    assert raises_value_error(Game, 4, expansion="gh2", hands=[15, 15, 15, 16])
    assert raises_value_error(Game, 3, hands=[5, 5])
    assert raises_value_error(Game, 3, hands=[5, -1, 5])


def test_invalid_setup():
    assert raises_value_error(Game, 1)
    assert raises_value_error(Game, 9)
    assert raises_value_error(Game, 3, dealer=0)
    assert raises_value_error(Game, 3, dealer=4)
    assert raises_value_error(Game, 3, expansion="gh3")
    assert raises_value_error(Game, 3, revolution=3)
    assert raises_value_error(Game, 3, revolution=6)
    assert raises_value_error(Game, 3, sticks=-1)


def test_setup_sticks_and_supply():
    g = Game(4)
    assert g.total_sticks == 40
    assert list(g.sticks) == [1, 1, 1, 1]
    assert g.supply() == 36
    assert Game(4, sticks=52).supply() == 48
    assert Game(8).supply() == 32
    assert g.turn == 1 and Game(5, dealer=3).turn == 3
    assert g.table is None and not g.revolution and not g.finished
    assert list(g.ranks) == [0, 0, 0, 0] and list(g.ranking) == []
    assert g.values == 16 and Game(3, expansion="gh2").values == 18


def test_supply_goes_negative():
    g = record("players 3\nsticks 3\n1: play 3")
    assert g.supply() == 0
    g.pass_turn()
    assert g.supply() == -1 and g.sticks[1] == 2
    events = g.pass_turn()
    assert events & G.CLEARED
    assert g.supply() == -2 and g.sticks[2] == 2
    assert stick_total(g) == 3
    assert Game(4, sticks=2).supply() == -2


# --- order and strength ----------------------------------------------------------------

def test_strength_order():
    g = Game(3)
    assert g.strongest() == 15
    assert g.beats(15, 14) and g.beats(1, 0) and not g.beats(3, 3) and not g.beats(2, 9)
    assert Game(3, expansion="gh2").strongest() == 17
    assert Game(3, expansion="gh4").beats(17, 16)
    assert Game(3, expansion="gh4").beats(16, 15)
    r = record("players 3\n1: play 7 7 7 7 1 as 7")
    assert r.revolution and r.strongest() == 0
    assert r.beats(0, 1) and r.beats(3, 7) and not r.beats(9, 7) and not r.beats(7, 7)
    r = record("players 3\nexpansion gh2\n1: play 7 7 7 7 1 as 7")
    assert r.strongest() == 0 and r.beats(15, 17) and r.beats(16, 17)


def test_next_seat_skips_players_who_are_out():
    g = record("players 4\nhands 5 1 5 5\n1: play 3\n2: play 3 as 9")
    assert g.ranks[1] == 1
    assert g.next_seat(1) == 3 and g.next_seat(4) == 1 and g.next_seat(3) == 4
    assert g.turn == 3


# --- lead and follow --------------------------------------------------------------------

def test_lead_one_to_five_cards():
    sets = ("4", "4 4", "4 4 4", "4 4 4 4", "8 8 8 8 0 as 8")
    for n in range(1, 6):
        text = sets[n - 1]
        g = Game(3)
        parts = text.split(" as ")
        value = faces(parts[1])[0] if len(parts) > 1 else None
        g.play(faces(parts[0]), value)
        assert g.cards[0] == 15 - n
        assert g.table[1] == n and g.table[2] == 1
        assert g.turn == 2


def test_six_cards_too_many():
    g = Game(3)
    illegal(g, "too-many-cards", g.play, faces("8 8 8 8 0 0"), 8)
    g = record("players 3\n1: play 8 8 8 8 0 as 8")
    illegal(g, "too-many-cards", g.play, faces("7 7 7 7 1 1"), 7)
    illegal_line("players 3\n1: play 4 4 4 4 1 1 as 4", 2, "too-many-cards")


def test_leader_cannot_pass():
    g = Game(3)
    illegal(g, "cannot-pass", g.pass_turn)
    g = record("players 3\n1: play 3\n2: pass\n3: pass")
    assert g.turn == 1 and g.table is None
    illegal(g, "cannot-pass", g.pass_turn)


def test_empty_play_is_illegal():
    g = Game(3)
    before = snapshot(g)
    try:
        g.play([])
        ok = True
    except IllegalAction:
        ok = False
    assert not ok and snapshot(g) == before


def test_follow_needs_the_same_count():
    g = record("players 3\n1: play 3 3")
    illegal(g, "wrong-count", g.play, faces("4"))
    illegal(g, "wrong-count", g.play, faces("4 4 4"))
    g.play(faces("4 4"))
    assert g.table == (4, 2, 2, 0)


def test_follow_must_be_stronger():
    g = record("players 3\n1: play 7")
    illegal(g, "not-stronger", g.play, faces("7"))
    illegal(g, "not-stronger", g.play, faces("2"))
    illegal(g, "not-stronger", g.play, faces("6"), 6)
    illegal(g, "not-stronger", g.play, faces("9"), 6)   # 9 turned reads 6: weaker than 7
    g.play(faces("6"), 9)                              # 6 turned reads 9: stronger
    assert g.table == (9, 1, 2, 0)


def test_no_runs_or_combinations():
    g = Game(3)
    illegal(g, "mixed-values", g.play, faces("2 3 4"))
    illegal(g, "mixed-values", g.play, faces("3 E"))
    illegal(g, "impossible-shape", g.play, faces("3 4"), 4)


def test_pass_takes_a_stick():
    g = record("players 3\n1: play 3")
    events = g.pass_turn()
    assert events == 0
    assert seat_sticks(g) == [1, 2, 1] and g.supply() == 36 and g.turn == 3
    assert g.table == (3, 1, 1, 0)


def test_soft_pass():
    g = record("players 3\n1: play 3\n2: pass\n3: play 5\n1: pass\n2: play 7")
    assert g.table == (7, 1, 2, 0)
    assert seat_sticks(g) == [2, 2, 1]


def test_clearing_after_everyone_else_declined():
    g = record("players 3\n1: play 3\n2: play 3 as 9\n3: pass")
    assert g.table == (9, 1, 2, 1) and g.supply() == 36
    events = g.pass_turn()
    assert events == G.CLEARED
    assert g.table is None
    assert g.turn == 2                  # the last player leads
    assert seat_sticks(g) == [2, 0, 2]
    assert g.supply() == 36               # 37 - 2 passes + 1 stick back from the table
    assert stick_total(g) == 40


def test_clearing_waits_for_every_other_player():
    g = record("players 4\n1: play 3\n2: pass\n3: pass\n4: play 5\n1: pass\n2: pass")
    assert g.table == (5, 1, 4, 0) and g.turn == 3   # seat 3 has not declined since 4 played
    assert g.pass_turn() == G.CLEARED
    assert g.turn == 4


def test_leader_after_clearing_when_the_last_player_is_out():
    # seat 2 goes out with its play; the next seat still in after it leads
    g = record("players 4\ndealer 2\nhands 5 1 5 5\n2: play 3 as 9\n3: pass\n4: pass\n1: pass")
    assert g.ranks[1] == 1 and g.table is None and g.turn == 3
    g = record("players 4\ndealer 2\nhands 5 1 1 5\n2: play 3 as 9\n3: play C as E\n4: pass\n1: pass")
    assert list(g.ranking) == [2, 3] and g.table is None and g.turn == 4


# --- revolution -------------------------------------------------------------------------

def test_five_cards_are_a_revolution():
    g = Game(3)
    events = g.play(faces("7 7 7 7 1"), 7)
    assert events == G.REVOLUTION
    assert g.revolution and g.strongest() == 0
    assert g.turn == 2 and g.table == (7, 5, 1, 1) and g.sticks[0] == 0


def test_four_cards_are_not_a_revolution_by_default():
    g = Game(3)
    assert g.play(faces("7 7 7 7")) == 0
    assert not g.revolution


def test_house_variant_four_cards():
    g = record("players 3\nrevolution 4")
    assert g.revolution_size == 4
    assert g.play(faces("8 8 8 8")) == G.REVOLUTION
    assert g.revolution
    assert g.play(faces("5 5 5 5")) == G.REVOLUTION
    assert not g.revolution
    g = record("players 3\nrevolution 4\n1: play 8 8 8 8 0 as 8")
    assert g.revolution
    g = record("players 3\nrevolution 4\n1: play 8 8 8\n2: play 9 9 9")
    assert not g.revolution


def test_revolution_must_beat_the_top_under_the_old_order():
    g = record("players 3\n1: play 8 8 8 8 0 as 8")
    assert g.revolution
    # five 9s would win under the order the answer brings back, but not under the one in force
    illegal(g, "not-stronger", g.play, faces("9 9 6 6 3"), 9)
    g.play(faces("7 7 7 7 1"), 7)
    assert not g.revolution
    # normal order again: a revolution of 3s does not beat 7s
    illegal(g, "not-stronger", g.play, faces("6 6 9 9 5"), 6)


def test_revolution_on_revolution_restores():
    g = record("players 3\n1: play 7 7 7 7 1 as 7")
    assert g.play(faces("6 6 9 9 5"), 6) == G.REVOLUTION
    assert not g.revolution and g.strongest() == 15
    assert g.play(faces("8 8 8 8 0"), 8) == G.REVOLUTION
    assert g.revolution


PRELUDE = "players 3\n" + "1: play 2\n2: pass\n3: pass\n" * 3 + "1: play 8 8 8 8 0 as 8\n"


def test_manual_example_after_a_revolution_of_8s():
    g = record(PRELUDE)
    assert g.revolution and g.sticks[1] == 4 and g.turn == 2
    for text, value in (("0 0 0 C C", 0), ("3 3 E E 7", 3), ("4 4 4 4 1", 4), ("6 6 9 9 5", 6),
                        ("7 7 7 7 1", 7)):
        g = record(PRELUDE)
        assert g.play(faces(text), value) & G.REVOLUTION
        assert not g.revolution and g.table[0] == value
    for text, value in (("9 9 6 6 3", 9), ("A A A A 4", 10), ("B B B B 1", 11), ("C C C C 7", 12),
                        ("D D D D 1", 13), ("E E 3 3 7", 14), ("F F F F 1", 15)):
        g = record(PRELUDE)
        illegal(g, "not-stronger", g.play, faces(text), value)
    # five 1s, 2s or 5s cannot be made at all (nothing else becomes them; 4 copies each)
    for c in "125":
        g = record(PRELUDE)
        illegal(g, "no-such-card", g.play, faces(" ".join([c] * 5)))


def test_manual_example_with_the_house_variant():
    for value in range(8):
        g = record("players 3\nrevolution 4\n1: play 8 8 8 8")
        assert g.play([value] * 4) & G.REVOLUTION
    for value in range(9, 16):
        g = record("players 3\nrevolution 4\n1: play 8 8 8 8")
        illegal(g, "not-stronger", g.play, [value] * 4)


# --- the strongest value ----------------------------------------------------------------

def test_f_forces_everyone_to_pass():
    g = Game(3)
    events = g.play(faces("F"))
    assert events == G.FORCED | G.CLEARED
    assert g.table is None and g.turn == 1
    assert seat_sticks(g) == [1, 2, 2] and g.supply() == 35
    g = record("players 4\n1: play 3\n2: pass\n3: play F")
    assert g.table is None and g.turn == 3
    assert seat_sticks(g) == [2, 3, 1, 2]
    assert stick_total(g) == 40


def test_forced_clear_returns_table_sticks():
    g = record("players 3\n1: play 3 as 9\n2: pass\n3: pass\n1: play 4")
    assert g.supply() == 36 and g.sticks[1] == 2
    assert g.play(faces("1"), 15) == G.FORCED | G.CLEARED
    assert g.table is None and g.turn == 2
    assert seat_sticks(g) == [1, 0, 3]
    assert g.supply() == 36 and stick_total(g) == 40


def test_with_expansion_h_forces_and_f_does_not():
    for exp in ("gh2", "gh4"):
        g = record("players 3\nexpansion %s\n1: play F" % exp)
        assert g.table == (15, 1, 1, 0) and g.turn == 2
        events = g.play(faces("H"))
        assert events == G.FORCED | G.CLEARED
        assert g.turn == 2 and g.table is None and seat_sticks(g) == [2, 1, 2]
        g = record("players 3\nexpansion %s\n1: play G" % exp)
        assert g.turn == 2


def test_zero_forces_during_a_revolution_and_f_does_not():
    g = record("players 3\n1: play 8 8 8 8 0 as 8\n2: pass\n3: pass")
    assert g.revolution and g.table is None and g.turn == 1
    assert g.play(faces("F")) == 0
    assert g.turn == 2
    events = g.play(faces("0"))
    assert events == G.FORCED | G.CLEARED and g.turn == 2 and g.table is None


FIVE_PRELUDE = "players 3\ndealer 3\n3: play 3\n1: pass\n2: pass\n3: play 4\n1: play 5\n2: pass\n3: pass\n"


def test_five_fs_are_a_revolution_and_force_nothing():
    g = record(FIVE_PRELUDE)
    assert g.turn == 1 and g.sticks[0] == 2 and g.table is None
    events = g.play(faces("F F F F 1"), 15)
    assert events == G.REVOLUTION
    assert g.revolution and g.turn == 2 and g.table == (15, 5, 1, 2)
    assert seat_sticks(g) == [0, 3, 2]
    assert stick_total(g) == 40
    g.play(faces("7 7 7 7 1"), 7)        # anything answers F now
    assert not g.revolution


def test_five_zeros_are_a_revolution_and_force():
    g = record(FIVE_PRELUDE)
    events = g.play(faces("0 0 0 0 C"), 0)
    assert events == G.REVOLUTION | G.FORCED | G.CLEARED
    assert g.revolution and g.turn == 1 and g.table is None
    assert seat_sticks(g) == [0, 4, 3]


def test_house_variant_four_fs_force_nothing():
    g = record("players 3\nrevolution 4\n1: play F F F F")
    assert g.revolution and g.turn == 2 and g.table == (15, 4, 1, 0)
    assert seat_sticks(g) == [1, 1, 1]


def test_players_without_cards_take_the_forced_stick():
    g = record("players 3\nhands 1 5 5\n1: play 3")
    assert g.cards[0] == 0 and g.ranks[0] == 0
    g.play(faces("F"))
    assert seat_sticks(g) == [2, 1, 2]
    assert g.turn == 2 and g.table is None


def test_players_who_are_out_take_no_forced_stick():
    g = record("players 3\nhands 1 5 5\n1: play 3 as 9")
    assert g.ranks[0] == 1
    g.play(faces("F"))
    assert seat_sticks(g) == [0, 1, 2]
    assert g.supply() == 37 and stick_total(g) == 40


def test_going_out_with_the_strongest_value():
    g = record("players 3\nhands 5 2 5\n1: play 3\n2: play 3 as 9\n3: pass\n1: pass")
    assert g.turn == 2 and g.cards[1] == 1 and g.sticks[1] == 0
    events = g.play(faces("F"))
    assert events == G.OUT | G.FORCED | G.CLEARED
    assert g.ranks[1] == 1
    assert g.turn == 3 and g.table is None
    assert seat_sticks(g) == [3, 0, 3] and g.supply() == 34


# --- no cards left ----------------------------------------------------------------------

def test_no_cards_means_return():
    g = record("players 3\nhands 5 5 1\n1: play 3\n2: pass\n3: play 4")
    assert g.cards[2] == 0 and g.ranks[2] == 0 and g.turn == 1
    g.pass_turn()
    g.pass_turn()       # seat 2; then clear: seat 3 leads with no cards
    assert g.table is None and g.turn == 3 and g.must_return()
    illegal(g, "must-return", g.play, faces("5"))
    illegal(g, "must-return", g.pass_turn)
    illegal(g, "must-return", g.check_play, faces("5"))


def test_seat_with_cards_cannot_return():
    g = Game(3)
    illegal(g, "has-cards", g.return_stick)
    g = record("players 3\n1: play 3")
    illegal(g, "has-cards", g.return_stick)
    assert not g.must_return()


def test_returning_counts_as_declining():
    g = record("players 3\nhands 5 5 1\n1: play 3\n2: pass\n3: play 4\n1: play F")
    assert seat_sticks(g) == [1, 3, 2] and g.cards[2] == 0 and g.turn == 1
    g.play(faces("5"))
    g.pass_turn()
    assert g.turn == 3 and g.must_return()
    events = g.return_stick()
    assert events == G.CLEARED
    assert g.sticks[2] == 1 and g.ranks[2] == 0
    assert g.table is None and g.turn == 1
    assert g.supply() == 34 and stick_total(g) == 40


def test_return_in_mid_trick_passes_the_turn():
    g = record("players 3\nhands 5 5 1\n1: play 3\n2: pass\n3: play 4\n1: play F\n1: play 5")
    assert g.turn == 2
    g.play(faces("6"))
    assert g.turn == 3
    assert g.return_stick() == 0
    assert g.turn == 1 and g.table == (6, 1, 2, 0) and g.sticks[2] == 1


def test_leader_without_cards_returns_and_the_next_seat_leads():
    text = ("players 4\nhands 2 1 5 5\n1: play 3\n2: play 3 as 9\n3: play A\n4: pass\n1: pass\n"
            "3: play 4\n4: pass\n1: play 5\n3: pass\n4: pass")
    g = record(text)
    assert g.ranks[1] == 1
    assert g.turn == 1 and g.table is None and g.cards[0] == 0 and g.sticks[0] == 2
    assert g.return_stick() == 0
    assert g.sticks[0] == 1 and g.ranks[0] == 0
    assert g.turn == 3 and g.table is None   # seat 2 is out: seat 3 leads
    illegal(g, "cannot-pass", g.pass_turn)


def test_dealer_without_cards_at_the_start():
    g = record("players 3\nhands 0 5 5")
    assert g.must_return()
    events = g.return_stick()
    assert events == G.OUT
    assert g.ranks[0] == 1 and g.turn == 2 and g.table is None


# --- going out and the end of the game --------------------------------------------------

def test_going_out_after_a_play_counts_spent_sticks():
    g = record("players 3\nhands 1 5 5")
    events = g.play(faces("3"), 9)
    assert events == G.OUT
    assert g.ranks[0] == 1 and list(g.ranking) == [1]
    assert g.cards[0] == 0 and g.sticks[0] == 0 and g.turn == 2
    assert g.table == (9, 1, 1, 1)


def test_not_out_while_holding_sticks():
    g = record("players 3\nhands 1 5 5")
    assert g.play(faces("3")) == 0
    assert g.ranks[0] == 0 and g.sticks[0] == 1 and g.cards[0] == 0


def test_going_out_after_a_return():
    g = record("players 3\nhands 1 5 5\n1: play 3\n2: pass\n3: pass")
    assert g.turn == 1 and g.must_return()
    assert g.return_stick() == G.OUT
    assert g.ranks[0] == 1 and g.turn == 2 and g.supply() == 36


def test_going_out_by_returning_in_mid_trick_can_clear():
    g = record("players 3\nhands 1 5 5\n1: play 3\n2: play 4\n3: pass")
    assert g.turn == 1 and g.must_return()
    assert g.return_stick() == G.OUT | G.CLEARED
    assert g.ranks[0] == 1 and g.table is None and g.turn == 2


GAME4 = ("players 4\nhands 2 1 1 1\n1: play 3\n2: play 3 as 9\n3: pass\n4: play C as E\n"
         "1: pass\n3: pass\n1: play 4 as 9")


def test_ranks_in_order_and_the_last_player():
    g = record(GAME4)
    assert list(g.ranking) == [2, 4, 1, 3]
    assert list(g.ranks) == [3, 1, 4, 2]
    assert g.finished and g.turn == 0


def test_game_end_events_and_game_over():
    g = record(GAME4.rsplit("\n", 1)[0])
    assert g.turn == 1 and not g.finished
    assert list(g.ranking) == [2, 4]
    assert g.play(faces("4"), 9) == G.OUT | G.FINISHED
    for action, args in ((g.play, (faces("5"),)), (g.pass_turn, ()), (g.return_stick, ()),
                         (g.check_play, (faces("5"),))):
        illegal(g, "game-over", action, *args)
    illegal(g, "game-over", g.play, faces("5"), None, 3)
    assert not g.must_return()


def test_two_player_game():
    g = record("players 2\nhands 1 3")
    assert g.play(faces("3"), 9) == G.OUT | G.FINISHED
    assert list(g.ranking) == [1, 2] and list(g.ranks) == [1, 2] and g.finished


def test_last_player_out_by_return_finishes():
    g = record("players 2\nhands 1 3\n1: play 3\n2: pass")
    assert g.turn == 1 and g.table is None
    assert g.return_stick() == G.OUT | G.FINISHED
    assert list(g.ranking) == [1, 2]


# --- rejected actions -------------------------------------------------------------------

def test_not_your_turn():
    g = Game(3)
    illegal(g, "not-your-turn", g.play, faces("3"), None, 2)
    illegal(g, "not-your-turn", g.pass_turn, 3)
    illegal(g, "not-your-turn", g.return_stick, 2)
    g.play(faces("3"), None, 1)
    illegal(g, "not-your-turn", g.pass_turn, 1)
    g.pass_turn(2)
    assert g.turn == 3
    illegal_line("players 3\n1: play 3\n3: pass", 3, "not-your-turn")
    g = record("players 4\nhands 5 1 5 5\n1: play 3\n2: play 3 as 9")
    illegal(g, "not-your-turn", g.pass_turn, 2)     # seat 2 is out


def test_not_in_hand():
    g = record("players 3\nhands 2 5 5")
    illegal(g, "not-in-hand", g.play, faces("3 3 3"))
    g.play(faces("3 3"))
    g = record("players 3\nhands 3 5 5\n1: play 3 3\n2: pass\n3: pass")
    illegal(g, "not-in-hand", g.play, faces("4 4"))
    g = record("players 3\nhands 5 1 5\n1: play 3 3")
    illegal(g, "not-in-hand", g.play, faces("4 4"), None, 2)


def test_no_such_card_expansion_faces():
    g = Game(3)
    illegal(g, "no-such-card", g.play, faces("G"))
    illegal(g, "no-such-card", g.play, faces("H"))
    illegal(g, "no-such-card", g.play, faces("G"), 8)
    illegal_line("players 3\n1: play H", 2, "no-such-card")


def test_no_such_card_copies_in_one_play():
    g = Game(3)
    illegal(g, "no-such-card", g.play, faces("4 4 4 4 4"))
    illegal(g, "no-such-card", g.play, faces("3 3 E E 3"), 14)
    illegal(g, "no-such-card", g.play, faces("6 9 6 9 9"), 9)
    g.play(faces("6 9 6 9"), 9)
    assert g.table == (9, 4, 1, 0)


def test_copies_count_cards_played_in_earlier_tricks():
    g = record("players 3\n1: play 6 6\n2: play 9 9\n3: pass\n1: pass")
    assert g.turn == 2 and g.table is None
    illegal(g, "no-such-card", g.play, faces("6"))
    illegal(g, "no-such-card", g.play, faces("9"))
    illegal(g, "no-such-card", g.play, faces("9"), 8)
    g.play(faces("5"), 6)
    g = record("players 3\n1: play 3 3\n2: play E E\n3: pass\n1: pass")
    assert g.turn == 2
    illegal(g, "no-such-card", g.play, faces("3"))
    illegal(g, "no-such-card", g.play, faces("E"))
    g = record("players 3\n1: play 8 8 8\n2: pass\n3: pass")
    illegal(g, "no-such-card", g.play, faces("8 8"))
    g.play(faces("8"))


def test_expansion_copies():
    g = record("players 3\nexpansion gh2\n1: play G G\n2: pass\n3: pass")
    illegal(g, "no-such-card", g.play, faces("G"))
    g.play(faces("H H"))
    g = record("players 3\nexpansion gh2")
    illegal(g, "no-such-card", g.play, faces("H H H"))
    g = record("players 3\nexpansion gh4")
    illegal(g, "no-such-card", g.play, faces("G G G G G"))
    g.play(faces("G G G G"))


def test_no_such_value():
    g = Game(3)
    illegal(g, "no-such-value", g.play, faces("8"), 17)
    illegal(g, "no-such-value", g.play, faces("4"), 17)
    illegal(g, "no-such-value", g.play, faces("C"), 16)
    illegal(g, "no-such-value", g.play, faces("8"), 18)
    illegal_line("players 3\n1: play 4 as H", 2, "no-such-value")
    g = record("players 3\nexpansion gh2")
    assert g.check_play(faces("4"), 17) == (17, 1)


def test_impossible_shape():
    g = Game(3)
    illegal(g, "impossible-shape", g.play, faces("2"), 3)
    illegal(g, "impossible-shape", g.play, faces("7"), 15)
    illegal(g, "impossible-shape", g.play, faces("8"), 0)
    illegal(g, "impossible-shape", g.play, faces("6"), 11)   # no 6 without its top bar
    illegal(g, "impossible-shape", g.play, faces("9 9"), 3)
    g = record("players 3\nexpansion gh2")
    illegal(g, "impossible-shape", g.play, faces("8"), 17)


def test_mixed_values():
    g = Game(3)
    illegal(g, "mixed-values", g.play, faces("6 9"))
    g.play(faces("6 9"), 9)
    assert g.table == (9, 2, 1, 0)
    g = Game(3)
    g.play(faces("6 9"), 6)
    assert g.table == (6, 2, 1, 0)


def test_not_enough_sticks():
    g = Game(3)
    illegal(g, "not-enough-sticks", g.play, faces("4"), 9)
    illegal(g, "not-enough-sticks", g.play, faces("3 3"), 9)
    illegal(g, "not-enough-sticks", g.play, faces("1"), 15)
    assert g.check_play(faces("3"), 9) == (9, 1)
    g.play(faces("3"), 9)
    assert g.sticks[0] == 0 and g.table == (9, 1, 1, 1)
    g = record("players 3\n1: play 3\n2: pass\n3: pass\n1: play 5")
    assert g.turn == 2 and g.sticks[1] == 2
    assert g.check_play(faces("4"), 9) == (9, 2)
    assert g.check_play(faces("1"), 15) == (15, 2)
    illegal(g, "not-enough-sticks", g.play, faces("7"), 9)


def test_check_play_returns_value_and_cost_and_changes_nothing():
    g = record("players 3\n1: play 3\n2: pass\n3: pass\n1: play 5\n2: play 6")
    before = snapshot(g)
    assert g.check_play(faces("4"), 9) == (9, 2)
    assert g.check_play(faces("9")) == (9, 0)
    assert g.check_play(faces("6"), 9) == (9, 0)
    assert g.check_play(faces("1"), 15, 3) == (15, 2)
    assert snapshot(g) == before


def test_illegal_actions_change_nothing_mid_game():
    g = record("players 4\n1: play 3\n2: pass\n3: pass\n4: pass\n1: play 3 3\n2: pass\n3: play A A")
    assert g.table == (10, 2, 3, 0)
    for code, action, args in (
            ("not-your-turn", g.play, (faces("B B"), None, 1)),
            ("wrong-count", g.play, (faces("B"),)),
            ("not-stronger", g.play, (faces("9 9"),)),
            ("no-such-card", g.play, (faces("3 E"), 14)),
            ("impossible-shape", g.play, (faces("2 2"), 12)),
            ("has-cards", g.return_stick, ()),
            ("not-enough-sticks", g.play, (faces("1 1"), 15))):
        illegal(g, code, action, *args)
    g.pass_turn()
    assert g.turn == 1


# --- actions, undo ----------------------------------------------------------------------

def test_actions_and_len():
    g = record("players 3\n1: play 6 9 as 9\n2: pass\n3: play A A\n1: pass\n2: pass\n3: play 4")
    assert len(g) == 6
    acts = list(g.actions())
    assert acts[0] == (G.PLAY, 1, (6, 9), 9, True)
    assert acts[1][:2] == (G.PASS, 2)
    assert acts[2] == (G.PLAY, 3, (10, 10), 10, False)
    assert acts[5] == (G.PLAY, 3, (4,), 4, False)
    g = record("players 3\nhands 1 5 5\n1: play 3\n2: pass\n3: pass\n1: return")
    assert list(g.actions())[3][:2] == (G.RETURN, 1)
    assert g.last_action() == list(g.actions())[-1]
    assert len(Game(3)) == 0 and Game(3).last_action() is None


def test_an_action_is_an_action_on_cpython_a_plain_tuple_on_micropython():
    g = record("players 3\n1: play 6 9 as 9\n2: pass")
    play, passed = list(g.actions())
    last = g.last_action()
    assert last == passed == (G.PASS, 2, (), -1, False)
    if G.Action is None:   # MicroPython: the same fields in the same order, no type made
        assert type(play) is tuple and type(last) is tuple
        return
    assert isinstance(play, G.Action) and isinstance(last, G.Action)
    assert (play.kind, play.seat, play.faces, play.value, play.explicit) == (
        G.PLAY, 1, (6, 9), 9, True)
    assert (last.kind, last.seat, last.faces, last.value, last.explicit) == (
        G.PASS, 2, (), -1, False)


def test_last_action_follows_every_action_and_undo():
    g = Game(3)
    for line in ("play 6 9 as 9", "pass", "play A A", "pass", "pass", "play 4"):
        notation_feed(g, line)
        assert g.last_action() == list(g.actions())[-1]
        assert len(g) == len(list(g.actions()))
    while g.undo():
        acts = list(g.actions())
        assert g.last_action() == (acts[-1] if acts else None)
        assert len(g) == len(acts)
    assert g.last_action() is None and len(g) == 0


def notation_feed(g, line):
    kind, key, args, seat = notation.parse_line(line)
    if key == G.PLAY:
        g.play(args[0], args[1], seat)
    elif key == G.PASS:
        g.pass_turn(seat)
    else:
        g.return_stick(seat)


def _undo_all(text):
    """Replay every prefix of a record, then undo the whole game one action at a time:
    each undo must give back exactly the state of the shorter record."""
    lines = [line for line in text.split("\n") if line.strip()]
    header = [line for line in lines if ":" not in line]
    acts = [line for line in lines if ":" in line]
    snaps = []
    for k in range(len(acts) + 1):
        snaps.append(snapshot(record("\n".join(header + acts[:k]))))
    g = record(text)
    assert len(g) == len(acts)
    for i in range(len(acts), 0, -1):
        assert snapshot(g) == snaps[i]
        assert g.undo() is True
        assert snapshot(g) == snaps[i - 1], "undo of action %d" % i
    assert g.undo() is False
    assert snapshot(g) == snaps[0]
    return g


def test_undo_back_to_the_start():
    g = _undo_all(GAME4)
    assert snapshot(g) == snapshot(record("players 4\nhands 2 1 1 1"))
    _undo_all(FIVE_PRELUDE + "1: play 0 0 0 0 C as 0\n1: play 5\n2: pass")
    _undo_all(PRELUDE + "2: play 7 7 7 7 1 as 7")
    _undo_all("players 3\nhands 5 5 1\n1: play 3\n2: pass\n3: play 4\n1: play F\n1: play 5\n2: pass\n3: return")


def test_undo_then_play_again():
    g = record("players 3\n1: play 3\n2: play 4")
    g.undo()
    g.play(faces("5"))
    assert g.table == (5, 1, 2, 0)
    assert [a[2] for a in g.actions()] == [(3,), (5,)]


def test_undo_random_games():
    for seed in range(6):
        rng = Lcg(seed)
        g = Game(*random_setup(rng))
        snaps = [snapshot(g)]
        while not g.finished:
            step(g, rng)
            snaps.append(snapshot(g))
        while g.undo():
            snaps.pop()
            assert snapshot(g) == snaps[-1]
        assert len(snaps) == 1


def test_random_games_keep_the_sticks_and_the_ranks():
    for seed in range(20):
        g = random_game(seed)
        assert stick_total(g) == g.total_sticks
        assert g.finished
        assert sorted(g.ranking) == list(range(1, g.players + 1))
        for i, seat in enumerate(g.ranking):
            assert g.ranks[seat - 1] == i + 1


def test_undo_and_play_on_across_snapshots():
    # undo restores the last snapshot (every SNAP_EVERY actions) and replays the rest: a random
    # walk of actions and runs of undos across many snapshot boundaries must always leave the
    # game exactly where replaying its record from the deal leaves it
    from tycoon.game import SNAP_EVERY
    longest = 0
    for seed in range(4):
        rng = Lcg(100 + seed)
        g = Game(8, dealer=1 + seed, expansion="gh4")
        for _ in range(400):
            if g.finished or (len(g) and rng.below(8) == 0):
                for _ in range(1 + rng.below(2 * SNAP_EVERY)):
                    if not g.undo():
                        break
            else:
                step(g, rng)
            longest = max(longest, len(g))
            if rng.below(5) == 0:
                again = record(notation.write(g))
                assert snapshot(g) == snapshot(again)
        assert snapshot(g) == snapshot(record(notation.write(g)))
    assert longest > SNAP_EVERY + 16
