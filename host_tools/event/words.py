"""The words of an event's sheets (host_tools.event.sheets) and of the event's part of the
hall's page, in English, German and Japanese: their own table beside host_tools.words (the
box's words), in the manuals' vocabulary (dealer / Geber / 親, matchsticks / Streichhölzer /
マッチ棒). Phrases take {names}, filled by format()."""

LANGUAGES = ("en", "de", "ja")

_EN = {
    "event": "Event",
    "round_of": "Round {round} of {rounds}",
    "seating": "Seating, round {round}",
    "seating_note": "Find your name: your table and seat. Seat 1 leads first; the others "
                    "follow clockwise in the order of their seats.",
    "name": "Name",
    "table": "Table",
    "seat": "Seat",
    "box": "Box",
    "slip": "Round {round}, table {table}",
    "slip_seats": "Sit clockwise in this order. Seat 1 leads first.",
    "slip_box_net": "The box ({box}) with the hall's Wi-Fi shows t {table} in its setup menu "
                    "for this round: press PLAY.",
    "slip_box_hand": "Without the hall: hold MENU, then key in each item and press PLAY:",
    "setup_players": "PL players",
    "setup_dealer": "dL first dealer",
    "setup_expansion": "Gh copies of G and H",
    "setup_revolution": "rE cards of a revolution",
    "setup_sticks": "St matchsticks",
    "setup_hands": "hands: as the box deals them (PLAY on each)",
    "slip_end": "At the end the box shows the places; the hall has them. Leave the box on.",
    "standings": "Standings after round {round}",
    "rank": "Rank",
    "player": "Player",
    "points": "Points",
    "opponents": "Opp.",
    "firsts": "1st",
    "games": "Games",
    "places": "Places by round",
    "points_rule": "Place k at a table of n players: {scale} × (n − k) / (n − 1) points (a "
                   "win {scale}, the last place 0). Ties: the points of the opponents met, "
                   "then first places; then a shared rank.",
    "unfinished_standing": "A game unfinished at the round's end: the players out keep "
                           "their places, the others are placed by cards, then matchsticks "
                           "left (fewer first).",
    "unfinished_shared": "A game unfinished at the round's end: the players out keep their "
                         "places, the others share the places left.",
    "unfinished_void": "A game unfinished at the round's end gives no points.",
    "no_record": "no record yet",
    "finished": "finished",
    "unfinished": "unfinished",
    "flagged": "not counted",
    "leads": "leads first",
    "none": "no round seated yet",
}

_DE = {
    "event": "Turnier",
    "round_of": "Runde {round} von {rounds}",
    "seating": "Sitzplan, Runde {round}",
    "seating_note": "Suche deinen Namen: dein Tisch und Platz. Platz 1 beginnt als Geber; "
                    "die anderen folgen im Uhrzeigersinn nach ihren Plätzen.",
    "name": "Name",
    "table": "Tisch",
    "seat": "Platz",
    "box": "Box",
    "slip": "Runde {round}, Tisch {table}",
    "slip_seats": "Setzt euch im Uhrzeigersinn in dieser Reihenfolge. Platz 1 beginnt.",
    "slip_box_net": "Die Box ({box}) im WLAN des Saals zeigt im Einstellungsmenü t {table} für "
                    "diese Runde: PLAY drücken.",
    "slip_box_hand": "Ohne den Saal: MENU halten, dann jeden Punkt eintippen und PLAY "
                     "drücken:",
    "setup_players": "PL Spieler",
    "setup_dealer": "dL erster Geber",
    "setup_expansion": "Gh Karten G und H",
    "setup_revolution": "rE Karten einer Revolution",
    "setup_sticks": "St Streichhölzer",
    "setup_hands": "Handkarten: wie die Box sie verteilt (jeweils PLAY)",
    "slip_end": "Am Ende zeigt die Box die Plätze; der Saal hat sie. Box eingeschaltet lassen.",
    "standings": "Wertung nach Runde {round}",
    "rank": "Rang",
    "player": "Spieler",
    "points": "Punkte",
    "opponents": "Gegn.",
    "firsts": "1.",
    "games": "Spiele",
    "places": "Plätze je Runde",
    "points_rule": "Platz k an einem Tisch mit n Spielern: {scale} × (n − k) / (n − 1) Punkte "
                   "(ein Sieg {scale}, der letzte Platz 0). Gleichstand: die Punkte der "
                   "Gegner, dann erste Plätze; dann ein geteilter Rang.",
    "unfinished_standing": "Ein Spiel, das bei Rundenende nicht fertig ist: wer draußen ist, "
                           "behält den Platz, die anderen nach Karten, dann Streichhölzern "
                           "(weniger zuerst).",
    "unfinished_shared": "Ein Spiel, das bei Rundenende nicht fertig ist: wer draußen ist, "
                         "behält den Platz, die anderen teilen sich die übrigen Plätze.",
    "unfinished_void": "Ein Spiel, das bei Rundenende nicht fertig ist, zählt keine Punkte.",
    "no_record": "noch kein Spiel",
    "finished": "beendet",
    "unfinished": "nicht beendet",
    "flagged": "nicht gewertet",
    "leads": "beginnt",
    "none": "noch keine Runde gesetzt",
}

