"""Many releases of one OpenDP measurement in one call, read without OpenDP's per-item conversion.

OpenDP has no vector form of randomized response or noisy max, so a batch of n releases is
``make_composition`` of n copies of the measurement (:func:`compose`), invoked once: n independent
releases, sampled by OpenDP.  Its output is a ``Vec<AnyObject>``, which OpenDP's Python binding converts
item by item: each item's type is read, parsed and freed through the FFI, about 20 µs per item, while the
sampling of a randomized response takes about 0.5 µs.  :func:`releases` invokes the composition through
the same FFI function as ``Measurement.__call__`` (``opendp_core__measurement_invoke``) and reads the items
with the item type read once: each item's slice is read as that type's C scalar (or vector of scalars, or
the bytes of a bit vector), about 2.5 µs per randomized response and 4.5 µs per top-2 release.

Only the reading changes, never the measurement or its draws.  The reader relies on OpenDP's internal FFI
helpers (``opendp._lib``, ``opendp._data``; present from 0.12 to 0.16), so it checks itself: the first
output of each item type in a process is also converted by OpenDP's own ``c_to_py``, and every item must
be equal; on a mismatch, or if a helper is missing, the fast reader is switched off for that item type
(or for good) and OpenDP's own conversion is used.  Vector items are returned as tuples.

Example
-------
>>> import opendp.prelude as dp
>>> _ = dp.enable_features("contrib")
>>> batch = compose(dp.m.make_randomized_response_bool(prob=0.75), 64)
>>> out = releases(batch, True)
>>> len(out), {type(y) for y in out}
(64, {<class 'bool'>})
"""

from __future__ import annotations

import ctypes
from dpverify.validation import check_positive_int

__all__ = ["compose", "releases", "reader_state"]

#: the most copies in one composition
MAX_COPIES = 1 << 16
_ATOMS = {"bool": ctypes.c_bool, "i8": ctypes.c_int8, "i16": ctypes.c_int16, "i32": ctypes.c_int32,
          "i64": ctypes.c_int64, "u8": ctypes.c_uint8, "u16": ctypes.c_uint16, "u32": ctypes.c_uint32,
          "u64": ctypes.c_uint64, "usize": ctypes.c_size_t, "isize": ctypes.c_ssize_t, "f32": ctypes.c_float,
          "f64": ctypes.c_double}
#: item type -> True (the fast reader agreed with OpenDP's conversion) or False (switched off)
_AGREES: dict[str, bool] = {}
_FFI: list = []  # [the loaded helpers] or [None] when they are missing


def _measurement(obj, name: str):
    try:
        from opendp.mod import Measurement
    except ImportError as exc:
        raise TypeError(f"{name} must be an OpenDP Measurement (OpenDP is not installed: {exc})") from None
    if not isinstance(obj, Measurement):
        raise TypeError(f"{name} must be an OpenDP Measurement, got {type(obj).__name__}")
    return obj


def compose(measurement, copies: int):
    """``copies`` copies of ``measurement`` under OpenDP's ``make_composition`` (``make_basic_composition``
    before 0.14): one invocation, ``copies`` independent releases.

    Example
    -------
    >>> compose("laplace", 2)
    Traceback (most recent call last):
    ...
    TypeError: measurement must be an OpenDP Measurement, got str
    """
    m = _measurement(measurement, "measurement")
    copies = check_positive_int(copies, "copies", maximum=MAX_COPIES)
    import opendp.prelude as dp

    make = getattr(dp.c, "make_composition", None) or dp.c.make_basic_composition
    return make([m] * copies)


def _helpers():
    """OpenDP's FFI helpers, loaded once (None when this release lacks one)."""
    if not _FFI:
        try:
            from opendp._convert import c_to_py, py_to_c
            from opendp._data import ffislice_of_anyobjectptrs, object_as_slice, object_type, slice_free
            from opendp._lib import AnyObject, AnyObjectPtr, FfiResult, FfiSlicePtr, lib, unwrap
            from opendp.core import measurement_input_carrier_type
            from opendp.mod import Measurement

            def fresh(name, argtypes):  # our own function object: OpenDP's keep their argtypes
                f = lib[name]
                f.argtypes, f.restype = argtypes, FfiResult
                return f

            _FFI.append({"c_to_py": c_to_py, "py_to_c": py_to_c, "carrier": measurement_input_carrier_type,
                         "pointers": ffislice_of_anyobjectptrs, "as_slice": object_as_slice, "type": object_type,
                         "slice_free": slice_free, "AnyObject": AnyObject, "AnyObjectPtr": AnyObjectPtr,
                         "FfiSlicePtr": FfiSlicePtr, "unwrap": unwrap,
                         "invoke": fresh("opendp_core__measurement_invoke", [Measurement, AnyObjectPtr]),
                         "item_slice": fresh("opendp_data__object_as_slice", [ctypes.c_void_p]),
                         "item_free": fresh("opendp_data__slice_free", [ctypes.c_void_p])})
        except (ImportError, AttributeError):
            _FFI.append(None)
    return _FFI[0]


