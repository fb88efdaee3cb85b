"""What the box's displays, keys and codes mean, in the players' languages: English, German and
Japanese. The one source of those words for the printed card (`matchbox card`), the quick
reference (`matchbox ref --lang`), the table pages in docs/ and the web and hall pages' labels.

Every table here is keyed by the firmware's and the engine's own names, so a test can hold it
against them: the refusal codes (box.screens.errors(), the engine's IllegalAction codes), the
keys (box.keys.NAMES, the faces as one row), the setup menu's items (box.setup's labels) and
the words the displays show (box.screens). The vocabulary is the manuals': matchsticks /
Streichhölzer / マッチ棒, revolution / Revolution / 革命, dealer / Geber / 親.
"""
from host_tools import resources
from host_tools.reports import state_log

LANGUAGES = ("en", "de", "ja")
DEFAULT = "en"

# The four displays, left to right: what each shows in a game, as the box draws it.
DISPLAY_EXAMPLES = ("3-9", "P3 F", "c 13", "St 2")

# The keys a row each: "face" stands for 0-F, G and H (box.keys.NAMES); a long press is the
# key's name and " held".
KEY_ROWS = ("face", "AS", "PLAY", "PASS", "DEL", "UNDO", "MENU", "DEL held", "MENU held")

# The setup menu's items as a new box shows them (box.setup), by their labels.
SETUP_SHOWN = {"PL": "PL 4", "dL": "dL 1", "Gh": "Gh 0", "rE": "rE 5", "St": "St40",
               "1=14": "1=14"}

# The box's other words on the displays (box.screens), as they show: '|' between two displays,
# '.' a digit's point, ':' the colon; in the order a game meets them.
STATUS = ("=9: 1", "=_: -", "----", "Err", "rEuo|Hi 0", "PASS|ALL", "out|P3", "End|1 P3",
          "rEF|----", "3-9.1|rEF", "SEt", "rEPr|   2", "LoSt|   3")

