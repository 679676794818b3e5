"""A listening socket that greets each connection with ``hello`` (what a sandboxed command must, or
must not, be able to reach), served from a thread until the context ends."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager


def _serve(srv: socket.socket, stop: threading.Event) -> None:
    srv.settimeout(0.2)
    while not stop.is_set():
        try:
            conn, _ = srv.accept()
            conn.sendall(b"hello\n")
            conn.close()
        except OSError:
            continue


@contextmanager
def serving(*servers: socket.socket) -> Iterator[None]:
    """Listen on and serve each of ``servers`` (already bound), then close them."""
    stop = threading.Event()
    threads = []
    for srv in servers:
        srv.listen(8)
        threads.append(threading.Thread(target=_serve, args=(srv, stop), daemon=True))
        threads[-1].start()
    try:
        yield
    finally:
        stop.set()
        for t in threads:
            t.join(2)
        for srv in servers:
            srv.close()
