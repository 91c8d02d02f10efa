"""States of an indicator (LED) as the Bare Metal API names them."""

OFF = "OFF"
"""The indicator is dark."""
ON = "ON"
"""The indicator is lit steadily."""
BLINKING = "BLINKING"
"""The indicator blinks (usually: "find this machine")."""
UNKNOWN = "UNKNOWN"
"""The BMC cannot tell."""

ALL = (OFF, ON, BLINKING, UNKNOWN)
#: What an operator may ask for.
SETTABLE = (OFF, ON, BLINKING)
