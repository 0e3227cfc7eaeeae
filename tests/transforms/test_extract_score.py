"""Extract and Score as Beam DoFns on FnApiRunner: page rows ranked by relevance, scored edges."""
import datetime

import apache_beam as beam
from apache_beam.testing.test_pipeline import TestPipeline as BeamTestPipeline
from apache_beam.testing.util import assert_that, equal_to

from models.termstats import TermStats
from models.topic import Topic
from transforms.extract import ExtractPagesFn
from transforms.score import ScorePagesFn
from transforms.termstats import GatherTermStats

NOW = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
TOPIC = Topic('房产', 'zh', {'房价': 1.0, '楼盘': 0.8, '二手房': 0.6})


def fetched(url, title, body_text, links, charset='utf-8'):
    anchors = ''.join(f'<li><a href="{u}">{a}</a></li>' for u, a in links)
    markup = (f'<html><head><meta charset="{charset}"><title>{title}</title></head><body>'
              f'<div class="nav"><a href="/">首页</a></div><div class="article"><p>{body_text}</p></div>'
              f'<div class="ad"><ul>{anchors}</ul></div></body></html>')
    return {'url': url, 'final_url': url, 'host': url.split('/')[2], 'body': markup.encode(charset),
            'content_type': f'text/html; charset={charset}', 'fetched_at': NOW}


PAGES = [
    fetched('http://a.test/1', '楼市', '北京房价上涨，新楼盘开盘，二手房成交增加，房价调控。',
            [('http://b.test/x', '房价新闻')], charset='gbk'),
    fetched('http://b.test/2', '足球', '球队赢得比赛，球迷庆祝冠军，联赛继续进行。', [('http://a.test/y', '体育')]),
]


def test_pages_are_scored_with_the_round_s_statistics_and_noise_links_inherit_nothing():
    with BeamTestPipeline('FnApiRunner') as pipeline:
        extracted = pipeline | beam.Create(PAGES) | beam.ParDo(ExtractPagesFn())
        stats = extracted | beam.Map(lambda page: page['tokens']) | GatherTermStats()
        earlier_rounds = TermStats.from_documents([['天气'], ['电影'], ['音乐'], ['旅游']])
        scored = extracted | beam.ParDo(ScorePagesFn(TOPIC, earlier_rounds, 3), beam.pvalue.AsSingleton(stats)
                                        ).with_outputs('links', main='pages')
        ranked = scored.pages | beam.Map(lambda row: (row['url'], row['relevance'] > 0, row['encoding'], row['round']))
        assert_that(ranked, equal_to([('http://a.test/1', True, 'gb18030', 3),
                                      ('http://b.test/2', False, 'utf-8', 3)]), label='pages')
        edges = scored.links | beam.Map(lambda row: (row['url'], row['dst'], row['block'],
                                                     row['predicted_relevance'] > 0))
        assert_that(edges, equal_to([('http://a.test/1', 'http://a.test/', 'navigation', True),
                                     ('http://a.test/1', 'http://b.test/x', 'noise', True),
                                     ('http://b.test/2', 'http://b.test/', 'navigation', False),
                                     ('http://b.test/2', 'http://a.test/y', 'noise', False)]), label='links')
