"""An event's rounds (docs/event.md): players by name, the seating of each round, the boxes'
setups, standings by round, the printed sheets. One module a job:

    seating    who sits at which table in each round: repeated meetings as few as possible,
               the first dealer's seat and the smaller tables shared out (pure)
    scoring    points per place scaled for the table's size, an unfinished game settled by
               the organiser's rule, tie-breaks (pure)
    store      the event's files in the hall's folder (event/): players, rounds, claims; every
               change checked first, then written whole (host_tools.files)
    sheets     the seating list, a slip per table and the standings as a PDF in English,
               German and Japanese (the table card's fonts)

The hall (host_tools.hall) ties each table's record to its round, publishes each box its
round's setup and shows the round on its page; `matchbox event` is host_tools.commands.event.
Nothing here imports the hall.
"""
