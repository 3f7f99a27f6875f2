from invoices import InvoiceClient


class Recorder:
    def __init__(self):
        self.calls = []

    def request(self, method, path, *, headers, params=None, json_body=None):
        self.calls.append((method, path))
        return 200, {"data": [], "has_more": False}


def test_client_sends_bearer_token():
    t = Recorder()
    c = InvoiceClient("k", transport=t)
    c._request("GET", "/v1/invoices")
    assert t.calls == [("GET", "/v1/invoices")]