_JA = {
    "event": "大会",
    "round_of": "第{round}回戦（全{rounds}回戦）",
    "seating": "座席表　第{round}回戦",
    "seating_note": "自分の名前を探してください：テーブルと席です。席1が最初の親で、ほかの人は"
                    "席の順に時計回りに座ります。",
    "name": "名前",
    "table": "テーブル",
    "seat": "席",
    "box": "ボックス",
    "slip": "第{round}回戦　テーブル{table}",
    "slip_seats": "この順に時計回りに座ってください。席1が最初の親です。",
    "slip_box_net": "会場のWi-Fiにつながったボックス（{box}）は、この回戦の設定メニューに "
                    "t {table} と表示します：PLAY を押してください。",
    "slip_box_hand": "会場につながらないとき：MENU を長押しし、各項目を入力して PLAY：",
    "setup_players": "PL 人数",
    "setup_dealer": "dL 最初の親",
    "setup_expansion": "Gh G と H の枚数",
    "setup_revolution": "rE 革命の枚数",
    "setup_sticks": "St マッチ棒",
    "setup_hands": "手札：ボックスの配るとおり（それぞれ PLAY）",
    "slip_end": "終わるとボックスが順位を表示し、会場にも届きます。電源は入れたままにしてください。",
    "standings": "順位　第{round}回戦終了時",
    "rank": "順位",
    "player": "名前",
    "points": "点",
    "opponents": "相手点",
    "firsts": "1位",
    "games": "試合",
    "places": "各回戦の順位",
    "points_rule": "n人のテーブルでk位：{scale} × (n − k) / (n − 1) 点（1位は{scale}点、最下位は"
                   "0点）。同点のときは対戦相手の点の合計、次に1位の回数、それでも同じなら同順位。",
    "unfinished_standing": "回戦の終わりに終わっていないゲーム：アガった人はその順位、残りの人は"
                           "手札の少ない順、次にマッチ棒の少ない順。",
    "unfinished_shared": "回戦の終わりに終わっていないゲーム：アガった人はその順位、残りの人は"
                         "残った順位の点を分け合います。",
    "unfinished_void": "回戦の終わりに終わっていないゲームは点になりません。",
    "no_record": "記録なし",
    "finished": "終了",
    "unfinished": "途中",
    "flagged": "数えない",
    "leads": "最初の親",
    "none": "まだ回戦がありません",
}

WORDS = {"en": _EN, "de": _DE, "ja": _JA}


def words(lang):
    return WORDS[lang]


def missing():
    """Keys a language lacks (the English ones are the list)."""
    return ["%s: %s" % (lang, k) for lang in LANGUAGES for k in _EN if k not in WORDS[lang]]


def page_script():
    """A <script> giving the hall page's event block its words: window.EW[lang][key]."""
    import json
    data = json.dumps(WORDS, ensure_ascii=False, sort_keys=True)
    return "<script>window.EW = %s;</script>" % data.replace("</", "<\\/")
