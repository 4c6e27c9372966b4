"""The console's Profit page in a real browser: Debian's headless Chromium driven by Selenium
through Debian's chromedriver (nothing is downloaded). Called by the Rust test in
`tests/api/console_browser.rs`:

    python profit_page.py BASE_URL EMAIL PASSWORD MONTH PREVIOUS SKU SCREENSHOT_PATH

A tenant member opens Profit: the month's P&L line by line with each line's status, the
contribution levels, the bridge from the month before drawn as a waterfall (a bar for each
month and each part, labelled, inside its card on a desktop and on a phone), and the SKU sold
without a cost named with a way to the Costs page. Saves a screenshot. Exits non-zero with the
reason on the first surprise; prints PASS at the end.
"""

import sys

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from browser import check, sign_in, start

BASE, EMAIL, PASSWORD, MONTH, PREVIOUS, SKU, SHOT = sys.argv[1].rstrip("/"), *sys.argv[2:8]


def signed_in(driver):
    driver.get(f"{BASE}/login")
    sign_in(driver, EMAIL, PASSWORD)
    WebDriverWait(driver, 20).until(lambda d: d.current_url.rstrip("/").endswith("/console"))


def fits(driver):
    """Whether nothing runs past the page's width and the chart lies inside its card."""
    return driver.execute_script("""
        const page = document.documentElement.scrollWidth <= document.documentElement.clientWidth + 1;
        const card = document.querySelector('figure.waterfall').closest('section').getBoundingClientRect();
        const g = document.querySelector('figure.waterfall svg').getBoundingClientRect();
        return page && g.width > 100 && g.left >= card.left - 1 && g.right <= card.right + 1;""")


def main():
    driver = start()
    try:
        driver.set_window_size(1280, 900)
        signed_in(driver)
        driver.find_element(By.CSS_SELECTOR, "nav a[href='/console/profit']").click()
        WebDriverWait(driver, 20).until(lambda d: d.find_elements(By.ID, "pnl-month"))
        check(driver, MONTH in driver.find_element(By.ID, "pnl-month").text, f"the month shown is {MONTH}")
        rows = [r.text for r in driver.find_elements(By.CSS_SELECTOR, "table.pnl tbody tr")]
        for line in ["Sales", "Referral fees", "Fulfillment fees", "Cost of goods", "Advertising: Sponsored Products"]:
            check(driver, any(r.startswith(line) for r in rows), f"the P&L has its {line} line")
        levels = [r.text for r in driver.find_elements(By.CSS_SELECTOR, "table.levels tbody tr")]
        check(driver, len(levels) == 4 and "unknown" in levels[3], f"CM3 is unknown while a cost is missing: {levels}")
        svg = driver.find_element(By.CSS_SELECTOR, "figure.waterfall svg")
        bars = svg.find_elements(By.CSS_SELECTOR, "rect")
        check(driver, len(bars) >= 9, f"a bar for each month and each part ({len(bars)} shapes)")
        text = svg.get_attribute("innerHTML")
        for label in [PREVIOUS, MONTH, "volume", "price", "cost of goods", "advertising"]:
            check(driver, label in text, f"the waterfall labels {label!r}")
        missing = [r.text for r in driver.find_elements(By.CSS_SELECTOR, "table.missing tbody tr")]
        check(driver, any(SKU in r for r in missing), f"{SKU} is named as sold without a cost")
        check(driver, driver.find_elements(By.CSS_SELECTOR, "a[href='/console/costs']"), "a way to the Costs page")
        check(driver, fits(driver), "the page and its chart fit a desktop")
        driver.save_screenshot(SHOT)
        driver.find_element(By.CSS_SELECTOR, "figure.waterfall").screenshot(SHOT.replace(".png", "-chart.png"))
    finally:
        driver.quit()
    phone = start(width=390)
    try:
        signed_in(phone)
        phone.get(f"{BASE}/console/profit")
        check(phone, phone.find_elements(By.CSS_SELECTOR, "figure.waterfall svg"), "a phone sees the waterfall")
        check(phone, fits(phone), "the chart shrinks into its card on a phone")
    finally:
        phone.quit()
    print("PASS")


main()
