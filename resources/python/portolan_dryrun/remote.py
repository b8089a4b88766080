"""`requests` downloads in a dry run: answered like urllib's (datafiles.py, payloads.py).

`requests` connects through its own pool, so the socket-level refusal of the session would
surface as a ConnectionError before any format could be considered. A GET of a URL whose format
payloads.py knows gets a stand-in response with that payload (body, `.raw` stream,
`iter_content`, a context manager, status 200), announced like every other fake.
"""
import io


class _Raw(io.BytesIO):
    def stream(self, amount=2 ** 16, decode_content=None):
        while True:
            chunk = self.read(amount)
            if not chunk:
                return
            yield chunk


class StandInResponse:
    def __init__(self, url, data):
        self.url = url
        self.status_code = 200
        self.ok = True
        self.reason = "OK"
        self.headers = {"Content-Length": str(len(data))}
        self.encoding = "utf-8"
        self.content = data
        self.raw = _Raw(data)
        self.history = []

    @property
    def text(self):
        return self.content.decode(self.encoding, errors="replace")

    def json(self, **kwargs):
        import json

        return json.loads(self.text or "{}", **kwargs)

    def iter_content(self, chunk_size=1, decode_unicode=False):
        size = chunk_size or len(self.content) or 1
        for i in range(0, len(self.content), size):
            yield self.content[i:i + size]

    def iter_lines(self, *args, **kwargs):
        yield from self.content.splitlines()

    def raise_for_status(self):
        pass

    def close(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def install(layer):
    """Answers requests' GETs of known formats with payloads; other requests are unchanged
    (and refused by the session's network block)."""
    try:
        import requests
        import requests.sessions
    except ImportError:
        return False
    original = requests.sessions.Session.request

    def request(session, method, url, *args, **kwargs):
        if str(method).upper() == "GET":
            found, text = layer._download_kind(url)
            if found is not None:
                return StandInResponse(text, layer._refused(text, found))
        return original(session, method, url, *args, **kwargs)

    requests.sessions.Session.request = request
    return True
