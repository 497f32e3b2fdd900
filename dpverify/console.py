"""One way to print through ``rich``: a console that quotes exactly.

``rich`` reads square brackets as markup and ``:name:`` as an emoji code, so a string printed
as it is loses text: the finding "B[p, pt] = 1" printed as "B = 1", "Var[c̃(i)] = …" as
"Var = …", an error "bad index a[i] in [red]" as "bad index a in ".  Every string that comes
from a claim, a check, a mechanism, a file or an error reaches the console through this module:

- :func:`make_console` gives the console every command prints with (emoji codes off, no
  highlighting, a wide fixed width off a terminal unless ``COLUMNS`` is set);
- :func:`quote` makes a :class:`rich.text.Text` of a string, which rich never parses;
- :func:`line` joins verbatim parts and ``(text, style)`` parts into one :class:`~rich.text.Text`.

The commands use no markup strings at all: a style is given as a ``(text, style)`` part of
:func:`line` (or ``quote(text, style)``), so no text is ever parsed.

Example
-------
>>> import io
>>> con = make_console(file=io.StringIO(), width=60)
>>> con.print(line(("differs", "red"), ": ", "B[p, pt] = 1 [red] [/] :x: \\\\[y]"))
>>> con.file.getvalue()
'differs: B[p, pt] = 1 [red] [/] :x: \\\\[y]\\n'
"""

from __future__ import annotations

import operator
import os
import sys
from typing import IO

from rich.console import Console
from rich.text import Text

__all__ = ["WIDTH", "line", "make_console", "quote"]

#: the width off a terminal (CI logs, pipes) when ``COLUMNS`` is not set: wide, so ids and evidence stay readable
WIDTH = 180


def make_console(*, stderr: bool = False, file: IO[str] | None = None, width: int | None = None) -> Console:
    """The console a command prints with: emoji codes and highlighting off; wide off a terminal.

    Parameters
    ----------
    stderr : bool, optional
        Print to ``sys.stderr`` instead of ``sys.stdout`` (default False).
    file : file object, optional
        Print to this file instead (then ``stderr`` is ignored).
    width : int, optional
        Columns; default: the terminal's, else ``COLUMNS`` when set, else :data:`WIDTH`.

    Returns
    -------
    rich.console.Console

    Example
    -------
    >>> import io
    >>> con = make_console(file=io.StringIO(), width=40)
    >>> con.print(quote(":smile: [bold]x[/bold]"))
    >>> con.file.getvalue()
    ':smile: [bold]x[/bold]\\n'
    """
    if not (isinstance(stderr, bool) or getattr(getattr(stderr, "dtype", None), "kind", "") == "b"):
        raise TypeError(f"stderr must be a bool, got {stderr!r}")
    if isinstance(width, bool):
        raise TypeError(f"width must be a positive integer or None, got {width!r}")
    if width is not None:
        try:
            width = operator.index(width)  # int or a numpy integer; never a float or a bool
        except TypeError:
            raise TypeError(f"width must be a positive integer or None, got {width!r}") from None
        if not 1 <= width <= 100_000:
            raise ValueError(f"width must be a positive integer (at most 100000) or None, got {width!r}")
    if width is None:
        target = file if file is not None else (sys.stderr if stderr else sys.stdout)
        on_terminal = getattr(target, "isatty", lambda: False)()
        width = None if on_terminal or os.environ.get("COLUMNS", "").isdigit() else WIDTH
    if file is not None and not callable(getattr(file, "write", None)):
        raise TypeError(f"file must be a writable text file or None, got {type(file).__name__}")
    return Console(file=file, stderr=bool(stderr), width=width, emoji=False, highlight=False, soft_wrap=False)


def quote(text: str | Text, style: str = "") -> Text:
    """``text`` printed exactly as written: brackets, backslashes and ``:codes:`` kept.

    Parameters
    ----------
    text : str or rich.text.Text
        The text (format numbers and other values into a str first); a Text is returned as it is.
    style : str, optional
        A rich style for the whole text (e.g. ``"red"``); default none.

    Returns
    -------
    rich.text.Text

    Example
    -------
    >>> quote("B[p, pt] = 1").plain
    'B[p, pt] = 1'
    """
    if not isinstance(style, str):
        raise TypeError(f"style must be a str, got {style!r}")
    if isinstance(text, Text):
        return text
    if not isinstance(text, str):
        raise TypeError(f"text must be a str or a rich Text, got {type(text).__name__}")
    return Text(text, style=style)


def line(*parts: Any) -> Text:
    """One line of parts: a ``str`` verbatim, a ``(text, style)`` pair styled, a Text kept.

    Parameters
    ----------
    *parts : str, (str, str) or rich.text.Text
        ``str`` printed verbatim, never read as markup; ``(text, style)`` tuples printed in
        ``style``; :class:`~rich.text.Text` kept with its styles.

    Returns
    -------
    rich.text.Text

    Example
    -------
    >>> line(("error", "bold magenta"), ": ", "a[i] in [red]").plain
    'error: a[i] in [red]'
    """
    out = Text()
    for p in parts:
        if isinstance(p, tuple):
            if len(p) != 2 or not isinstance(p[0], str) or not isinstance(p[1], str):
                raise ValueError(f"parts: a styled part is (text, style), two strings, got {p!r}")
            out.append(p[0], style=p[1])
        elif isinstance(p, (str, Text)):
            out.append(p)
        else:
            raise TypeError(f"parts: each part is a str, a (text, style) pair or a rich Text, got {type(p).__name__}")
    return out
