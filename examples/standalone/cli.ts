// The operator's tool for the standalone instance: create accounts and issue tokens on the
// same store the server uses (same DATA_DIR, DATABASE_URL or MONGODB_URI), and move the store
// from SQLite to PostgreSQL. Run it with `npm run rookery -- <command>`.

import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { createNodeRookery } from '../../adapters/node/index.ts';
import { createLocalAccount } from '../../core/domain/accounts/create.ts';
import { deleteAccount } from '../../core/domain/accounts/delete.ts';
import type { AppCore } from '../../core/mastodon/context.ts';
import { RookeryError } from '../../core/domain/errors.ts';
import type { Account } from '../../core/domain/model.ts';
import { ROLE_NAMES, type RoleName } from '../../core/domain/moderation/roles.ts';
import { imagesService, type ImagesService } from '../../core/mastodon/host/services.ts';
import { OOB_REDIRECT_URI, registerApplication } from '../../core/mastodon/oauth/apps.ts';
import { isSubset, parseScopes, ALL_SCOPES } from '../../core/mastodon/oauth/scopes.ts';
import { issueToken } from '../../core/mastodon/oauth/tokens.ts';
import { silentLogger } from '../../core/domain/ports/logger.ts';
import { normalizeDomain } from '../../plugins/federation/domain-blocks.ts';
import { addRelay, listRelays, removeRelay } from '../../plugins/federation/relays.ts';
import { addEmoji, emojiStorage, importEmojiArchive, removeEmoji, type EmojiTools } from '../../plugins/emoji/index.ts';
import { federationStorage } from '../../plugins/federation/storage/index.ts';
import { checkPostgresUrl, readSettings, type StandaloneSettings } from './env.ts';
import { standalonePlugins } from './plugins.ts';
import { reserveNode } from './shared.ts';
import { copySqliteToPostgres } from './storage-copy.ts';
import { openStore, redactUrl } from './store.ts';

const USAGE = `Usage: npm run rookery -- <command>

  accounts create <username> --email <address> [--password <password>] [--display-name <name>]
                  [--role Owner|Admin|Moderator] [--bot] [--confirmed | --unconfirmed] [--pending]
      Creates a local account (confirmed unless --unconfirmed). Without --password a strong one
      is generated and printed.
  accounts modify <username> [--role Owner|Admin|Moderator | --remove-role] [--disable | --enable]
                  [--approve] [--confirm]
      Gives the account a staff role or takes it away; disables or enables its sign-in;
      approves its pending sign-up; marks its e-mail address as confirmed (as tootctl does).
  accounts confirm <username>     Marks the e-mail address as confirmed.
  accounts approve <username>     Approves a pending sign-up.
  accounts disable <username>     Stops the user from signing in or using tokens.
  accounts enable <username>      Undoes disable.
  accounts delete <username>      Deletes the account: gone at once, its statuses, media, follows
                                  and notifications removed by the server's workers, its deletion
                                  told to the servers that knew it; the username stays reserved.
  tokens issue <username> [--scopes "read write follow push"]
      Prints a new access token for the account (for bots and scripts).
  audit list [--limit N]          What moderators did (newest first): when, who, what, to which report.
  jobs dead [--limit N]           Lists the jobs that failed for the last time (newest first).
  jobs retry <id>                 Puts a dead job back in the queue.
  domains block <domain> [--reason "…"]
      Stops federating with the domain and all its subdomains (domain:port for one instance).
  domains unblock <domain>        Undoes block.
  domains list                    Lists the blocked domains.
  relays add <inbox URL>          Subscribes the instance to an ActivityPub relay (its inbox, e.g.
                                  https://relay.example/inbox): a running server sends the Follow.
  relays remove <inbox URL>       Unsubscribes (a running server sends the Undo).
  relays list                     Lists the relays and the state of each subscription.
  emoji add <shortcode> <file> [--category <name>] [--unlisted] [--overwrite]
      Adds a custom emoji (PNG, GIF or WebP, at most 256 KB); --unlisted keeps it out of pickers.
  emoji import <archive.tar.gz> [--prefix P] [--suffix S] [--category <name>] [--unlisted]
               [--overwrite]
      Adds every PNG, GIF and WebP picture of the archive, named after its file.
  emoji remove <shortcode>        Removes a custom emoji and its pictures.
  emoji list                      Lists the custom emoji.
  storage copy [--to postgres://user[:password]@host[:port]/database]
      Copies the SQLite store in DATA_DIR, every plugin's tables included, into an empty
      PostgreSQL database (default: DATABASE_URL) and checks each table's count. Stop the
      instance first; then start it with DATABASE_URL and the same DATA_DIR.

Settings come from the environment, as for npm start (DATA_DIR, DATABASE_URL, LOCAL_DOMAIN …).`;