_EN = {
    "title": "Matchstick Tycoon: the referee box",
    "sheet": "Table card",
    "displays": "The four displays",
    "display_names": ("table", "turn", "cards", "matchsticks"),
    "display_shows": (
        "the play on top: how many cards and their value (3-9: three 9s); ---- when the "
        "table is empty",
        "P and the seat to act, then the strongest value (F, or H with G/H); r during a "
        "revolution",
        "the cards in the hand of the seat to act; rEtn when it must return a matchstick",
        "the matchsticks of the seat to act",
    ),
    "entry": "While you key in a play, the faces show on display 3 and the preview on "
             "display 4: the value it plays as and, after the colon, the matchsticks it costs.",
    "keys": "Keys",
    "key": "key",
    "in_game": "in a game",
    "in_setup": "in the setup menu",
    "face_keys": "0-F, G, H",
    "held": "held",
    "key_game": {
        "face": "a card put down, one key per card; after AS, the value they play as",
        "AS": "the next face key is the value the cards are played as",
        "PLAY": "play the cards keyed in; with no cards left: return a matchstick",
        "PASS": "pass and take one matchstick",
        "DEL": "remove the last key",
        "UNDO": "clear the entry, else take back the last action (as often as you like)",
        "MENU": "quick reference: a face key shows what it can become, and the cost",
        "DEL held": "clear the entry",
        "MENU held": "setup menu for a new game (the old game is kept)",
    },
    "key_setup": {
        "face": "set the item (the first digit replaces it: 4 0 = 40)",
        "AS": "",
        "PLAY": "next item; after the last hand, start the game",
        "PASS": "",
        "DEL": "previous item",
        "UNDO": "the item's default",
        "MENU": "back to the game",
        "DEL held": "previous item",
        "MENU held": "the setup menu",
    },
    "setup": "Setup menu",
    "setup_items": {
        "PL": "players (2-8)",
        "dL": "first dealer",
        "Gh": "G/H expansion: 0, 2 or 4 copies of G and H",
        "rE": "revolution with 5 cards (4: house rule)",
        "St": "matchsticks in the box",
        "1=14": "the cards of each seat (default: the deal)",
    },
    "codes": "Refused: the code shows with Err, the game does not change",
    "code_rules": {
        "must-return": "no cards left: return a matchstick with PLAY; face keys are refused",
        "cannot-pass": "the dealer cannot pass: play 1 to 5 cards",
        "too-many-cards": "at most five cards in one play",
        "not-in-hand": "more cards than this seat holds",
        "wrong-count": "play as many cards as the dealer did (or no cards keyed)",
        "not-stronger": "not stronger than the play on top",
        "no-such-value": "that value is not in this game (G or H without the expansion)",
        "no-such-card": "no such card left in the deck (all copies played)",
        "impossible-shape": "that card cannot become that value: matchsticks only add "
                            "segments",
        "mixed-values": "the cards are not one value: say the value with AS",
        "not-enough-sticks": "not enough matchsticks to change the cards",
        "flash-full": "the box's memory is full: the action is not taken",
        "not-your-turn": "not this seat's turn (never shown: the box acts for the seat to act)",
        "has-cards": "the seat still has cards, so it cannot return a matchstick (never shown)",
        "game-over": "the game is over (never shown as an error)",
    },
    # the same codes in the setup menu, where they mean something else
    "setup_means": "; in the setup menu: ",
    "code_setup": {
        "no-such-card": "the seats' cards add up to more than the deck holds",
        "flash-full": "the new game could not be saved",
    },
    "status": "The box says",
    "status_says": {
        "=9: 1": "preview: the cards play as 9 and cost 1 matchstick",
        "=_: -": "AS pressed: the value key is awaited",
        "----": "the table is empty",
        "Err": "beside a code: that action was refused; a face key starts a new play, DEL "
               "or AS mends the refused one",
        "rEuo|Hi 0": "revolution: the order is reversed, 0 is now the strongest",
        "PASS|ALL": "the strongest value: everyone else takes a matchstick, the cards are "
                    "cleared",
        "out|P3": "seat 3 is out (Agari): no cards and no matchsticks",
        "End|1 P3": "the game is over, then the ranking (1 P3: seat 3 is first)",
        "rEF|----": "quick reference (MENU)",
        "3-9.1|rEF": "quick reference: 3 becomes 9 for 1 matchstick",
        "SEt": "the setup menu is open",
        "rEPr|   2": "at power-up: 2 damaged lines of the game repaired; any key continues",
        "LoSt|   3": "at power-up: the last 3 lines could not be resumed; any key continues",
    },
    "costs": "What each card can become, and its cost in matchsticks",
    "costs_note": "A row for each card, a column for each value it can be played as: the "
                  "matchsticks that costs (0: as it is, or turned over); empty: it cannot "
                  "become that value. Shaded: with the G/H expansion.",
    "face": "card",
    "value": "value",
    "base": "base game",
    "expansion": "G/H",
    "order": "Weakest to strongest: 0 1 2 3 4 5 6 7 8 9 A b C d E F (G H); a revolution "
             "reverses the order.",
    "power": "A power cut loses nothing: the box resumes the game where it was. UNDO takes "
             "back any action.",
    "ref_head": "face -> value(sticks)",
    # the sticker sheet (matchbox labels): the keypad's E and F, the buttons, the displays
    "labels_title": "Matchbox: key and display stickers",
    "labels_note": "Print at 100 % (no scaling) on sticker paper, cut along the grey lines. "
                   "E goes over the keypad's *, F over its #.",
    "labels_keypad": "Keypad",
    "labels_buttons": "Buttons",
    "labels_displays": "Displays",
    "button_words": {"AS": "declare", "PLAY": "play", "PASS": "pass", "DEL": "delete",
                     "UNDO": "undo", "MENU": "menu"},
    # the table pages (docs/LANG/table.md)
    # the web page (matchbox web) and the hall's page: their labels, and the hall's phrases
    "web_intro": "The referee box for Matchstick Tycoon, running its own firmware "
                 "(MicroPython, in your browser).",
    "web_starting": "Starting the box…",
    "web_on": "The box is on. Click the keys or type (keyboard map below).",
    "web_download": "Download the record",
    "web_load": "Load a record…",
    "web_keymap": "Keyboard and how to play",
    "web_keyboard": "keyboard",
    "web_boxkey": "box key",
    "web_faces": "the faces 0-F, G, H",
    "web_long_del": "DEL held (clear the entry)",
    "web_menu": "MENU (quick reference) / MENU held (setup menu)",
    "web_help": "Hold a key with the mouse or a finger for a long press. A new box opens the "
                "setup menu: PLAY through the items to start a game. Reloading the page is a "
                "power cut: the game resumes from the record kept in this browser.",
    "web_setup_help": "The box is in its setup menu (SEt beside the item): display 1 shows an "
                      "item and its value. Key a value with the face keys (4 0 = 40); PLAY "
                      "goes to the next item, DEL back, UNDO gives the item its default. PLAY "
                      "after the last seat's cards starts the game.",
    "web_game": "The game",
    "web_no_game": "no game yet",
    "web_turn": "turn",
    "web_order": "order",
    "web_table": "table",
    "web_supply": "supply",
    "web_seat": "seat",
    "web_cards": "cards",
    "web_sticks": "matchsticks",
    "web_rank": "rank",
    "web_happened": "What happened",
    "web_to_act": "seat {seat}",
    "web_over": "game over, ranking {ranking}",
    "web_dark": "dark",
    "web_no_record": "No game yet: start one in the setup menu (PLAY through the items).",
    "web_downloaded": "Record downloaded (plain notation: matchbox replay reads it).",
    "web_loaded": "Loaded {name}: the box powered up with it as the game in progress.",
    "web_refused": "{name}:{line}: {kind}: {code}",
    "web_no_game_in": "{name}: no game in this file",
    "web_storage_full": "{name}: the box's storage is full, the game in progress stays",
    "web_storage_refused": "The browser's storage refused the journal ({error}): this game "
                           "will not survive a reload.",
    "web_failed": "The box could not start: {error}",
    # the log of what happened, and the order and table lines (state_log.PHRASES)
    **state_log.PHRASES,
    "hall_title": "Matchbox hall",
    "hall_standings": "Standings",
    "hall_connecting": "connecting…",
    "hall_live": "live",
    "hall_reconnecting": "reconnecting…",
    "hall_no_game": "no game yet",
    "hall_game_line": "game {game} · line {seq}",
    "hall_finished": "finished",
    "hall_to_act": "seat {seat} to act",
    "hall_on_top": "{count} × {value} of seat {seat} on top",
    "hall_empty": "table empty",
    "hall_revolution": "revolution",
    "hall_out": "out: {places}",
    "hall_comma": ", ",
    "hall_seat": "seat",
    "hall_cards": "cards",
    "hall_sticks": "sticks",
    "hall_place": "place",
    "hall_games_done": "Finished games: {games}.",
    "hall_points_places": "Points: in a game of n players, place 1 gets n\u00a0−\u00a01, "
                          "place 2 gets n\u00a0−\u00a02, and so on; the last place gets 0.",
    "hall_points_given": "Points: {points}; places further down get 0.",
    "hall_points_place": "place {place}: {points}",
    "hall_act_play": "Seat {seat} played {faces}",
    "hall_act_play_as": "Seat {seat} played {faces} as {value}",
    "hall_act_pass": "Seat {seat} passed",
    "hall_act_return": "Seat {seat} returned a matchstick",
    "hall_act_undo": "Undo: the action before was taken back",
    "hall_display_names": ("table", "turn", "cards", "sticks"),
    "hall_player": "player",
    "hall_points": "points",
    "hall_games": "games",
    "hall_places": "places",
    "hall_displays_of": "the displays of {box}",
    "hall_error_line": "line {line}: {kind}: {code}",
    "page_heading": "Matchstick Tycoon: at the table",
    "page_intro": "What the players read on the box: its four displays, its keys and its codes. "
                  "The same words are on the printable table card, `matchbox card --lang en -o "
                  "card.pdf` (A4; `--paper letter` or `a5`): print it on both sides of one "
                  "sheet and lay it beside the box.",
    "page_other": "This page in other languages",
    "page_display": "display",
    "page_example": "example",
    "page_code": "code",
    "page_rule": "rule",
    "page_shows": "the box shows",
    "page_means": "means",
    "page_becomes": "becomes (matchsticks)",
    "page_with_gh": "with G/H also",
    "page_setup": "Hold MENU for the setup menu. Each item shows its label and its value; the "
                  "face keys set it, PLAY goes to the next item and, after the last seat's "
                  "cards, starts the game. The game in play is archived when the new one "
                  "starts; until then MENU goes back to it. The last setup is remembered.",
    "page_power_title": "Power cuts and undo",
    "page_power": "Every play is saved on the box the moment it is made. Pull the plug at any "
                  "time: when the power comes back the game goes on from the last play. If "
                  "the box found part of its record damaged, it says so at power-up (rEPr or "
                  "LoSt with a number) until a key is pressed; compare the table with the box "
                  "then. UNDO takes back the last play, pass or returned matchstick, and again "
                  "the one before, back to the start of the game.",
    "page_hall_title": "For the organiser: the hall",
    "page_hall": "At an event with many tables, the hall shows every table and the standings "
                 "on one page, on a computer or on phones. Run `matchbox hall serve hall`, "
                 "enrol each box with `matchbox hall enrol hall t1` and put the settings it "
                 "writes on that box (`matchbox flash --hall-settings ...`); then open the "
                 "page it names. The page speaks English, German or Japanese: the browser's "
                 "language, or `?lang=en`, `?lang=de`, `?lang=ja` after its address. Nothing "
                 "the hall does changes a game: the boxes referee, the hall only shows.",
    "page_more": "The details: the displays (docs/display.md), the rules as the box plays "
                 "them (docs/rules.md), the hall (docs/hall.md).",
}

