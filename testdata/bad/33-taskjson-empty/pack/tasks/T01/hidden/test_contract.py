import pytest

from invoices import InvoiceClient, NotFound
from fake_api import FakeTransport


def test_list_invoices_calls_the_spec_path():
    t = FakeTransport({("GET", "/v1/invoices"): (200, {"data": [{"id": "inv_1"}], "has_more": False})})
    got = InvoiceClient("k", transport=t).list_invoices(status="open")
    assert got == [{"id": "inv_1"}]
    assert t.calls[0][:3] == ("GET", "/v1/invoices", {"status": "open", "limit": 50})


def test_list_invoices_omits_unset_status():
    t = FakeTransport()
    InvoiceClient("k", transport=t).list_invoices()
    assert "status" not in (t.calls[0][2] or {})
