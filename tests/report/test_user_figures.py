"""The figure a check's process drew, as the parent receives it (:class:`dpverify.claims.protocol.DrawnFigure`):
only a PNG whose header gives the stated size becomes an image; anything else is a figure error, never
an exception; the saved figure data is the data alone; a saved figure error survives ``report --from``."""

from __future__ import annotations

import base64
import json
from datetime import datetime, timezone

import pytest

from dpverify.claims.model import Claim, Method, Outcome, Result, Source, Verdict
from dpverify.claims.protocol import MAX_IMAGE, DrawnFigure, ProtocolError, encode_result, read_result
from dpverify.report.build import draw_figures, results_document, write_report
from dpverify.report.figures import figure_to_png, image_to_json


def _png_json() -> dict:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(1, 1))
    fig.add_subplot().plot([0, 1], [1, 0])
    return image_to_json(figure_to_png(fig))


def _result(drawn, data=None, error=None) -> Result:
    c = Claim("zzuserfig.a", Source("My paper"), "s", Method.EXACT, Verdict.HOLDS,
              lambda thorough=False: Outcome(Verdict.HOLDS))
    return Result(c, Outcome(Verdict.HOLDS, {"n": 1}, DrawnFigure(data, drawn)), 0.1, error)


class _Conn:
    def __init__(self, msg):
        self.raw = json.dumps(msg).encode()

    def recv_bytes(self, maxlength):
        return self.raw


def _report(drawn) -> dict:
    return encode_result(3, "ok", ("holds", {"n": 1}, {"x": [1]}, 0.5, None, "", drawn), 0)


def test_read_result_hands_on_a_drawn_figure():
    png = _png_json()
    msg = read_result(_Conn(_report({"image": png, "error": None})), 3)
    assert isinstance(msg["figure"], DrawnFigure) and msg["figure"].data == {"x": [1]} and msg["figure"].image == png
    assert read_result(_Conn(_report(None)), 3)["figure"] == {"x": [1]}  # nothing drawn: the data as before
    old = _report(None)
    del old["drawn"]  # a report may leave the field out (nothing drawn); any other field is still refused
    assert read_result(_Conn(old), 3)["figure"] == {"x": [1]}
    with pytest.raises(ProtocolError):
        read_result(_Conn({**_report(None), "drawn2": None}), 3)
    with pytest.raises(ProtocolError):
        read_result(_Conn(encode_result(3, "failed", "tb", 0) | {"drawn": None}), 3)


def test_a_valid_image_is_drawn():
    png = _png_json()
    figures, errors = draw_figures([_result({"image": png, "error": None})])
    assert errors == {} and image_to_json(figures["zzuserfig.a"]) == png


FORGED = {
    "script": {"image": {"png_base64": base64.b64encode(b"<script>").decode(), "width": 1, "height": 1,
                         "caption": ""}, "error": None},
    "not_base64": {"image": {"png_base64": '"><script>alert(1)</script>', "width": 1, "height": 1}, "error": None},
    "bool_size": {"image": {"png_base64": "iVBORw0KGgo=", "width": True, "height": 1}, "error": None},
    "too_big": {"image": {"png_base64": "A" * (MAX_IMAGE + 4), "width": 1, "height": 1}, "error": None},
    "long_caption": "caption",  # replaced below by a real PNG with a 10,001-character caption
    "both": {"image": {"png_base64": "A"}, "error": "x"},
    "neither": {"image": None, "error": None},
    "empty_error": {"image": None, "error": ""},
    "extra_key": {"image": None, "error": "x", "more": 1},
    "a_list": ["<script>"],
    "a_string": "<script>",
    "a_number": 7,
}


@pytest.mark.parametrize("case", sorted(FORGED))
def test_anything_else_is_a_figure_error(case):
    drawn = FORGED[case]
    if case == "long_caption":
        drawn = {"image": {**_png_json(), "caption": "x" * 10_001}, "error": None}
    figures, errors = draw_figures([_result(drawn)])
    assert figures == {} and errors["zzuserfig.a"].startswith("the check's process sent a"), errors
    assert "<" not in errors["zzuserfig.a"]


def test_a_figure_error_is_quoted_as_sent_and_a_failed_check_has_no_figure():
    tb = "Traceback (most recent call last):\n  ...\nValueError: boom <b>&amp;</b> 'x'\n"
    assert draw_figures([_result({"image": None, "error": tb})]) == ({}, {"zzuserfig.a": tb})
    assert draw_figures([_result({"image": _png_json(), "error": None}, error="Traceback: x")]) == ({}, {})


def test_saved_document_keeps_the_data_alone_and_report_from_keeps_the_error(tmp_path):
    tb = "ValueError: boom\n"
    r = _result({"image": None, "error": tb}, data={"x": [1, 2]})
    figures, errors = draw_figures([r])
    doc = results_document([r], command="x", started=datetime.now(timezone.utc), total_seconds=0.1,
                           figures_drawn=figures, figure_errors=errors)
    (e,) = doc["claims"]
    assert e["figure_data"] == {"x": [1, 2]} and e["figure_error"] == tb and e["figure"] is False
    saved = json.loads(json.dumps(doc))  # what report --from reads: nothing here can draw the figure again
    from dpverify.report.build import saved_results

    rep = write_report(tmp_path, saved, saved_results(saved))
    assert rep.document["claims"][0]["figure_error"] == tb
    assert "ValueError: boom" in rep.html.read_text(encoding="utf-8")
