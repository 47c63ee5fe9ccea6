#!/usr/bin/env python3
"""The console in a real browser: Debian's chromium, driven by Selenium through Debian's
chromedriver, judged by axe-core (axe-selenium-python).

It simulates a small store on a copy of Experiments/ whose texts hold markup, starts the built
`abctl serve` on loopback with a keys file holding a `report` key, and then, as a product manager
would: signs in through the form, opens every page, changes the as-of date through the form,
sorts a table, makes a share link and opens it signed out. On every page, at 1280 px and at a
390 px phone (DevTools' device metrics: headless chromium keeps a window at least 500 px wide):
no sideways page scroll, every chart within its box and its labels whole and large enough to
read, every wide table scrolling in a box a keyboard can reach, no script from a file run, no
`serious` or `critical` axe violation; a screenshot of each is saved. A second pass with
JavaScript off signs in and reads every page too.

Run by `make test` (after the Swift suites) and `make test-browser`; ABCTL_BIN names the binary.
Exits non-zero, with what failed, on the first broken promise or after TIME_LIMIT seconds.
"""

import base64
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

from axe_selenium_python import Axe
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TIME_LIMIT = 110
REPORT_KEY = "browser-report-key-0123456789abcdef"
# Markup in a file's texts: shown as text, never run (the console escapes it where it writes it).
HOSTILE = '<script>document.title="ran"</script><img src=x onerror="document.title=\'ran\'">'
PHONE = {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True}
# A chart's labels must be drawn at least this large (CSS px) to be read; the charts write them at 11 and 12.
MIN_LABEL_SIZE = 10
UNTIL = "2026-11-20"
# Seconds each step took, printed at the end.
TIMES = []


class Failed(Exception):
    pass


def check(condition, what):
    if not condition:
        raise Failed(what)


def experiments_copy(folder):
    """Experiments/ with markup in a name, a hypothesis and a paywall's copy."""
    target = os.path.join(folder, "Experiments")
    shutil.copytree(os.path.join(ROOT, "Experiments"), target)
    path = os.path.join(target, "chorus-voice.json")
    with open(path) as f:
        voice = json.load(f)
    voice["name"] = "Voice " + HOSTILE
    voice["hypothesis"] = "Hypothesis " + HOSTILE
    with open(path, "w") as f:
        json.dump(voice, f)
    path = os.path.join(target, "chorus-paywall-copy.json")
    with open(path) as f:
        copy = json.load(f)
    for variant in copy["variants"]:
        text = variant.get("paywall", {}).get("copy", {})
        if text.get("strategy") == "static":
            text["text"] = "Copy " + HOSTILE
    with open(path, "w") as f:
        json.dump(copy, f)
    ids = sorted(name[:-5] for name in os.listdir(target)
                 if name.endswith(".json") and name not in ("placements.json", "products.json", "schema.json"))
    return target, ids


def run(abctl, *args):
    result = subprocess.run([abctl, *args], capture_output=True, text=True, timeout=60)
    check(result.returncode == 0, f"abctl {' '.join(args)} failed: {result.stderr}")
    return result.stdout


