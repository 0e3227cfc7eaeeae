"""`focal demo`: what Focal can show today on real data.

The crawl demo (sandbox web, focused crawl, harvest report) arrives with the crawl round. Until
then the demo learns a 房产 (real estate) topic from 10 THUCNews articles, exactly as
`focal topic build` does, and ranks the other 990 articles by relevance to it.
"""
import argparse
import random
from pathlib import Path

from sklearn.metrics import roc_auc_score

from models import relevance, text, topic as topic_model
from sandbox import corpora

EXAMPLES = 10


def run(args: argparse.Namespace) -> int:
    print('Focal demo. The crawl demo arrives with the crawl round (sandbox web, focused crawl,\n'
          'harvest report); today it shows the topic model that will steer the crawler.\n')
    articles = corpora.thucnews_articles()
    relevant = [a for a in articles if args.label in a.labels]
    examples = random.Random(args.seed).sample(relevant, EXAMPLES)
    example_dir = Path(args.workdir) / 'examples'
    example_dir.mkdir(parents=True, exist_ok=True)
    for old in example_dir.glob('*.txt'):
        old.unlink()
    for article in examples:
        (example_dir / f'{article.id}.txt').write_text(article.text, encoding='utf-8')
    topic_path = Path(args.workdir) / f'{args.label}.yaml'
    print(f'$ focal topic build --name {args.label} --from {example_dir}/*.txt --out {topic_path}')
    topic = topic_model.build_topic(args.label, [a.text for a in examples])
    topic.save(topic_path)
    print('  keywords:', ', '.join(f'{k} {v:.2f}' for k, v in list(topic.keywords.items())[:12]))

    others = [a for a in articles if a not in examples]
    scores = relevance.corpus_relevance(topic, [text.tokenize(a.text) for a in others])
    ranked = sorted(zip(scores, others), key=lambda pair: -pair[0])
    print(f'\nThe other {len(others)} THUCNews articles ranked by relevance to "{args.label}":')
    for score, article in ranked[:10]:
        print(f'  {score:.3f}  [{article.labels[0]}]  {article.title}')
    truth = [args.label in a.labels for a in others]
    top = [args.label in a.labels for _, a in ranked[:100]]
    print(f'\nprecision of the top 100: {sum(top) / len(top):.2f}; '
          f'ROC AUC {args.label}-vs-rest: {roc_auc_score(truth, scores):.3f}')
    print(f'topic file: {topic_path}')
    return 0


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser('demo', help='run the demo on real data',
                                   description=__doc__)
    parser.add_argument('--label', default='房产', help='THUCNews class (default: %(default)s)')
    parser.add_argument('--seed', type=int, default=7, help='random seed for the examples')
    parser.add_argument('--workdir', default='.demo', help='where the demo writes its files')
    parser.set_defaults(handler=run)
