"""What happened between two box states, in words: the log of `matchbox watch` and of the web page.

Reads the state JSON the firmware emits after every action (tycoon.writer.to_json) and names
the single action that leads from one state to the next ("seat 3 played 2 x 9 (2 sticks)").
Plain Python that also runs under MicroPython: the web page runs it in the browser.
"""
import json


def _is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)


def parse_state(line):
    """The state dict of a state line, or None for any other line."""
    line = line.strip()
    if not line.startswith("{"):
        return None
    try:
        s = json.loads(line)
        n = s["players"]
        ok = (_is_int(n) and 2 <= n <= 8 and isinstance(s["seats"], list) and len(s["seats"]) == n
              and (s["turn"] is None and s["finished"] is True
                   or _is_int(s["turn"]) and 1 <= s["turn"] <= n)
              and isinstance(s["revolution"], bool) and isinstance(s["finished"], bool)
              and isinstance(s["strongest"], str) and _is_int(s["supply"])
              and isinstance(s["ranking"], list) and all(_is_int(x) for x in s["ranking"]))
        for i, seat in enumerate(s["seats"]):
            ok = ok and seat["seat"] == i + 1 and _is_int(seat["cards"]) and _is_int(seat["sticks"]) \
                and (seat["rank"] is None or _is_int(seat["rank"]))
        t = s["table"]
        if t is not None:
            ok = ok and isinstance(t["value"], str) and _is_int(t["count"]) and _is_int(t["seat"]) \
                and _is_int(t["sticks"])
    except (ValueError, KeyError, TypeError, AttributeError, IndexError, RuntimeError):
        return None   # RuntimeError: JSON nested too deep (RecursionError on CPython)
    return s if ok else None


def notice_text(line):
    """In words, the line the box sends at power-up when its record was damaged
    ({"lost": N, "repaired": M, "kept": PATH or null}); None for any other line."""
    line = line.strip()
    if not line.startswith('{"lost"'):
        return None
    try:
        n = json.loads(line)
        lost, repaired, kept = n["lost"], n["repaired"], n["kept"]
        if not (_is_int(lost) and _is_int(repaired) and (kept is None or isinstance(kept, str))):
            return None
    except (ValueError, KeyError, TypeError):
        return None
    said = []
    if repaired:
        said.append("repaired %d damaged line%s by %s checksum tag%s" % (
            repaired, "" if repaired == 1 else "s", "its" if repaired == 1 else "their",
            "" if repaired == 1 else "s"))
    if lost:
        said.append("could not resume %d line%s" % (lost, "" if lost == 1 else "s"))
    where = ("kept the damaged file as %s" % kept if kept else
             "the flash had no room to keep the damaged file aside (FULL)")
    return "the box, at power-up: %s of its record; %s" % (" and ".join(said), where)


def _sticks_total(s):
    return sum(x["sticks"] for x in s["seats"]) + s["supply"] + (s["table"]["sticks"] if s["table"] else 0)


def action(prev, cur):
    """The single action that turns state prev into cur, or None when there is none:
    ("play", seat, count, value, sticks spent), ("pass", seat) or ("return", seat)."""
    n = prev["players"]
    s = prev["turn"]
    if cur["players"] != n or not s or _sticks_total(prev) != _sticks_total(cur):
        return None
    i = s - 1
    ps, cs = prev["seats"], cur["seats"]
    if any(ps[j]["cards"] != cs[j]["cards"] for j in range(n) if j != i):
        return None
    others_same = all(ps[j]["sticks"] == cs[j]["sticks"] for j in range(n) if j != i)
    played = ps[i]["cards"] - cs[i]["cards"]
    spent = ps[i]["sticks"] - cs[i]["sticks"]
    if played == 0 and others_same:
        if spent == -1 and ps[i]["cards"] and prev["table"] is not None:
            return ("pass", s)
        if spent == 1 and not ps[i]["cards"]:
            return ("return", s)
        return None
    if not 1 <= played <= 5 or spent < 0 or prev["table"] and prev["table"]["count"] != played:
        return None
    table = cur["table"]
    if table is not None:
        if table["seat"] != s or table["count"] != played or not others_same:
            return None
        return ("play", s, played, table["value"], spent)
    # Only a play of the strongest value clears the table: every other seat still in takes a stick.
    if any(cs[j]["sticks"] - ps[j]["sticks"] != (0 if cs[j]["rank"] else 1) for j in range(n) if j != i):
        return None
    return ("play", s, played, cur["strongest"], spent)


