"""Connecting accounts in a real browser against the dev server: Debian's headless Chromium
driven by Selenium through Debian's chromedriver. Called by the Rust test in
`crates/cli/tests/cli/connect_browser.rs`:

    python connect.py BASE_URL EMAIL PASSWORD TOKEN SELLER PROFILE

Signs in as the demo admin, disconnects SELLER's selling-side and advertising connections
(a marketplace call for it then answers reauth_required), connects a seller account and an
advertising login again through the sandbox's consent pages, picking SELLER there, and sees the
gateway's calls for that merchant work again (with TOKEN, the dev credential's bearer token).
No page it passes through may show a refresh token. Exits non-zero with the reason on the first
surprise; prints PASS at the end.
"""

import json
import sys
import urllib.error
import urllib.request

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from browser import check as checked, replaced, shows as showing, sign_in, start

BASE, EMAIL, PASSWORD, TOKEN, SELLER, PROFILE = sys.argv[1].rstrip("/"), *sys.argv[2:7]
driver = start()
pages = []


def check(cond, what):
    checked(driver, cond, what)


def shows(text):
    found = showing(driver, text)
    pages.append(driver.page_source)
    return found


def call(path, body):
    """A gateway call with the dev credential: (status, answer)."""
    req = urllib.request.Request(
        f"{BASE}{path}", data=json.dumps(body).encode(), method="POST",
        headers={"authorization": f"Bearer {TOKEN}", "content-type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def seller_call():
    return call("/api/marketplace/spapi/call", {"operation": "sellers.get_account", "sellerId": SELLER, "marketplace": "US"})


def ads_call():
    return call("/api/marketplace/ads/call",
                {"operation": "sp.list_campaigns", "profileId": int(PROFILE), "query": {"body": {}}})


def connect(button, region_select):
    """Starts a connect from Accounts and approves SELLER on the sandbox's consent page."""
    driver.find_element(By.LINK_TEXT, "Accounts").click()
    Select(driver.find_element(By.ID, region_select)).select_by_value("na")
    driver.find_element(By.ID, button).click()
    check(shows("Sandbox provider"), f"{button} opens the provider's consent page")
    driver.find_element(By.ID, f"merchant-{SELLER}").click()
    driver.find_element(By.ID, "approve").click()


try:
    status, answer = seller_call()
    check(status == 200, f"a call for {SELLER} works before anything changes ({status} {answer})")

    driver.get(f"{BASE}/login")
    sign_in(driver, EMAIL, PASSWORD)
    check(shows("Hello"), "the demo admin is signed in")
    driver.find_element(By.LINK_TEXT, "Accounts").click()
    check(shows(SELLER), "Accounts lists the merchant")

    for kind in ["seller", "ads"]:
        button = driver.find_element(By.ID, f"disconnect-{kind}-{SELLER}")
        button.click()
        # the page before says "Disconnected" too (the seller's): wait for the new one
        replaced(driver, button)
        check(shows(f"Disconnected {SELLER}"), f"its {kind} connection is disconnected")
        check(f'id="disconnect-{kind}-{SELLER}"' not in driver.page_source,
              f"and it offers no disconnect for {kind} any more")
    status, answer = seller_call()
    check((status, answer.get("kind")) == (409, "reauth_required"),
          f"a seller call now answers reauth_required ({status} {answer.get('kind')})")
    status, answer = ads_call()
    check((status, answer.get("kind")) == (409, "reauth_required"),
          f"an advertising call now answers reauth_required ({status} {answer.get('kind')})")

    connect("connect-seller", "seller-region")
    check(shows(f"Connected the seller account {SELLER}"), "the seller account is connected again")
    connect("connect-ads", "ads-region")
    check(shows(f"Connected the advertising login for {SELLER}"), "the advertising login is connected again")
    row = driver.find_element(By.ID, f"connection-ads-{SELLER}").text
    check(PROFILE in row and EMAIL in row and "active" in row,
          f"the advertising row names its profile, who connected it and its status ({row})")

    status, answer = seller_call()
    check(status == 200, f"a seller call for {SELLER} works through the gateway ({status})")
    status, answer = ads_call()
    check(status == 200, f"an advertising call for its profile works through the gateway ({status})")
    link = driver.find_element(By.LINK_TEXT, "Accounts")
    link.click()
    replaced(driver, link)
    check(shows(SELLER), "Accounts is read again")
    row = driver.find_element(By.ID, f"connection-seller-{SELLER}").text
    check("never" not in row, f"the seller row shows its last successful call ({row})")
    check(not any("Atzr|" in p for p in pages), f"no refresh token on any of the {len(pages)} pages")
finally:
    driver.quit()

print("PASS connect")
