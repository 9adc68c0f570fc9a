"""A webhook receiver for the tests: an HTTP server on 127.0.0.1."""

import http.server
import threading


class Receiver:
    """An HTTP server on 127.0.0.1 that records what it gets and answers
    ``status``; a slow one (``slow_s``) answers that many seconds later, or
    when ``answer()`` is called."""

    def __init__(self, status=200, slow_s=0.0):
        self.status, self.got = status, []
        self.slow_s, self._answer = slow_s, threading.Event()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.got.append((dict(self.headers), body))
                if receiver.slow_s:
                    receiver._answer.wait(receiver.slow_s)
                self.send_response(receiver.status)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def answer(self):
        """A slow receiver answers now what it holds (and the rest at once)."""
        self._answer.set()

    def close(self):
        self._answer.set()
        self.server.shutdown()
        self.server.server_close()
