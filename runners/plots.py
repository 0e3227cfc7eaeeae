"""The reports' plots as PNG bytes (matplotlib's Agg canvas: no display, no pyplot state).

Task names and titles are often Chinese, and matplotlib's default font has no CJK glyphs: the
plots ask for a CJK font the machine has (Noto/Source Han, WenQuanYi, Droid fallback, the usual
Windows and macOS ones) ahead of DejaVu Sans, and matplotlib falls back glyph by glyph. With no
CJK font installed the plots still render, Chinese as boxes, and `cjk_font()` says so once.
matplotlib is imported on the first plot (~0.5 s): every `focal` command imports this module,
few of them plot.
"""
import functools
import io
import logging
import warnings


CJK_FAMILIES = ('Noto Sans CJK SC', 'Noto Sans SC', 'Source Han Sans SC', 'WenQuanYi Micro Hei', 'WenQuanYi Zen Hei',
                'Droid Sans Fallback', 'AR PL UMing CN', 'SimHei', 'Microsoft YaHei', 'PingFang SC', 'Heiti SC')
CJK_FILE_HINTS = ('notosanscjk', 'sourcehansans', 'wqy', 'droidsansfallback', 'uming', 'simhei', 'msyh', 'pingfang')
log = logging.getLogger(__name__)


@functools.cache
def cjk_font() -> str | None:
    """A CJK font family matplotlib can use, registering a system font file it has not indexed yet
    (its font cache predates fonts installed later); None when the machine has none."""
    from matplotlib import font_manager
    known = {font.name for font in font_manager.fontManager.ttflist}
    for family in CJK_FAMILIES:
        if family in known:
            return family
    for path in font_manager.findSystemFonts():
        if any(hint in path.lower().replace('-', '').replace('_', '') for hint in CJK_FILE_HINTS):
            try:
                font_manager.fontManager.addfont(path)
            except (OSError, RuntimeError, ValueError):
                continue
            return font_manager.FontProperties(fname=path).get_name()
    log.warning('no CJK font found: Chinese text in the plots shows as boxes (install fonts-noto-cjk or '
                'fonts-wqy-microhei)')
    return None


def new_figure(width: float = 8, height: float = 4.2) -> 'matplotlib.figure.Figure':
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    figure = Figure(figsize=(width, height), dpi=100)
    FigureCanvasAgg(figure)
    return figure


def with_cjk_font(plot):
    """Run a plotting function with a CJK font first in the sans-serif list (text properties are
    resolved when an artist is made, ticks when drawn: the whole function runs in the context)."""
    @functools.wraps(plot)
    def plotted(*args, **kwargs):
        import matplotlib
        families = [f for f in (cjk_font(), 'DejaVu Sans') if f]
        with matplotlib.rc_context({'font.family': 'sans-serif', 'font.sans-serif': families}):
            return plot(*args, **kwargs)
    return plotted


def png(figure: 'matplotlib.figure.Figure') -> bytes:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.filterwarnings('ignore', message='Glyph .* missing from font')
        figure.savefig(buffer, format='png', bbox_inches='tight')
    return buffer.getvalue()


@with_cjk_font
def lines(series: dict[str, tuple[list, list]], title: str, xlabel: str, ylabel: str,
          ylim: tuple[float, float] | None = None, marks: list[float] = (), markers: bool = False) -> bytes:
    """One line per named series of (x, y) points."""
    figure = new_figure()
    axes = figure.add_subplot()
    for name, (xs, ys) in series.items():
        axes.plot(xs, ys, label=name, marker='o' if markers else None, markersize=3)
    for x in marks:
        axes.axvline(x, color='grey', linestyle=':', linewidth=1)
    if ylim:
        axes.set_ylim(*ylim)
    axes.set_title(title)
    axes.set_xlabel(xlabel)
    axes.set_ylabel(ylabel)
    if series:
        axes.legend(loc='best', fontsize='small')
    axes.grid(alpha=0.3)
    return png(figure)


@with_cjk_font
def bars(groups: dict[str, dict], title: str, xlabel: str, ylabel: str) -> bytes:
    """Grouped bars: for each group (a strategy), a bar per key (a tunnel length, a round)."""
    figure = new_figure()
    axes = figure.add_subplot()
    keys = sorted({key for counts in groups.values() for key in counts})
    width = 0.8 / max(1, len(groups))
    for n, (name, counts) in enumerate(groups.items()):
        axes.bar([k + n * width for k in range(len(keys))], [counts.get(key, 0) for key in keys], width,
                 label=name)
    axes.set_xticks([k + width * (len(groups) - 1) / 2 for k in range(len(keys))], [str(k) for k in keys])
    axes.set_title(title)
    axes.set_xlabel(xlabel)
    axes.set_ylabel(ylabel)
    if groups:
        axes.legend(loc='best', fontsize='small')
    axes.grid(alpha=0.3, axis='y')
    return png(figure)


@with_cjk_font
def arm_choices(rounds: dict[str, list[tuple[int, str]]], arms: list[str], title: str) -> bytes:
    """Which discovery operator each bandit crawl pulled in each round (a dot per round)."""
    figure = new_figure(8, 1.2 + 0.5 * len(arms) * max(1, len(rounds)) ** 0.5)
    axes = figure.add_subplot()
    offsets = {name: (n - (len(rounds) - 1) / 2) * 0.15 for n, name in enumerate(rounds)}
    for name, pulls in rounds.items():
        axes.scatter([r for r, _ in pulls], [arms.index(arm) + offsets[name] for _, arm in pulls], label=name, s=18)
    axes.set_yticks(range(len(arms)), arms)
    axes.set_xlabel('round')
    axes.set_title(title)
    if len(rounds) > 1:
        axes.legend(loc='best', fontsize='small')
    axes.grid(alpha=0.3)
    return png(figure)