_DE = {
    "title": "Matchstick Tycoon: die Schiedsrichterbox",
    "sheet": "Tischkarte",
    "displays": "Die vier Anzeigen",
    "display_names": ("Tisch", "Zug", "Karten", "Streichhölzer"),
    "display_shows": (
        "die oberste Ausspielung: Anzahl der Karten und ihr Wert (3-9: drei 9er); ---- "
        "bei leerem Tisch",
        "P und der Spieler am Zug, dann der stärkste Wert (F, mit G/H: H); r während einer "
        "Revolution",
        "die Handkarten des Spielers am Zug; rEtn, wenn er ein Streichholz zurückgeben muss",
        "die Streichhölzer des Spielers am Zug",
    ),
    "entry": "Beim Eintippen einer Ausspielung stehen die Karten auf Anzeige 3 und die "
             "Vorschau auf Anzeige 4: der Wert, als der sie gelten, und nach dem Doppelpunkt, "
             "wie viele Streichhölzer das kostet.",
    "keys": "Tasten",
    "key": "Taste",
    "in_game": "im Spiel",
    "in_setup": "im Einstellungsmenü",
    "face_keys": "0-F, G, H",
    "held": "gehalten",
    "key_game": {
        "face": "eine ausgespielte Karte, eine Taste je Karte; nach AS: der Wert, als der sie "
                "gelten",
        "AS": "die nächste Kartentaste ist der Wert, als der die Karten gelten",
        "PLAY": "die eingetippten Karten ausspielen; ohne Handkarten: ein Streichholz "
                "zurückgeben",
        "PASS": "passen und ein Streichholz nehmen",
        "DEL": "die letzte Taste löschen",
        "UNDO": "die Eingabe löschen, sonst den letzten Zug zurücknehmen (beliebig oft)",
        "MENU": "Übersicht: eine Kartentaste zeigt, was aus der Karte werden kann, und die "
                "Kosten",
        "DEL held": "die Eingabe löschen",
        "MENU held": "Einstellungsmenü für ein neues Spiel (das alte bleibt erhalten)",
    },
    "key_setup": {
        "face": "den Punkt einstellen (die erste Ziffer ersetzt den Wert: 4 0 = 40)",
        "AS": "",
        "PLAY": "nächster Punkt; nach der letzten Hand: das Spiel beginnt",
        "PASS": "",
        "DEL": "voriger Punkt",
        "UNDO": "Vorgabe des Punkts",
        "MENU": "zurück zum Spiel",
        "DEL held": "voriger Punkt",
        "MENU held": "das Einstellungsmenü",
    },
    "setup": "Einstellungsmenü",
    "setup_items": {
        "PL": "Spieler (2-8)",
        "dL": "erster Geber",
        "Gh": "Erweiterung G/H: 0, 2 oder 4 Exemplare von G und H",
        "rE": "Revolution mit 5 Karten (4: Hausregel)",
        "St": "Streichhölzer in der Schachtel",
        "1=14": "die Karten jedes Spielers (Vorgabe: wie ausgeteilt)",
    },
    "codes": "Abgelehnt: der Code steht mit Err da, das Spiel bleibt, wie es war",
    "code_rules": {
        "must-return": "keine Handkarten mehr: mit PLAY ein Streichholz zurückgeben; "
                       "Kartentasten gelten nicht",
        "cannot-pass": "der Geber darf nicht passen: 1 bis 5 Karten ausspielen",
        "too-many-cards": "höchstens fünf Karten auf einmal",
        "not-in-hand": "mehr Karten, als dieser Spieler auf der Hand hat",
        "wrong-count": "so viele Karten wie der Geber ausspielen (oder keine eingetippt)",
        "not-stronger": "nicht stärker als die oberste Ausspielung",
        "no-such-value": "diesen Wert gibt es in diesem Spiel nicht (G oder H ohne "
                         "Erweiterung)",
        "no-such-card": "diese Karte ist nicht mehr im Spiel (alle Exemplare gespielt)",
        "impossible-shape": "diese Karte kann nicht zu diesem Wert werden: Streichhölzer "
                            "fügen nur Striche hinzu",
        "mixed-values": "die Karten haben nicht einen Wert: den Wert mit AS ansagen",
        "not-enough-sticks": "nicht genug Streichhölzer, um die Karten zu verändern",
        "flash-full": "der Speicher der Box ist voll: der Zug wird nicht ausgeführt",
        "not-your-turn": "dieser Spieler ist nicht am Zug (nie angezeigt: die Box handelt für "
                         "den Spieler am Zug)",
        "has-cards": "der Spieler hat noch Karten und kann kein Streichholz zurückgeben (nie "
                     "angezeigt)",
        "game-over": "das Spiel ist zu Ende (nie als Fehler angezeigt)",
    },
    "setup_means": "; im Einstellungsmenü: ",
    "code_setup": {
        "no-such-card": "die Karten aller Spieler sind zusammen mehr, als das Spiel hat",
        "flash-full": "das neue Spiel wurde nicht gespeichert",
    },
    "status": "Die Box meldet",
    "status_says": {
        "=9: 1": "Vorschau: die Karten gelten als 9 und kosten 1 Streichholz",
        "=_: -": "AS gedrückt: die Werttaste fehlt noch",
        "----": "der Tisch ist leer",
        "Err": "neben einem Code: abgelehnt; eine Kartentaste beginnt neu, DEL oder AS "
               "bessert die Eingabe aus",
        "rEuo|Hi 0": "Revolution: die Reihenfolge ist umgekehrt, jetzt ist 0 am stärksten",
        "PASS|ALL": "der stärkste Wert: alle anderen nehmen ein Streichholz, die Karten "
                    "werden abgeräumt",
        "out|P3": "Spieler 3 ist draußen (Agari): keine Karten und keine Streichhölzer",
        "End|1 P3": "das Spiel ist zu Ende, dann die Rangfolge (1 P3: Spieler 3 ist Erster)",
        "rEF|----": "Übersicht (MENU)",
        "3-9.1|rEF": "Übersicht: aus 3 wird 9 für 1 Streichholz",
        "SEt": "das Einstellungsmenü ist offen",
        "rEPr|   2": "beim Einschalten: 2 beschädigte Zeilen des Spiels repariert; eine Taste "
                  "spielt weiter",
        "LoSt|   3": "beim Einschalten: die letzten 3 Zeilen fehlen; eine Taste spielt weiter",
    },
    "costs": "Was aus jeder Karte werden kann und wie viele Streichhölzer es kostet",
    "costs_note": "Eine Zeile je Karte, eine Spalte je Wert, als der sie gespielt werden kann: "
                  "so viele Streichhölzer kostet das (0: wie sie ist oder umgedreht); leer: "
                  "dieser Wert ist unmöglich. Grau: mit der Erweiterung G/H.",
    "face": "Karte",
    "value": "Wert",
    "base": "Grundspiel",
    "expansion": "G/H",
    "order": "Von schwächster zu stärkster: 0 1 2 3 4 5 6 7 8 9 A b C d E F (G H); eine "
             "Revolution kehrt die Reihenfolge um.",
    "power": "Ein Stromausfall verliert nichts: die Box spielt dort weiter, wo das Spiel "
             "war. UNDO nimmt jeden Zug zurück.",
    "ref_head": "Karte -> Wert(Streichhölzer)",
    "labels_title": "Matchbox: Aufkleber für Tasten und Anzeigen",
    "labels_note": "Mit 100 % (ohne Skalierung) auf Etikettenpapier drucken und an den grauen "
                   "Linien ausschneiden. E kommt auf das * der Tastatur, F auf das #.",
    "labels_keypad": "Tastenfeld",
    "labels_buttons": "Tasten",
    "labels_displays": "Anzeigen",
    "button_words": {"AS": "ansagen", "PLAY": "ausspielen", "PASS": "passen",
                     "DEL": "löschen", "UNDO": "zurück", "MENU": "Menü"},
    "web_intro": "Die Schiedsrichterbox für Matchstick Tycoon, mit ihrer eigenen Firmware "
                 "(MicroPython, im Browser).",
    "web_starting": "Die Box startet…",
    "web_on": "Die Box ist an. Tasten anklicken oder tippen (Tastaturbelegung unten).",
    "web_download": "Aufzeichnung herunterladen",
    "web_load": "Aufzeichnung laden…",
    "web_keymap": "Tastatur und Spielweise",
    "web_keyboard": "Tastatur",
    "web_boxkey": "Taste der Box",
    "web_faces": "die Karten 0-F, G, H",
    "web_long_del": "DEL gehalten (Eingabe löschen)",
    "web_menu": "MENU (Übersicht) / MENU gehalten (Einstellungsmenü)",
    "web_help": "Eine Taste mit Maus oder Finger halten ist ein langer Druck. Eine neue Box "
                "öffnet das Einstellungsmenü: mit PLAY durch die Punkte, dann beginnt das "
                "Spiel. Neu laden ist ein Stromausfall: das Spiel geht mit der Aufzeichnung "
                "in diesem Browser weiter.",
    "web_setup_help": "Die Box ist im Einstellungsmenü (SEt neben dem Punkt): Anzeige 1 zeigt "
                      "einen Punkt und seinen Wert. Den Wert mit den Kartentasten eintippen "
                      "(4 0 = 40); PLAY geht zum nächsten Punkt, DEL zurück, UNDO stellt die "
                      "Vorgabe her. PLAY nach den Karten des letzten Spielers beginnt das Spiel.",
    "web_game": "Das Spiel",
    "web_no_game": "noch kein Spiel",
    "web_turn": "am Zug",
    "web_order": "Reihenfolge",
    "web_table": "Tisch",
    "web_supply": "Tischmitte",
    "web_seat": "Spieler",
    "web_cards": "Karten",
    "web_sticks": "Streichhölzer",
    "web_rank": "Platz",
    "web_happened": "Was geschah",
    "web_to_act": "Spieler {seat}",
    "web_over": "Spiel zu Ende, Rangfolge {ranking}",
    "web_dark": "dunkel",
    "web_no_record": "Noch kein Spiel: im Einstellungsmenü eines beginnen (mit PLAY durch "
                     "die Punkte).",
    "web_downloaded": "Aufzeichnung heruntergeladen (einfache Notation: matchbox replay "
                      "liest sie).",
    "web_loaded": "{name} geladen: die Box wurde damit als laufendes Spiel eingeschaltet.",
    "web_refused": "{name}, Zeile {line}: {kind}: {code}",
    "web_no_game_in": "{name}: in dieser Datei ist kein Spiel",
    "web_storage_full": "{name}: der Speicher der Box ist voll, das laufende Spiel bleibt",
    "web_storage_refused": "Der Speicher des Browsers hat die Aufzeichnung abgelehnt "
                           "({error}): dieses Spiel übersteht kein Neuladen.",
    "web_failed": "Die Box konnte nicht starten: {error}",
    "log_watching": "Beobachtung: {players} Spieler, {turn}",
    "log_to_act": "Spieler {seat} am Zug",
    "log_over": "Spiel zu Ende",
    "log_played": "Spieler {seat} spielt {count} × {value}",
    "log_played_for": "Spieler {seat} spielt {count} × {value} ({sticks})",
    "log_passed": "Spieler {seat} passt",
    "log_returned": "Spieler {seat} gibt ein Streichholz zurück",
    "log_undo": "UNDO (zurückgenommen: {what})",
    "log_new_game": "Neues Spiel: {players} Spieler, Karten {cards}, Spieler {seat} ist "
                    "Geber",
    "log_jumped": "Sprung im Spielstand (Zeilen verpasst?): {turn}",
    "log_revolution": "Revolution! Jetzt ist {value} am stärksten",
    "log_revolution_again": "Noch eine Revolution! Wieder die normale Reihenfolge, {value} "
                            "am stärksten",
    "log_strongest": "{value} ist am stärksten: alle anderen nehmen ein Streichholz",
    "log_last_left": "Spieler {seat} bleibt als Letzter übrig (Platz {rank})",
    "log_went_out": "Spieler {seat} ist draußen (Platz {rank})",
    "log_ranking": "Spiel zu Ende: Rangfolge {ranking}",
    "log_cleared": "Karten abgeräumt: Spieler {seat} ist Geber",
    "log_order_reversed": "REVOLUTION: Reihenfolge umgekehrt, {value} am stärksten",
    "log_order_normal": "normale Reihenfolge, {value} am stärksten",
    "log_table_empty": "leer",
    "log_table": "{count} × {value} von Spieler {seat}, {sticks} darauf",
    "log_sticks_0": "keine Streichhölzer",
    "log_sticks_1": "1 Streichholz",
    "log_sticks": "{n} Streichhölzer",
    "hall_title": "Matchbox-Saal",
    "hall_standings": "Wertung",
    "hall_connecting": "verbinde…",
    "hall_live": "live",
    "hall_reconnecting": "verbinde neu…",
    "hall_no_game": "noch kein Spiel",
    "hall_game_line": "Spiel {game} · Zeile {seq}",
    "hall_finished": "beendet",
    "hall_to_act": "Spieler {seat} am Zug",
    "hall_on_top": "{count} × {value} von Spieler {seat} oben",
    "hall_empty": "Tisch leer",
    "hall_revolution": "Revolution",
    "hall_out": "draußen: {places}",
    "hall_comma": ", ",
    "hall_seat": "Spieler",
    "hall_cards": "Karten",
    "hall_sticks": "Hölzer",
    "hall_place": "Platz",
    "hall_games_done": "Beendete Spiele: {games}.",
    "hall_points_places": "Punkte: in einem Spiel mit n Spielern bekommt Platz 1 "
                          "n\u00a0−\u00a01 Punkte, Platz 2 n\u00a0−\u00a02 und so weiter; der "
                          "letzte Platz bekommt 0.",
    "hall_points_given": "Punkte: {points}; weiter hinten 0.",
    "hall_points_place": "Platz {place}: {points}",
    "hall_act_play": "Spieler {seat} spielt {faces}",
    "hall_act_play_as": "Spieler {seat} spielt {faces} als {value}",
    "hall_act_pass": "Spieler {seat} passt",
    "hall_act_return": "Spieler {seat} gibt ein Streichholz zurück",
    "hall_act_undo": "UNDO: der Zug davor wurde zurückgenommen",
    "hall_display_names": ("Tisch", "Zug", "Karten", "Hölzer"),
    "hall_player": "Spieler",
    "hall_points": "Punkte",
    "hall_games": "Spiele",
    "hall_places": "Plätze",
    "hall_displays_of": "die Anzeigen von {box}",
    "hall_error_line": "Zeile {line}: {kind}: {code}",
    "page_heading": "Matchstick Tycoon: am Tisch",
    "page_intro": "Was die Spieler auf der Box lesen: ihre vier Anzeigen, ihre Tasten und ihre "
                  "Codes. Dieselben Worte stehen auf der Tischkarte zum Ausdrucken, "
                  "`matchbox card --lang de -o karte.pdf` (A4; `--paper letter` oder `a5`): "
                  "beidseitig auf ein Blatt drucken und neben die Box legen.",
    "page_other": "Diese Seite in anderen Sprachen",
    "page_display": "Anzeige",
    "page_example": "Beispiel",
    "page_code": "Code",
    "page_rule": "Regel",
    "page_shows": "die Box zeigt",
    "page_means": "bedeutet",
    "page_becomes": "wird zu (Streichhölzer)",
    "page_with_gh": "mit G/H außerdem",
    "page_setup": "MENU gedrückt halten öffnet das Einstellungsmenü. Jeder Punkt zeigt seine "
                  "Bezeichnung und seinen Wert; die Kartentasten stellen ihn ein, PLAY geht "
                  "zum nächsten Punkt und beginnt nach den Karten des letzten Spielers das "
                  "Spiel. Das laufende Spiel wird archiviert, wenn das neue beginnt; bis dahin "
                  "führt MENU zu ihm zurück. Die letzten Einstellungen merkt sich die Box.",
    "page_power_title": "Stromausfall und Zurücknehmen",
    "page_power": "Jeder Zug wird auf der Box gespeichert, sobald er gemacht ist. Der Stecker "
                  "darf jederzeit gezogen werden: mit dem Strom geht das Spiel beim letzten "
                  "Zug weiter. Fand die Box einen Teil ihrer Aufzeichnung beschädigt, meldet "
                  "sie das beim Einschalten (rEPr oder LoSt mit einer Zahl), bis eine Taste "
                  "gedrückt wird; dann den Tisch mit der Box vergleichen. UNDO nimmt die "
                  "letzte Ausspielung, das letzte Passen oder das zurückgegebene Streichholz "
                  "zurück, und wieder den Zug davor, bis zum Anfang des Spiels.",
    "page_hall_title": "Für Veranstalter: der Saal",
    "page_hall": "Bei einer Veranstaltung mit vielen Tischen zeigt der Saal alle Tische und die "
                 "Wertung auf einer Seite, am Computer oder auf Handys. `matchbox hall serve "
                 "saal` starten, jede Box mit `matchbox hall enrol saal t1` anmelden und die "
                 "Einstellungen, die das schreibt, auf die Box bringen (`matchbox flash "
                 "--hall-settings ...`); dann die genannte Seite öffnen. Die Seite spricht "
                 "Deutsch, Englisch oder Japanisch: die Sprache des Browsers, oder `?lang=de`, "
                 "`?lang=en`, `?lang=ja` hinter ihrer Adresse. Der Saal ändert kein Spiel: "
                 "die Boxen sind Schiedsrichter, der Saal zeigt nur.",
    "page_more": "Mehr (auf Englisch): die Anzeigen (docs/display.md), die Regeln, wie die Box "
                 "sie spielt (docs/rules.md), der Saal (docs/hall.md).",
}

