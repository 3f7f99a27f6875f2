from invoices.tax import invoice_total_with_tax


def test_german_vat():
    inv = {"amount_due": 10000, "currency": "eur", "customer_country": "DE"}
    assert invoice_total_with_tax(inv) == 11900


def test_unknown_country_raises():
    import pytest
    with pytest.raises(KeyError):
        invoice_total_with_tax({"amount_due": 1, "currency": "eur", "customer_country": "XX"})
