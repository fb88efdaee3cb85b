"""The terminal simulator (`matchbox sim` in a terminal): keyboard, words, layout, session,
painter and the curses loop (tui)."""
