"""Matchstick Tycoon rules engine, shared by the Pico firmware and the host tools."""
