"""A held write approved in a real browser: Debian's headless Chromium driven by Selenium
through Debian's chromedriver. Called by the Rust test in `tests/api/console_browser.rs`:

    python approvals.py BASE_URL EMAIL PASSWORD APPROVAL_ID NEW_VALUE

Signs in as a person with the approver role, opens Approvals from the navigation, finds the
held write with the value it sets, approves it, and sees that it was sent. Exits non-zero with
the reason on the first surprise; prints PASS at the end.
"""

import sys

from selenium.webdriver.common.by import By

from browser import check as checked, shows as showing, sign_in, start

BASE, EMAIL, PASSWORD, APPROVAL, VALUE = sys.argv[1].rstrip("/"), *sys.argv[2:6]
driver = start()


def check(cond, what):
    checked(driver, cond, what)


def shows(text):
    return showing(driver, text)


try:
    driver.get(f"{BASE}/login")
    sign_in(driver, EMAIL, PASSWORD)
    check(shows("Hello"), "the approver is signed in")
    driver.find_element(By.LINK_TEXT, "Approvals").click()
    held = driver.find_element(By.ID, f"approval-{APPROVAL}")
    check(held is not None, "the held write is listed")
    check(f"<strong>{VALUE}</strong>" in held.get_attribute("innerHTML"),
          f"it shows the value it sets ({VALUE})")
    driver.find_element(By.ID, f"approve-{APPROVAL}").click()
    check(shows("Approved and sent"), "approving sends it")
    check(shows("Nothing is waiting"), "and nothing is left waiting")
finally:
    driver.quit()

print("PASS approvals")