class UsageError extends Error {}

function checkRole(value: string): RoleName {
  const role = ROLE_NAMES.find((name) => name.toLowerCase() === value.toLowerCase());
  if (role === undefined) throw new UsageError(`Unknown role: ${value} (one of ${ROLE_NAMES.join(', ')}).`);
  return role;
}

async function findAccount(core: AppCore, username: string): Promise<Account> {
  const account = await core.storage.accounts.findByUsername(username.replace(/^@/, ''), null);
  if (account === null) throw new UsageError(`No local account named ${username}.`);
  return account;
}

/** The audit log: each moderator's action on a report, newest first. */
async function audit(core: AppCore, limit: number): Promise<string> {
  const actions = await core.storage.reports.actions({ limit });
  if (actions.length === 0) return 'Nothing recorded.';
  const names = new Map((await core.storage.accounts.getMany(actions.map((a) => a.accountId))).map((a) => [a.id, a.username]));
  return actions.map((a) => `${new Date(a.createdAt).toISOString()}  @${names.get(a.accountId) ?? a.accountId}  ${a.action}  ${a.targetType} ${a.targetId}`).join('\n');
}

/** The operator's domain blocks, in the federation plugin's storage. */
async function domains(core: AppCore, command: string | undefined, domain: string | undefined, reason: string | undefined): Promise<string> {
  const blocks = core.storage.extend(federationStorage);
  if (command === 'list') {
    const list = await blocks.listBlocks();
    if (list.length === 0) return 'No blocked domains.';
    return list.map((b) => `${b.domain}  ${new Date(b.createdAt).toISOString()}${b.reason === null ? '' : `  ${b.reason}`}`).join('\n');
  }
  if (command !== 'block' && command !== 'unblock') throw new UsageError(`Unknown command: domains ${command ?? ''}`);
  if (domain === undefined) throw new UsageError(`Which domain? domains ${command} needs one.`);
  if (command === 'unblock') {
    const canonical = normalizeDomain(domain);
    if (!(await blocks.unblock(canonical))) throw new RookeryError(404, `${canonical} is not blocked.`);
    return `Unblocked ${canonical}.`;
  }
  const now = core.clock.now();
  const block = await blocks.block(domain, { reason: reason ?? null, now });
  const what = block.domain.includes(':') ? block.domain : `${block.domain} and its subdomains`;
  return block.createdAt === now ? `Blocked ${what}.` : `Already blocked: ${what} (reason replaced).`;
}

/** The instance's relays, in the federation plugin's storage; the job that talks to the relay
 * goes in the store's queue, for the server's workers. */
async function relays(core: AppCore, command: string | undefined, url: string | undefined): Promise<string> {
  const repository = core.storage.extend(federationStorage);
  const now = core.clock.now();
  if (command === 'list') {
    const list = await listRelays(repository, now);
    if (list.length === 0) return 'No relays.';
    return list.map((relay) => `${relay.inbox}  ${relay.state}  ${new Date(relay.createdAt).toISOString()}`).join('\n');
  }
  if (command !== 'add' && command !== 'remove') throw new UsageError(`Unknown command: relays ${command ?? ''}`);
  if (url === undefined) throw new UsageError(`Which relay? relays ${command} needs the URL of its inbox.`);
  if (command === 'remove') {
    const removed = await removeRelay(repository, url, now);
    if (removed === null) throw new RookeryError(404, `Not subscribed to ${url}.`);
    await core.queue.enqueue([removed.job], now);
    return `Unsubscribed from ${removed.relay.inbox}.`;
  }
  const { relay, added, job } = await addRelay(repository, core.config.baseUrl, url, now);
  await core.queue.enqueue([job], now);
  return added ? `Subscribing to ${relay.inbox}: the server sends the Follow.` : `Already subscribed to ${relay.inbox} (${relay.state}): the Follow is sent again.`;
}