_JA = {
    "title": "マッチ売りの大富豪：審判ボックス",
    "sheet": "テーブルカード",
    "displays": "4つの表示",
    "display_names": ("場", "手番", "手札", "マッチ棒"),
    "display_shows": (
        "場のいちばん上のカード：枚数と数字（3-9：9が3枚）。場が空なら ----",
        "P と手番の席、続いて最強の数字（F、G/H入りなら H）。革命中は r",
        "手番の人の手札の枚数。マッチ棒を1本返す番なら rEtn",
        "手番の人のマッチ棒の本数",
    ),
    "entry": "カードを打ち込む間は、表示3にカード、表示4に予告が出ます：出す数字と、"
             "コロンの後に必要なマッチ棒の本数。",
    "keys": "キー",
    "key": "キー",
    "in_game": "ゲーム中",
    "in_setup": "設定メニュー",
    "face_keys": "0-F, G, H",
    "held": "長押し",
    "key_game": {
        "face": "出すカード（1枚に1キー）。AS の後は、出す数字",
        "AS": "次の数字キーが、カードを出す数字（宣言）",
        "PLAY": "打ち込んだカードを出す。手札が無いとき：マッチ棒を1本返す",
        "PASS": "パスしてマッチ棒を1本取る",
        "DEL": "最後のキーを消す",
        "UNDO": "入力を消す。入力が無ければ直前の手を取り消す（何度でも）",
        "MENU": "早見表：数字キーで、そのカードが何になるかと本数を表示",
        "DEL held": "入力をすべて消す",
        "MENU held": "新しいゲームの設定メニュー（前のゲームは保存）",
    },
    "key_setup": {
        "face": "項目の値を入れる（最初の数字で置き換え：4 0 = 40）",
        "AS": "",
        "PLAY": "次の項目。最後の手札の後でゲーム開始",
        "PASS": "",
        "DEL": "前の項目",
        "UNDO": "項目を初期値に戻す",
        "MENU": "ゲームに戻る",
        "DEL held": "前の項目",
        "MENU held": "設定メニュー",
    },
    "setup": "設定メニュー",
    "setup_items": {
        "PL": "プレイ人数（2～8人）",
        "dL": "最初の親",
        "Gh": "拡張 G/H：G と H を 0、2、4枚ずつ",
        "rE": "革命の枚数 5（4：ハウスルール）",
        "St": "箱のマッチ棒の本数",
        "1=14": "各席の手札の枚数（初期値：配った枚数）",
    },
    "codes": "出せないとき：コードと Err が出て、ゲームは変わりません",
    "code_rules": {
        "must-return": "手札が0枚：PLAY でマッチ棒を1本返す。数字キーは受け付けない",
        "cannot-pass": "親は最初の手番でパスできない：1～5枚出す",
        "too-many-cards": "一度に出せるのは5枚まで",
        "not-in-hand": "この席の手札より多い枚数",
        "wrong-count": "親が出した枚数と同じ枚数を出す（またはカードが未入力）",
        "not-stronger": "場のカードより強くない",
        "no-such-value": "このゲームに無い数字（拡張なしの G、H）",
        "no-such-card": "そのカードはもう残っていない（全部出た）",
        "impossible-shape": "そのカードはその数字にならない：マッチ棒は足すだけ",
        "mixed-values": "カードが同じ数字にならない：AS で数字を宣言する",
        "not-enough-sticks": "カードを変えるマッチ棒が足りない",
        "flash-full": "ボックスの記憶がいっぱい：その手は行われない",
        "not-your-turn": "この席の手番ではない（表示されない：ボックスは手番の席で動く）",
        "has-cards": "まだ手札があるのでマッチ棒は返せない（表示されない）",
        "game-over": "ゲームは終了（エラーとしては表示されない）",
    },
    "setup_means": "。設定メニューでは：",
    "code_setup": {
        "no-such-card": "全員の手札の合計がデッキの枚数より多い",
        "flash-full": "新しいゲームを保存できなかった",
    },
    "status": "ボックスの表示",
    "status_says": {
        "=9: 1": "予告：カードは9として出て、マッチ棒1本",
        "=_: -": "AS の後：数字キーを待っている",
        "----": "場が空",
        "Err": "コードと並んで：その手は出せない。数字キーで打ち直し、DEL や AS で直せる",
        "rEuo|Hi 0": "革命：強弱が逆転、いまは0が最強",
        "PASS|ALL": "最強の数字：他の全員がマッチ棒を1本取り、場が流れる",
        "out|P3": "席3がアガリ：手札0枚、マッチ棒0本",
        "End|1 P3": "ゲーム終了、続いて順位（1 P3：1位は席3）",
        "rEF|----": "早見表（MENU）",
        "3-9.1|rEF": "早見表：3はマッチ棒1本で9になる",
        "SEt": "設定メニューが開いている",
        "rEPr|   2": "電源を入れたとき：壊れた記録2行を修復。どのキーでも続く",
        "LoSt|   3": "電源を入れたとき：最後の3行は戻せなかった。どのキーでも続く",
    },
    "costs": "カードが何になるか、マッチ棒の本数",
    "costs_note": "行はカード、列はそのカードを出せる数字：必要なマッチ棒の本数（0：そのまま、"
                  "またはひっくり返して）。空欄：その数字にはならない。網かけ：拡張 G/H。",
    "face": "カード",
    "value": "数字",
    "base": "基本",
    "expansion": "G/H",
    "order": "弱い 0 1 2 3 4 5 6 7 8 9 A b C d E F (G H) 強い。革命で強弱が逆転。",
    "power": "停電しても何も失われません：ボックスはそのままゲームを続けます。UNDO でどの手も"
             "取り消せます。",
    "ref_head": "カード -> 数字(マッチ棒)",
    "labels_title": "Matchbox：キーと表示のシール",
    "labels_note": "シール用紙に100 %（拡大縮小なし）で印刷し、灰色の線で切ってください。"
                   "E はキーパッドの * に、F は # に貼ります。",
    "labels_keypad": "キーパッド",
    "labels_buttons": "ボタン",
    "labels_displays": "表示",
    "button_words": {"AS": "宣言", "PLAY": "出す", "PASS": "パス", "DEL": "消す",
                     "UNDO": "取消", "MENU": "メニュー"},
    "web_intro": "マッチ売りの大富豪の審判ボックス。ボックス自身のファームウェアがブラウザの中"
                 "で（MicroPython で）動きます。",
    "web_starting": "ボックスを起動中…",
    "web_on": "ボックスが動いています。キーをクリックするか打ち込んでください（キーボードの"
              "対応は下）。",
    "web_download": "記録をダウンロード",
    "web_load": "記録を読み込む…",
    "web_keymap": "キーボードと遊び方",
    "web_keyboard": "キーボード",
    "web_boxkey": "ボックスのキー",
    "web_faces": "カード 0-F, G, H",
    "web_long_del": "DEL 長押し（入力を消す）",
    "web_menu": "MENU（早見表）/ MENU 長押し（設定メニュー）",
    "web_help": "マウスや指でキーを押したままにすると長押しです。新しいボックスは設定メニュー"
                "から始まります：PLAY で項目を進めるとゲーム開始。ページの再読み込みは停電と"
                "同じ：このブラウザに残る記録からゲームが続きます。",
    "web_setup_help": "ボックスは設定メニューです（項目の横に SEt）：表示1に項目と値。数字キーで"
                      "値を入れ（4 0 = 40）、PLAY で次の項目、DEL で前の項目、UNDO で初期値。"
                      "最後の席の手札の後の PLAY でゲーム開始。",
    "web_game": "ゲーム",
    "web_no_game": "まだゲームなし",
    "web_turn": "手番",
    "web_order": "強弱",
    "web_table": "場",
    "web_supply": "中央のマッチ棒",
    "web_seat": "席",
    "web_cards": "手札",
    "web_sticks": "マッチ棒",
    "web_rank": "順位",
    "web_happened": "経過",
    "web_to_act": "席{seat}",
    "web_over": "ゲーム終了、順位 {ranking}",
    "web_dark": "消灯",
    "web_no_record": "まだゲームがありません：設定メニューで始めてください（PLAY で項目を"
                     "進める）。",
    "web_downloaded": "記録をダウンロードしました（テキストの記譜：matchbox replay で読め"
                      "ます）。",
    "web_loaded": "{name} を読み込みました：ボックスはこれを進行中のゲームとして起動しました。",
    "web_refused": "{name} の {line} 行目：{kind}: {code}",
    "web_no_game_in": "{name}：このファイルにゲームがありません",
    "web_storage_full": "{name}：ボックスの記憶がいっぱいです。進行中のゲームはそのままです",
    "web_storage_refused": "ブラウザの記憶領域が記録を拒みました（{error}）：再読み込みする"
                           "とこのゲームは失われます。",
    "web_failed": "ボックスを起動できませんでした：{error}",
    "log_watching": "観戦：{players}人、{turn}",
    "log_to_act": "席{seat}の手番",
    "log_over": "ゲーム終了",
    "log_played": "席{seat}が {value} を{count}枚出した",
    "log_played_for": "席{seat}が {value} を{count}枚出した（マッチ棒{sticks}）",
    "log_passed": "席{seat}がパス",
    "log_returned": "席{seat}がマッチ棒を1本返した",
    "log_undo": "取り消し（{what}）",
    "log_new_game": "新しいゲーム：{players}人、手札 {cards}、親は席{seat}",
    "log_jumped": "状態が飛んだ（行の見落とし？）：{turn}",
    "log_revolution": "革命！ いまは {value} が最強",
    "log_revolution_again": "革命返し！ 強弱が元に戻り、{value} が最強",
    "log_strongest": "{value} は最強：他の全員がマッチ棒を1本取る",
    "log_last_left": "席{seat}が最後の1人（{rank}位）",
    "log_went_out": "席{seat}がアガリ（{rank}位）",
    "log_ranking": "ゲーム終了：順位 {ranking}",
    "log_cleared": "場が流れた：親は席{seat}",
    "log_order_reversed": "革命中：強弱が逆転、{value} が最強",
    "log_order_normal": "通常の強弱、{value} が最強",
    "log_table_empty": "空",
    "log_table": "席{seat}の {value} が{count}枚、マッチ棒{sticks}",
    "log_sticks_0": "なし",
    "log_sticks_1": "1本",
    "log_sticks": "{n}本",
    "hall_title": "Matchbox 会場",
    "hall_standings": "順位表",
    "hall_connecting": "接続中…",
    "hall_live": "ライブ",
    "hall_reconnecting": "再接続中…",
    "hall_no_game": "まだゲームなし",
    "hall_game_line": "ゲーム {game} · {seq} 行目",
    "hall_finished": "終了",
    "hall_to_act": "席{seat}の手番",
    "hall_on_top": "場は席{seat}の {value} が {count} 枚",
    "hall_empty": "場は空",
    "hall_revolution": "革命中",
    "hall_out": "アガリ：{places}",
    "hall_comma": "、",
    "hall_seat": "席",
    "hall_cards": "手札",
    "hall_sticks": "マッチ棒",
    "hall_place": "順位",
    "hall_games_done": "終わったゲーム：{games}。",
    "hall_points_places": "点：n人のゲームでは1位が n−1 点、2位が n−2 点…と続き、最下位は0点。",
    "hall_points_given": "点：{points}。それより下の順位は0点。",
    "hall_points_place": "{place}位 {points}点",
    "hall_act_play": "席{seat}が {faces} を出した",
    "hall_act_play_as": "席{seat}が {faces} を {value} として出した",
    "hall_act_pass": "席{seat}がパス",
    "hall_act_return": "席{seat}がマッチ棒を1本返した",
    "hall_act_undo": "取り消し：直前の手を取り消した",
    "hall_display_names": ("場", "手番", "手札", "マッチ棒"),
    "hall_player": "プレイヤー",
    "hall_points": "点",
    "hall_games": "ゲーム",
    "hall_places": "順位",
    "hall_displays_of": "{box} の表示",
    "hall_error_line": "{line} 行目：{kind}: {code}",
    "page_heading": "マッチ売りの大富豪：テーブルで",
    "page_intro": "プレイヤーがボックスで読むもの：4つの表示、キー、コード。同じ言葉が印刷用の"
                  "テーブルカードにあります：`matchbox card --lang ja -o card.pdf`（A4。"
                  "`--paper letter` または `a5`）。1枚の両面に印刷して、ボックスの横に置いて"
                  "ください。",
    "page_other": "ほかの言語",
    "page_display": "表示",
    "page_example": "例",
    "page_code": "コード",
    "page_rule": "ルール",
    "page_shows": "ボックスの表示",
    "page_means": "意味",
    "page_becomes": "なる数字（マッチ棒）",
    "page_with_gh": "G/H 入りではさらに",
    "page_setup": "MENU を長押しすると設定メニューです。各項目はその名前と値を表示します。数字"
                  "キーで値を入れ、PLAY で次の項目へ。最後の席の手札の後でゲームが始まります。"
                  "新しいゲームが始まると前のゲームは保存され、それまでは MENU で前のゲームに戻"
                  "れます。最後の設定は記憶されます。",
    "page_power_title": "停電と取り消し",
    "page_power": "どの手も、出した瞬間にボックスに保存されます。いつ電源を抜いても、電源が戻"
                  "れば最後の手からゲームが続きます。記録の一部が壊れていたときは、電源を入れ"
                  "たときに（rEPr または LoSt と数で）キーを押すまで知らせます。そのときは場と"
                  "ボックスを見比べてください。UNDO は直前に出したカード、パス、返したマッチ棒"
                  "を取り消し、もう一度押せばその前の手も、ゲームの最初まで取り消せます。",
    "page_hall_title": "主催者の方へ：会場",
    "page_hall": "テーブルが多いイベントでは、会場のページが全テーブルと順位を1ページに、"
                 "パソコンやスマートフォンで表示します。`matchbox hall serve hall` を起動し、"
                 "各ボックスを `matchbox hall enrol hall t1` で登録して、書き出された設定を"
                 "そのボックスに入れます（`matchbox flash --hall-settings ...`）。表示された"
                 "ページを開いてください。ページは日本語・英語・ドイツ語に対応します：ブラウザ"
                 "の言語、またはアドレスの後に `?lang=ja`、`?lang=en`、`?lang=de`。会場はゲーム"
                 "を変えません：審判はボックス、会場は表示するだけです。",
    "page_more": "詳しくは（英語）：表示 (docs/display.md)、ボックスが判定するルール "
                 "(docs/rules.md)、会場 (docs/hall.md)。",
}

