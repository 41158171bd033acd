"""The UI's session: the API key in an HttpOnly cookie, a CSRF token per browser session.

* ``gieok_sid`` is a random id set on the first page a browser gets (HttpOnly, SameSite=Strict); the
  CSRF token every form carries is an HMAC of it under a secret drawn once per database and kept in
  it (``Engine.shared_secret``), so every ``gieok serve`` process on the same database accepts the
  forms any of them rendered, and a restart does not expire open forms. A state-changing POST whose
  token does not match is refused (403) before anything runs, so a page of another site cannot
  submit a form here even while the browser holds a key.
* ``gieok_key`` holds the API key after the login form (HttpOnly: scripts on the page never see it;
  SameSite=Strict; Secure when the request came over https). The key is checked exactly as a bearer
  token on the HTTP API is, so a key sees its banks and nothing else.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from urllib.parse import parse_qsl

from starlette.requests import Request
from starlette.responses import Response

__all__ = ["SESSION_COOKIE", "KEY_COOKIE", "LANG_COOKIE", "Sessions", "read_form"]

SESSION_COOKIE = "gieok_sid"
KEY_COOKIE = "gieok_key"
LANG_COOKIE = "gieok_lang"
_MAX_FORM_FIELDS = 50


class Sessions:
    def __init__(self, secret: bytes) -> None:
        self._secret = secret

    def session_id(self, request: Request) -> tuple[str, bool]:
        """The browser's session id, and whether it is new (to be set on the response)."""
        sid = request.cookies.get(SESSION_COOKIE, "")
        if len(sid) == 43 and sid.replace("-", "").replace("_", "").isalnum():
            return sid, False
        return secrets.token_urlsafe(32), True

    def csrf_token(self, sid: str) -> str:
        return hmac.new(self._secret, sid.encode("ascii"), hashlib.sha256).hexdigest()

    def csrf_ok(self, request: Request, token: str | None) -> bool:
        sid, new = self.session_id(request)
        return not new and bool(token) and hmac.compare_digest(self.csrf_token(sid), str(token))

    @staticmethod
    def set_session(response: Response, request: Request, sid: str) -> None:
        response.set_cookie(SESSION_COOKIE, sid, httponly=True, samesite="strict", path="/ui",
                            secure=request.url.scheme == "https")

    @staticmethod
    def set_key(response: Response, request: Request, key: str) -> None:
        response.set_cookie(KEY_COOKIE, key, httponly=True, samesite="strict", path="/ui",
                            secure=request.url.scheme == "https")

    @staticmethod
    def clear_key(response: Response) -> None:
        response.delete_cookie(KEY_COOKIE, path="/ui")


async def read_form(request: Request) -> dict[str, str]:
    """An ``application/x-www-form-urlencoded`` body as a dict (the last value of a repeated field)."""
    body = (await request.body()).decode("utf-8", errors="replace")
    return dict(parse_qsl(body, keep_blank_values=True, max_num_fields=_MAX_FORM_FIELDS))
