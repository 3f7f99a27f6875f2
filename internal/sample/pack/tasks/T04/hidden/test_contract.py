import pytest

from invoices import InvoiceClient, NotFound
from fake_api import FakeTransport


def test_create_customer_posts_to_customers():
    t = FakeTransport({("POST", "/v1/customers"): (201, {"id": "cus_9", "email": "a@b.test"})})
    got = InvoiceClient("k", transport=t).create_customer("a@b.test", name="Ada")
    assert got["id"] == "cus_9"
    assert t.calls[0][3] == {"email": "a@b.test", "name": "Ada"}


def test_bad_email_makes_no_request():
    t = FakeTransport()
    with pytest.raises(ValueError):
        InvoiceClient("k", transport=t).create_customer("nope")
    assert t.calls == []
