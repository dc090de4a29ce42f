// PostgreSQL for tests. Each test file gets a database of its own (rookery_test_<random>,
// dropped WITH (FORCE) at teardown) on the server at ROOKERY_TEST_POSTGRES_URL, else
// postgres://postgres@127.0.0.1:5432/postgres. When nothing answers there, the file starts a
// private cluster (initdb + pg_ctl, as the postgres user when run as root) on a free port and
// stops it at teardown; when even that is impossible, it fails saying what to install.
//
// Inside its database a test takes a fresh schema per store (freshSchema): a store opened on
// that URL sees only that schema (search_path), so each contract test starts from nothing
// without paying for a database of its own.

import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { childEnv, freePort } from './processes.ts';

const run = promisify(execFile);

export const DEFAULT_TEST_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestPostgres {
  /** The server (its maintenance database), for creating and dropping databases. */
  readonly serverUrl: string;
  /** This file's own database. */
  readonly database: string;
  readonly url: string;
  /** A new, empty schema of this file's database, and the URL of a store that lives in it. */
  freshSchema(): Promise<{ schema: string; url: string; drop(): Promise<void> }>;
  /** A new, empty database of its own (dropped at teardown too). */
  freshDatabase(): Promise<{ database: string; url: string }>;
  /** One statement as the administrator, in this file's database. */
  query(sql: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
}

/** The same server and credentials, another database (and optionally query parameters). */
export function urlFor(serverUrl: string, database: string, search: Record<string, string> = {}): string {
  const url = new URL(serverUrl);
  url.pathname = `/${encodeURIComponent(database)}`;
  for (const [name, value] of Object.entries(search)) url.searchParams.set(name, value);
  return url.toString();
}

/** The host and port of a URL, without its credentials: what messages may show. */
const where = (url: string): string => {
  const u = new URL(url);
  return `${u.hostname}:${u.port || '5432'}`;
};

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The bin directory of the newest installed PostgreSQL that has initdb and pg_ctl. */
function postgresBin(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a));
  for (const v of versions) {
    const bin = join(root, v, 'bin');
    if (existsSync(join(bin, 'initdb')) && existsSync(join(bin, 'pg_ctl'))) return bin;
  }
  return null;
}

/** The path of a PostgreSQL program (pg_dump, pg_restore …): the newest installed version's,
 * else the name alone, for the PATH to find. */
export function postgresProgram(name: string): string {
  const bin = postgresBin();
  return bin !== null && existsSync(join(bin, name)) ? join(bin, name) : name;
}

/** A private cluster on a free port; stopped (and its directory removed) by the returned function. */
async function privateCluster(reason: string): Promise<{ url: string; stop(): Promise<void> }> {
  const bin = postgresBin();
  if (bin === null) {
    throw new Error(
      `${reason}, and PostgreSQL is not installed here to start a private server (no /usr/lib/postgresql/*/bin/initdb): ` +
        'install it (apt-get install postgresql) or set ROOKERY_TEST_POSTGRES_URL to a server the tests may create databases on',
    );
  }
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'rookery-test-pg-'));
  // initdb refuses to run as root: the cluster belongs to the postgres user then.
  const as = async (command: string, args: string[]) => {
    const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, command), ...args]] : [join(bin, command), args];
    await run(file, argv, { env: childEnv() });
  };
  try {
    if (asRoot) {
      const { stdout: uid } = await run('id', ['-u', 'postgres']);
      const { stdout: gid } = await run('id', ['-g', 'postgres']);
      chownSync(dir, Number(uid.trim()), Number(gid.trim()));
    }
    await as('initdb', ['-D', join(dir, 'data'), '-U', 'postgres', '--auth=trust', '--no-sync']);
    const port = await freePort();
    await as('pg_ctl', ['-D', join(dir, 'data'), '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`, '-l', join(dir, 'log'), '-w', 'start']);
    return {
      url: `postgres://postgres@127.0.0.1:${port}/postgres`,
      async stop() {
        await as('pg_ctl', ['-D', join(dir, 'data'), '-m', 'fast', '-w', 'stop']).catch(() => undefined);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    const detail = error instanceof Error ? error.message : String(error);
    throw new Error(`${reason}, and a private PostgreSQL server could not be started: ${detail}. Install PostgreSQL (apt-get install postgresql) or set ROOKERY_TEST_POSTGRES_URL`);
  }
}

const randomName = (prefix: string) => `${prefix}${randomBytes(6).toString('hex')}`;

/** The file's PostgreSQL: a database of its own on the shared server or a private one; every
 * database it made is dropped, and a private server stopped, by `teardown`. */
export async function testPostgres(teardown: (fn: () => Promise<void>) => void): Promise<TestPostgres> {
  let serverUrl = process.env['ROOKERY_TEST_POSTGRES_URL'] || DEFAULT_TEST_POSTGRES_URL;
  let cluster: { stop(): Promise<void> } | null = null;
  if (!(await answers(serverUrl))) {
    const started = await privateCluster(`No PostgreSQL server answers at ${where(serverUrl)}`);
    cluster = started;
    serverUrl = started.url;
  }

  const admin = new pg.Client({ connectionString: serverUrl });
  admin.on('error', () => undefined);
  await admin.connect();
  const databases: string[] = [];
  const createDatabase = async (): Promise<string> => {
    const name = randomName('rookery_test_');
    await admin.query(`CREATE DATABASE ${name}`);
    databases.push(name);
    // A test database need not survive a crash of the server: commits do not wait for the disk
    // (DDL, which every fresh store runs, is most of these tests' time otherwise).
    await admin.query(`ALTER DATABASE ${name} SET synchronous_commit = off`);
    return name;
  };
  const database = await createDatabase();
  const url = urlFor(serverUrl, database);
  const inDatabase = new pg.Client({ connectionString: url });
  inDatabase.on('error', () => undefined);
  await inDatabase.connect();

  teardown(async () => {
    await inDatabase.end().catch(() => undefined);
    for (const name of databases) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
    await cluster?.stop();
  });

  return {
    serverUrl,
    database,
    url,
    async freshSchema() {
      const schema = randomName('store_');
      await inDatabase.query(`CREATE SCHEMA ${schema}`);
      return {
        schema,
        url: urlFor(serverUrl, database, { options: `-c search_path=${schema}` }),
        async drop() {
          await inDatabase.query(`DROP SCHEMA ${schema} CASCADE`);
        },
      };
    },
    async freshDatabase() {
      const name = await createDatabase();
      return { database: name, url: urlFor(serverUrl, name) };
    },
    async query(sql, params = []) {
      return (await inDatabase.query(sql, params)).rows as Record<string, unknown>[];
    },
  };
}
