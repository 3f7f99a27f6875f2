from invoices.retry import with_retries


def test_retries_server_errors_then_succeeds(monkeypatch):
    monkeypatch.setattr("time.sleep", lambda s: None)
    answers = iter([(503, {}), (502, {}), (200, {"ok": True})])
    assert with_retries(lambda: next(answers)) == (200, {"ok": True})


def test_gives_up_after_attempts(monkeypatch):
    monkeypatch.setattr("time.sleep", lambda s: None)
    calls = []
    def fn():
        calls.append(1)
        return 500, {}
    assert with_retries(fn, attempts=2) == (500, {})
    assert len(calls) == 2
