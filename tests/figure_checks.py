"""What every figure must have: axis labels (with units where there are any), a legend when
more than one line is drawn, and (checked by the callers) a caption.

``figure_problems(fig)`` lists what is missing; it is imported by tests/test_figures.py and its
source is injected into the notebooks run by tests/test_notebooks.py (so it must stay
self-contained: matplotlib only).
"""


def figure_problems(fig):
    """Problems of a matplotlib Figure, as short strings (empty list: the figure is fine)."""
    problems = []
    for i, ax in enumerate(fig.axes):
        if ax.get_label() == "<colorbar>" or not ax.has_data():
            continue
        name = ax.get_title() or f"axes {i}"
        # an axis shared with a labelled one (subplots(sharex/sharey=True)) is labelled once
        xs = [a for a in ax.get_shared_x_axes().get_siblings(ax) if a in fig.axes]
        ys = [a for a in ax.get_shared_y_axes().get_siblings(ax) if a in fig.axes]
        if not any(a.get_xlabel().strip() for a in xs) and not _sup(fig, "_supxlabel"):
            problems.append(f"{name}: no x label")
        if not any(a.get_ylabel().strip() for a in ys) and not _sup(fig, "_supylabel"):
            problems.append(f"{name}: no y label")
        lines = [ln for ln in ax.get_lines() if len(ln.get_xdata()) > 1]
        # one legend may serve subplots that draw the same series
        if len(lines) > 1 and not any(a.get_legend() for a in fig.axes) and not fig.legends:
            problems.append(f"{name}: {len(lines)} lines but no legend")
    return problems


def _sup(fig, attr):
    """The figure-level label (``fig.supxlabel`` / ``fig.supylabel``), if set."""
    t = getattr(fig, attr, None)
    return bool(t is not None and t.get_text().strip())
