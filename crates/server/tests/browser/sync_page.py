"""The console's Sync page in a real browser: Debian's headless Chromium driven by Selenium
through Debian's chromedriver (nothing is downloaded). Called by the Rust test in
`tests/api/console_browser.rs`:

    python sync_page.py BASE_URL EMAIL PASSWORD SCREENSHOT_PATH

A tenant admin whose account is connected but not taken in is told so; Sync now takes it
in; while the backfill goes on, the page groups the datasets by merchant, draws each
merchant's coverage (held, re-read every run, still to come) and tells how far the backfill
has come and when it should end, all inside the page's width on a desktop and on a phone.
Saves a screenshot of the page mid-backfill. Exits non-zero with the reason on the first
surprise; prints PASS at the end.
"""

import sys
import time

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from browser import check, replaced, sign_in, start

BASE, EMAIL, PASSWORD, SHOT = sys.argv[1].rstrip("/"), sys.argv[2], sys.argv[3], sys.argv[4]


def signed_in(driver):
    """Signs in and waits for the console's home page, which the sign-in form navigates to (a
    page asked for before it arrives would be replaced by it)."""
    driver.get(f"{BASE}/login")
    sign_in(driver, EMAIL, PASSWORD)
    WebDriverWait(driver, 20).until(lambda d: d.current_url.rstrip("/").endswith("/console"))


def fits(driver):
    """Whether nothing on the page runs past its width (a wide table scrolls in its box)."""
    return driver.execute_script(
        "return document.documentElement.scrollWidth <= document.documentElement.clientWidth + 1")


def charts_fit(driver):
    """Whether every coverage chart lies inside its card."""
    return driver.execute_script("""
        return [...document.querySelectorAll('section.merchant-sync')].every(s => {
            const card = s.getBoundingClientRect();
            return [...s.querySelectorAll('figure.coverage svg')].every(g => {
                const r = g.getBoundingClientRect();
                return r.width > 100 && r.left >= card.left - 1 && r.right <= card.right + 1;
            });
        });""")


def mid_backfill(driver):
    """The merchant groups once a chart is drawn and a backfill shows its progress and end.
    Looks for up to three minutes; on failure says what each look saw (the datasets' rows)."""
    seen = []
    started = time.monotonic()
    driver.implicitly_wait(0)  # each look reads the page as it is
    try:
        while time.monotonic() - started < 180:
            driver.get(f"{BASE}/console/sync")
            groups = driver.find_elements(By.CSS_SELECTOR, "section.merchant-sync")
            bars = driver.find_elements(By.CSS_SELECTOR, "section.merchant-sync figure.coverage svg rect")
            notes = [e.text for e in driver.find_elements(By.CSS_SELECTOR, ".backfill")]
            if groups and bars and any("days back to" in n and "ends about" in n for n in notes):
                return groups, notes
            rows = [r.text.replace("\n", " / ") for r in
                    driver.find_elements(By.CSS_SELECTOR, "section.merchant-sync tbody tr")]
            seen.append(f"{time.monotonic() - started:6.1f}s groups={len(groups)} bars={len(bars)} rows={rows}")
            time.sleep(0.5)
    finally:
        driver.implicitly_wait(10)
    print("\n".join(seen[:5] + ["..."] + seen[-5:]), file=sys.stderr)
    check(driver, False, "a backfill with its progress and estimated end was shown")


def main():
    driver = start()
    try:
        driver.set_window_size(1280, 900)
        signed_in(driver)
        driver.get(f"{BASE}/console/sync")
        notice = driver.find_elements(By.ID, "not-taken-in")
        check(driver, notice and "A1DEMOSELLERMX" in notice[0].text,
              "the connected account not taken in yet is named, with what takes it in")
        button = driver.find_element(By.CSS_SELECTOR, "form[action='/console/sync/run'] button")
        button.click()
        replaced(driver, button)
        groups, notes = mid_backfill(driver)
        heads = [g.find_element(By.TAG_NAME, "h2").text for g in groups]
        check(driver, heads == ["A1DEMOSELLERMX MX"], f"the datasets are grouped by merchant: {heads}")
        check(driver, not driver.find_elements(By.ID, "not-taken-in"), "nothing is left to take in")
        legend = driver.find_element(By.CSS_SELECTOR, "figure.coverage svg").get_attribute("innerHTML")
        for words in ["held", "re-read every run", "still to come", "sales_and_traffic"]:
            check(driver, words in legend, f"the chart names {words!r}")
        check(driver, fits(driver), "the page fits a desktop's width")
        check(driver, charts_fit(driver), "each chart lies inside its card")
        driver.save_screenshot(SHOT)
        print(f"ok: backfill shown as {notes[0]!r}")
    finally:
        driver.quit()
    phone = start(width=390)
    try:
        signed_in(phone)
        phone.get(f"{BASE}/console/sync")
        check(phone, phone.find_elements(By.CSS_SELECTOR, "figure.coverage svg"), "a phone sees the chart")
        check(phone, fits(phone), "the page fits a phone's width")
        check(phone, charts_fit(phone), "each chart shrinks into its card on a phone")
    finally:
        phone.quit()
    print("PASS")


main()
