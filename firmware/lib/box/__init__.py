"""Box application modules: pin map, display, keypad and buzzer drivers (hardware injected)."""
