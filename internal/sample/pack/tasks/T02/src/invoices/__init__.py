"""Invoicely API client (invoice-client-v3 pack)."""
from .client import InvoiceClient
from .errors import ApiError, NotFound

__all__ = ["InvoiceClient", "ApiError", "NotFound"]
