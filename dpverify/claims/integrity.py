"""What a check may not change in the worker that runs it: the claims engine and what it reports through.

A supervised worker (:mod:`dpverify.claims.server`) runs many claims of one group (one claims
file, or one room) one after another, so that their caches stay warm.  A check that rebinds a
function of the engine (``dpverify.claims.supervisor._payload = fake``), swaps its code
(``f.__code__ = g.__code__``), patches a method of :class:`~dpverify.claims.model.Outcome`, or
replaces ``json.dumps`` or ``os.write`` could make the claims that run after it in that worker
report what it chose.  :class:`EngineSnapshot` records, when the worker starts, the identity of
every attribute of the watched modules (every ``dpverify.claims`` module, ``json`` and its
submodules, ``multiprocessing.connection``, ``os``/``posix``, ``builtins``, ``threading``,
``faulthandler``, ``signal``, ``traceback``, ``time``), of the code, defaults and globals of their
functions, and of the attributes of the classes they define; :meth:`EngineSnapshot.changed`
names the first that differs.  The worker reports the name with the claim's result; the
supervisor makes that claim an ``error`` ("the check ... modified the claims engine
(dpverify.claims.supervisor._payload)") and ends the worker, so no later claim runs in it.

This is a tripwire against patching, not a sandbox: a check runs Python with the worker's
rights and could also, e.g., write the process's memory through ``ctypes``.  Claims of other
files and rooms are kept apart by processes: they never share a worker.

Example
-------
>>> import dpverify.claims.protocol as protocol
>>> snap = EngineSnapshot()
>>> snap.changed() is None
True
>>> saved = protocol.send
>>> protocol.send = lambda conn, msg: None
>>> snap.changed()
'dpverify.claims.protocol.send'
>>> protocol.send = saved
>>> snap.changed() is None
True
"""

from __future__ import annotations

import sys
import types
from typing import Any

#: No Python API: the snapshot the supervised workers take (:mod:`dpverify.claims.server`).
__all__: list[str] = []

#: Modules watched as a whole (with their submodules when the name ends with ".").
WATCHED = ("dpverify.claims", "dpverify.claims.", "json", "json.", "multiprocessing.connection", "os", "posix",
           "builtins", "threading", "faulthandler", "signal", "traceback", "time", "_json")


def _watched(name: str) -> bool:
    return any(name.startswith(w) if w.endswith(".") else name == w for w in WATCHED)


def _marks(value: Any) -> tuple:
    """What identifies a module attribute: the object, and for a function its code, defaults and globals."""
    f = getattr(value, "__func__", value)  # a bound method: its function
    if isinstance(f, types.FunctionType):
        return (id(value), id(f.__code__), id(f.__defaults__), id(f.__kwdefaults__), id(f.__globals__))
    return (id(value),)


class EngineSnapshot:
    """The identities of the watched modules' attributes (and their functions' code) now.

    The snapshot keeps a reference to every object it records, so an identity cannot be
    reused by a new object while the snapshot lives.
    """

    def __init__(self) -> None:
        self._keep: list = []
        self._marks = self._take(keep=True)

    def _take(self, keep: bool = False) -> dict[str, tuple]:
        out: dict[str, tuple] = {}
        for name, mod in list(sys.modules.items()):
            if mod is None or not _watched(name):
                continue
            for key, value in list(vars(mod).items()):
                if key in _VOLATILE:
                    continue
                out[f"{name}.{key}"] = _marks(value)
                if keep:
                    self._keep.append(value)
                if isinstance(value, type) and getattr(value, "__module__", None) == name:
                    for attr, v in list(vars(value).items()):
                        if attr not in _VOLATILE:
                            out[f"{name}.{key}.{attr}"] = _marks(v)
                            if keep:
                                self._keep.append(v)
        return out

    def changed(self) -> str | None:
        """The name of the first watched attribute that was rebound or removed, or whose function's
        code, defaults or globals were replaced; else None.  Attributes and watched modules that
        appeared after the snapshot (a submodule imported later) have no earlier state to compare."""
        now = self._take()
        for name, mark in self._marks.items():
            if now.get(name) != mark:
                return name
        return None


#: Attributes Python itself rebinds or creates as a program runs (``warnings`` keeps a registry per module;
#: the interactive display hook sets ``builtins._``).
_VOLATILE = frozenset({"_", "__warningregistry__", "__builtins__", "__dict__", "__weakref__", "__doc__",
                       "_abc_impl", "__abstractmethods__", "__parameters__"})
