"""The exceptions of symheap: one subclass of symheap.Error per status code
of the C library, each carrying .status (the code) and .message (the
library's detail message, e.g. "sym_put: PE 9 out of range (job has 4 PEs)")."""

from . import _symheap


class Error(RuntimeError):
    """A symheap call failed.  .status is the sym_status_t code, .message the
    library's detail message (also the exception's text)."""

    status = 0

    def __init__(self, message, status=None):
        super().__init__(message)
        self.message = message
        if status is not None:
            self.status = status


# One class per status, named after it: SYM_ERR_TIMEOUT -> TimeoutError_...
# is not Pythonic; the names below follow the C ones in CamelCase.
_NAMES = {
    "SYM_ERR_INVALID_ARG": "InvalidArgError",
    "SYM_ERR_INVALID_PE": "InvalidPEError",
    "SYM_ERR_NOT_SYMMETRIC": "NotSymmetricError",
    "SYM_ERR_NO_MEMORY": "NoMemoryError",
    "SYM_ERR_TIMEOUT": "TimeoutError",
    "SYM_ERR_PEER_LOST": "PeerLostError",
    "SYM_ERR_NOT_INITIALIZED": "NotInitializedError",
    "SYM_ERR_ALREADY_INITIALIZED": "AlreadyInitializedError",
    "SYM_ERR_CONFIG": "ConfigError",
    "SYM_ERR_SYSTEM": "SystemError",
    "SYM_ERR_ABORTED": "AbortedError",
    "SYM_ERR_BOOTSTRAP": "BootstrapError",
    "SYM_ERR_MISMATCH": "MismatchError",
    "SYM_ERR_TRUNCATED": "TruncatedError",
    "SYM_ERR_UNAVAILABLE": "UnavailableError",
    "SYM_ERR_TRANSPORT": "TransportError",
    "SYM_ERR_INTERNAL": "InternalError",
}

BY_STATUS = {}
for _cname, _pyname in _NAMES.items():
    _code = getattr(_symheap, _cname)
    _cls = type(_pyname, (Error,), {"status": _code, "__doc__": f"symheap status {_cname}."})
    globals()[_pyname] = _cls
    BY_STATUS[_code] = _cls


def from_status(status, message):
    """The exception instance for a failed call (used by the C layer)."""
    cls = BY_STATUS.get(status, Error)
    return cls(message, status)
