// Rookery's stand-in for masto.js's `Tootctl` (its test-utils/services/tootctl/tootctl.ts):
// scripts/mastojs-e2e.sh copies this file into a scratch checkout of masto.js, where it takes
// the place of the docker one. Accounts are made by Rookery's operator CLI on the store of the
// instance under test; the CLI generates the password and prints it.
// No masto.js import: the object only has to have the interface's shape, and this file also
// passes Rookery's own typecheck.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

function setting(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`${name} is not set: run the suite through scripts/mastojs-e2e.sh`);
  return value;
}

async function createAccount(username: string, options: { readonly email: string; readonly confirmed: boolean }): Promise<{ password: string }> {
  const args = [setting('ROOKERY_CLI'), 'accounts', 'create', username, '--email', options.email];
  if (!options.confirmed) args.push('--unconfirmed');
  // The CLI finds the store through the settings the script exported (DATA_DIR …).
  const { stdout } = await run(setting('ROOKERY_NODE'), args, { env: process.env });
  const password = /^Password: (\S+)$/m.exec(stdout)?.[1];
  if (password === undefined) throw new Error(`The Rookery CLI printed no password for ${username}:\n${stdout}`);
  return { password };
}

// Same name as the docker factory, so masto.js's call site stays as it is; its arguments
// (container name, compose) mean nothing here.
export function createTootctl(..._dockerParams: unknown[]) {
  return {
    accounts: { create: createAccount },
    // The script starts the instance with REGISTRATIONS=open already.
    settings: { registrations: { open: async (): Promise<void> => {} } },
  };
}