/** The instance's custom emoji: the emoji plugin's storage, the pictures kept by the media
 * plugin in DATA_DIR (or the store the server is given). */
async function emoji(tools: EmojiTools, argv: string[], options: { category?: string | undefined; unlisted?: boolean | undefined; overwrite?: boolean | undefined; prefix?: string | undefined; suffix?: string | undefined }): Promise<string> {
  const [command, name, file] = argv;
  const settings = {
    category: options.category ?? null,
    visibleInPicker: options.unlisted !== true,
    overwrite: options.overwrite === true,
  };
  if (command === 'list') {
    const all = await tools.repo.list();
    if (all.length === 0) return 'No custom emoji.';
    return all.map((e) => [`:${e.shortcode}:`, e.url, e.category ?? '', e.visibleInPicker ? '' : 'unlisted'].filter(Boolean).join('  ')).join('\n');
  }
  if (command === 'remove') {
    if (name === undefined) throw new UsageError('Which emoji? emoji remove needs its shortcode.');
    if (!(await removeEmoji(tools, name))) throw new RookeryError(404, `No custom emoji :${name}:.`);
    return `Removed :${name}:.`;
  }
  if (command === 'add') {
    if (name === undefined || file === undefined) throw new UsageError('emoji add needs a shortcode and a picture file.');
    const data = await readFile(file).catch((err: NodeJS.ErrnoException) => {
      throw new RookeryError(422, `Cannot read ${file}: ${err.code ?? err.message}`);
    });
    const added = await addEmoji(tools, name, new Uint8Array(data), settings);
    if (added.outcome === 'exists') throw new RookeryError(422, `:${name}: exists already; --overwrite replaces it.`);
    return `${added.outcome === 'added' ? 'Added' : 'Replaced'} :${name}:.`;
  }
  if (command === 'import') {
    if (name === undefined) throw new UsageError('emoji import needs a .tar.gz archive.');
    const result = await importEmojiArchive(tools, name, { ...settings, ...(options.prefix ? { prefix: options.prefix } : {}), ...(options.suffix ? { suffix: options.suffix } : {}) }).catch((err: NodeJS.ErrnoException) => {
      if (err instanceof RookeryError) throw err;
      throw new RookeryError(422, `Cannot read ${name} as a .tar.gz archive: ${err.code ?? err.message}`);
    });
    return [
      `Imported ${result.imported.length}, skipped ${result.skipped.length} (they exist; --overwrite replaces them), failed ${result.failed.length}.`,
      ...result.failed.map((failure) => `  :${failure.shortcode}:  ${failure.reason}`),
      ...(result.truncated ? ['Only the first entries of the archive were read.'] : []),
    ].join('\n');
  }
  throw new UsageError(`Unknown command: emoji ${command ?? ''}`);
}

type UserChange = 'confirm' | 'approve' | 'disable' | 'enable';

/** Confirms, approves, disables or enables a user, in one write; disabling ends the account's
 * live streams (the server's worker runs the recorded job). */
async function changeUser(core: AppCore, account: Account, username: string, changes: readonly UserChange[]): Promise<void> {
  const now = core.clock.now();
  const patch: Parameters<AppCore['storage']['accounts']['updateUser']>[1] = {};
  if (changes.includes('confirm')) patch.confirmedAt = now;
  if (changes.includes('approve')) patch.approved = true;
  if (changes.includes('disable')) patch.disabled = true;
  if (changes.includes('enable')) patch.disabled = false;
  const outbox = changes.includes('disable') ? () => core.record({ type: 'account.disabled', accountId: account.id }) : undefined;
  if ((await core.storage.accounts.updateUser(account.id, patch, outbox)) === null) throw new UsageError(`@${username} has no sign-in (a remote account?).`);
}