# The log's phrases in English, by key: `matchbox watch` prints them, the web page puts them in
# the reader's language (host_tools.words holds the same keys in German and Japanese). An entry
# is (key, {name: value}); a value may be an entry itself.
PHRASES = {
    "log_watching": "watching: {players} players, {turn}",
    "log_to_act": "seat {seat} to act",
    "log_over": "game over",
    "log_played": "seat {seat} played {count} x {value}",
    "log_played_for": "seat {seat} played {count} x {value} ({sticks})",
    "log_passed": "seat {seat} passed",
    "log_returned": "seat {seat} returned a stick",
    "log_undo": "undo (taken back: {what})",
    "log_new_game": "new game: {players} players, cards {cards}, seat {seat} is the dealer",
    "log_jumped": "the state jumped (lines missed?): {turn}",
    "log_revolution": "revolution! {value} is now strongest",
    "log_revolution_again": "revolution again! back to the normal order, {value} strongest",
    "log_strongest": "{value} is strongest: every other seat takes a stick",
    "log_last_left": "seat {seat} is the last one left (rank {rank})",
    "log_went_out": "seat {seat} went out (rank {rank})",
    "log_ranking": "game over: ranking {ranking}",
    "log_cleared": "table cleared: seat {seat} is the dealer",
    "log_order_reversed": "REVOLUTION: order reversed, {value} strongest",
    "log_order_normal": "normal order, {value} strongest",
    "log_table_empty": "empty",
    "log_table": "{count} x {value} by seat {seat}, {sticks} on it",
    "log_sticks_0": "no sticks",
    "log_sticks_1": "1 stick",
    "log_sticks": "{n} sticks",
}


def say(entry, phrases=PHRASES):
    """An entry (key, {name: value}) in words: its phrase with each {name} filled in."""
    key, args = entry
    text = phrases[key]
    for name in args:
        value = args[name]
        text = text.replace("{%s}" % name, say(value, phrases) if isinstance(value, tuple)
                            else str(value))
    return text


def _sticks_entry(n):
    return ("log_sticks_0", {}) if n == 0 else ("log_sticks_1", {}) if n == 1 else \
        ("log_sticks", {"n": n})


def _sticks(n):
    return say(_sticks_entry(n))


def _said(act):
    if act[0] == "play":
        _, seat, count, value, spent = act
        args = {"seat": seat, "count": count, "value": value}
        if not spent:
            return ("log_played", args)
        args["sticks"] = _sticks_entry(spent)
        return ("log_played_for", args)
    return ("log_passed" if act[0] == "pass" else "log_returned", {"seat": act[1]})


def _fresh(s):
    return (not s["ranking"] and s["table"] is None and not s["revolution"] and not s["finished"]
            and all(x["sticks"] == 1 for x in s["seats"]))


def _turn_entry(s):
    return ("log_over", {}) if s["finished"] else ("log_to_act", {"seat": s["turn"]})


def _turn(s):
    return say(_turn_entry(s))


def entries(prev, cur):
    """What happened in the step from state prev (None: the first state seen) to cur, as
    entries (key, {name: value}) of PHRASES."""
    if prev is None:
        return [("log_watching", {"players": cur["players"], "turn": _turn_entry(cur)})]
    if prev == cur:
        return []
    act = action(prev, cur)
    if act is None:
        back = action(cur, prev)
        if back is not None:
            return [("log_undo", {"what": _said(back)})]
        if _fresh(cur):
            return [("log_new_game", {"players": cur["players"], "seat": cur["turn"],
                                      "cards": " ".join(str(x["cards"]) for x in cur["seats"])})]
        return [("log_jumped", {"turn": _turn_entry(cur)})]
    out = [_said(act)]
    if cur["revolution"] != prev["revolution"]:
        out.append(("log_revolution" if cur["revolution"] else "log_revolution_again",
                    {"value": cur["strongest"]}))
    forced = act[0] == "play" and cur["table"] is None
    if forced:
        out.append(("log_strongest", {"value": act[3]}))
    for rank, seat in enumerate(cur["ranking"][len(prev["ranking"]):], len(prev["ranking"]) + 1):
        last = cur["finished"] and rank == cur["players"]
        out.append(("log_last_left" if last else "log_went_out", {"seat": seat, "rank": rank}))
    if cur["finished"]:
        out.append(("log_ranking", {"ranking": " ".join(str(x) for x in cur["ranking"])}))
    elif prev["table"] is not None and cur["table"] is None or forced:
        out.append(("log_cleared", {"seat": cur["turn"]}))
    return out


def changes(prev, cur):
    """Log lines for the step from state prev (None: the first state seen) to cur."""
    return [say(e) for e in entries(prev, cur)]


def order_entry(s):
    return ("log_order_reversed" if s["revolution"] else "log_order_normal",
            {"value": s["strongest"]})


def table_entry(s):
    t = s["table"]
    if t is None:
        return ("log_table_empty", {})
    return ("log_table", {"count": t["count"], "value": t["value"], "seat": t["seat"],
                          "sticks": _sticks_entry(t["sticks"])})


def order_text(s):
    return say(order_entry(s))


def table_text(s):
    return say(table_entry(s))
