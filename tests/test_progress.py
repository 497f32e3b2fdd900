"""dpverify.progress: plain lines off a terminal, and never silent for long during one long step."""

import io
import time

from dpverify.progress import progress


def test_plain_lines_and_a_heartbeat_during_a_long_step():
    buf = io.StringIO()  # not a terminal
    with progress("demo", 2, stream=buf, every=0.2) as tick:
        tick(1, "first")
        time.sleep(4.5)  # one long step: no tick for 4.5 s
        tick(1, "second")
    lines = buf.getvalue().splitlines()
    beats = [ln for ln in lines if "still working (last done: first)" in ln]
    assert len(beats) >= 1, lines  # a line at least every 2 s of silence
    assert lines[-1].startswith("demo: 2/2") and lines[-1].endswith("done")


def test_silent_when_asked():
    with progress("demo", 1, stream=None) as tick:
        tick(1)
