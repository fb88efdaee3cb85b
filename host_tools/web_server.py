"""The HTTP server of `matchbox web` and of the hall's page: GET only, held up to idle and
slow clients.

A connection that has not sent its request within IDLE_S seconds is closed, at most
MAX_CONNECTIONS are open at once (the longest idle one is closed to make room for a new one),
and folders are never listed. Built on the standard library's http.server, which does the
protocol; what is added here is only the bound on connections and idle clients.
"""
import http.server
import socket
import threading

TYPES = {".mjs": "text/javascript", ".js": "text/javascript", ".wasm": "application/wasm",
         ".py": "text/plain; charset=utf-8", ".json": "application/json", ".css": "text/css",
         ".html": "text/html; charset=utf-8", ".svg": "image/svg+xml"}
IDLE_S = 10            # seconds a connection may stay silent before its request line
MAX_CONNECTIONS = 64   # open connections at most (far below the usual 1024 open files)


class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = dict(http.server.SimpleHTTPRequestHandler.extensions_map, **TYPES)
    timeout = IDLE_S   # on the socket: a silent client is dropped, its thread ends

    def log_message(self, format, *args):
        pass

    def end_headers(self):
        self.send_header("Cache-Control", "no-cache")
        http.server.SimpleHTTPRequestHandler.end_headers(self)

    def list_directory(self, path):
        self.send_error(404, "Not found")
        return None

    def handle_one_request(self):
        # Busy from the first byte of a request until its answer is sent; idle otherwise.
        self.server.idle(self.connection, True)
        try:
            self.rfile.peek(1)
        except (OSError, ValueError):
            self.close_connection = True
            return
        self.server.idle(self.connection, False)
        http.server.SimpleHTTPRequestHandler.handle_one_request(self)


class Server(http.server.ThreadingHTTPServer):
    """A ThreadingHTTPServer with a bound on open connections: at the bound, the connection
    idle the longest (accepted, no request yet) is closed to let a new one in."""
    daemon_threads = True
    request_queue_size = 128

    def __init__(self, address, handler, max_connections=MAX_CONNECTIONS):
        self.max_connections = max_connections
        self._open = {}    # socket -> idle (no request under way), in the order accepted
        self._lock = threading.Lock()
        http.server.ThreadingHTTPServer.__init__(self, address, handler)

    def idle(self, conn, idle):
        with self._lock:
            if conn in self._open:
                self._open[conn] = idle

    def open_connections(self):
        with self._lock:
            return len(self._open)

    def process_request(self, request, client_address):
        with self._lock:
            while len(self._open) >= self.max_connections:
                oldest = next((c for c, idle in self._open.items() if idle), None)
                if oldest is None:
                    break
                del self._open[oldest]
                try:
                    oldest.shutdown(socket.SHUT_RDWR)   # its thread reads EOF and ends
                except OSError:
                    pass
            if len(self._open) >= self.max_connections:
                refuse = True
            else:
                refuse = False
                self._open[request] = True
        if refuse:   # every open connection is busy sending: this one must wait its turn
            self.shutdown_request(request)
            return
        http.server.ThreadingHTTPServer.process_request(self, request, client_address)

    def shutdown_request(self, request):
        with self._lock:
            self._open.pop(request, None)
        http.server.ThreadingHTTPServer.shutdown_request(self, request)
