"""Errors raised by the Invoicely client."""


class ApiError(Exception):
    """The API answered with a status of 400 or more."""

    def __init__(self, status: int, body: dict | None = None) -> None:
        super().__init__(f"HTTP {status}: {body}")
        self.status = status
        self.body = body or {}


class NotFound(ApiError):
    """The API answered 404 for the path."""

    def __init__(self, path: str) -> None:
        super().__init__(404, {"error": "not_found", "path": path})
        self.path = path
