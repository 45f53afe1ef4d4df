"""The tests run against a real Berth: BERTH_URL and BERTH_TOKEN name it
(sdk/conformance's Go test starts one and runs this suite against it)."""

import os
import sys
from pathlib import Path

import pytest

# The tests import the runner module beside them.
sys.path.insert(0, str(Path(__file__).resolve().parent))


@pytest.fixture(scope="session")
def stack() -> tuple[str, str]:
    url = os.environ.get("BERTH_URL")
    if not url:
        pytest.fail("BERTH_URL and BERTH_TOKEN must name a running Berth (go test ./sdk/conformance starts one)")
    return url, os.environ.get("BERTH_TOKEN", "")