WORDS = {"en": _EN, "de": _DE, "ja": _JA}


def words(lang):
    """The words of one language (a dict); KeyError for a language not here."""
    return WORDS[lang]


def key_label(row, lang=DEFAULT):
    """How a key row is named: its name, the faces' row as '0-F, G, H', ' held' translated."""
    w = WORDS[lang]
    if row == "face":
        return w["face_keys"]
    return row.replace(" held", " " + w["held"])


# --- the firmware's tables, which every table above must cover -------------------------------

def codes():
    """[(code, the text the displays show for it)] of the firmware's refusal table
    (box.screens.errors()), the rules' codes first in the order of the words above."""
    table = resources.firmware_module("box.screens").errors()
    order = list(_EN["code_rules"])
    return sorted(((code, text.decode()) for code, text in table.items()),
                  key=lambda item: order.index(item[0]) if item[0] in order else len(order))


def key_rows():
    """The keys' rows of the tables: the faces as one row, then every other key of the
    firmware's keypad (box.keys.NAMES), then the long presses the app takes."""
    names = resources.firmware_module("box.keys").NAMES
    faces = resources.firmware_module("box.panels").FACES
    return ["face"] + [n for n in names if n not in faces] + [r for r in KEY_ROWS if " " in r]


def setup_items():
    """The setup menu's item labels as the displays show them (box.setup), then the hands."""
    labels = resources.firmware_module("box.setup")._LABELS
    return [label.decode() for label in labels] + ["1=14"]


