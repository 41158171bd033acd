"""The web UI in a real headless Chromium against a real uvicorn: retain a chat through the API, open
the bank, a fact and its version chain, run a recall, forget the source and read the proof; once in
English and once in Korean. ``GIEOK_SCREENSHOTS=docs/ui`` saves screenshots of the main pages."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from server_harness import serving

from gieok import Memory
from gieok.server.app import create_app

SCREENSHOTS = os.environ.get("GIEOK_SCREENSHOTS")  # read at import: the sealed environment clears GIEOK_*
BROWSER = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
DRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(not (BROWSER and DRIVER),
                                reason="no Chromium/chromedriver: apt-get install -y chromium chromium-driver")
webdriver = pytest.importorskip("selenium.webdriver")

CHAT = [
    {"id": "c1", "speaker": "민지", "text": "나 땅콩 알레르기 있어.", "timestamp": "2026-05-04T09:00:00+09:00"},
    {"id": "c2", "speaker": "Minji", "text": "I live in Seoul now.", "timestamp": "2026-05-05T09:00:00+09:00"},
    {"id": "c3", "speaker": "Minji", "text": "My phone is 010-1234-5678, I moved to Busan",
     "timestamp": "2026-05-20T09:00:00+09:00"},
    {"id": "c4", "speaker": "Jisoo", "text": "Jisoo said <script>alert(1)</script> <img src=x onerror=alert(2)>",
     "timestamp": "2026-05-21T09:00:00+09:00"},
]


@pytest.fixture
def browser() -> Iterator[object]:
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = str(BROWSER)
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1200,900"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(str(DRIVER)), options=options)
    driver.implicitly_wait(5)
    try:
        yield driver
    finally:
        driver.quit()


def _shot(driver: object, name: str) -> None:
    if SCREENSHOTS:
        Path(SCREENSHOTS).mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(Path(SCREENSHOTS) / f"{name}.png"))  # type: ignore[attr-defined]


@pytest.mark.parametrize("language,words", [("en", ("Banks", "Version chain", "Clean")),
                                            ("ko", ("뱅크", "버전 사슬", "깨끗함"))])
def test_browse_recall_and_forget_in_a_real_browser(mem: Memory, browser: object, language: str,
                                                    words: tuple[str, str, str]) -> None:
    from selenium.webdriver.common.by import By

    d = browser
    with serving(create_app(mem, mcp=False, poll_seconds=0.05)) as url:
        with httpx.Client(base_url=url, timeout=60) as http:
            retained = http.post("/v1/banks/minji/retain", json={"messages": CHAT, "document_id": "chat-1"})
            assert retained.status_code == 200
        d.get(f"{url}/ui/?lang={language}")  # type: ignore[attr-defined]
        assert words[0] in d.find_element(By.TAG_NAME, "h1").text  # type: ignore[attr-defined]
        _shot(d, f"banks-{language}")
        d.find_element(By.CSS_SELECTOR, "a.bank-link").click()  # type: ignore[attr-defined]
        assert d.find_element(By.ID, "count-facts").text == "4"  # type: ignore[attr-defined]
        _shot(d, f"bank-{language}")
        d.find_element(By.CSS_SELECTOR, "a.source-link").click()  # type: ignore[attr-defined]
        bubbles = d.find_elements(By.CSS_SELECTOR, "li.bubble")  # type: ignore[attr-defined]
        assert len(bubbles) == 4 and "<script>alert(1)</script>" in bubbles[3].text
        assert d.find_elements(By.CSS_SELECTOR, "mark.redacted")  # type: ignore[attr-defined]
        _shot(d, f"source-{language}")
        bubbles[1].find_element(By.CSS_SELECTOR, "a.fact-link").click()
        assert words[1] in d.page_source  # type: ignore[attr-defined]
        assert len(d.find_elements(By.CSS_SELECTOR, "#versions li")) == 2  # type: ignore[attr-defined]
        _shot(d, f"fact-{language}")
        d.get(f"{url}/ui/b/minji/recall")  # type: ignore[attr-defined]
        d.find_element(By.ID, "recall-q").send_keys("where does Minji live")  # type: ignore[attr-defined]
        d.find_element(By.NAME, "max_tokens").send_keys("40")  # type: ignore[attr-defined]
        d.find_element(By.ID, "recall-run").click()  # type: ignore[attr-defined]
        assert d.find_elements(By.CSS_SELECTOR, "li.result")  # type: ignore[attr-defined]
        assert d.find_elements(By.CSS_SELECTOR, "svg.budget")  # type: ignore[attr-defined]
        _shot(d, f"recall-{language}")
        d.get(f"{url}/ui/b/minji/erase")  # type: ignore[attr-defined]
        from selenium.webdriver.support.ui import Select

        Select(d.find_element(By.ID, "erase-source-id")).select_by_value("chat-1")  # type: ignore[attr-defined]
        d.find_element(By.CSS_SELECTOR, "#erase-source button").click()  # type: ignore[attr-defined]
        d.switch_to.alert.accept()  # type: ignore[attr-defined]
        assert words[2] in d.find_element(By.ID, "verdict").text  # type: ignore[attr-defined]
        _shot(d, f"proof-{language}")
    assert mem.sources("minji") == []


def test_the_user_filter_submits_and_the_page_names_korean_fonts(mem: Memory, browser: object) -> None:
    from selenium.webdriver.common.by import By

    d = browser
    for user, text in (("u-minji", "나 땅콩 알레르기 있어."), ("u-jun", "나 새우 알레르기 있어.")):
        mem.retain("clinic", [{"id": f"{user}-1", "speaker": "user", "text": text}], document_id=user, user_id=user)
    mem.retain("clinic", text="알레르기 안내: 모든 메뉴에 알레르기 성분이 표시되어 있습니다.", document_id="notice.txt")
    with serving(create_app(mem, mcp=False, worker=False)) as url:
        d.get(f"{url}/ui/b/clinic/recall?lang=ko")  # type: ignore[attr-defined]
        font = d.execute_script("return getComputedStyle(document.body).fontFamily")  # type: ignore[attr-defined]
        assert "Noto Sans CJK KR" in font and "Malgun Gothic" in font
        d.find_element(By.ID, "recall-q").send_keys("나 무슨 알레르기 있어")  # type: ignore[attr-defined]
        d.find_element(By.ID, "recall-user").send_keys("u-jun")  # type: ignore[attr-defined]
        d.find_element(By.ID, "recall-shared").click()  # type: ignore[attr-defined]  (untick: only u-jun's)
        d.find_element(By.ID, "recall-run").click()  # type: ignore[attr-defined]
        results = [r.text for r in d.find_elements(By.CSS_SELECTOR, "li.result")]  # type: ignore[attr-defined]
        assert results and all("새우" in r and "사용자 u-jun" in r for r in results), results
        assert d.find_element(By.ID, "recall-user").get_attribute("value") == "u-jun"  # type: ignore[attr-defined]
        assert not d.find_element(By.ID, "recall-shared").is_selected()  # type: ignore[attr-defined]
        _shot(d, "recall-user-ko")
