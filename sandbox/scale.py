"""`--scale K`: the same web on K times as many sites, so benchmarks reach 100,000+ pages.

Replica r of host `name.test` is `name-r.test`. Each replica's articles lose a few paragraphs
and move a few days (so replicas are near-copies, not copies), and some of their links point
into other replicas, so the replicas form one connected web rather than K separate ones.
"""
import dataclasses
import datetime
import random

from sandbox.site import Link, Plan

DROP_PARAGRAPH = 0.1
CROSS_LINK = 0.15


def replica_host(host: str, replica: int) -> str:
    """Host name of a replica; replica 0 is the original."""
    if replica == 0:
        return host
    stem, dot, tld = host.rpartition('.')
    return f'{stem}-{replica + 1}{dot}{tld}' if dot else f'{host}-{replica + 1}'


def replicate(plan: Plan, scale: int, rng: random.Random) -> Plan:
    if scale <= 1:
        return plan
    hosts = {site.host for site in plan.sites}
    sites, articles = [], []
    for replica in range(scale):
        copies = {site.host: dataclasses.replace(site, host=replica_host(site.host, replica),
                                                 style=site.style if replica == 0 else rng.randrange(3))
                  for site in plan.sites}
        sites.extend(copies.values())

        def relink(link: Link) -> Link:
            """The link into this replica, or now and then into another one."""
            scheme, _, host, path = link.url.split('/', 3)
            if host not in hosts:
                return link
            target = rng.randrange(scale) if rng.random() < CROSS_LINK else replica
            return Link(f'{scheme}//{replica_host(host, target)}/{path}', link.anchor)

        for article in plan.articles:
            paragraphs = [tuple(relink(p) if isinstance(p, Link) else p for p in paragraph)
                          for n, paragraph in enumerate(article.paragraphs)
                          if replica == 0 or n == 0 or rng.random() >= DROP_PARAGRAPH]
            articles.append(dataclasses.replace(
                article, id=f'{article.id}@{replica}' if replica else article.id,
                site=copies[article.site.host], paragraphs=paragraphs,
                see_also=[relink(link) for link in article.see_also],
                date=article.date + datetime.timedelta(days=rng.randint(-3, 3) if replica else 0)))
    return Plan(sites, articles, plan.islands)
