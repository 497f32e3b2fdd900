"""Claim figures as embedded PNG images (base64), drawn without a display.

A claim may provide ``figure(outcome) -> matplotlib.figure.Figure``; the
outcome carries the plotting data in ``Outcome.figure_data`` (after a run in
worker processes that data arrives as plain JSON lists).  A figure function
that raises does not stop the report: the error is shown instead.

The figure of a claim from a user's file is drawn by the process that ran its check (the
parent never imports that file) and arrives with its report
(:class:`~dpverify.claims.protocol.DrawnFigure`); :func:`render_claim_figure` then uses the
image only when :func:`image_from_json` accepts it, else it gives a figure error.

Example
-------
>>> from matplotlib.figure import Figure
>>> fig = Figure(figsize=(2, 1)); _ = fig.add_subplot().plot([0, 1], [1, 0])
>>> img = figure_to_png(fig)
>>> 100 < img.width < 260 and 50 < img.height < 160, img.data_uri.startswith("data:image/png;base64,")
(True, True)
"""

from __future__ import annotations

import base64
import dataclasses
import io
import numbers
import struct
import traceback
from dataclasses import dataclass
from typing import Any

from dpverify.claims.model import Result
from dpverify.claims.protocol import DrawnFigure, utf8_safe

__all__ = ["FigureImage", "MIN_FONT", "figure_caption", "figure_to_png", "image_from_json", "image_problem",
           "image_to_json", "readable", "render_claim_figure"]

_DPI = 100


@dataclass(frozen=True)
class FigureImage:
    """A PNG image: base64 data, its size in pixels and its caption (may be empty)."""

    png_base64: str
    width: int
    height: int
    caption: str = ""

    @property
    def data_uri(self) -> str:
        return "data:image/png;base64," + self.png_base64


def figure_caption(fig: Any, figure_data: Any = None) -> str:
    """The caption a figure function gave: ``fig._dpverify_caption``, else ``figure_data["caption"]``, else ``""``."""
    from matplotlib.figure import Figure

    if fig is not None and not isinstance(fig, Figure):
        raise TypeError(f"fig must be a matplotlib Figure or None, got {type(fig).__name__}")
    cap = getattr(fig, "_dpverify_caption", None)
    if not cap and isinstance(figure_data, dict):
        cap = figure_data.get("caption")
    return str(cap).strip() if cap else ""


