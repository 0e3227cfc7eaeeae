"""THUCNews as a web of Chinese news sites.

Three single-topic sites per class (two for the classes that only have headlines) and four
multi-section portals. The 1,000 full-text articles become article pages; the 10,000
headlines become short news-flash pages (快讯) listed on paginated headline pages with
"下一页". About a third of the sites serve GBK (labelled gbk or gb2312), declared in the HTTP
header, the page's <meta>, or both. Sites of one class form a topic island; tunnels of other
classes' pages join the islands (see sandbox.site).
"""
import datetime
import random
import re
from pathlib import Path

from sandbox import corpora
from sandbox.site import Article, Plan, Site

# Headline class ids (titles_classes.txt) -> the article labels of cnews_sample1000.tsv.
TITLE_LABELS = ['财经', '房产', '股票', '教育', '科技', '社会', '时政', '体育', '游戏', '娱乐']
SECTION_SLUGS = {'房产': 'house', '体育': 'sports', '财经': 'finance', '游戏': 'games', '教育': 'edu',
                 '时政': 'politics', '科技': 'tech', '时尚': 'fashion', '娱乐': 'ent', '家居': 'home',
                 '股票': 'stock', '社会': 'society'}
SITES = {
    '房产': [('loushi-news.test', '楼市新闻网'), ('fangchan-zhijia.test', '房产之家'), ('anju-wang.test', '安居网')],
    '体育': [('tiyu-zhoubao.test', '体育周报'), ('qiumi-tiandi.test', '球迷天地'), ('saichang-news.test', '赛场快讯')],
    '财经': [('caijing-ribao.test', '财经日报'), ('jinrong-guancha.test', '金融观察'), ('shangye-pinglun.test', '商业评论')],
    '游戏': [('youxi-kuaibao.test', '游戏快报'), ('wanjia-luntan.test', '玩家论坛'), ('dianjing-shijie.test', '电竞世界')],
    '教育': [('jiaoyu-zaixian.test', '教育在线'), ('kaoshi-zhinan.test', '考试指南'), ('liuxue-zhijia.test', '留学之家')],
    '时政': [('shizheng-yaowen.test', '时政要闻'), ('guonei-xinwen.test', '国内新闻'), ('huanqiu-shiping.test', '环球时评')],
    '科技': [('keji-qianyan.test', '科技前沿'), ('shuma-pindao.test', '数码频道'), ('hulianwang-zixun.test', '互联网资讯')],
    '时尚': [('shishang-fengxiang.test', '时尚风向'), ('meizhuang-riji.test', '美妆日记'), ('chaoliu-zhoukan.test', '潮流周刊')],
    '娱乐': [('yule-bagua.test', '娱乐八卦'), ('mingxing-kuaixun.test', '明星快讯'), ('yingshi-dianping.test', '影视点评')],
    '家居': [('jiaju-sheji.test', '家居设计'), ('zhuangxiu-bang.test', '装修帮'), ('shenghuo-jiaju.test', '生活家居')],
    '股票': [('gushi-kuaixun.test', '股市快讯'), ('chaogu-zhinan.test', '炒股指南')],
    '社会': [('shehui-wanxiang.test', '社会万象'), ('minsheng-redian.test', '民生热点')],
}
PORTALS = [('www.xinwen-menhu.test', '新闻门户'), ('news.zhongyang-wang.test', '中央网'),
           ('www.dushi-kuaibao.test', '都市快报'), ('portal.huaxia-xinwen.test', '华夏新闻')]
PORTAL_SECTIONS = 7
PORTAL_SHARE = 0.25           # of each class's pages published on a portal section
GBK_SHARE = 0.35
_SENTENCE_END = re.compile(r'(?<=[。！？!?])(?![”"’』」）)])|(?<=[。！？!?][”"’』」）)])')
FIRST_DAY = datetime.date(2010, 1, 1)


def _paragraphs(body: str, rng: random.Random) -> list[tuple]:
    """News text has no paragraph breaks in the corpus: cut it every two to four sentences."""
    sentences = [s for s in _SENTENCE_END.split(body) if s.strip()]
    paragraphs = []
    while sentences:
        size = rng.randint(2, 4)
        paragraphs.append((''.join(sentences[:size]).strip(),))
        sentences = sentences[size:]
    return paragraphs


def _sites(rng: random.Random) -> list[Site]:
    sites = []
    for label, hosts in SITES.items():
        for host, name in hosts:
            sites.append(Site(host, name, 'zh', (label,)))
    labels = list(SITES)
    for host, name in PORTALS:
        chosen = sorted(rng.sample(labels, PORTAL_SECTIONS), key=labels.index)
        sites.append(Site(host, name, 'zh', tuple(chosen),
                          sections={SECTION_SLUGS[label]: label for label in chosen}))
    for site in rng.sample(sites, round(GBK_SHARE * len(sites))):
        site.charset = rng.choice(['gbk', 'gbk', 'gb2312'])
    for site in sites:
        site.declares = rng.choice(['both', 'both', 'header', 'meta'])
        site.style = rng.randrange(3)
        site.has_print = rng.random() < 0.5
    return sites


def _placements(sites: list[Site]) -> dict[str, list[tuple[Site, str]]]:
    """Label -> where its pages are published: (single-topic site, '') or (portal, section)."""
    places = {}
    for site in sites:
        for label in site.labels:
            places.setdefault(label, []).append((site, SECTION_SLUGS[label] if site.sections else ''))
    return places


def _place(places: list[tuple[Site, str]], rng: random.Random) -> tuple[Site, str]:
    portals = [p for p in places if p[0].sections]
    own = [p for p in places if not p[0].sections]
    return rng.choice(portals if portals and rng.random() < PORTAL_SHARE else own)


def _date(rng: random.Random) -> datetime.date:
    return FIRST_DAY + datetime.timedelta(days=rng.randrange(730))


def _path(site: Site, section: str, kind: str, number: int, date: datetime.date) -> str:
    prefix = f'/{section}' if section else ''
    if kind == 'brief':
        return f'{prefix}/kuaixun/{date:%Y-%m-%d}/{number}.html'
    if site.style == 1:
        return f'{prefix}/news/{date:%Y%m%d}/n{number}.shtml'
    return f'{prefix}/{date:%Y/%m%d}/{number}.html'


def news_web(rng: random.Random, data_dir: Path | None = None) -> Plan:
    data_dir = data_dir or corpora.shared_data_dir()
    sites = _sites(rng)
    places = _placements(sites)
    articles = []
    for number, document in enumerate(corpora.thucnews_articles(
            data_dir / 'corpora' / 'thucnews' / 'cnews_sample1000.tsv')):
        label = document.labels[0]
        site, section = _place(places[label], rng)
        date = _date(rng)
        body = document.text[len(document.title):].strip()
        paragraphs = _paragraphs(body, rng)
        articles.append(Article(document.id, site, section, _path(site, section, 'article', 100000 + number, date),
                                document.title, paragraphs, (label,), date,
                                description=body[:60]))
    with open(data_dir / 'corpora' / 'thucnews' / 'titles_10000.tsv', encoding='utf-8') as lines:
        for number, line in enumerate(lines):
            headline, _, class_id = line.rstrip('\n').rpartition('\t')
            label = TITLE_LABELS[int(class_id)]
            site, section = _place(places[label], rng)
            date = _date(rng)
            articles.append(Article(f'title-{number:05d}', site, section,
                                    _path(site, section, 'brief', 200000 + number, date),
                                    headline.strip(), [(headline.strip(),)], (label,), date, kind='brief'))
    return Plan(sites, articles, islands=True)
