"""Recall: full-text search over memories and the archive, ranked for usefulness.

Score = (0.6 × query-term coverage + 0.4 × bm25 relevance normalised to the
best hit) × time decay (half-life ``HALF_LIFE_DAYS``) × a small boost for
memories that were useful before (access count).  Raw bm25 is meaningless
across collection sizes (tiny stores give near-zero values), so the minimum
score applies to this normalised blend; the order among equals stays bm25's.  Hits below
``min_score`` are dropped, so an unrelated question recalls nothing rather
than noise.  Searched: memory capsules, decisions, memos, and every stored
item (the archive of what compaction took out of the window).

Cost is bounded for large stores: words present in more than 2% of a source's
rows are dropped from its query (like stop words, they do not tell memories
apart), and only the newest 1,000 matching rows of a source are ranked.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Mapping
from typing import Any

from agent_tui.store.store import MemoryStore

HALF_LIFE_DAYS = 30.0
_WORD = re.compile(r"[\w][\w.-]{1,}", re.UNICODE)
_STOP = set(
    "the and for with that this from are was were you your not but have has had can could should would "
    "will what which when where who why how into onto about does did doing done its it's our out use "
    "any all some there their them they then than also just like more most very".split()
)


def query_terms(text: str, max_terms: int = 12) -> list[str]:
    """Distinct lower-case words of ``text`` worth searching for."""
    words: list[str] = []
    for w in _WORD.findall(text.lower()):
        w = w.strip(".-")
        if len(w) > 2 and w not in _STOP and w not in words:
            words.append(w)
    return words[:max_terms]


def fts_query(text: str, max_terms: int = 12) -> str:
    """A safe FTS5 query: quoted words joined with OR (no syntax from user text)."""
    return " OR ".join('"' + w.replace('"', "") + '"' for w in query_terms(text, max_terms))


def _decay(ts: float, now: float) -> float:
    age_days = max(0.0, (now - (ts or now)) / 86400.0)
    return 0.5 ** (age_days / HALF_LIFE_DAYS)


SOURCES = {
    "capsule": ("capsules", "c.created", "c.access_count", "c.type", "NULL"),
    "decision": ("decisions", "c.created", "0", "'decision'", "NULL"),
    "memo": ("memos", "c.created", "0", "'memo'", "c.item_id || '@' || c.session_id"),
    "archive": ("items", "c.created", "0", "c.category", "c.id || '@' || c.session_id"),
}
"""Per source: table, creation time, access count, type, and the ``item@session`` key of the
context item a row stores (to tell hits the model already has in its window apart)."""


#: A word found in more than this share of a source's rows (and in more than COMMON_MIN rows)
#: tells rows apart no better than a stop word: it is left out of that source's query.
COMMON_SHARE = 0.02
COMMON_MIN = 200
#: Rows bm25-ranked per source at most: the newest matches (time decay favours them anyway),
#: so a query costs the same over 1K or 100K memories.
CANDIDATES = 1000
#: Matches already in the asking model's window named at most (by id only, a few tokens each).
SHOWN_MAX = 10


def _quoted(words: list[str]) -> str:
    return " OR ".join('"' + w.replace('"', "") + '"' for w in words)


def _informative(store: MemoryStore, table: str, terms: list[str]) -> list[str]:
    """``terms`` without the ones too common in ``table`` to mean anything (bounded-cost counts)."""
    rows = store.db.execute(f"SELECT max(rowid) FROM {table}").fetchone()[0] or 0
    limit = max(COMMON_MIN, int(rows * COMMON_SHARE))
    if rows <= limit:
        return terms
    sql = f"SELECT count(*) FROM (SELECT 1 FROM {table}_fts WHERE {table}_fts MATCH ? LIMIT ?)"
    return [w for w in terms if store.db.execute(sql, [_quoted([w]), limit + 1]).fetchone()[0] <= limit]


def in_context_last(hits: list[dict[str, Any]], limit: int) -> list[dict[str, Any]]:
    """The best ``limit`` hits the model does not have, then up to ``SHOWN_MAX`` it has (``in_context``)."""
    return [h for h in hits if not h.get("in_context")][:limit] + [h for h in hits if h.get("in_context")][:SHOWN_MAX]


def recall(store: MemoryStore, query: str, *, limit: int = 5, min_score: float = 0.5,
           kinds: tuple[str, ...] = ("capsule", "decision", "memo", "archive"),
           session_id: str | None = None, touch: bool = True,
           shown: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """Ranked hits ``[{kind, id, content, score, type}]``, best first.

    ``shown`` maps ``item@session`` to the text of each item in the asking model's window. A hit that
    stores that item (an archive row, or a memo row whose text the item holds) tells the model nothing
    new: it is marked ``in_context``, its ``id`` is that item's key, and it does not take one of the ``limit``
    places; up to ``SHOWN_MAX`` such hits follow the others, so the caller can say they matched without
    repeating them."""
    all_terms = query_terms(query)
    if not all_terms:
        return []
    now = time.time()
    raw: list[tuple[str, str, str, float, float, int, Any, list[str], bool]] = []
    shown = shown or {}
    with store.lock:
        for kind in kinds:
            table, created, access, typ, key = SOURCES[kind]
            terms = _informative(store, table, all_terms)
            if not terms:
                continue
            extra = ""
            args: list[Any] = [_quoted(terms)]
            if kind == "archive" and session_id:
                extra = " AND c.session_id = ?"
                args.append(session_id)
            ident = "c.id" if kind != "archive" else "c.id || '@' || c.session_id"
            sql = (
                f"SELECT {ident}, c.content, bm25({table}_fts) AS rank, {created}, {access}, {typ}, {key} "
                f"FROM {table}_fts JOIN {table} c ON c.rowid = {table}_fts.rowid "
                f"WHERE {table}_fts MATCH ?{extra} ORDER BY {table}_fts.rowid DESC LIMIT {CANDIDATES}"
            )
            rows = sorted(store.db.execute(sql, args).fetchall(), key=lambda r: r[2])[:40]
            for ident_v, content, rank, ts, acc, t, key_v in rows:
                content = content or ""
                in_context = key_v in shown and (kind == "archive" or content.strip() in shown[key_v])
                raw.append((kind, str(key_v if in_context else ident_v), content, -float(rank), ts, acc or 0, t,
                            terms, in_context))
        best = max((r[3] for r in raw), default=0.0) or 1.0
        hits: list[dict[str, Any]] = []
        for kind, ident_v, content, rel, ts, acc, t, terms, in_context in raw:
            low = content.lower()
            coverage = sum(1 for w in terms if re.search(r"\b" + re.escape(w), low)) / len(terms)
            score = (0.6 * coverage + 0.4 * max(rel, 0.0) / best) * _decay(ts, now) * (1.0 + 0.1 * math.log1p(acc))
            if score >= min_score:
                hits.append({"kind": kind, "id": ident_v, "content": content, "score": round(score, 4),
                             "type": t, "bm25": rel, "in_context": in_context})
        hits.sort(key=lambda h: (-h["score"], -h["bm25"]))
        hits = in_context_last(hits, limit)
        if touch:
            ids = [int(h["id"]) for h in hits if h["kind"] == "capsule" and not h["in_context"]]
            if ids:
                marks = ",".join("?" * len(ids))
                store.db.execute(
                    f"UPDATE capsules SET access_count = access_count + 1, last_access = ? WHERE id IN ({marks})",
                    [now, *ids],
                )
    return hits
