"""The console's Hours page in a real browser: Debian's headless Chromium driven by Selenium
through Debian's chromedriver (nothing is downloaded). Called by the Rust streams test in
`tests/api/streams.rs`:

    python hours_page.py BASE_URL EMAIL PASSWORD MERCHANT BEST SCREENSHOT_PATH

A tenant member opens Hours for MERCHANT (`TOKEN:MARKETPLACE`): each of the busiest campaigns'
weeks drawn as a heatmap (a cell for each of the 168 hours, the best hours framed, inside its
card on a desktop and on a phone), the busiest campaign's best hours named as BEST. Saves a
screenshot. Exits non-zero with the reason on the first surprise; prints PASS at the end.
"""

import sys
import urllib.parse

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from browser import check, sign_in, start

BASE, EMAIL, PASSWORD, MERCHANT, BEST, SHOT = sys.argv[1].rstrip("/"), *sys.argv[2:7]
PAGE = f"{BASE}/console/hours?merchant={urllib.parse.quote(MERCHANT)}"


def signed_in(driver):
    driver.get(f"{BASE}/login")
    sign_in(driver, EMAIL, PASSWORD)
    WebDriverWait(driver, 20).until(lambda d: d.current_url.rstrip("/").endswith("/console"))


def fits(driver):
    """Whether nothing runs past the page's width and each heatmap lies inside its card."""
    return driver.execute_script("""
        const page = document.documentElement.scrollWidth <= document.documentElement.clientWidth + 1;
        const maps = [...document.querySelectorAll('figure.heatmap svg')];
        return page && maps.length > 0 && maps.every(g => {
            const card = g.closest('section').getBoundingClientRect();
            const r = g.getBoundingClientRect();
            return r.width > 100 && r.left >= card.left - 1 && r.right <= card.right + 1;
        });""")


def main():
    driver = start()
    try:
        driver.set_window_size(1280, 900)
        signed_in(driver)
        check(driver, driver.find_elements(By.CSS_SELECTOR, "nav a[href='/console/hours']"), "the menu has Hours")
        driver.get(PAGE)
        WebDriverWait(driver, 30).until(lambda d: d.find_elements(By.CSS_SELECTOR, "h1"))
        body = driver.find_element(By.TAG_NAME, "main").text if driver.find_elements(By.TAG_NAME, "main") else driver.page_source[:2000]
        check(driver, driver.find_elements(By.CSS_SELECTOR, "figure.heatmap svg"), f"the page draws heatmaps: {body[:1500]}")
        maps = driver.find_elements(By.CSS_SELECTOR, "figure.heatmap svg")
        check(driver, len(maps) >= 1, f"a heatmap for each busy campaign ({len(maps)})")
        cells = maps[0].find_elements(By.CSS_SELECTOR, "rect")
        check(driver, len(cells) >= 168, f"a cell for each hour of the week ({len(cells)} shapes)")
        text = maps[0].get_attribute("innerHTML")
        for label in ["Mon", "Sun"]:
            check(driver, label in text, f"the heatmap labels {label!r}")
        best = driver.find_elements(By.CSS_SELECTOR, "strong.best-hours")[0].text
        check(driver, best.startswith(BEST), f"the busiest campaign's best hours are {BEST!r}: {best!r}")
        check(driver, fits(driver), "the page and its heatmaps fit a desktop")
        driver.save_screenshot(SHOT)
        driver.find_element(By.CSS_SELECTOR, "figure.heatmap").screenshot(SHOT.replace(".png", "-chart.png"))
    finally:
        driver.quit()
    phone = start(width=390)
    try:
        signed_in(phone)
        phone.get(PAGE)
        check(phone, phone.find_elements(By.CSS_SELECTOR, "figure.heatmap svg"), "a phone sees the heatmaps")
        check(phone, fits(phone), "the heatmaps shrink into their cards on a phone")
    finally:
        phone.quit()
    print("PASS")


main()
