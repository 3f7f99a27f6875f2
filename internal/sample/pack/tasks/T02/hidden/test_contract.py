import pytest

from invoices import InvoiceClient, NotFound
from fake_api import FakeTransport


def test_get_invoice():
    t = FakeTransport({("GET", "/v1/invoices/inv_102"): (200, {"id": "inv_102", "status": "open"})})
    assert InvoiceClient("k", transport=t).get_invoice("inv_102")["status"] == "open"


def test_get_invoice_missing_raises_not_found():
    t = FakeTransport({("GET", "/v1/invoices/inv_404"): (404, {"error": "not_found"})})
    with pytest.raises(NotFound):
        InvoiceClient("k", transport=t).get_invoice("inv_404")
