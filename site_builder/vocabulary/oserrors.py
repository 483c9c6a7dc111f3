"""The cause of a failed read or write, said in the course's language where it is a common one."""

from __future__ import annotations

import errno

from site_builder.vocabulary.i18n import Text, _


def reason(error: OSError) -> Text | str:
    """What went wrong, for a message: translated for the usual causes, the system's words otherwise."""
    said = {errno.ENOSPC: _("the disk is full"), errno.EDQUOT: _("the disk quota is used up"),
            errno.EROFS: _("the file system is read-only"), errno.EACCES: _("permission denied"),
            errno.EPERM: _("permission denied"), errno.EFBIG: _("a file is over the size limit (ulimit -f)"),
            errno.ENOTDIR: _("a file is in the way of a folder: move it away"),
            errno.EEXIST: _("a file is in the way of a folder: move it away"),
            errno.EIO: _("the disk reported an input/output error")}
    return said.get(error.errno or 0) or error.strerror or type(error).__name__
