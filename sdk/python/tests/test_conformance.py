"""The shared scenarios of sdk/conformance, run with the Python SDK. Results
go to BERTH_CONFORMANCE_RESULTS (scenario -> "pass" or the failure) for the
conformance table."""

import json
import os

import pytest

import berth
from conformance import Runner, scenarios

RESULTS: dict[str, str] = {}


def teardown_module() -> None:
    path = os.environ.get("BERTH_CONFORMANCE_RESULTS")
    if path:
        with open(path, "w") as f:
            json.dump(RESULTS, f)


@pytest.mark.parametrize("scenario", scenarios(), ids=lambda s: s["name"])
def test_scenario(stack, scenario) -> None:
    url, token = stack
    with berth.Client(url, token) as c, berth.Client(url, "not-the-token") as bad:
        try:
            Runner(c, bad, scenario["name"]).run(scenario)
        except BaseException as e:
            RESULTS[scenario["name"]] = f"FAIL: {e}"
            raise
        RESULTS[scenario["name"]] = "pass"
