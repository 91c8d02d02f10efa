"""The conductor's RPC endpoint marks its service errors as expected."""

import oslo_messaging as messaging
import pytest

from ironic.common import exception, rpc


class Endpoint:
    target = messaging.Target(version="1.0")
    answered = 0

    def answer(self, context, value):
        self.answered += 1
        return value * 2

    def refuse(self, context):
        raise exception.NodeLocked(node="n1", host="h2")

    def fail(self, context):
        raise RuntimeError("a bug")


def test_results_and_the_target_pass_through():
    endpoint = Endpoint()
    wrapped = rpc.ExpectedErrors(endpoint)
    assert wrapped.target is Endpoint.target
    assert wrapped.answer(None, value=21) == 42
    assert endpoint.answered == 1


def test_service_errors_travel_as_expected_exceptions():
    with pytest.raises(messaging.ExpectedException) as err:
        rpc.ExpectedErrors(Endpoint()).refuse(None)
    kind, value, _ = err.value.exc_info
    assert kind is exception.NodeLocked and "h2" in str(value)


def test_other_errors_stay_errors():
    with pytest.raises(RuntimeError):
        rpc.ExpectedErrors(Endpoint()).fail(None)
