"""The link to a real board: the serial connection (mpremote), building and staging the firmware, finding tools."""
