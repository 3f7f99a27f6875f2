from config import api_token
from invoices import InvoiceClient

client = InvoiceClient(api_token())