def ref_lines(faces, values, lang=DEFAULT):
    """The quick reference as lines of text: what each face becomes, at what cost."""
    cards = resources.firmware_module("tycoon.cards")
    out = [WORDS[lang]["ref_head"]]
    for face in faces:
        options = ["%s(%d)" % (cards.char(v), c) for v, c in cards.becomes(face, values)]
        out.append("%s -> %s" % (cards.char(face), " ".join(options)))
    return out


def missing():
    """What the firmware's tables hold that a language has no words for, as lines ('ja: the
    code no-such-move'); empty when every language covers them all."""
    out = []
    for lang in LANGUAGES:
        w = WORDS[lang]
        wanted = [("code_rules", code) for code, _ in codes()]
        wanted += [(table, row) for row in key_rows() for table in ("key_game", "key_setup")]
        wanted += [("setup_items", item) for item in setup_items()]
        wanted += [("code_setup", code) for code in _EN["code_setup"]]
        wanted += [("status_says", shown) for shown in STATUS]
        out += ["%s: %s %s" % (lang, table, key) for table, key in wanted if key not in w[table]]
        out += ["%s: %s" % (lang, key) for key in WORDS[DEFAULT] if key not in w]
    out += ["every language: the display of setup item %s" % item for item in setup_items()
            if item not in SETUP_SHOWN]
    return out


