"""The parts of `matchbox report`: a record read into a trace, the plot, the HTML page."""
