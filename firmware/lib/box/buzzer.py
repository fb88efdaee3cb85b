"""Optional piezo buzzer: short non-blocking tone sequences on an injected PWM-like object.

The object needs freq(hz) and duty_u16(duty), like machine.PWM. play() starts a sequence,
service(now_ms) from the main loop advances it. With no PWM (pwm=None) every call is a
no-op, so the firmware can call it unconditionally.
"""
from box import ticks_diff

# Sequences: tuples of (frequency in Hz, duration in ms); frequency 0 is a rest.
ACCEPT = ((2093, 40),)
REJECT = ((220, 120), (0, 50), (220, 160))
REVOLUTION = ((523, 70), (659, 70), (784, 70), (1047, 180))



class Buzzer:
    """Plays one sequence at a time; a new play() replaces the one sounding."""

    def __init__(self, pwm=None, ticks_ms=None, duty=32768):
        self.pwm = pwm
        self.enabled = True  # False mutes (a menu setting)
        self._clock = ticks_ms
        self._duty = duty
        self._seq = None
        self._i = 0
        self._end = 0  # tick at which the current tone ends
        if pwm is not None:
            pwm.duty_u16(0)

    def play(self, seq, now_ms=None):
        """Start a tone sequence (ACCEPT, REJECT, REVOLUTION or your own)."""
        if self.pwm is None or not self.enabled:
            return
        self._seq = seq
        self._i = 0
        self._tone(self._now(now_ms))

    def service(self, now_ms=None):
        """Advance the sequence; call often (every few ms) from the main loop."""
        if self._seq is None:
            return
        now = self._now(now_ms)
        if ticks_diff(now, self._end) < 0:
            return
        self._i += 1
        if self._i < len(self._seq):
            self._tone(now)
        else:
            self.stop()

    def busy(self):
        """Whether a sequence is still sounding."""
        return self._seq is not None

    def stop(self):
        """Silence the buzzer at once."""
        self._seq = None
        if self.pwm is not None:
            self.pwm.duty_u16(0)

    def _now(self, now_ms):
        return self._clock() if now_ms is None else now_ms

    def _tone(self, now):
        hz, ms = self._seq[self._i]
        if hz:
            self.pwm.freq(hz)
            self.pwm.duty_u16(self._duty)
        else:
            self.pwm.duty_u16(0)
        self._end = (now + ms) & 0x3FFFFFFF