async function run(core: AppCore, argv: string[], images: ImagesService | null): Promise<string> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      email: { type: 'string' },
      password: { type: 'string' },
      'display-name': { type: 'string' },
      scopes: { type: 'string' },
      bot: { type: 'boolean' },
      unconfirmed: { type: 'boolean' },
      confirmed: { type: 'boolean' },
      role: { type: 'string' },
      'remove-role': { type: 'boolean' },
      disable: { type: 'boolean' },
      enable: { type: 'boolean' },
      approve: { type: 'boolean' },
      confirm: { type: 'boolean' },
      pending: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
      limit: { type: 'string' },
      reason: { type: 'string' },
      category: { type: 'string' },
      prefix: { type: 'string' },
      suffix: { type: 'string' },
      unlisted: { type: 'boolean' },
      overwrite: { type: 'boolean' },
    },
  });
  const [group, command, username] = positionals;
  if (values.help || group === undefined) throw new UsageError('');
  if (group === 'jobs' && command === 'dead') {
    const dead = await core.queue.deadLetters(Math.max(1, Math.min(1000, Number(values.limit ?? 20) || 20)));
    if (dead.length === 0) return 'No dead jobs.';
    return dead
      .map((job) => `${job.id}  ${new Date(job.diedAt).toISOString()}  ${job.name}  after ${job.attempts} attempt(s): ${job.lastError ?? ''}`)
      .join('\n');
  }
  if (group === 'audit') {
    if (command !== 'list') throw new UsageError(`Unknown command: audit ${command ?? ''}`);
    return audit(core, Math.max(1, Math.min(1000, Number(values.limit ?? 20) || 20)));
  }
  if (group === 'domains') return domains(core, command, username, values.reason);
  if (group === 'relays') return relays(core, command, username);
  if (group === 'emoji') {
    const tools: EmojiTools = { repo: core.storage.extend(emojiStorage), images, newId: () => core.ids.next(), now: core.clock.now() };
    return emoji(tools, positionals.slice(1), values);
  }
  if (username === undefined) throw new UsageError(`Which account? ${group} ${command ?? ''} needs a username.`);

  if (group === 'accounts' && command === 'create') {
    if (values.email === undefined) throw new UsageError('accounts create needs --email.');
    if (values.confirmed && values.unconfirmed) throw new UsageError('--confirmed and --unconfirmed exclude each other.');
    const role = values.role === undefined ? null : checkRole(values.role);
    const password = values.password ?? core.secrets.randomToken(18);
    const input: Parameters<typeof createLocalAccount>[1] = {
      username,
      email: values.email,
      password,
      confirmed: !values.unconfirmed,
      approved: !values.pending,
      bot: values.bot ?? false,
      role,
    };
    if (values['display-name'] !== undefined) input.displayName = values['display-name'];
    const { account } = await createLocalAccount(core, input);
    const as = role === null ? '' : ` as ${role}`;
    return `Created @${account.username} (id ${account.id})${as}.${values.password === undefined ? `\nPassword: ${password}` : ''}`;
  }
  if (group === 'accounts' && command === 'modify') {
    if (values.role !== undefined && values['remove-role'] === true) throw new UsageError('--role and --remove-role exclude each other.');
    if (values.disable === true && values.enable === true) throw new UsageError('--disable and --enable exclude each other.');
    const changesRole = values.role !== undefined || values['remove-role'] === true;
    const userChanges = (['confirm', 'approve', 'disable', 'enable'] as const).filter((flag) => values[flag] === true);
    if (!changesRole && userChanges.length === 0) throw new UsageError('accounts modify needs --role, --remove-role, --disable, --enable, --approve or --confirm.');
    const role = values.role === undefined ? null : checkRole(values.role);
    const account = await findAccount(core, username);
    const done: string[] = [];
    if (userChanges.length > 0) {
      await changeUser(core, account, username, userChanges);
      done.push(`@${account.username}: ${userChanges.join(', ')} done.`);
    }
    if (changesRole) {
      await core.storage.accounts.update(account.id, { role });
      done.push(role === null ? `@${account.username} has no role now.` : `@${account.username} is now ${role}.`);
    }
    return done.join('\n');
  }
  if (group === 'accounts' && command === 'delete') {
    const account = await findAccount(core, username);
    if (account.deletedAt !== null) throw new UsageError(`@${account.username} was deleted already.`);
    await deleteAccount(core, account, { kind: 'operator' });
    return `@${account.username} is deleted; the server removes its data in the background.`;
  }
  if (group === 'accounts') {
    const account = await findAccount(core, username);
    const change = (['confirm', 'approve', 'disable', 'enable'] as const).find((known) => known === command);
    if (change === undefined) throw new UsageError(`Unknown command: accounts ${command ?? ''}`);
    await changeUser(core, account, username, [change]);
    return `@${account.username}: ${command} done.`;
  }
  if (group === 'jobs' && command === 'retry') {
    if (!(await core.queue.revive(username, core.clock.now()))) throw new UsageError(`No dead job with id ${username}.`);
    return `Job ${username} is queued again.`;
  }
  if (group === 'tokens' && command === 'issue') {
    const account = await findAccount(core, username);
    const scopes = parseScopes(values.scopes ?? 'read write follow push');
    if (!isSubset(scopes, ALL_SCOPES)) throw new UsageError(`Unknown scope in "${values.scopes}".`);
    const { application } = await registerApplication(core, { name: 'Rookery CLI', redirectUris: OOB_REDIRECT_URI, scopes: scopes.join(' ') });
    const issued = await issueToken(core, application.id, account.id, scopes);
    return issued.accessToken;
  }
  throw new UsageError(`Unknown command: ${positionals.join(' ')}`);
}

