"""The HTTP server of `matchbox web` and of the hall's page: GET only, held up to idle, slow
and large requests and to clients that go away.

A request (its line and headers) must arrive whole within REQUEST_S seconds of the
connection's turn to speak (total, however slowly it drips in) and within MAX_HEAD bytes (431
past them); at most MAX_CONNECTIONS are open at once, MAX_PER_CLIENT from one address: at
either bound a new connection closes the one of them that has waited longest for its request.
A path that is not one (a NUL or another control character, bytes that are not UTF-8 once
%-decoded) gets 400; folders are never listed. Given an ssl.SSLContext (the hall's page on the
room's network) it speaks HTTPS only: the TLS handshake is part of the request's REQUEST_S
and of its place among the connections that wait; a request in plain HTTP gets one line in
plain HTTP saying to use https://, and the connection closes. A client going away (a broken pipe, a reset)
ends its connection quietly; any other fault while answering is one line on stderr, never a
traceback.

Built on the standard library's http.server, which does the protocol. What is written here is
the reading of the request's head: http.server reads it line by line with a timeout on each
read of the socket (so a client sending a byte every few seconds holds a thread for ever) and
allows 100 header lines of 64 KB each (6 MB); here it is read from the socket against one
deadline and one byte budget, then handed to http.server to parse. The standard library has
neither bound, and asyncio's HTTP-less streams would mean writing the protocol too.
"""
import http.server
import io
import socket
import ssl
import sys
import threading
import time
import urllib.parse

TYPES = {".mjs": "text/javascript", ".js": "text/javascript", ".wasm": "application/wasm",
         ".py": "text/plain; charset=utf-8", ".json": "application/json", ".css": "text/css",
         ".html": "text/html; charset=utf-8", ".svg": "image/svg+xml"}
IDLE_S = 10            # seconds a connection may take to send its request (REQUEST_S), or to read
REQUEST_S = IDLE_S
MAX_HEAD = 8192        # bytes of a request's line and headers at most
MAX_CONNECTIONS = 64   # open connections at most (far below the usual 1024 open files)
MAX_PER_CLIENT = 48    # of them from one address (more than the hall's 32 event streams)
# a client that went away, stopped reading, or broke its TLS
GONE = (ConnectionError, socket.timeout, ssl.SSLError)


def _head_end(data):
    """Where the blank line ending a request's head ends in data, or None."""
    ends = [i + len(mark) for mark in (b"\r\n\r\n", b"\n\n") for i in [data.find(mark)] if i >= 0]
    return min(ends) if ends else None


def bad_path(path):
    """Why a request's path is not one (None when it is one)."""
    try:
        text = urllib.parse.unquote(path.split("?", 1)[0].split("#", 1)[0], errors="strict")
    except UnicodeDecodeError:
        return "not UTF-8"
    if any(c < " " or c == "\x7f" for c in text):
        return "a control character in the path"
    if not text.startswith("/"):
        return "not a path"
    return None