class Server:
    """`abctl serve` on 127.0.0.1 at a port it picks; stopped by `stop`."""

    def __init__(self, abctl, experiments, db, keys):
        self.lines = []
        self.process = subprocess.Popen(
            [abctl, "serve", "--port", "0", "--db", db, "--experiments", experiments, "--keys-file", keys,
             "--console-insecure-cookie"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.port = None
        found = threading.Event()

        def read():
            for line in self.process.stdout:
                self.lines.append(line)
                if self.port is None and "listening on http://" in line:
                    self.port = int(line.strip().rsplit(":", 1)[1])
                    found.set()

        threading.Thread(target=read, daemon=True).start()
        check(found.wait(30), "abctl serve did not say where it listens:\n" + "".join(self.lines))
        self.base = f"http://127.0.0.1:{self.port}"

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()


def browser(javascript=True):
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900",
                     "--hide-scrollbars"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_page_load_timeout(30)
    if not javascript:
        driver.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": True})
    return driver


def screenshot(driver, path):
    """The whole page, not only the window."""
    width, height = driver.execute_script(
        "return [document.documentElement.clientWidth, document.documentElement.scrollHeight]")
    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {
        "format": "png", "captureBeyondViewport": True,
        "clip": {"x": 0, "y": 0, "width": width, "height": min(height, 16000), "scale": 1}})
    with open(path, "wb") as f:
        f.write(base64.b64decode(shot["data"]))


# Every promise about layout, asked of the page in one script: the answers are lists of what broke.
LAYOUT = """
const min = arguments[0];
const html = document.documentElement;
const out = {sideways: html.scrollWidth > html.clientWidth ? [html.scrollWidth, html.clientWidth] : null,
             charts: [], labels: [], small: [], boxes: [], ran: document.title === 'ran',
             foreign: [...document.querySelectorAll('script')].filter(s => !/^\\/assets\\/console-[0-9a-f]{16}\\.js$/.test(s.getAttribute('src') || '')).length
                    + document.querySelectorAll('[onerror], img').length};
for (const svg of document.querySelectorAll('svg.chart')) {
  const box = svg.getBoundingClientRect();
  if (box.width === 0) continue;  // the layout for the other width
  const holder = svg.parentElement.getBoundingClientRect();
  if (box.right > holder.right + 1 || box.left < holder.left - 1) out.charts.push(svg.getAttribute('aria-label'));
  for (const t of svg.querySelectorAll('text')) {
    const r = t.getBoundingClientRect();
    if (r.width === 0) continue;
    if (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1) out.labels.push(t.textContent);
    const size = parseFloat(getComputedStyle(t).fontSize) * box.width / svg.viewBox.baseVal.width;
    if (size < min) out.small.push(t.textContent + ' at ' + size.toFixed(1) + ' px');
  }
}
for (const box of document.querySelectorAll('.scroll')) {
  if (box.scrollWidth <= box.clientWidth) continue;
  if (box.getAttribute('tabindex') !== '0' || !box.getAttribute('aria-label') && !box.getAttribute('aria-labelledby')) out.boxes.push(box.textContent.slice(0, 60));
}
return out;
"""


def layout_problems(driver, width):
    found = driver.execute_script(LAYOUT, MIN_LABEL_SIZE)
    problems = []
    if found["sideways"]:
        problems.append(f"the page scrolls sideways at {width} px: {found['sideways']}")
    if found["charts"]:
        problems.append(f"charts wider than their box at {width} px: {found['charts'][:3]}")
    if found["labels"]:
        problems.append(f"chart labels cut at {width} px: {found['labels'][:5]}")
    if found["small"]:
        problems.append(f"chart labels too small to read at {width} px: {found['small'][:5]}")
    if found["boxes"]:
        problems.append(f"a wide table's box has no tabindex or label at {width} px: {found['boxes'][:2]}")
    if found["ran"]:
        problems.append("a script from a file ran")
    if found["foreign"]:
        problems.append(f"{found['foreign']} script or img element not the console's own")
    return problems


def axe_problems(driver, name, report):
    axe = Axe(driver)
    axe.inject()
    # Only the violations: listing what passed doubles axe's time on a long report.
    results = axe.run(options={"resultTypes": ["violations"]})
    for v in results["violations"]:
        report.append(f"{name}: {v['impact']} {v['id']} ({len(v['nodes'])}): {v['help']}")
    return [f"axe {v['impact']} {v['id']}: {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
            for v in results["violations"] if v["impact"] in ("serious", "critical")]


def csp_refusals(driver):
    """Console lines saying the Content-Security-Policy refused something (an inline script or style)."""
    return [e["message"] for e in driver.get_log("browser") if "Content Security Policy" in e["message"]]


def visit(driver, url, name, shots, axe_report, problems):
    """Opens `url` at 1280 px and at 390 px, checking each and saving a screenshot of each."""
    started = time.monotonic()
    for width in (1280, 390):
        if width == 390:
            driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", PHONE)
        driver.get(url)
        check("/login" not in driver.current_url or name.startswith("login"), f"{name}: sent to sign in ({driver.current_url})")
        screenshot(driver, os.path.join(shots, f"{name}-{width}.png"))
        found = layout_problems(driver, width)
        found += axe_problems(driver, f"{name} at {width}", axe_report)
        found += [f"refused by the CSP: {m}" for m in csp_refusals(driver)]
        problems += [f"{name}: {p}" for p in found]
        if width == 390:
            driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    TIMES.append(f"{name} {time.monotonic() - started:.1f} s")


def sign_in(driver, base, path="/"):
    driver.get(base + path)
    check(urllib.parse.urlparse(driver.current_url).path == "/login", f"a page signed out goes to /login, not {driver.current_url}")
    driver.find_element(By.ID, "key").send_keys(REPORT_KEY)
    driver.find_element(By.CSS_SELECTOR, "form[action='/login'] button[type=submit]").click()
    try:
        WebDriverWait(driver, 30).until(lambda d: urllib.parse.urlparse(d.current_url).path == path)
    except Exception:
        raise Failed(f"signing in did not lead to {path}: at {driver.current_url}: {driver.find_element(By.TAG_NAME, 'body').text[:300]}")
    check("signed in as pm-browser" in driver.find_element(By.TAG_NAME, "body").text, "the bar names the signed-in key")


def with_javascript(driver, base, ids, shots, axe_report, problems):
    visit(driver, base + "/login", "login", shots, axe_report, problems)
    sign_in(driver, base)
    pages = [("overview", "/"), ("placements", "/placements")] + [(f"experiment-{i}", f"/experiments/{i}") for i in ids]
    for name, path in pages:
        visit(driver, base + path, name, shots, axe_report, problems)
    body = lambda: driver.find_element(By.TAG_NAME, "body").text

    # The text of a file is shown as text.
    driver.get(base + "/experiments/chorus-voice")
    check("Voice <script>" in body(), "the experiment's name with markup is shown as text")

    # The as-of date, changed through the form: the URL is the query and the figures are as of it.
    driver.get(base + "/experiments/chorus-trial-length")
    field = driver.find_element(By.ID, "p-until")
    field.clear()
    field.send_keys(UNTIL)
    driver.find_element(By.CSS_SELECTOR, "form.params button[type=submit]").click()
    WebDriverWait(driver, 10).until(lambda d: "until=" + UNTIL in d.current_url)
    check(f"data as of {UNTIL}T00:00:00Z" in body(), "the report reads the data as of the date asked")
    problems += [f"experiment as of {UNTIL}: {p}" for p in layout_problems(driver, 1280)]

    # The script sorts a table by a column, from its header's button: the effect over time by users.
    driver.get(base + "/experiments/chorus-trial-length")
    table = driver.find_element(By.XPATH, "//section[h2='The effect over time']//table")
    header = table.find_element(By.CSS_SELECTOR, "thead th:nth-child(2)")
    users = lambda: [int(row.find_elements(By.CSS_SELECTOR, "td")[1].text.replace(",", ""))
                     for row in table.find_elements(By.CSS_SELECTOR, "tbody tr")]
    header.find_element(By.TAG_NAME, "button").click()
    check(header.get_attribute("aria-sort") == "ascending", "a sorted column says so")
    check(users() == sorted(users()), "sorted by users, fewest first")
    header.find_element(By.TAG_NAME, "button").click()
    check(header.get_attribute("aria-sort") == "descending", "sorted again, the other way")
    check(users() == sorted(users(), reverse=True), "sorted by users, most first")

    # A share link, made through the page's form, opened signed out.
    driver.find_element(By.CSS_SELECTOR, "details.shares summary").click()
    days_field = driver.find_element(By.ID, "share-days")
    days_field.clear()
    days_field.send_keys("7")
    driver.find_element(By.CSS_SELECTOR, "details.shares form[action$='/share'] button[type=submit]").click()
    WebDriverWait(driver, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, "a[href^='/share/']"))
    share = driver.find_element(By.CSS_SELECTOR, "a[href^='/share/']").get_attribute("href")
    driver.find_element(By.CSS_SELECTOR, "form[action='/logout'] button").click()
    WebDriverWait(driver, 10).until(lambda d: urllib.parse.urlparse(d.current_url).path == "/login")
    visit(driver, share, "share", shots, axe_report, problems)
    check("A shared report, read only" in body(), "the share link shows the report signed out")
    driver.get(base + "/")
    check(urllib.parse.urlparse(driver.current_url).path == "/login", "signed out, the console's pages ask to sign in")


