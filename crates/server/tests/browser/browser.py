"""What the browser tests share: Debian's headless Chromium driven through Debian's
chromedriver (nothing is downloaded), a check that stops at the first surprise, a wait for
text a form post navigates to, a wait for a clicked page to be replaced, and signing in on
the sign-in page."""

import sys

from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.chrome.service import Service
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.support.expected_conditions import staleness_of
from selenium.webdriver.support.ui import WebDriverWait


def start(width=None):
    """A headless Chromium; `width` emulates a phone's screen of that many CSS pixels."""
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for arg in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage"]:
        options.add_argument(arg)
    if width:
        options.add_experimental_option(
            "mobileEmulation", {"deviceMetrics": {"width": width, "height": 844, "pixelRatio": 3}})
    driver = webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)
    driver.set_page_load_timeout(30)
    driver.implicitly_wait(10)  # a form post navigates: look for what the next page shows until it does
    return driver


def check(driver, cond, what):
    """Stops the test (exit 1, with the page's start) unless `cond`; else says `what` held."""
    if not cond:
        print(f"FAILED: {what}", file=sys.stderr)
        print(driver.page_source[:2000], file=sys.stderr)
        sys.exit(1)
    print(f"ok: {what}")


def shows(driver, text):
    """Whether the current page shows `text` within ten seconds."""
    try:
        WebDriverWait(driver, 10).until(lambda d: text in d.page_source)
        return True
    except Exception:
        return False


def replaced(driver, element):
    """Waits up to ten seconds for the page holding `element` to be replaced by the next one.
    Mid-navigation chromedriver may answer "Node with given id does not belong to the
    document" instead of a stale reference: that is the old page going, so look again."""
    WebDriverWait(driver, 10, ignored_exceptions=[WebDriverException]).until(staleness_of(element))


def sign_in(driver, email, password):
    """Fills in and sends the sign-in form the browser is on."""
    driver.find_element(By.ID, "email").send_keys(email)
    driver.find_element(By.ID, "password").send_keys(password)
    driver.find_element(By.CSS_SELECTOR, "form[action='/login'] button[type=submit]").click()
