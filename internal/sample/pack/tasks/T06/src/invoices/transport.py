"""HTTP transport, injectable so tests never touch the network."""
from __future__ import annotations

import json
import urllib.parse
import urllib.request
from typing import Any, Protocol


class Transport(Protocol):
    def request(self, method: str, path: str, *, headers: dict[str, str],
                params: dict[str, Any] | None = None,
                json_body: dict[str, Any] | None = None) -> tuple[int, dict]: ...


class HttpTransport:
    def __init__(self, base_url: str, timeout: float = 10.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout

    def request(self, method, path, *, headers, params=None, json_body=None):
        url = self.base_url + path
        if params:
            url += "?" + urllib.parse.urlencode(params)
        data = json.dumps(json_body).encode() if json_body is not None else None
        req = urllib.request.Request(url, data=data, method=method, headers=headers)
        with urllib.request.urlopen(req, timeout=self.timeout) as resp:
            return resp.status, json.loads(resp.read() or b"{}")
