"""The checks on a figure drawn by a check's process, one by one: each refusal names the test that failed,
an image must be a whole PNG of at most 25 megapixels, a report nested too deep is refused, text that
cannot be written as UTF-8 is escaped, and the report of a check is fixed before its figure is drawn."""

from __future__ import annotations

import base64
import json
import struct
import zlib
from datetime import datetime, timezone

import pytest

from dpverify.claims.model import Claim, Method, Outcome, Result, Source, Verdict
from dpverify.claims.protocol import DrawnFigure, ProtocolError, encode_result, read_result
from dpverify.claims.runner import run_claim
from dpverify.claims.server import report_text
from dpverify.report.build import draw_figures, results_document, write_report
from dpverify.report.figures import figure_to_png, image_problem, image_to_json

SURROGATE = b"caf\xe9".decode("utf-8", "surrogateescape")


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _png(w: int, h: int, *chunks: bytes) -> dict:
    raw = b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) + b"".join(chunks)
    return {"png_base64": base64.b64encode(raw).decode("ascii"), "width": w, "height": h, "caption": ""}


def _claim(figure=None, method=Method.PROPERTY, outcome=None) -> Claim:
    out = outcome or Outcome(Verdict.HOLDS, {"n": 1}, figure_data={"x": [1]}, summary="ok")
    return Claim("zzhostile.a", Source("My paper"), "s", method, Verdict.HOLDS, lambda thorough=False: out,
                 figure=figure)


def _drawn_error(drawn) -> str:
    r = Result(_claim(), Outcome(Verdict.HOLDS, {}, DrawnFigure(None, drawn)), 0.1)
    figures, errors = draw_figures([r])
    assert figures == {}
    return errors["zzhostile.a"]


def test_each_refusal_names_the_test_that_failed():
    assert _drawn_error({"image": {"width": 1}, "error": None}) == (
        "the check's process sent a figure with an image without its PNG data (no png_base64 string)")
    assert _drawn_error({"image": {"png_base64": "A", "caption": "x" * 10_001}, "error": None}) == (
        "the check's process sent a figure with a caption longer than 10000 characters")
    assert _drawn_error({"image": {**_png(5, 5), "width": 4}, "error": None}) == (
        "the check's process sent a figure that is not accepted: the PNG header gives the size (5, 5), "
        "not the 4 × 5 stated")


def test_an_image_is_a_whole_png_of_at_most_25_megapixels():
    from matplotlib.figure import Figure

    assert image_problem(image_to_json(figure_to_png(Figure(figsize=(1, 1))))) is None
    idat, iend = _chunk(b"IDAT", zlib.compress(b"\x00" * 16)), _chunk(b"IEND", b"")
    assert image_problem(_png(99999, 99999)) == "the image has 99999 × 99999 pixels, more than 25000000"
    assert len(base64.b64decode(_png(99999, 99999)["png_base64"])) == 33
    assert image_problem(_png(5, 5)) == "the PNG holds no image data (no IDAT chunk)"
    assert image_problem(_png(5, 5, idat)) == "the PNG does not end with an IEND chunk"
    assert image_problem(_png(5, 5, idat[:-6])) == "the PNG data is cut short (a chunk runs past its end)"
    assert image_problem(_png(5, 5, idat, iend)) is None
    assert _drawn_error({"image": _png(5, 5), "error": None}).endswith("(no IDAT chunk)")


class _Conn:
    def __init__(self, msg):
        self.raw = json.dumps(msg).encode()

    def recv_bytes(self, maxlength):
        return self.raw


def _deep(n):
    x = 1
    for _ in range(n):
        x = [x]
    return x


@pytest.mark.parametrize("field", ["evidence", "figure"])
def test_a_report_nested_too_deep_is_refused(field):
    ev, fig = ({"x": _deep(300)}, None) if field == "evidence" else ({}, _deep(300))
    with pytest.raises(ProtocolError, match="nested deeper than 150 levels"):
        read_result(_Conn(encode_result(0, "ok", ("refuted", ev, fig, 0.1, None, "", None), 0)), 0)
    assert read_result(_Conn(encode_result(0, "ok", ("refuted", {"x": _deep(100)}, None, 0.1, None, "", None), 0)), 0)


def test_text_that_cannot_be_written_as_utf8_is_escaped(tmp_path):
    msg = read_result(_Conn(encode_result(0, "ok", ("holds", {"f": SURROGATE}, None, 0.1, None, SURROGATE,
                                                    {"image": None, "error": SURROGATE}), 0)), 0)
    assert msg["evidence"]["f"] == msg["summary"] == msg["figure"].error == "caf\\udce9"
    r = Result(_claim(), Outcome(Verdict.HOLDS, {"f": SURROGATE}, summary="ok"), 0.1)  # a run in this process
    doc = results_document([r], command="x", started=datetime.now(timezone.utc), total_seconds=0.1)
    rep = write_report(tmp_path, doc, [r])
    assert json.loads(rep.json.read_text(encoding="utf-8"))["claims"][0]["evidence"]["f"] == "caf\\udce9"


def test_the_report_is_fixed_before_the_figure_is_drawn():
    """A figure function that changes the outcome it is given, and every report and outcome it finds on
    the stack, changes nothing that is sent but its own figure."""
    import sys

    def hostile(outcome):
        outcome.evidence["route"] = "exact computation"
        f = sys._getframe()
        while f is not None:
            for v in list(f.f_locals.values()):
                if isinstance(v, dict) and "verdict" in v:
                    v.update(verdict="holds", evidence={"forged": 1})
                if isinstance(v, Result):
                    object.__setattr__(v.outcome, "verdict", Verdict.HOLDS)
            f = f.f_back
        from matplotlib.figure import Figure

        return Figure(figsize=(1, 1))

    out = Outcome(Verdict.INCONCLUSIVE, {"n": 1}, figure_data={"x": [1]}, summary="no violation found")
    c = _claim(hostile, Method.AUDIT, out)
    drawn = json.loads(report_text(run_claim, c, 0, False, True))  # first: the walk would reach this test's frame
    plain = json.loads(report_text(run_claim, c, 0, False, False))
    assert drawn.pop("drawn")["image"]["png_base64"] and plain.pop("drawn") is None
    drawn["seconds"] = plain["seconds"] = 0.0
    assert drawn == plain and plain["verdict"] == "inconclusive" and plain["evidence"] == {"n": 1, "route": "audit"}
