// Driver errors as the port's: E11000 from each unique index → StorageConflict with its rule;
// everything else passes through. The errors are the driver's own classes, shaped as a server
// sends them (the message formats of current and old servers).

import { MongoBulkWriteError, MongoNetworkError, MongoServerError } from 'mongodb';
import t from 'tap';
import { StorageConflict } from '../../../core/domain/ports/storage.ts';
import { DUPLICATE_KEY, duplicateKeyOf, isTransientTransactionError, isUnknownCommitResult, translateError } from '../../../adapters/mongodb/errors.ts';
import { INDEXES, IndexRegistry } from '../../../adapters/mongodb/schema.ts';
import { CARD_INDEXES } from '../../../plugins/cards/storage/mongodb.ts';

const duplicate = (collection: string, index: string, keyPattern?: Record<string, unknown>) =>
  new MongoServerError({
    code: DUPLICATE_KEY,
    codeName: 'DuplicateKey',
    errmsg: `E11000 duplicate key error collection: rookery.${collection} index: ${index} dup key: { x: "y" }`,
    ...(keyPattern ? { keyPattern, keyValue: { x: 'y' } } : {}),
  });

const registry = new IndexRegistry();
registry.add(INDEXES);
registry.add(CARD_INDEXES);
const translate = (error: unknown) => translateError(error, (d) => registry.ruleFor(d));

const conflict = (error: unknown): string => (error instanceof StorageConflict ? `StorageConflict ${error.rule}` : `not a conflict: ${String(error)}`);

t.test('duplicateKeyOf reads the collection and the index from the message', async (t) => {
  t.strictSame(duplicateKeyOf(duplicate('accounts', 'accounts_acct', { usernameKey: 1, domainKey: 1 })), {
    collection: 'accounts',
    index: 'accounts_acct',
    keyPattern: { usernameKey: 1, domainKey: 1 },
    message: 'E11000 duplicate key error collection: rookery.accounts index: accounts_acct dup key: { x: "y" }',
  });
  const old = new MongoServerError({ code: 11000, errmsg: 'E11000 duplicate key error index: rookery.statuses.$statuses_live_boost  dup key: { : "1" }' });
  t.strictSame([duplicateKeyOf(old)?.collection, duplicateKeyOf(old)?.index], ['statuses', 'statuses_live_boost'], 'the old format (db.coll.$name)');
  const bare = new MongoServerError({ code: 11000, errmsg: 'E11000 duplicate key error dup key: { : "a" }', keyPattern: { clientId: 1 } });
  t.strictSame([duplicateKeyOf(bare)?.collection, duplicateKeyOf(bare)?.index, duplicateKeyOf(bare)?.keyPattern], [null, null, { clientId: 1 }], 'no name: the key pattern only');
  t.equal(duplicateKeyOf(new MongoServerError({ code: 112, errmsg: 'WriteConflict' })), null, 'another server error');
  t.equal(duplicateKeyOf(new Error('E11000 but not from the driver')), null, 'a plain Error');
  t.equal(duplicateKeyOf(null), null);
  t.equal(duplicateKeyOf('E11000'), null);
});

t.test('a bulk write (insertMany) reports its first duplicate', async (t) => {
  const bulk = new MongoBulkWriteError(
    {
      message: 'E11000 duplicate key error collection: rookery.status_edits index: _id_ dup key: { _id: "5" }',
      code: DUPLICATE_KEY,
      writeErrors: [{ index: 1, code: DUPLICATE_KEY, errmsg: 'E11000 duplicate key error collection: rookery.status_edits index: _id_ dup key: { _id: "5" }' }] as never,
    },
    {} as never,
  );
  t.strictSame([duplicateKeyOf(bulk)?.collection, duplicateKeyOf(bulk)?.index], ['status_edits', '_id_']);
  // The driver's WriteError keeps the server's document in `err` and exposes it through getters.
  const writeError = { err: { code: 11000, errmsg: 'E11000 duplicate key error collection: rookery.jobs index: _id_ dup key: { _id: 5 }' } };
  t.equal(duplicateKeyOf({ writeErrors: [writeError] })?.collection, 'jobs', 'through WriteError.err');
  t.equal(duplicateKeyOf({ writeErrors: [{ code: 2, errmsg: 'BadValue' }] }), null, 'other write errors');
});

