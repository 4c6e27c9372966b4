"""The console in a real browser: Debian's headless Chromium driven by Selenium through
Debian's chromedriver (no browser or driver is downloaded). Called by the Rust test in
`tests/api/console_browser.rs`:

    python console.py BASE_URL EMAIL PASSWORD

Signs in, creates a service credential and sees its secret exactly once, mints a token with
it, revokes it in the console and sees that token refused on the next request, and sees a
form posted without its CSRF token refused. Exits non-zero with the reason on the first
surprise; prints PASS at the end.
"""

import base64
import json
import sys
import urllib.error
import urllib.parse
import urllib.request

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from browser import check as checked, shows as showing, sign_in, start

BASE, EMAIL, PASSWORD = sys.argv[1].rstrip("/"), sys.argv[2], sys.argv[3]


def lands_on(driver, url):
    """Whether the browser reaches `url` within ten seconds (a form post navigates)."""
    try:
        WebDriverWait(driver, 10).until(lambda d: d.current_url == url)
        return True
    except Exception:
        print(f"still at {driver.current_url}: {driver.page_source[:500]}", file=sys.stderr)
        return False


def token_for(client_id, secret):
    basic = base64.b64encode(f"{client_id}:{secret}".encode()).decode()
    req = urllib.request.Request(f"{BASE}/oauth/token", data=b"grant_type=client_credentials",
                                 headers={"Authorization": f"Basic {basic}",
                                          "Content-Type": "application/x-www-form-urlencoded"})
    with urllib.request.urlopen(req) as r:
        return json.load(r)["access_token"]


def me_status(token):
    req = urllib.request.Request(f"{BASE}/v1/me", headers={"Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(req) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


# a phone's screen: the console must work without sideways scrolling
driver = start(width=390)


def check(cond, what):
    checked(driver, cond, what)


def shows(text):
    return showing(driver, text)


try:
    driver.get(f"{BASE}/console")
    check(driver.current_url.startswith(f"{BASE}/login"), "signed out, the console sends the browser to sign in")
    sign_in(driver, EMAIL, PASSWORD)
    check(lands_on(driver, f"{BASE}/console"), "signed in, the browser lands on the console")
    check("Hello" in driver.page_source, "the home page greets the person")
    width, screen = driver.execute_script(
        "return [document.documentElement.scrollWidth, window.innerWidth]")
    check(screen == 390 and width <= screen, f"the page fits a phone's width ({width}px in {screen}px)")

    driver.find_element(By.LINK_TEXT, "Credentials").click()
    driver.find_element(By.ID, "label").send_keys("made in a browser")
    driver.find_element(By.CSS_SELECTOR, "form[action='/console/credentials'] button[type=submit]").click()
    client_id = driver.find_element(By.ID, "new-client-id").text.strip()
    secret = driver.find_element(By.ID, "new-client-secret").text.strip()
    check(client_id.startswith("ppc_") and secret.startswith("pps_"), "the new credential's secret is shown")

    driver.get(f"{BASE}/console/credentials")
    check(client_id in driver.page_source, "the credential is listed")
    check(secret not in driver.page_source, "the secret is not shown a second time")

    token = token_for(client_id, secret)
    check(me_status(token) == 200, "a token minted from it works")

    row = driver.find_element(By.CSS_SELECTOR, f"tr[data-client-id='{client_id}']")
    row.find_element(By.CSS_SELECTOR, "form[action$='/revoke'] button").click()
    check(shows("tag bad\">revoked"), "the console shows it revoked")
    check(me_status(token) == 401, "its token is refused on the next request")

    # a form whose CSRF token was taken out is refused and changes nothing
    driver.find_element(By.ID, "label").send_keys("forged")
    driver.execute_script(
        "document.querySelector(\"form[action='/console/credentials'] input[name=csrf]\").remove()")
    driver.find_element(By.CSS_SELECTOR, "form[action='/console/credentials'] button[type=submit]").click()
    check(shows("This form was refused"), "a form without its CSRF token is refused")
    driver.get(f"{BASE}/console/credentials")
    check("forged" not in driver.page_source, "and nothing was created")
finally:
    driver.quit()

print("PASS console")
