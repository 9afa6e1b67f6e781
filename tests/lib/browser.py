"""Headless Chromium for the browser tests (selenium, Debian's chromium and chromedriver)."""
import shutil
import time

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service


def chromium(width=1400, height=1100):
    o = Options()
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", f"--window-size={width},{height}",
              "--disable-dev-shm-usage", "--force-device-scale-factor=1"):
        o.add_argument(a)
    o.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    driver = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    return webdriver.Chrome(service=Service(driver), options=o)


def wait_for(condition, timeout=20, step=0.1):
    """Polls `condition()` until it is truthy or `timeout` seconds pass; returns its last value."""
    end = time.monotonic() + timeout
    value = condition()
    while not value and time.monotonic() < end:
        time.sleep(step)
        value = condition()
    return value
