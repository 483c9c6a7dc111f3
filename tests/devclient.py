"""A reader of the dev server's event stream (``/__dev/events``), for the tests and the benchmark."""

from __future__ import annotations

import http.client
import json
import time


class EventStream:
    """A reader of the server-sent events that ``site_builder/serve/server.py`` (``_events``) writes."""

    def __init__(self, port: int, timeout: float = 10) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
        self.connection.request("GET", "/__dev/events")
        self.response = self.connection.getresponse()
        if not (self.response.getheader("Content-Type") or "").startswith("text/event-stream"):
            raise ValueError("/__dev/events did not answer with an event stream")

    def next(self) -> tuple[str, dict]:
        """The next event's name and JSON data (blocks until it arrives)."""
        event, data = "message", ""
        while True:
            line = self.response.fp.readline().decode().rstrip("\n")
            if line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: "):
                data += line[6:]
            elif line == "" and data:
                return event, json.loads(data)

    def wait_for(self, name: str, seconds: float = 10) -> dict:
        """The data of the next event called ``name``; AssertionError if none comes in time."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            event, data = self.next()
            if event == name:
                return data
        raise AssertionError(f"no {name} event")

    def close(self) -> None:
        self.connection.close()
