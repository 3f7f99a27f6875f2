import pytest

from invoices import InvoiceClient, NotFound
from fake_api import FakeTransport


from invoices import ApiError


def test_pay_sends_amount_and_idempotency_key():
    t = FakeTransport({("POST", "/v1/invoices/inv_7/pay"): (200, {"id": "inv_7", "status": "paid"})})
    InvoiceClient("k", transport=t).pay_invoice("inv_7", 1250, "idem-1")
    method, path, _, body, headers = t.calls[0]
    assert (method, path, body) == ("POST", "/v1/invoices/inv_7/pay", {"amount": 1250})
    assert headers["Idempotency-Key"] == "idem-1"


def test_pay_twice_is_a_conflict():
    t = FakeTransport({("POST", "/v1/invoices/inv_7/pay"): (409, {"error": "already_paid"})})
    with pytest.raises(ApiError) as e:
        InvoiceClient("k", transport=t).pay_invoice("inv_7", 1250, "idem-1")
    assert e.value.status == 409
