import pytest

from invoices import InvoiceClient, NotFound
from fake_api import FakeTransport


from invoices import ApiError


def test_void_posts_reason():
    t = FakeTransport({("POST", "/v1/invoices/inv_3/void"): (200, {"id": "inv_3", "status": "void"})})
    InvoiceClient("k", transport=t).void_invoice("inv_3", reason="duplicate")
    assert t.calls[0][:4] == ("POST", "/v1/invoices/inv_3/void", None, {"reason": "duplicate"})


def test_void_paid_is_conflict():
    t = FakeTransport({("POST", "/v1/invoices/inv_3/void"): (409, {"error": "invoice_paid"})})
    with pytest.raises(ApiError):
        InvoiceClient("k", transport=t).void_invoice("inv_3")
