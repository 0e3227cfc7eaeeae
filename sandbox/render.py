"""Pages of the sandbox web as the HTTP responses a real server would send.

Each site has one of three templates, as real sites do: semantic HTML5 (nav, article, aside,
footer), a div-and-id layout (#menu, #main, #side), and an old table layout whose markup says
nothing about what a block is. The body is encoded in the site's charset (GBK hosts encode
what GBK cannot hold as character references, as real GBK pages do) and the charset is
declared in the HTTP header, the page's <meta>, or both.
"""
import datetime
import email.utils
from html import escape

from sandbox.site import Block, Link, Page

SERVERS = ('nginx/1.0.15', 'Apache/2.2.22 (Unix)', 'Microsoft-IIS/6.0')


def _time(date: datetime.date) -> str:
    moment = datetime.datetime(date.year, date.month, date.day, 8, 0, tzinfo=datetime.timezone.utc)
    return email.utils.format_datetime(moment, usegmt=True)


def _anchor(link: Link) -> str:
    return f'<a href="{escape(link.url)}">{escape(link.anchor)}</a>'


def _paragraph(pieces: tuple, style: int) -> str:
    if len(pieces) == 1 and isinstance(pieces[0], str) and pieces[0].startswith('## '):
        return f'<h2>{escape(pieces[0][3:])}</h2>' if style != 2 else f'<b>{escape(pieces[0][3:])}</b><br>'
    inner = ''.join(escape(p) if isinstance(p, str) else _anchor(p) for p in pieces)
    return f'<p>{inner}</p>' if style != 2 else f'{inner}<br><br>'


def _link_list(links: list[Link], style: int) -> str:
    if style == 2:
        return ''.join(f'<tr><td>{_anchor(link)}</td></tr>' for link in links)
    return '<ul>' + ''.join(f'<li>{_anchor(link)}</li>' for link in links) + '</ul>'


# Per template: (opening, closing) markup of each block role.
_SEMANTIC = {
    'menu': ('<header><nav class="nav">', '</nav></header>'),
    'breadcrumb': ('<div class="breadcrumb">', '</div>'),
    'content': ('<article class="article">', '</article>'),
    'list': ('<section class="news-list">', '</section>'),
    'pagination': ('<div class="pagination">', '</div>'),
    'related': ('<aside class="related">', '</aside>'),
    'see_also': ('<aside class="see-also">', '</aside>'),
    'recommended': ('<aside class="recommend">', '</aside>'),
    'popular': ('<aside class="popular sidebar">', '</aside>'),
    'ad': ('<div class="ad banner">', '</div>'),
    'footer': ('<footer class="footer">', '</footer>'),
}
_DIVS = {
    'menu': ('<div id="menu">', '</div>'),
    'breadcrumb': ('<div id="crumbs">', '</div>'),
    'content': ('<div id="main"><div class="text">', '</div></div>'),
    'list': ('<div id="main"><div class="list">', '</div></div>'),
    'pagination': ('<div id="pages">', '</div>'),
    'related': ('<div id="side"><div class="box xgxw">', '</div></div>'),
    'see_also': ('<div id="side"><div class="box">', '</div></div>'),
    'recommended': ('<div id="side"><div class="box tj">', '</div></div>'),
    'popular': ('<div id="side"><div class="box rank">', '</div></div>'),
    'ad': ('<div class="sponsor">', '</div>'),
    'footer': ('<div id="bottom">', '</div>'),
}
_TABLE = ('<table width="100%" border="0" cellpadding="0" cellspacing="0"><tr><td>', '</td></tr></table>')


def _block(block: Block, style: int) -> str:
    opening, closing = _TABLE if style == 2 else (_SEMANTIC if style == 0 else _DIVS)[block.role]
    parts = [opening]
    if block.heading:
        parts.append(f'<h1>{escape(block.heading)}</h1>' if block.role == 'content' and style != 2
                     else f'<h3>{escape(block.heading)}</h3>' if style != 2
                     else f'<font size="4"><b>{escape(block.heading)}</b></font><br>')
    parts.extend(_paragraph(paragraph, style) for paragraph in block.paragraphs)
    if block.links:
        if block.role in ('menu', 'pagination', 'breadcrumb'):
            parts.append(' | '.join(_anchor(link) for link in block.links))
        elif style == 2:
            parts.append(f'<table>{_link_list(block.links, style)}</table>')
        else:
            parts.append(_link_list(block.links, style))
    parts.append(closing)
    return ''.join(parts)


def render_html(page: Page) -> str:
    site = page.site
    style = site.style
    meta = []
    if site.declares in ('meta', 'both'):
        meta.append(f'<meta charset="{site.charset}">' if style == 0 else
                    f'<meta http-equiv="Content-Type" content="text/html; charset={site.charset}">')
    if page.description:
        meta.append(f'<meta name="description" content="{escape(page.description)}">')
    doctype = '<!DOCTYPE html>' if style == 0 else \
        '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" ' \
        '"http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">'
    body = ''.join(_block(block, style) for block in page.blocks)
    return (f'{doctype}\n<html><head>{"".join(meta)}<title>{escape(page.title)}</title></head>\n'
            f'<body>{body}</body></html>\n')


def render_response(page: Page, crawled: datetime.date) -> tuple[list[tuple[str, str]], bytes]:
    """HTTP headers and body bytes of a page, as the site's server would send them."""
    site = page.site
    body = render_html(page).encode('gbk' if site.charset in ('gbk', 'gb2312') else site.charset,
                                    errors='xmlcharrefreplace')
    content_type = 'text/html' if site.declares == 'meta' else f'text/html; charset={site.charset}'
    headers = [('Date', _time(crawled)), ('Server', SERVERS[site.style % len(SERVERS)]),
               ('Content-Type', content_type), ('Content-Length', str(len(body))),
               ('Last-Modified', _time(page.date))]
    return headers, body


def robots_txt(site, crawled: datetime.date) -> tuple[list[tuple[str, str]], bytes]:
    """The site's robots.txt: printable copies and search pages are off limits."""
    rules = ['User-agent: *', 'Disallow: /search']
    if site.has_print:
        rules.append('Disallow: /print/')
    body = ('\n'.join(rules) + '\n').encode('ascii')
    headers = [('Date', _time(crawled)), ('Server', SERVERS[site.style % len(SERVERS)]),
               ('Content-Type', 'text/plain'), ('Content-Length', str(len(body)))]
    return headers, body