/** `storage copy`: runs before any store is opened the usual way (a Rookery registers its
 * plugins, and the push plugin would write its keys into the target). */
async function storage(settings: StandaloneSettings, argv: string[]): Promise<string> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { to: { type: 'string' } } });
  if (positionals.join(' ') !== 'copy') throw new UsageError(`Unknown command: storage ${positionals.join(' ')}`);
  const target = values.to ?? settings.postgres?.url;
  if (target === undefined) throw new UsageError('storage copy needs --to postgres://… (or DATABASE_URL).');
  checkPostgresUrl(target, values.to === undefined ? 'DATABASE_URL' : '--to');
  const copied = await copySqliteToPostgres({ sqlitePath: settings.databasePath, postgresUrl: target });
  const width = Math.max(...copied.map((c) => c.from.length));
  const lines = copied.map((c) => `  ${c.from.padEnd(width)}  ${String(c.rows).padStart(8)}${c.to === c.from ? '' : `  (into ${c.to})`}`);
  const rows = copied.reduce((sum, c) => sum + c.rows, 0);
  return [
    `Copied ${settings.databasePath} into ${redactUrl(target)}:`,
    ...lines,
    `${rows} rows from ${copied.length} tables, every count checked.`,
    'The media files and keys stay in DATA_DIR: start the instance with DATABASE_URL set to that database and the same DATA_DIR.',
  ].join('\n');
}

function fail(message: string, code: number): never {
  if (message) console.error(message);
  if (code === 2) console.error(USAGE);
  process.exit(code);
}

let settings: StandaloneSettings;
try {
  settings = readSettings();
} catch (err) {
  fail(err instanceof Error ? err.message : String(err), 1);
}
const argv = process.argv.slice(2);
if (argv[0] === 'storage') {
  try {
    console.log(await storage(settings, argv.slice(1)));
    process.exit(0);
  } catch (err) {
    if (err instanceof UsageError) fail(err.message, 2);
    // A CopyError, a refused setting, a server that did not answer or refused a statement: its
    // sentence alone (none repeats the connection string).
    fail(err instanceof Error ? err.message : String(err), 1);
  }
}
// No worker here: the jobs this command records are run by the server's workers, whose buses
// reach the live streams. The same plugins as the server: the jobs of an event are named after
// the handlers the recording process knows.
// With REDIS_URL, an id node of its own: the servers may be writing to the same store meanwhile.
const lease = await reserveNode(settings, silentLogger);
// A store that cannot be opened (a server away, a newer schema) is said in one line.
const opened = await openStore(settings).catch(async (err: unknown) => {
  await lease?.release();
  fail(err instanceof Error ? err.message : String(err), 1);
});
const rookery = await createNodeRookery({
  config: settings.config,
  storage: opened.storage,
  worker: false,
  plugins: standalonePlugins(settings.dataDir, settings.federation),
  ...(lease !== null ? { idNode: lease.node } : {}),
});
let code = 0;
try {
  console.log(await run(rookery.core, process.argv.slice(2), rookery.service(imagesService)));
} catch (err) {
  if (err instanceof UsageError) {
    if (err.message) console.error(err.message);
    console.error(USAGE);
    code = 2;
  } else if (err instanceof RookeryError || err instanceof TypeError) {
    console.error(err.message);
    code = 1;
  } else {
    throw err;
  }
} finally {
  await rookery.close();
  await lease?.release();
}
process.exit(code);