t.test('E11000 of each unique index → StorageConflict with its rule', async (t) => {
  const cases: [string, string, string][] = [
    ['accounts', 'accounts_acct', 'username'],
    ['accounts', 'accounts_email', 'email'],
    ['accounts', '_id_', 'id'],
    ['statuses', '_id_', 'id'],
    ['statuses', 'statuses_live_boost', 'reblog'],
    ['status_edits', '_id_', 'id'],
    ['favourites', '_id_', 'id'],
    ['favourites', 'favourites_pair', 'favourite'],
    ['bookmarks', 'bookmarks_pair', 'bookmark'],
    ['follows', 'follows_pair', 'follow'],
    ['blocks', 'blocks_pair', 'block'],
    ['mutes', 'mutes_pair', 'mute'],
    ['domain_blocks', 'domain_blocks_pair', 'domainBlock'],
    ['notifications', 'notifications_dedupe', 'notification'],
    ['applications', 'applications_client_id', 'clientId'],
    ['access_tokens', 'access_tokens_token_hash', 'tokenHash'],
    ['access_tokens', 'access_tokens_refresh_token_hash', 'refreshTokenHash'],
    ['authorization_codes', 'authorization_codes_code_hash', 'codeHash'],
    ['web_sessions', 'web_sessions_id_hash', 'idHash'],
    ['preview_cards', 'preview_cards_url', 'url'],
    ['media_attachments', '_id_', 'id'],
  ];
  t.strictSame(
    cases.map(([collection, index]) => conflict(translate(duplicate(collection, index)))),
    cases.map(([, , rule]) => `StorageConflict ${rule}`),
  );
  const translated = translate(duplicate('accounts', 'accounts_email')) as StorageConflict;
  t.equal(translated.message, 'E11000 duplicate key error collection: rookery.accounts index: accounts_email dup key: { x: "y" }', "the server's message is kept");
  t.equal(translated.name, 'StorageConflict');
  t.equal(conflict(translate(duplicate('accounts', 'accounts_brand_new'))), 'StorageConflict accounts_brand_new', 'an unknown unique index: its name is the rule');
  t.equal(conflict(translate(new MongoServerError({ code: 11000, errmsg: 'E11000 duplicate key error dup key: { : "x" }', keyPattern: { tokenHash: 1 } }))), 'StorageConflict tokenHash', 'by key pattern');
  t.equal(conflict(translate(new MongoServerError({ code: 11000, errmsg: 'E11000' }))), 'StorageConflict unknown', 'nothing to go by');
});

t.test('other errors pass through unchanged', async (t) => {
  const network = new MongoNetworkError('connection reset');
  t.equal(translate(network), network, 'a network error');
  const conflictWrite = new MongoServerError({ code: 112, errmsg: 'WriteConflict', errorLabels: ['TransientTransactionError'] });
  t.equal(translate(conflictWrite), conflictWrite, 'a write conflict');
  const plain = new TypeError('x');
  t.equal(translate(plain), plain, 'not from the driver');
  const already = new StorageConflict('media');
  t.equal(translate(already), already, 'a StorageConflict a plugin threw');
  t.equal(translate('a string'), 'a string');
});

t.test('transient and unknown-commit errors', async (t) => {
  t.equal(isTransientTransactionError(new MongoServerError({ code: 251, errmsg: 'NoSuchTransaction', errorLabels: ['TransientTransactionError'] })), true, 'by label (hasErrorLabel)');
  t.equal(isTransientTransactionError({ errorLabels: ['TransientTransactionError'] }), true, 'by label (a plain object)');
  t.equal(isTransientTransactionError(new MongoServerError({ code: 112, errmsg: 'WriteConflict' })), true, 'WriteConflict by code');
  t.equal(isTransientTransactionError(new MongoServerError({ code: 11000, errmsg: 'E11000' })), false);
  t.equal(isTransientTransactionError(new Error('x')), false);
  t.equal(isTransientTransactionError(undefined), false);
  t.equal(isUnknownCommitResult(new MongoServerError({ code: 50, errmsg: 'MaxTimeMSExpired', errorLabels: ['UnknownTransactionCommitResult'] })), true);
  t.equal(isUnknownCommitResult(new MongoServerError({ code: 112, errmsg: 'WriteConflict', errorLabels: ['TransientTransactionError'] })), false);
});
