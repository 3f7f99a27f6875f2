"""A fake transport that only knows the frozen spec's paths."""
import re

ROUTES = [
    ("GET", r"/v1/invoices"), ("POST", r"/v1/invoices"),
    ("GET", r"/v1/invoices/[^/]+"), ("PATCH", r"/v1/invoices/[^/]+"),
    ("POST", r"/v1/invoices/[^/]+/pay"), ("POST", r"/v1/invoices/[^/]+/void"),
    ("GET", r"/v1/customers"), ("POST", r"/v1/customers"),
    ("GET", r"/v1/customers/[^/]+"),
]


class FakeTransport:
    def __init__(self, responses=None):
        self.calls = []
        self.responses = responses or {}

    def request(self, method, path, *, headers, params=None, json_body=None):
        self.calls.append((method, path, params, json_body, headers))
        if not any(m == method and re.fullmatch(p, path) for m, p in ROUTES):
            return 404, {"error": "unknown_route", "path": path}
        return self.responses.get((method, path), (200, {"data": [], "has_more": False}))
