"""Where the browser tests find Chromium, and how they start it (Debian's build, never a downloaded one)."""

import os
from pathlib import Path

CHROMIUM = Path(os.environ.get("LESSON_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
IN_CI = os.environ.get("CI", "").lower() == "true"
