// A stand-in for a MongoDB deployment, in memory, for running the adapter's code without a
// server. It is NOT MongoDB: it interprets the documents the adapter sends with mingo (an
// independent implementation of MongoDB's query language, update operators and aggregation) and
// adds what mingo leaves to a database: collections, unique and partial indexes (E11000 with the
// index's name, as servers report it), upserts, findOneAnd*, and transactions.
//
// What it cannot show, and so what still needs a real server: the server's own semantics where
// mingo differs from it, concurrency (transactions here run one at a time, each holding a lock
// until it commits or aborts; a write outside any transaction never waits and may see a running
// transaction's writes), TTL deletion, index use, and the wire protocol. Bridged on purpose:
// - Int64 (Long) values are stored as zero-padded strings (mingo does not compare Long), which
//   keeps the order of the positive ids `num` holds;
// - a $lookup with both localField/foreignField and a pipeline (MongoDB 5.0's form, which mingo
//   ignores the fields of) is rewritten to the equivalent let/$expr form.

import { Long, MongoBulkWriteError, MongoServerError, type IndexDescription } from 'mongodb';
import { Query, aggregate, find, update as applyModifier } from 'mingo';

type Doc = Record<string, unknown>;

const isPlain = (v: unknown): v is Doc => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date) && !(v instanceof Long);

/** Long → a string that sorts as the number; everything else deep-copied. */
function normalize(value: unknown): unknown {
  if (value instanceof Long) return `#${value.toString().padStart(20, '0')}`;
  if (Array.isArray(value)) return value.map(normalize);
  if (value instanceof Date) return new Date(value.getTime());
  if (isPlain(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalize(v)]));
  return value;
}

const clone = <T>(value: T): T => structuredClone(value);

function get(doc: Doc, path: string): unknown {
  let v: unknown = doc;
  for (const part of path.split('.')) {
    if (!isPlain(v)) return undefined;
    v = v[part];
  }
  return v;
}

/** MongoDB 5.0's correlated $lookup (localField + pipeline) as let/$expr, which mingo runs. */
function rewriteLookups(pipeline: Doc[]): Doc[] {
  return pipeline.map((stage) => {
    const lookup = stage['$lookup'];
    if (!isPlain(lookup) || lookup['localField'] === undefined || lookup['pipeline'] === undefined) return stage;
    const { localField, foreignField, pipeline: inner, ...rest } = lookup;
    return {
      $lookup: {
        ...rest,
        let: { fakeLocal: `$${String(localField)}` },
        pipeline: [{ $match: { $expr: { $eq: [`$${String(foreignField)}`, '$$fakeLocal'] } } }, ...(inner as Doc[])],
      },
    };
  });
}

interface Undo {
  collection: FakeCollection;
  id: string;
  before: Doc | undefined;
}

class Gate {
  holder: FakeSession | null = null;
  #waiting: (() => void)[] = [];
  async enter(session: FakeSession | undefined): Promise<void> {
    if (session === undefined || this.holder === session) return;
    while (this.holder !== null) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    this.holder = session;
  }
  release(session: FakeSession): void {
    if (this.holder !== session) return;
    this.holder = null;
    for (const wake of this.#waiting.splice(0)) wake();
  }
}

export class FakeSession {
  active = false;
  undo: Undo[] = [];
  readonly #gate: Gate;
  constructor(gate: Gate) {
    this.#gate = gate;
  }
  startTransaction(): void {
    if (this.active) throw new Error('fake: a transaction is already in progress');
    this.active = true;
    this.undo = [];
  }
  async commitTransaction(): Promise<void> {
    this.active = false;
    this.undo = [];
    this.#gate.release(this);
  }
  async abortTransaction(): Promise<void> {
    for (const u of this.undo.reverse()) u.collection.restore(u.id, u.before);
    this.undo = [];
    this.active = false;
    this.#gate.release(this);
  }
  inTransaction(): boolean {
    return this.active;
  }
  async endSession(): Promise<void> {
    if (this.active) await this.abortTransaction();
  }
}

interface Options {
  session?: unknown;
  projection?: Doc;
  upsert?: boolean;
  returnDocument?: 'before' | 'after';
  ordered?: boolean;
  limit?: number;
}

const duplicate = (db: string, collection: string, index: string, keyPattern: Doc, keyValue: Doc) =>
  new MongoServerError({
    code: 11000,
    codeName: 'DuplicateKey',
    errmsg: `E11000 duplicate key error collection: ${db}.${collection} index: ${index} dup key: ${JSON.stringify(keyValue)}`,
    keyPattern,
    keyValue,
  });

class FakeCursor {
  #sort: Doc | null = null;
  #limit = 0;
  readonly #run: (sort: Doc | null, limit: number) => Promise<Doc[]>;
  constructor(run: (sort: Doc | null, limit: number) => Promise<Doc[]>) {
    this.#run = run;
  }
  sort(sort: Doc): this {
    this.#sort = sort;
    return this;
  }
  limit(n: number): this {
    this.#limit = n;
    return this;
  }
  toArray(): Promise<Doc[]> {
    return this.#run(this.#sort, this.#limit);
  }
}

export class FakeCollection {
  docs: Doc[] = [];
  indexes: IndexDescription[] = [];
  /** Made (createCollection, createIndexes or a first insert), as opposed to only named. */
  created = false;
  readonly #db: FakeDb;
  readonly name: string;
  constructor(db: FakeDb, name: string) {
    this.#db = db;
    this.name = name;
  }

