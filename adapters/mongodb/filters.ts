// Keyword filters (one document each, keywords and statuses inside) and timeline markers (one
// document per account and timeline, `_id` "<account>:<timeline>").

import type { Filter, FilterAction, FilterContext, Id, Marker, MarkerTimeline, Millis } from '../../core/domain/model.ts';
import type { FilterRepository, MarkerRepository } from '../../core/domain/ports/storage.ts';
import { duplicateKeyOf } from './errors.ts';
import { bump, type Mongo } from './db.ts';
import { C } from './schema.ts';
import { lookupId, num, pairKey, type Doc } from './values.ts';

export function filterDoc(f: Filter): Doc {
  return {
    _id: f.id,
    num: num(f.id),
    accountId: f.accountId,
    title: f.title,
    context: f.context,
    action: f.action,
    expiresAt: f.expiresAt,
    keywords: f.keywords,
    statuses: f.statuses,
    createdAt: f.createdAt,
  };
}

export function filterFromDoc(d: Doc): Filter {
  return {
    id: d['_id'] as Id,
    accountId: d['accountId'] as Id,
    title: d['title'] as string,
    context: d['context'] as FilterContext[],
    action: d['action'] as FilterAction,
    expiresAt: d['expiresAt'] as number | null,
    keywords: d['keywords'] as Filter['keywords'],
    statuses: d['statuses'] as Filter['statuses'],
    createdAt: d['createdAt'] as number,
  };
}

/** Replaces every field of the filter but its id. */
export function filterReplacement(f: Filter): Doc {
  const { _id: _ignored, num: _num, ...fields } = filterDoc(f);
  return { $set: fields };
}

export function filterRepository(m: Mongo): FilterRepository {
  const filters = m.collection(C.filters);
  return {
    async create(f, outbox) {
      await m.insertWithJobs(C.filters, filterDoc(f), outbox === undefined ? [] : outbox(f));
    },
    async get(filterId) {
      const id = lookupId(filterId);
      const d = id === null ? null : await filters.findOne({ _id: id });
      return d ? filterFromDoc(d) : null;
    },
    async listBy(accountId) {
      return (await filters.find({ accountId }).sort({ num: 1 }).toArray()).map(filterFromDoc);
    },
    async replace(f, outbox) {
      const id = lookupId(f.id);
      if (id === null) return null;
      return m.cas({
        collection: C.filters,
        read: () => filters.findOne({ _id: id }, { projection: { _id: 1, _v: 1 } }),
        decide: (current) => (current === null ? { result: null, write: null } : { result: filterFromDoc(filterDoc(f)), write: { update: filterReplacement(f) } }),
        outbox,
      });
    },
    async delete(filterId, outbox) {
      const id = lookupId(filterId);
      if (id === null) return false;
      return m.deleteOne(C.filters, { _id: id }, outbox);
    },
  };
}

// ---- markers ------------------------------------------------------------------------------------

export function markerFromDoc(d: Doc): Marker {
  return {
    accountId: d['accountId'] as Id,
    timeline: d['timeline'] as MarkerTimeline,
    lastReadId: d['lastReadId'] as Id,
    version: d['version'] as number,
    updatedAt: d['updatedAt'] as number,
  };
}

/** Sets the marker in one update: version 0 for a new marker, else one more than it was. */
export function markerSet(accountId: Id, timeline: MarkerTimeline, lastReadId: Id, updatedAt: Millis): { filter: Doc; pipeline: Doc[] } {
  return {
    filter: { _id: pairKey(accountId, timeline) },
    pipeline: [
      {
        $set: {
          accountId: { $literal: accountId },
          timeline: { $literal: timeline },
          lastReadId: { $literal: lastReadId },
          updatedAt: { $literal: updatedAt },
          version: { $cond: [{ $eq: [{ $type: '$version' }, 'missing'] }, 0, { $add: ['$version', 1] }] },
        },
      },
    ],
  };
}

export function markerRepository(m: Mongo): MarkerRepository {
  const markers = m.collection(C.markers);
  return {
    async get(accountId, timelines) {
      const wanted = [...new Set(timelines)];
      if (wanted.length === 0) return [];
      const byTimeline = new Map((await markers.find({ accountId, timeline: { $in: wanted } }).toArray()).map((d) => [d['timeline'], markerFromDoc(d)]));
      return wanted.flatMap((tl) => byTimeline.get(tl) ?? []);
    },
    async set(accountId, timeline, lastReadId, updatedAt) {
      const { filter, pipeline } = markerSet(accountId, timeline, lastReadId, updatedAt);
      for (let attempt = 0; ; attempt += 1) {
        try {
          const d = await markers.findOneAndUpdate(filter, bump(pipeline), { upsert: true, returnDocument: 'after' });
          if (d === null) throw new Error('markers.set: the upsert returned no document');
          return markerFromDoc(d);
        } catch (error) {
          // Two first sets at once: both upserts insert, one loses on _id; it updates instead.
          if (attempt < 3 && duplicateKeyOf(error)?.index === '_id_') continue;
          throw m.translate(error);
        }
      }
    },
  };
}
