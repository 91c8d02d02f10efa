"""``ironic-api`` with forked workers: its Prometheus endpoint adds up the
requests every worker served."""

from __future__ import annotations

import urllib.request

import pytest

from ironic.tests.functional import service as svc
from ironic.tests.functional.test_api_workers import ApiService
from ironic.tests.functional.test_metrics import sample, scrape

REQUESTS = 30


@pytest.fixture
def api(tmp_path):
    (tmp_path / "state").mkdir()
    port = svc.free_port()
    service = ApiService(tmp_path, api={"api_workers": "2"}, sections={
        "metrics": {"prometheus_port": str(port)}})
    service.metrics_url = f"http://127.0.0.1:{port}/metrics"
    service.start()
    yield service
    assert service.stop() == 0, service.logs()


def test_requests_of_all_workers_are_counted(api):
    # A new connection each time, so that the kernel spreads them over
    # both workers.
    for _ in range(REQUESTS):
        with urllib.request.urlopen(api.endpoint + "/v1/nodes",
                                    timeout=5) as resp:
            assert resp.status == 200
    text = scrape(api.metrics_url)
    assert sample(text, "ironic_api_request_duration_seconds_count",
                  method="GET", route="/v1/nodes", status="200") == REQUESTS
    assert sample(text, "ironic_nodes") is None  # an empty database
