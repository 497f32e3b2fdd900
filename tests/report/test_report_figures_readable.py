"""Report figures are readable in print: whole-number axes get whole-number ticks, legends and tick
labels are at least MIN_FONT points.  Each check is shown to flip on the figure as drawn."""

from matplotlib.figure import Figure

from dpverify.report.figures import MIN_FONT, figure_to_png, readable


def _count_plot(x, y):
    fig = Figure(figsize=(4, 3))
    ax = fig.add_subplot()
    ax.plot(x, y, label="errors")
    ax.legend(fontsize=5)
    ax.tick_params(labelsize=4)
    return fig, ax


def _ticks(ax, which):
    fig = ax.figure
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig).draw()
    ticks = ax.get_xticks() if which == "x" else ax.get_yticks()
    lo, hi = ax.get_xlim() if which == "x" else ax.get_ylim()
    return [t for t in ticks if lo <= t <= hi]


def test_whole_number_axis_gets_whole_ticks_and_fonts_grow():
    fig, ax = _count_plot([1, 2, 3, 4], [0.5, 0.25, 0.75, 0.1])
    assert any(t != int(t) for t in _ticks(ax, "x"))  # as drawn: ticks at 1.5, 2.5, ...
    readable(fig)
    assert all(t == int(t) for t in _ticks(ax, "x"))
    assert any(t != int(t) for t in _ticks(ax, "y"))  # the fractional axis keeps its ticks
    assert ax.get_legend().get_texts()[0].get_fontsize() == MIN_FONT
    assert all(lb.get_fontsize() >= MIN_FONT for lb in ax.xaxis.get_ticklabels())


def test_figure_to_png_applies_it_and_leaves_large_fonts_alone():
    fig, ax = _count_plot([0, 10, 20], [3, 1, 2])
    ax.get_legend().get_texts()[0].set_fontsize(14)
    img = figure_to_png(fig)
    assert img.width > 100
    assert all(t == int(t) for t in _ticks(ax, "x")) and ax.get_legend().get_texts()[0].get_fontsize() == 14


def test_dates_and_log_axes_are_left_alone():
    fig = Figure()
    ax = fig.add_subplot()
    ax.plot([1, 10, 100], [1.0, 2.0, 3.0])
    ax.set_xscale("log")
    readable(fig)
    assert type(ax.xaxis.get_major_locator()).__name__ == "LogLocator"