def without_javascript(driver, base, ids, problems):
    sign_in(driver, base)
    for path in ["/", "/placements"] + [f"/experiments/{i}" for i in ids]:
        driver.get(base + path)
        check(driver.find_elements(By.CSS_SELECTOR, "main table"), f"{path} shows its tables with JavaScript off")
        check(not driver.find_elements(By.CSS_SELECTOR, "th button"), f"{path}: nothing the script adds is there with JavaScript off")
        problems += [f"{path} without JavaScript: {p}" for p in layout_problems(driver, 1280)]
    driver.get(base + "/experiments/chorus-trial-length?until=" + UNTIL)
    check(f"data as of {UNTIL}T00:00:00Z" in driver.find_element(By.TAG_NAME, "body").text, "the form's query works with JavaScript off")


def main():
    abctl = os.environ.get("ABCTL_BIN") or os.path.join(ROOT, ".build/debug/abctl")
    check(os.access(abctl, os.X_OK), f"no abctl binary at {abctl}; build it or set ABCTL_BIN")
    signal.signal(signal.SIGALRM, lambda *_: (_ for _ in ()).throw(Failed(f"the browser test took more than {TIME_LIMIT} s")))
    signal.alarm(TIME_LIMIT)
    started = time.monotonic()
    folder = tempfile.mkdtemp(prefix="abctl-browser-")
    shots = os.path.join(folder, "screenshots")
    os.makedirs(shots)
    experiments, ids = experiments_copy(folder)
    db = os.path.join(folder, "store.sqlite")
    run(abctl, "simulate", "--users", "4000", "--seed", "7", "--days", "14", "--tail-days", "16",
        "--until", "2026-12-02T00:00:00Z", "--safeguards", "--truth", os.path.join(experiments, "simulation/chorus-plus-truth.json"),
        "--experiments", experiments, "--db", db)
    keys = os.path.join(folder, "keys")
    with open(keys, "w") as f:
        f.write(f"{REPORT_KEY} report pm-browser\n")
    TIMES.append(f"simulate {time.monotonic() - started:.1f} s")
    server = Server(abctl, experiments, db, keys)
    problems, axe_report, drivers = [], [], []
    try:
        drivers.append(browser())
        with_javascript(drivers[-1], server.base, ids, shots, axe_report, problems)
        drivers.append(browser(javascript=False))
        without_javascript(drivers[-1], server.base, ids, problems)
    finally:
        signal.alarm(0)
        for d in drivers:
            d.quit()
        server.stop()
    print(f"console in a browser: {len(os.listdir(shots))} screenshots in {shots}")
    print("times: " + ", ".join(TIMES))
    print("axe violations (every impact):" if axe_report else "axe violations: none")
    for line in axe_report:
        print("  " + line)
    if problems:
        print("FAILED:")
        for p in problems:
            print("  " + p)
        return 1
    print(f"console in a browser: every page passed in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Failed as failure:
        print(f"FAILED: {failure}", file=sys.stderr)
        sys.exit(1)
