"""The firmware version; `matchbox doctor` compares the board's with the local one."""
VERSION = "0.1.0"