def page_words(prefix, extra=()):
    """{language: {key: text}} of the words whose keys start with `prefix` ('web_', 'hall_', or
    a tuple of such) and those named in `extra`: what a page carries, as JSON, to set its
    labels in the reader's language."""
    return {lang: {k: v for k, v in WORDS[lang].items() if k.startswith(prefix) or k in extra}
            for lang in LANGUAGES}


# Sets a page's labels in the reader's language: ?lang=ja|de|en, else the browser's first
# language that is here, else English. Every element with data-w="KEY" gets the text of KEY;
# W("KEY", {name: value}) gives a phrase with its {name}s filled in, for the page's scripts.
_PAGE_SCRIPT = """<script>
"use strict";
(function () {
  const words = %s;
  const wanted = [new URLSearchParams(location.search).get("lang")]
    .concat(navigator.languages || [navigator.language]);
  let lang = "en";
  for (const l of wanted) {
    const k = (l || "").slice(0, 2).toLowerCase();
    if (words[k]) { lang = k; break; }
  }
  const W = (key, args) => {
    let text = words[lang][key] || words.en[key] || key;
    for (const name in args || {}) text = text.split("{" + name + "}").join(String(args[name]));
    return text;
  };
  W.lang = lang;
  window.W = W;
  document.documentElement.lang = lang;
  const label = () => document.querySelectorAll("[data-w]")
    .forEach(e => { e.textContent = W(e.dataset.w); });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", label);
  else label();
})();
</script>"""


def page_script(prefix, extra=()):
    """The <script> that sets a page's labels (those of page_words(prefix, extra)) in the
    reader's language; the page puts it in its <head>."""
    import json
    data = json.dumps(page_words(prefix, extra), ensure_ascii=False, sort_keys=True)
    return _PAGE_SCRIPT % data.replace("</", "<\\/")


def code_rule(code, lang=DEFAULT):
    """A refusal code's rule in one sentence, with what it means in the setup menu, if anything else."""
    w = WORDS[lang]
    rule = w["code_rules"][code]
    if code in w["code_setup"]:
        rule += w["setup_means"] + w["code_setup"][code]
    return rule