def _plain(y):
    return tuple(y) if isinstance(y, list) else y


def _read(f, out) -> tuple[str, list]:
    """(the item type, the items) of a ``Vec<AnyObject>`` output; ValueError when an item type is not read here."""
    if f["type"](out) != "Vec<AnyObject>":
        raise ValueError("not a composition's output")
    outer = f["as_slice"](out)
    try:
        raw = f["pointers"](outer)
        n = raw.contents.len
        ptrs = ctypes.cast(raw.contents.ptr, ctypes.POINTER(ctypes.c_void_p))[0:n]
    finally:
        f["slice_free"](outer)
    if not ptrs:
        return "", []
    first = ctypes.cast(ptrs[0], f["AnyObjectPtr"])  # as OpenDP reads a vector's items (0.12 needs this class)
    try:
        item = f["type"](first)
    finally:
        first.__class__ = ctypes.POINTER(f["AnyObject"])  # never freed here: the whole output owns its items
    vector, bits = item.startswith("Vec<") and item.endswith(">"), item == "BitVector"
    atom = ctypes.c_uint8 if bits else _ATOMS.get(item[4:-1] if vector else item)
    if atom is None:
        raise ValueError(f"item type {item} is not read here")
    pointer, slice_ptr, values = ctypes.POINTER(atom), f["FfiSlicePtr"], []
    for p in ptrs:
        r = f["item_slice"](p)
        if r.tag != 0:
            raise ValueError("an item could not be read")
        s = ctypes.cast(r.payload.Ok, slice_ptr).contents
        data = ctypes.cast(s.ptr, pointer)
        if bits:  # the slice's length counts bits: the bytes that hold them, as OpenDP returns them
            values.append(bytes(data[0:-(s.len // -8)]))
        else:
            values.append(tuple(data[0:s.len]) if vector else data.contents.value)
        f["item_free"](r.payload.Ok)
    return item, values


def releases(composition, arg) -> list:
    """The releases of one invocation of ``composition`` (a composition of copies of a measurement with
    scalar or vector outputs, e.g. from :func:`compose`) on ``arg``, as Python values (vectors as tuples).

    Example
    -------
    >>> releases(object(), 1)
    Traceback (most recent call last):
    ...
    TypeError: composition must be an OpenDP Measurement, got object
    """
    m = _measurement(composition, "composition")
    f = _helpers()
    if f is None:
        return [_plain(y) for y in m(arg)]
    carrier = f["carrier"](m)
    try:
        c_arg = f["py_to_c"](arg, c_type=f["AnyObjectPtr"], type_name=carrier)
    except Exception as exc:  # OpenDP's conversion: TypeError, ValueError or its UnknownTypeException
        raise TypeError(f"arg must be a value of the composition's input type {carrier}, got {arg!r:.80} "
                        f"({type(exc).__name__}: {exc})"[:400]) from None
    try:
        out = f["unwrap"](f["invoke"](m, c_arg), f["AnyObjectPtr"])
    except Exception as exc:  # OpenDP's own error (an input outside the domain, a failed release)
        raise ValueError(f"arg {arg!r:.80}: OpenDP did not release: {type(exc).__name__}: {exc}"[:400]) from None
    try:
        item, values = _read(f, out)
    except ValueError:  # an item type not read here
        return [_plain(y) for y in f["c_to_py"](out)]
    except Exception:  # a helper that does not work as expected in this release: switched off for good
        _FFI[0] = None
        return [_plain(y) for y in f["c_to_py"](out)]
    if _AGREES.get(item) is not True:
        theirs = [_plain(y) for y in f["c_to_py"](out)]  # OpenDP's conversion of the same output
        if _AGREES.get(item) is None:
            _AGREES[item] = theirs == values
        return theirs
    return values


def reader_state() -> dict:
    """Item type -> whether the fast reader agreed with OpenDP's own conversion (a copy; empty before use).

    Example
    -------
    >>> isinstance(reader_state(), dict)
    True
    """
    return dict(_AGREES)
