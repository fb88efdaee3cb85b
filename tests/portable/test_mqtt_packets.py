"""The packets of the box's MQTT client (box.mqtt_link) against MQTT 3.1.1's own examples and
limits: the remaining length in one to four bytes, strings with their two-byte length, and a
PUBLISH from the broker read or refused with a ValueError (never another error) when it is
malformed. CPython and MicroPython."""
from box import mqtt_link


def raises_value_error(fn, *args):
    try:
        fn(*args)
    except ValueError:
        return True
    return False


def test_remaining_length_in_one_to_four_bytes():
    # the standard's table (2.2.3): the first and last value of each length of the field
    for size, field in ((0, b"\x00"), (127, b"\x7f"), (128, b"\x80\x01"),
                        (16383, b"\xff\x7f"), (16384, b"\x80\x80\x01"),
                        (2097151, b"\xff\xff\x7f"), (2097152, b"\x80\x80\x80\x01"),
                        (268435455, b"\xff\xff\xff\x7f")):
        assert mqtt_link._remaining(b"\x30" + field) == (size, 1 + len(field)), size
        assert mqtt_link._remaining(b"\x30" + field + b"more") == (size, 1 + len(field))


def test_a_header_not_all_in_is_waited_for_and_a_fifth_length_byte_refused():
    for part in (b"\x30", b"\x30\x80", b"\x30\xff\xff", b"\x30\xff\xff\xff"):
        assert mqtt_link._remaining(part) is None, part
    assert raises_value_error(mqtt_link._remaining, b"\x30\xff\xff\xff\xff")
    assert raises_value_error(mqtt_link._remaining, b"\x30\x80\x80\x80\x80\x01")


def test_encoded_packets_read_back():
    for size in (0, 1, 127, 128, 300, 16383, 16384):
        body = bytes(size % 251 for _ in range(size))
        packet = mqtt_link._encode(0x32, b"ab", body)
        got = mqtt_link._remaining(packet)
        assert got is not None and got[0] == size + 2
        assert packet[0] == 0x32 and packet[got[1]:] == b"ab" + body
        assert len(packet) == got[1] + size + 2


class Huge:
    """Stands for a part over the 256 MB a remaining length can say."""

    def __len__(self):
        return 0x10000000


def test_a_packet_over_256_mb_and_a_string_over_64_kb_are_refused():
    assert raises_value_error(mqtt_link._encode, 0x30, Huge())
    assert mqtt_link._field(b"MQTT") == b"\x00\x04MQTT"
    assert mqtt_link._field(b"") == b"\x00\x00"
    assert len(mqtt_link._field(bytes(65535))) == 65537
    assert raises_value_error(mqtt_link._field, bytes(65536))


def test_a_publish_from_the_broker_is_read():
    topic = b"matchbox/t1/ack"
    body = mqtt_link._field(topic) + b"\x01\x02" + b'{"hall": "b"}'
    packet = bytes(mqtt_link._encode(0x33, body))   # QoS 1, retained
    assert mqtt_link._publish_in(packet, 2) == (topic, b'{"hall": "b"}', b"\x01\x02")
    packet = bytes(mqtt_link._encode(0x30, mqtt_link._field(topic) + b"x"))   # QoS 0
    assert mqtt_link._publish_in(packet, 2) == (topic, b"x", b"")
    packet = bytes(mqtt_link._encode(0x3A, mqtt_link._field(b"t") + b"\x00\x07"))   # DUP, empty
    assert mqtt_link._publish_in(packet, 2) == (b"t", b"", b"\x00\x07")


def test_a_malformed_publish_is_refused_with_a_value_error():
    for packet in (b"\x32\x00",                       # no topic's length
                   b"\x32\x01\x00",                   # half of it
                   b"\x30\x04\x00\x09ab",             # a topic longer than the packet
                   b"\x32\x03\x00\x01t",              # QoS 1 without its packet id
                   b"\x32\x04\x00\x01t\x00",          # half a packet id
                   b"\x32\x05\x00\x01t\x00\x00",      # packet id 0
                   b"\x34\x05\x00\x01t\x00\x01",      # QoS 2: not taken
                   b"\x36\x05\x00\x01t\x00\x01"):     # QoS 3: no QoS
        assert raises_value_error(mqtt_link._publish_in, packet, 2), packet
