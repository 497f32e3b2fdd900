"""Claim figures as embedded PNG images (base64), drawn without a display.

A claim may provide ``figure(outcome) -> matplotlib.figure.Figure``; the
outcome carries the plotting data in ``Outcome.figure_data`` (after a run in
worker processes that data arrives as plain JSON lists).  A figure function
that raises does not stop the report: the error is shown instead.

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

__all__ = ["FigureImage", "figure_caption", "figure_to_png", "render_claim_figure"]

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


def render_claim_figure(result: Result) -> tuple[FigureImage | None, str | None]:
    """``(image, None)``; ``(None, None)`` when there is no figure; ``(None, traceback)`` when drawing failed.

    A claim without a figure function, or whose check crashed or timed out
    (``result.error`` set), has no figure.
    """
    if not isinstance(result, Result):
        raise TypeError(f"result must be a Result, got {type(result).__name__}")
    c = result.claim
    if c.figure is None or result.error is not None:
        return None, None
    try:
        fig = c.figure(result.outcome)
        img = figure_to_png(fig)
        if not img.caption:
            img = dataclasses.replace(img, caption=figure_caption(None, result.outcome.figure_data))
        return img, None
    except Exception:
        return None, traceback.format_exc()
