"""Card shapes, turning, costs and card types (tycoon.cards) against the rules' tables."""
from tycoon import cards
from tycoon.cards import cost, becomes, char, parse_char, card_type, SHAPES

# The rules' shape table, written as segment letters (a = bit 0 ... g = bit 6).
SEGMENTS = {
    "0": "abcdef", "1": "bc", "2": "abdeg", "3": "abcdg", "4": "bcfg", "5": "acdfg",
    "6": "acdefg", "7": "abc", "8": "abcdefg", "9": "abcdfg", "A": "abcefg", "B": "cdefg",
    "C": "adef", "D": "bcdeg", "E": "adefg", "F": "aefg", "G": "acdef", "H": "bcefg",
}
MASKS = {
    "0": 0x3F, "1": 0x06, "2": 0x5B, "3": 0x4F, "4": 0x66, "5": 0x6D, "6": 0x7D, "7": 0x07,
    "8": 0x7F, "9": 0x6F, "A": 0x77, "B": 0x7C, "C": 0x39, "D": 0x5E, "E": 0x79, "F": 0x71,
    "G": 0x3D, "H": 0x76,
}
TURN = {"a": "d", "b": "e", "c": "f", "d": "a", "e": "b", "f": "c", "g": "g"}


def mask_of(letters):
    m = 0
    for s in letters:
        m |= 1 << "abcdefg".find(s)
    return m


def turned(letters):
    return mask_of("".join([TURN[s] for s in letters]))


def v(c):
    return parse_char(c)


def ref_cost(face, value):
    """Cost by the rules' wording: the face (either way up) inside the value; one stick per
    missing segment."""
    f = SEGMENTS[char(face)]
    target = mask_of(SEGMENTS[char(value)])
    for m in (mask_of(f), turned(f)):
        if m & target == m:
            return len(SEGMENTS[char(value)]) - len(f)
    return None


def test_mask_table_matches_rules():
    assert len(SHAPES) == 18
    for i in range(18):
        c = char(i)
        assert SHAPES[i] == MASKS[c], "mask of %s" % c
        assert SHAPES[i] == mask_of(SEGMENTS[c]), "segments of %s" % c
        assert SHAPES[i] & 0x80 == 0  # the dp is never part of a card


def test_all_shapes_distinct():
    seen = []
    for i in range(18):
        assert SHAPES[i] not in seen
        seen.append(SHAPES[i])


def test_rotation_pairs():
    assert cards.rotate(MASKS["3"]) == MASKS["E"]
    assert cards.rotate(MASKS["E"]) == MASKS["3"]
    assert cards.rotate(MASKS["6"]) == MASKS["9"]
    assert cards.rotate(MASKS["9"]) == MASKS["6"]
    for c in "0258H":
        assert cards.rotate(MASKS[c]) == MASKS[c], c


def test_rotation_matches_segment_swap_and_is_involution():
    for c in SEGMENTS:
        assert cards.rotate(MASKS[c]) == turned(SEGMENTS[c]), c
    for m in range(128):
        assert cards.rotate(cards.rotate(m)) == m
        assert cards.popcount(cards.rotate(m)) == cards.popcount(m)


def test_rotation_partners_are_only_the_listed_ones():
    partners = {}
    for a in SEGMENTS:
        for b in SEGMENTS:
            if cards.rotate(MASKS[a]) == MASKS[b]:
                partners[a] = b
    assert partners == {"0": "0", "2": "2", "5": "5", "8": "8", "H": "H",
                        "3": "E", "E": "3", "6": "9", "9": "6"}


def test_manual_cost_examples():
    assert cost(v("3"), v("9")) == 1
    assert cost(v("7"), v("3")) == 2
    assert cost(v("4"), v("9")) == 2
    assert cost(v("6"), v("9")) == 0   # turned
    assert cost(v("9"), v("6")) == 0
    assert cost(v("6"), v("8")) == 1
    assert cost(v("1"), v("F")) == 2   # turned
    assert cost(v("3"), v("E")) == 0
    assert cost(v("E"), v("3")) == 0


def test_two_only_becomes_eight():
    assert [x for x, _ in becomes(v("2"))] == [v("2"), v("8")]
    assert cost(v("2"), v("8")) == 2


def test_only_one_becomes_f():
    makers = [f for f in range(18) if cost(f, v("F")) is not None]
    assert makers == [v("1"), v("F")]
    assert cost(v("7"), v("F")) is None


def test_cost_is_the_rules_formula_for_every_pair():
    for face in range(18):
        for value in range(18):
            assert cost(face, value) == ref_cost(face, value), "%s as %s" % (char(face), char(value))


def test_nothing_taken_away():
    for face in range(18):
        assert cost(face, face) == 0
        for value in range(18):
            c = cost(face, value)
            if c is not None:
                assert c >= 0
                if value != face and c == 0:  # free only for the turned twins
                    assert (char(face), char(value)) in (("3", "E"), ("E", "3"), ("6", "9"), ("9", "6"))
    assert cost(v("8"), v("0")) is None   # cannot remove the middle bar
    assert cost(v("9"), v("3")) is None


def test_quick_reference_rows():
    def row(c, values=16):
        return "".join([char(x) for x, _ in becomes(v(c), values)])
    assert row("3") == "3689E"
    assert row("0") == "08"
    # 7 = abc upright sits inside 0 3 8 9 A; turned (def) inside 0 6 8 b C E
    assert row("7") == "036789ABCE"
    assert row("1", 18) == "01346789ABCDEFGH"
    assert row("H", 18) == "8AH"


def test_becomes_pairs_and_default_range():
    assert becomes(v("3"), 16) == [(3, 0), (6, 1), (8, 2), (9, 1), (14, 0)]
    assert (v("G"), 0) in becomes(v("G"))
    for face in range(16):
        for value, c in becomes(face, 16):
            assert value < 16
            assert c == cost(face, value)


def test_card_types():
    assert card_type(v("3")) == card_type(v("E"))
    assert card_type(v("6")) == card_type(v("9"))
    types = []
    for f in range(18):
        if card_type(f) not in types:
            types.append(card_type(f))
    assert len(types) == 16   # 14 base types + G + H
    others = [f for f in range(18) if f not in (v("E"), v("9"))]
    assert len(set([card_type(f) for f in others])) == 16


def test_chars():
    assert "".join([char(i) for i in range(18)]) == "0123456789ABCDEFGH"
    for i in range(18):
        assert parse_char(char(i)) == i
        assert parse_char(char(i).lower()) == i
    for bad in ("X", "L", "P", "I", "10", "", "-1", "Q", " "):
        assert parse_char(bad) == -1, bad