class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = dict(http.server.SimpleHTTPRequestHandler.extensions_map, **TYPES)
    timeout = IDLE_S   # on the socket, while the answer is written
    request_s = REQUEST_S
    max_head = MAX_HEAD

    def setup(self):
        http.server.SimpleHTTPRequestHandler.setup(self)
        self._socket_file = self.rfile
        self._pending = b""   # bytes read past the last request's head
        self._handshaken = not isinstance(self.connection, ssl.SSLSocket)

    def log_message(self, format, *args):
        pass

    def end_headers(self):
        self.send_header("Cache-Control", "no-cache")
        http.server.SimpleHTTPRequestHandler.end_headers(self)

    def list_directory(self, path):
        self.send_error(404, "Not found")
        return None

    def _handshake(self, deadline):
        """The TLS handshake of a connection the server wrapped (not done yet), within the
        deadline; False when it failed or the client spoke plain HTTP (told in one line)."""
        conn = self.connection
        try:
            conn.settimeout(max(0.001, deadline - time.monotonic()))
            first = socket.socket.recv(conn, 1, socket.MSG_PEEK)   # under the TLS layer
            if first and first != b"\x16":   # not a TLS record: a request in plain HTTP
                socket.socket.sendall(conn, b"HTTP/1.0 400 Bad Request\r\nContent-Type: "
                                      b"text/plain\r\nConnection: close\r\n\r\nThis server "
                                      b"speaks only HTTPS: open https:// instead of http://\n")
                return False
            conn.settimeout(max(0.001, deadline - time.monotonic()))
            conn.do_handshake()
        except (OSError, ValueError):
            return False
        self._handshaken = True
        return bool(first)

    def _read_head(self):
        """The request's line and headers, read within request_s and max_head; None when
        the client went away or ran out of time, b"" when it sent more than max_head."""
        data, self._pending = self._pending, b""
        deadline = time.monotonic() + self.request_s
        if not self._handshaken and not self._handshake(deadline):
            return None
        while True:
            end = _head_end(data)
            if end is not None:
                self._pending = data[end:]
                return data[:end]
            if len(data) > self.max_head:
                return b""
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            try:
                self.connection.settimeout(left)
                chunk = self.connection.recv(4096)
            except OSError:
                return None
            if not chunk:
                return None
            data += chunk

    def handle_one_request(self):
        # Waiting from the end of an answer until a request's head is in; busy otherwise.
        self.server.waiting(self.connection, True)
        head = self._read_head()
        self.server.waiting(self.connection, False)
        if not head:
            self.close_connection = True
            if head is not None:
                self.requestline, self.request_version, self.command = "", "HTTP/1.0", None
                self.send_error(431, "Request header fields too large")
            return
        self.connection.settimeout(self.timeout)
        self.rfile = io.BytesIO(head)
        try:
            http.server.SimpleHTTPRequestHandler.handle_one_request(self)
        finally:
            self.rfile = self._socket_file

    def parse_request(self):
        if not http.server.SimpleHTTPRequestHandler.parse_request(self):
            return False
        why = bad_path(self.path)
        if why is not None:
            self.send_error(400, "Bad request path (%s)" % why)
            return False
        return True


class Server(http.server.ThreadingHTTPServer):
    """A ThreadingHTTPServer with a bound on open connections, in all and from one address:
    at a bound, the connection that has waited longest for its request is closed to let a new
    one in."""
    daemon_threads = True
    request_queue_size = 128

    def __init__(self, address, handler, max_connections=MAX_CONNECTIONS,
                 max_per_client=MAX_PER_CLIENT, tls=None):
        self.tls = tls   # an ssl.SSLContext: HTTPS only
        self.max_connections = max_connections
        self.max_per_client = max_per_client
        self._open = {}    # socket -> [client address, waiting for a request], in order accepted
        self._lock = threading.Lock()
        http.server.ThreadingHTTPServer.__init__(self, address, handler)

    def get_request(self):
        conn, address = http.server.ThreadingHTTPServer.get_request(self)
        if self.tls is not None:   # the handshake is the handler's, within its deadline
            conn = self.tls.wrap_socket(conn, server_side=True, do_handshake_on_connect=False)
        return conn, address

    def waiting(self, conn, waiting):
        with self._lock:
            if conn in self._open:
                self._open[conn][1] = waiting

    def open_connections(self):
        with self._lock:
            return len(self._open)

    def _make_room(self, client):
        """Close waiting connections (the oldest first) until a new one from `client` fits;
        False when every one in the way is busy answering. Under the lock."""
        while True:
            mine = [c for c, (who, _) in self._open.items() if who == client]
            if len(mine) >= self.max_per_client:
                pool = mine
            elif len(self._open) >= self.max_connections:
                pool = list(self._open)
            else:
                return True
            oldest = next((c for c in pool if self._open[c][1]), None)
            if oldest is None:
                return False
            del self._open[oldest]
            try:
                oldest.shutdown(socket.SHUT_RDWR)   # its thread reads EOF and ends
            except OSError:
                pass

    def process_request(self, request, client_address):
        with self._lock:
            fits = self._make_room(client_address[0])
            if fits:
                self._open[request] = [client_address[0], True]
        if not fits:   # every connection in the way is busy answering: this one waits its turn
            self.shutdown_request(request)
            return
        http.server.ThreadingHTTPServer.process_request(self, request, client_address)

    def shutdown_request(self, request):
        with self._lock:
            self._open.pop(request, None)
        http.server.ThreadingHTTPServer.shutdown_request(self, request)

    def handle_error(self, request, client_address):
        kind, exc = sys.exc_info()[:2]
        if kind is not None and issubclass(kind, GONE):
            return
        try:
            sys.stderr.write("internal error answering %s: %s: %s (a bug in matchbox)\n"
                             % (client_address[0], kind.__name__ if kind else "?", exc))
            sys.stderr.flush()
        except (OSError, ValueError):
            pass