  /** The transaction an operation runs in (waiting for its turn), or undefined. */
  async #enter(options: Options = {}): Promise<FakeSession | undefined> {
    const session = options.session instanceof FakeSession && options.session.inTransaction() ? options.session : undefined;
    await this.#db.mongo.gate.enter(session);
    return session;
  }

  #find(filter: Doc): Doc[] {
    const q = new Query(normalize(filter) as Doc);
    return this.docs.filter((d) => q.test(d));
  }

  #out(doc: Doc | undefined, projection?: Doc): Doc | null {
    if (doc === undefined) return null;
    if (projection === undefined) return clone(doc);
    return clone(find([doc], {}, normalize(projection) as Doc).all()[0] as Doc);
  }

  /** Unique indexes (with their partial filters) and _id, for `doc` against the others. */
  #checkUnique(doc: Doc, replacing: Doc | undefined): void {
    const others = this.docs.filter((d) => d !== replacing);
    if (others.some((d) => d['_id'] === doc['_id'])) throw duplicate(this.#db.name, this.name, '_id_', { _id: 1 }, { _id: doc['_id'] });
    for (const index of this.indexes) {
      if (!index.unique) continue;
      const partial = index.partialFilterExpression ? new Query(index.partialFilterExpression) : null;
      if (partial && !partial.test(doc)) continue;
      const fields = Object.keys(index.key);
      const keyOf = (d: Doc) => JSON.stringify(fields.map((f) => get(d, f) ?? null));
      const key = keyOf(doc);
      if (others.some((d) => (!partial || partial.test(d)) && keyOf(d) === key)) {
        throw duplicate(this.#db.name, this.name, String(index.name), index.key as Doc, Object.fromEntries(fields.map((f) => [f, get(doc, f) ?? null])));
      }
    }
  }

  #record(session: FakeSession | undefined, id: string, before: Doc | undefined): void {
    if (session && !session.undo.some((u) => u.collection === this && u.id === id)) session.undo.push({ collection: this, id, before: before && clone(before) });
  }

  restore(id: string, before: Doc | undefined): void {
    const i = this.docs.findIndex((d) => d['_id'] === id);
    if (before === undefined) {
      if (i >= 0) this.docs.splice(i, 1);
    } else if (i >= 0) this.docs[i] = before;
    else this.docs.push(before);
  }

  #insert(doc: Doc, session: FakeSession | undefined): void {
    const stored = normalize(doc) as Doc;
    if (stored['_id'] === undefined) throw new Error(`fake: an insert into ${this.name} without _id`);
    this.#checkUnique(stored, undefined);
    this.#record(session, stored['_id'] as string, undefined);
    this.docs.push(stored);
    this.created = true;
  }

  /** The document `update` makes of `doc` (a copy), or of a new one for an upsert. */
  #updated(doc: Doc, updateDoc: Doc | Doc[], inserting: boolean): Doc {
    const u = normalize(updateDoc) as Doc | Doc[];
    if (Array.isArray(u)) return aggregate([clone(doc)], u)[0] as Doc;
    const { $setOnInsert, ...modifier } = u;
    // An upsert's new document gets the $setOnInsert fields (its _id may be one of them).
    const next = inserting && isPlain($setOnInsert) ? { ...clone(doc), ...clone($setOnInsert) } : clone(doc);
    if (Object.keys(modifier).length > 0) applyModifier(next, modifier as never);
    return next;
  }

  /** Seed of an upsert: the filter's equality fields. */
  #seed(filter: Doc): Doc {
    const seed: Doc = {};
    for (const [k, v] of Object.entries(normalize(filter) as Doc)) {
      if (k.startsWith('$') || k.includes('.')) continue;
      if (isPlain(v) && Object.keys(v).some((x) => x.startsWith('$'))) continue;
      seed[k] = v;
    }
    return seed;
  }

  #updateOneNow(filter: Doc, updateDoc: Doc | Doc[], options: Options, session: FakeSession | undefined) {
    const target = this.#find(filter)[0];
    if (target === undefined) {
      if (!options.upsert) return { matchedCount: 0, modifiedCount: 0, upsertedCount: 0, upsertedId: null, before: undefined, after: undefined };
      const created = this.#updated(this.#seed(filter), updateDoc, true);
      this.#insert(created, session);
      return { matchedCount: 0, modifiedCount: 0, upsertedCount: 1, upsertedId: created['_id'], before: undefined, after: created };
    }
    const next = this.#updated(target, updateDoc, false);
    this.#checkUnique(next, target);
    const changed = JSON.stringify(next) !== JSON.stringify(target);
    this.#record(session, target['_id'] as string, target);
    this.docs[this.docs.indexOf(target)] = next;
    return { matchedCount: 1, modifiedCount: changed ? 1 : 0, upsertedCount: 0, upsertedId: null, before: target, after: next };
  }

  async findOne(filter: Doc, options: Options = {}) {
    await this.#enter(options);
    return this.#out(this.#find(filter)[0], options.projection);
  }

  find(filter: Doc, options: Options = {}) {
    return new FakeCursor(async (sort, limit) => {
      await this.#enter(options);
      let cursor = find(this.#find(filter), {}, options.projection ? (normalize(options.projection) as Doc) : undefined);
      if (sort) cursor = cursor.sort(sort as never);
      if (limit > 0) cursor = cursor.limit(limit);
      return clone(cursor.all() as Doc[]);
    });
  }

  async insertOne(doc: Doc, options: Options = {}) {
    const session = await this.#enter(options);
    this.#insert(doc, session);
    return { acknowledged: true, insertedId: doc['_id'] };
  }

  async insertMany(docs: Doc[], options: Options = {}) {
    const session = await this.#enter(options);
    const writeErrors: { index: number; code: number; errmsg: string }[] = [];
    for (const [index, doc] of docs.entries()) {
      try {
        this.#insert(doc, session);
      } catch (error) {
        if (!(error instanceof MongoServerError)) throw error;
        writeErrors.push({ index, code: error.code as number, errmsg: error.errmsg ?? error.message });
        if (options.ordered !== false) break;
      }
    }
    if (writeErrors.length > 0) {
      const first = writeErrors[0] as { code: number; errmsg: string };
      throw new MongoBulkWriteError({ message: first.errmsg, code: first.code, writeErrors: writeErrors as never }, {} as never);
    }
    return { acknowledged: true, insertedCount: docs.length };
  }

  async updateOne(filter: Doc, updateDoc: Doc | Doc[], options: Options = {}) {
    const session = await this.#enter(options);
    const { before: _b, after: _a, ...result } = this.#updateOneNow(filter, updateDoc, options, session);
    return result;
  }

  async updateMany(filter: Doc, updateDoc: Doc | Doc[], options: Options = {}) {
    const session = await this.#enter(options);
    let matchedCount = 0;
    let modifiedCount = 0;
    for (const target of this.#find(filter)) {
      const next = this.#updated(target, updateDoc, false);
      this.#checkUnique(next, target);
      this.#record(session, target['_id'] as string, target);
      this.docs[this.docs.indexOf(target)] = next;
      matchedCount += 1;
      if (JSON.stringify(next) !== JSON.stringify(target)) modifiedCount += 1;
    }
    return { matchedCount, modifiedCount, upsertedCount: 0, upsertedId: null };
  }

  async findOneAndUpdate(filter: Doc, updateDoc: Doc | Doc[], options: Options = {}) {
    const session = await this.#enter(options);
    const r = this.#updateOneNow(filter, updateDoc, options, session);
    return this.#out(options.returnDocument === 'after' ? r.after : r.before, options.projection);
  }

  async findOneAndDelete(filter: Doc, options: Options = {}) {
    const session = await this.#enter(options);
    const target = this.#find(filter)[0];
    if (target === undefined) return null;
    this.#record(session, target['_id'] as string, target);
    this.docs.splice(this.docs.indexOf(target), 1);
    return this.#out(target, options.projection);
  }

  async deleteOne(filter: Doc, options: Options = {}) {
    return { deletedCount: (await this.findOneAndDelete(filter, options)) === null ? 0 : 1 };
  }

  async deleteMany(filter: Doc, options: Options = {}) {
    const session = await this.#enter(options);
    const gone = this.#find(filter);
    for (const target of gone) {
      this.#record(session, target['_id'] as string, target);
      this.docs.splice(this.docs.indexOf(target), 1);
    }
    return { deletedCount: gone.length };
  }

  async countDocuments(filter: Doc, options: Options = {}) {
    await this.#enter(options);
    const n = this.#find(filter).length;
    return options.limit !== undefined && options.limit > 0 ? Math.min(n, options.limit) : n;
  }

  aggregate(pipeline: Doc[], options: Options = {}) {
    return {
      toArray: async () => {
        await this.#enter(options);
        const resolver = (name: string) => this.#db.collection(name).docs;
        return clone(aggregate(this.docs, rewriteLookups(normalize(pipeline) as Doc[]), { collectionResolver: resolver }) as Doc[]);
      },
    };
  }

  async createIndexes(specs: IndexDescription[]) {
    this.created = true;
    for (const spec of specs) {
      const same = this.indexes.find((i) => i.name === spec.name);
      if (same !== undefined && JSON.stringify(same) !== JSON.stringify(spec)) {
        throw new MongoServerError({ code: 85, codeName: 'IndexOptionsConflict', errmsg: `an index named ${String(spec.name)} exists with other options` });
      }
      if (same === undefined) this.indexes.push(clone(spec));
    }
    return specs.map((s) => String(s.name));
  }
}

