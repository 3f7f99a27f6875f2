"""Minimal client for the Invoicely v1 API (see openapi.yaml)."""
from __future__ import annotations

import time
from typing import Any

from .errors import ApiError, NotFound
from .transport import HttpTransport, Transport

BASE_URL = "https://api.invoicely.test"


class InvoiceClient:
    def __init__(self, api_key: str, transport: Transport | None = None,
                 retries: int = 3) -> None:
        self._api_key = api_key
        self._transport = transport or HttpTransport(BASE_URL)
        self._retries = retries

    def _request(self, method: str, path: str, **kwargs: Any) -> dict:
        headers = {"Authorization": f"Bearer {self._api_key}"}
        headers.update(kwargs.pop("headers", {}))
        for attempt in range(self._retries):
            status, body = self._transport.request(method, path, headers=headers, **kwargs)
            if status < 500:
                break
            time.sleep(0.2 * 2 ** attempt)
        if status == 404:
            raise NotFound(path)
        if status >= 400:
            raise ApiError(status, body)
        return body
