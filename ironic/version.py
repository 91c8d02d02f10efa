"""The service's own release number (not the API microversion)."""

from importlib import metadata

try:
    version_string: str = metadata.version("ironic")
except metadata.PackageNotFoundError:  # running from a source tree
    version_string = "0.0.0"