export class FakeDb {
  readonly collections = new Map<string, FakeCollection>();
  readonly mongo: FakeMongo;
  readonly name: string;
  constructor(mongo: FakeMongo, name: string) {
    this.mongo = mongo;
    this.name = name;
  }
  collection(name: string): FakeCollection {
    let c = this.collections.get(name);
    if (c === undefined) {
      c = new FakeCollection(this, name);
      this.collections.set(name, c);
    }
    return c;
  }
  async createCollection(name: string) {
    const c = this.collection(name);
    if (c.created) throw new MongoServerError({ code: 48, codeName: 'NamespaceExists', errmsg: `Collection ${this.name}.${name} already exists.` });
    c.created = true;
    return c;
  }
  admin() {
    return {
      command: async (command: Doc) => {
        if (command['hello'] !== 1) throw new Error(`fake: unknown admin command ${JSON.stringify(command)}`);
        return { isWritablePrimary: true, setName: this.mongo.replicaSet ?? undefined, maxWireVersion: 21 };
      },
    };
  }
}

/** A deployment: its databases, and the lock its transactions take. */
export class FakeMongo {
  readonly gate = new Gate();
  readonly databases = new Map<string, FakeDb>();
  /** null: a standalone server (no replica set). */
  replicaSet: string | null = 'rs0';
  db(name: string): FakeDb {
    let d = this.databases.get(name);
    if (d === undefined) {
      d = new FakeDb(this, name);
      this.databases.set(name, d);
    }
    return d;
  }
  /** What a client of this deployment is: each store gets its own (closing one closes only it). */
  client() {
    return {
      startSession: () => new FakeSession(this.gate),
      db: (name: string) => this.db(name),
      close: async () => undefined,
    };
  }
}
