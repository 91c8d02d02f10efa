"""Boot configuration files: templates and the files TFTP/HTTP serve.

Templates are plain text with ``{{ name }}`` placeholders; rendering fails
on a placeholder it has no value for, so a typo in an operator's template
is an error at preparation time, not a machine that silently does not
boot. ``$`` and ``${...}`` (GRUB and iPXE variables) pass through.

The helpers below write files with ``[pxe]file_permission`` and create
directories with ``[pxe]dir_permission``: the TFTP and HTTP servers reading
them usually run as another user than the conductor.
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile

from ironic.common import exception
from ironic.conf import CONF

TEMPLATE_DIR = os.path.dirname(os.path.abspath(__file__))
_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")


def load_template(configured: str | None, builtin: str) -> str:
    """The text of the template at ``configured``, or of the built-in
    ``builtin`` (a file name next to this module) when unset."""
    path = configured or os.path.join(TEMPLATE_DIR, builtin)
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError as e:
        raise exception.IronicException(
            f"Cannot read the boot configuration template {path}: "
            f"{e.strerror or e}") from e


def render(template: str, values: dict[str, object]) -> str:
    """``template`` with each ``{{ name }}`` replaced by its value."""
    def replace(match: re.Match) -> str:
        name = match.group(1)
        if name not in values:
            raise exception.IronicException(
                f"The boot configuration template uses {{{{ {name} }}}}, "
                f"which is not one of: {', '.join(sorted(values))}")
        return str(values[name])
    return _PLACEHOLDER.sub(replace, template)


def make_dir(path: str) -> None:
    """Create ``path`` (and parents) with [pxe]dir_permission."""
    if os.path.isdir(path):
        return
    parent = os.path.dirname(path.rstrip(os.sep))
    if parent and parent != path:
        make_dir(parent)
    with contextlib.suppress(FileExistsError):
        os.mkdir(path)
        if CONF.pxe.dir_permission is not None:
            os.chmod(path, CONF.pxe.dir_permission)


def write_file(path: str, content: str) -> None:
    """Atomically replace ``path`` with ``content`` ([pxe]file_permission):
    a machine fetching it mid-write gets the old or the new file."""
    directory = os.path.dirname(path)
    make_dir(directory)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".boot-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(content)
        os.chmod(tmp, CONF.pxe.file_permission)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def write_if_changed(path: str, content: str) -> bool:
    """Write ``path`` unless it already holds ``content``; whether it did."""
    try:
        with open(path, encoding="utf-8") as f:
            if f.read() == content:
                return False
    except OSError:
        pass
    write_file(path, content)
    return True


def relative_link(target: str, link: str) -> None:
    """Make ``link`` a symbolic link to ``target`` (relative, so that
    servers chrooted to their root follow it), replacing what was there."""
    make_dir(os.path.dirname(link))
    source = os.path.relpath(target, os.path.dirname(link))
    tmp = f"{link}.{os.getpid()}.tmp"
    remove(tmp)
    os.symlink(source, tmp)
    os.replace(tmp, link)


def remove(path: str) -> None:
    """Remove a file or link; a missing one is fine."""
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)


def remove_empty_dir(path: str) -> None:
    with contextlib.suppress(FileNotFoundError, OSError):
        os.rmdir(path)