def figure_to_png(fig: Any, *, dpi: int = _DPI) -> FigureImage:
    """Draw a matplotlib Figure to PNG (Agg renderer, no display needed) and close it.

    The caption is :func:`figure_caption` of the figure."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    if not isinstance(fig, Figure):
        raise TypeError(f"fig must be a matplotlib Figure, got {type(fig).__name__}")
    if isinstance(dpi, bool) or not isinstance(dpi, numbers.Integral) or not 10 <= dpi <= 2400:
        raise ValueError(f"dpi must be an integer in [10, 2400], got {dpi!r}")
    dpi = int(dpi)
    FigureCanvasAgg(fig)  # attach an Agg canvas: no display needed, whatever the pyplot backend
    readable(fig)
    buf = io.BytesIO()
    # "tight" keeps axis labels that stick out of the figure; the size is read back from the PNG header
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight", pad_inches=0.05, facecolor="white")
    png = buf.getvalue()
    if png[:8] != b"\x89PNG\r\n\x1a\n" or png[12:16] != b"IHDR":
        raise RuntimeError("matplotlib did not produce a PNG image")
    width, height = struct.unpack(">II", png[16:24])
    try:
        import matplotlib.pyplot as plt

        plt.close(fig)
    except Exception:  # a Figure made without pyplot is simply dropped
        pass
    return FigureImage(base64.b64encode(png).decode("ascii"), int(width), int(height), figure_caption(fig))


def image_to_json(img: FigureImage) -> dict[str, Any]:
    """A drawn figure as JSON (``verify --save`` keeps it, so ``report --from`` need not draw it again)."""
    if not isinstance(img, FigureImage):
        raise TypeError(f"img must be a FigureImage, got {type(img).__name__}")
    return {"png_base64": img.png_base64, "width": img.width, "height": img.height, "caption": img.caption}


#: largest saved image :func:`image_from_json` accepts (base64 characters), longest caption (characters)
#: and most pixels (width × height)
MAX_SAVED_IMAGE, MAX_CAPTION, MAX_PIXELS = 8_000_000, 10_000, 25_000_000


def image_from_json(obj: Any) -> FigureImage | None:
    """The figure saved by :func:`image_to_json`, or None when ``obj`` is not one (:func:`image_problem`).

    A saved results file may hold anything: the image is used only when it is base64 of a PNG
    whose header gives the saved width and height (the page embeds it as a ``data:`` URI), with a
    caption of at most :data:`MAX_CAPTION` characters.

    >>> from matplotlib.figure import Figure
    >>> img = figure_to_png(Figure(figsize=(1, 1)))
    >>> image_from_json(image_to_json(img)) == img, image_from_json({"png_base64": "PHNjcmlwdD4="})
    (True, None)
    """
    if image_problem(obj) is not None:
        return None
    return FigureImage(obj["png_base64"], obj["width"], obj["height"], obj.get("caption", ""))


def image_problem(obj: Any) -> str | None:
    """Why ``obj`` is not an image :func:`image_from_json` accepts, naming the test it fails; None if it is.

    The tests: a dict; ``png_base64`` a string of 1 to :data:`MAX_SAVED_IMAGE` characters; a
    ``caption`` (if any) of at most :data:`MAX_CAPTION` characters; ``width`` and ``height`` whole
    numbers in [1, 99999] with at most :data:`MAX_PIXELS` pixels; the data base64 of a PNG whose
    chunks are whole, begin with an ``IHDR`` giving that width and height, hold image data (``IDAT``)
    and end with ``IEND``.

    >>> image_problem({"png_base64": "PHNjcmlwdD4=", "width": 1, "height": 1})
    'the data is not a PNG image (no PNG signature and IHDR header)'
    """
    if not isinstance(obj, dict):
        return f"not an image (a {type(obj).__name__})"
    data, w, h, cap = obj.get("png_base64"), obj.get("width"), obj.get("height"), obj.get("caption", "")
    if not isinstance(data, str) or not 0 < len(data) <= MAX_SAVED_IMAGE:
        return f"png_base64 is not a string of 1 to {MAX_SAVED_IMAGE} characters"
    if not isinstance(cap, str) or len(cap) > MAX_CAPTION:
        return f"the caption is not a string of at most {MAX_CAPTION} characters"
    if not all(isinstance(x, int) and not isinstance(x, bool) and 0 < x < 100_000 for x in (w, h)):
        return "the width and height are not whole numbers from 1 to 99999"
    if w * h > MAX_PIXELS:
        return f"the image has {w} × {h} pixels, more than {MAX_PIXELS}"
    try:
        png = base64.b64decode(data, validate=True)
    except ValueError:
        return "png_base64 is not base64"
    if png[:8] != b"\x89PNG\r\n\x1a\n" or png[12:16] != b"IHDR" or len(png) < 24:
        return "the data is not a PNG image (no PNG signature and IHDR header)"
    if struct.unpack(">II", png[16:24]) != (w, h):
        return f"the PNG header gives the size {struct.unpack('>II', png[16:24])}, not the {w} × {h} stated"
    return _chunk_problem(png)


def _chunk_problem(png: bytes) -> str | None:
    """Why the chunks after the PNG signature are not whole, or hold no ``IDAT``, or do not end with ``IEND``."""
    at, kinds = 8, []
    while at + 12 <= len(png):
        size = struct.unpack(">I", png[at:at + 4])[0]
        kinds.append(png[at + 4:at + 8])
        at += 12 + size
        if kinds[-1] == b"IEND":
            break
    if at > len(png):
        return "the PNG data is cut short (a chunk runs past its end)"
    if b"IDAT" not in kinds:
        return "the PNG holds no image data (no IDAT chunk)"
    if kinds[-1] != b"IEND":
        return "the PNG does not end with an IEND chunk"
    return None


#: smallest font size (points) of tick labels and legend entries in a report figure
MIN_FONT = 9.0


def readable(fig: Any) -> Any:
    """Make a figure readable in print, in place; returns it.

    An axis whose plotted data are all whole numbers gets whole-number ticks only (no tick at
    2.5 on a count axis); tick labels and legend entries are at least :data:`MIN_FONT` points;
    a legend gets an opaque frame so lines behind it do not cross its text.

    >>> from matplotlib.figure import Figure
    >>> fig = Figure(); ax = fig.add_subplot(); _ = ax.plot([1, 2, 3, 4], [0.5, 0.1, 0.7, 0.2], label="a")
    >>> _ = ax.legend(fontsize=5); _ = readable(fig)
    >>> ax.get_xticks().tolist() == [int(t) for t in ax.get_xticks()], ax.get_legend().get_texts()[0].get_fontsize()
    (True, 9.0)
    """
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    if not isinstance(fig, Figure):
        raise TypeError(f"fig must be a matplotlib Figure, got {type(fig).__name__}")
    for ax in fig.get_axes():
        for axis, which in ((ax.xaxis, 0), (ax.yaxis, 1)):
            if axis.get_scale() == "linear" and _whole(_data(ax, which)):
                axis.set_major_locator(MaxNLocator(integer=True))
            for label in axis.get_ticklabels():
                label.set_fontsize(max(label.get_fontsize(), MIN_FONT))
        legends = [ax.get_legend()] + [c for c in ax.get_children() if type(c).__name__ == "Legend"]
        for leg in {id(x): x for x in legends if x is not None}.values():
            for t in leg.get_texts():
                t.set_fontsize(max(t.get_fontsize(), MIN_FONT))
            leg.get_frame().set_alpha(0.95)
    return fig


def _data(ax: Any, which: int) -> list:
    """The coordinates plotted on one axis (0: x, 1: y) of lines and scatter points."""
    import numpy as np

    out = []
    try:
        for line in ax.get_lines():
            out.append(np.asarray(line.get_xdata() if which == 0 else line.get_ydata(), dtype=float).ravel())
        for coll in ax.collections:
            offs = np.asarray(coll.get_offsets(), dtype=float)
            if offs.ndim == 2 and offs.shape[0] and offs.shape[1] == 2:
                out.append(offs[:, which])
    except (TypeError, ValueError):  # dates, categories: not a count axis, leave it alone
        return [np.array([0.5])]
    return out


def _whole(arrays: list) -> bool:
    import numpy as np

    vals = np.concatenate(arrays) if arrays else np.array([])
    vals = vals[np.isfinite(vals)]
    return vals.size > 0 and bool(np.all(vals == np.round(vals)))


def render_claim_figure(result: Result) -> tuple[FigureImage | None, str | None]:
    """``(image, None)``; ``(None, None)`` when there is no figure; ``(None, traceback)`` when drawing failed.

    A claim without a figure function, or whose check crashed or timed out
    (``result.error`` set), has no figure.  A figure drawn by the process that ran the check
    (:class:`~dpverify.claims.protocol.DrawnFigure`) is used as sent when it is a PNG image
    (:func:`image_from_json`); the error it carries is given as it was sent.
    """
    if not isinstance(result, Result):
        raise TypeError(f"result must be a Result, got {type(result).__name__}")
    c = result.claim
    if result.error is not None:
        return None, None
    drawn = result.outcome.figure_data
    if isinstance(drawn, DrawnFigure):
        if drawn.error is not None:
            return None, drawn.error
        why = image_problem(drawn.image)
        if why is not None:
            return None, f"the check's process sent a figure that is not accepted: {why}"
        return image_from_json(drawn.image), None
    if c.figure is None:
        return None, None
    try:
        fig = c.figure(result.outcome)
        img = figure_to_png(fig)
        if not img.caption:
            img = dataclasses.replace(img, caption=figure_caption(None, result.outcome.figure_data))
        return dataclasses.replace(img, caption=utf8_safe(img.caption)), None
    except Exception:
        return None, utf8_safe(traceback.format_exc())  # a lone surrogate (a file name) is escaped
