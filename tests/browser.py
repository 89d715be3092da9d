"""Headless Chromium for the browser tests: Debian's ``chromium`` driven by Selenium.

Never downloads a browser or a driver: the binary and ``chromedriver`` must be installed (the
Debian packages ``chromium`` and ``chromium-driver``, as ``.ci/run`` does); where they are not,
:func:`chromium_or_skip` skips the test and says why.
"""

import os
import shutil
import socket
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

#: folder for the documentation screenshots (set to write them, e.g. docs/screenshots)
SCREENSHOT_DIR = os.environ.get("CUNNING_SCREENSHOTS")

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync",
                  "--disable-dev-shm-usage", "--window-size=1400,1000"]


def _find(names):
    for name in names:
        path = shutil.which(name)
        if path:
            return path
    return None


def chromium_or_skip():
    """``(chromium binary, chromedriver)`` paths, or skip the test saying what is missing."""
    pytest.importorskip("selenium", reason="selenium is not installed (pip install selenium)")
    browser = _find(["chromium", "chromium-browser"])
    driver = _find(["chromedriver"])
    if browser is None or driver is None:
        pytest.skip("no Chromium installed (apt-get install chromium chromium-driver): "
                    "browser tests skipped")
    return browser, driver


@contextmanager
def chromium(tmp_path: Path):
    """A headless Chromium WebDriver with a fresh profile in ``tmp_path``; quit on exit."""
    browser, driver_path = chromium_or_skip()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = Path(tmp_path) / "chromium-profile"
    profile.mkdir(parents=True, exist_ok=True)
    opts = webdriver.ChromeOptions()
    opts.binary_location = browser
    for flag in CHROMIUM_FLAGS + [f"--user-data-dir={profile}"]:
        opts.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=driver_path), options=opts)
    try:
        yield driver
    finally:
        driver.quit()


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def live_server(app):
    """Serve the ASGI ``app`` with uvicorn on 127.0.0.1 in a thread; yield its base URL."""
    import uvicorn

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def save_screenshot(driver, name: str, tmp_path: Path, docs: bool = True) -> Path:
    """Save a PNG screenshot as ``name`` (in :data:`SCREENSHOT_DIR` if set and ``docs``, else
    in ``tmp_path``) and check it is a PNG."""
    folder = Path(SCREENSHOT_DIR) if SCREENSHOT_DIR and docs else tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    assert driver.save_screenshot(str(path))
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    return path
