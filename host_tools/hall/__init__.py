"""The hall: every table of an event on one page, over an MQTT broker (docs/hall.md).

Each box publishes the lines of its journal to the hall's broker; the hall keeps every table's
record on disk, acknowledges what it has stored, and serves the tables, their records and the
standings over HTTP. One module a job:

    accounts   box names, passwords (stored hashed), the hall's own service account
    mosquitto  a Mosquitto 2 configuration for an external broker
    broker     the embedded broker (amqtt) with the accounts and the per-box topic rule
    certs      the hall's own CA and its certificates for TLS on the room's network, and
               the one place TLS becomes a listener's configuration (amqtt, Mosquitto, page)
    protocol   topics and messages: a journal line, the hall's acknowledgement
    records    each table's record in the hall's folder, durable, in sequence, no duplicates
    keeper     the hall's MQTT client: stores what the boxes send, acknowledges it
    uplink     the host's side of a box's uplink (the firmware's box.mqtt_link): the box's
               settings file, a flash folder's games, waiting for the hall's acknowledgement
    standings  places and points across the games of the event
    rounds     an event's rounds (host_tools.event): each table's record tied to its round,
               the standings by round, what the page shows of them
    setups     each box of an event its table's setup for the round, on its setup topic
    displays   a table's four displays, drawn by the firmware's screens
    site       the HTTP side: tables, records, standings, the live page
    nats       the audience broker (nats-server): its accounts, listeners, leaf nodes
    audience   the views published to it, which every page follows over MQTT/WebSockets
    command    `matchbox hall enrol | serve | mosquitto-conf`
"""
