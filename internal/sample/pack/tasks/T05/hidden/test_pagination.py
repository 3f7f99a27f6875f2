import pytest

from invoices import InvoiceClient, NotFound
from fake_api import FakeTransport


class Paged(FakeTransport):
    def request(self, method, path, *, headers, params=None, json_body=None):
        self.calls.append((method, path, params, json_body, headers))
        after = (params or {}).get("starting_after")
        if after is None:
            return 200, {"data": [{"id": "inv_1"}, {"id": "inv_2"}], "has_more": True}
        return 200, {"data": [{"id": "inv_3"}], "has_more": False}


def test_iter_follows_cursor():
    t = Paged()
    ids = [i["id"] for i in InvoiceClient("k", transport=t).iter_invoices()]
    assert ids == ["inv_1", "inv_2", "inv_3"]
    assert t.calls[1][2]["starting_after"] == "inv_2"
