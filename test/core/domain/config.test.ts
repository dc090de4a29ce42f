// resolveConfig checks every option once, with an error that names it, fills in defaults and
// hands back a configuration nobody can change afterwards.

import t from 'tap';
import { ConfigError, defaultLimits, resolveConfig, type ConfigInput } from '../../../core/domain/config.ts';

/** The message resolveConfig throws for an input, checked to be a ConfigError. */
function refusal(input: unknown): string {
  try {
    resolveConfig(input as ConfigInput);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return err.message;
  }
  throw new Error('resolveConfig accepted it');
}

t.test('defaults', async (t) => {
  const config = resolveConfig({ domain: 'social.example' });
  t.same(config, {
    domain: 'social.example',
    baseUrl: 'https://social.example',
    streamingUrl: null,
    title: 'Rookery',
    description: 'A Mastodon-compatible server powered by Rookery.',
    contactEmail: '',
    limitedFederation: false,
    registrations: { open: true, approvalRequired: false, confirmationRequired: false },
    reservedUsernames: ['admin', 'administrator', 'mod', 'moderator', 'root', 'support', 'help', 'webmaster', 'postmaster', 'abuse', 'security', 'ssladmin', 'hostmaster'],
    rules: [],
    limits: defaultLimits,
    refreshTokens: false,
    rateLimits: true,
    trustedProxies: ['127.0.0.0/8', '::1'],
  });
});

t.test('rate limits: a switch, and the proxies trusted to name the client', async (t) => {
  const config = resolveConfig({ domain: 'a.example', rateLimits: false, trustedProxies: ['10.0.0.0/8', '192.0.2.7', 'fd00::/8'] });
  t.equal(config.rateLimits, false);
  t.same(config.trustedProxies, ['10.0.0.0/8', '192.0.2.7', 'fd00::/8']);
  t.equal(refusal({ domain: 'a.example', rateLimits: 'no' }), 'Invalid config: "rateLimits" must be a boolean, got "no"');
  t.equal(refusal({ domain: 'a.example', trustedProxies: ['10.0.0.0/33'] }), 'Invalid config: "trustedProxies" must be an array of IP addresses or CIDR ranges, got an array');
  t.equal(refusal({ domain: 'a.example', trustedProxies: ['proxy.example'] }), 'Invalid config: "trustedProxies" must be an array of IP addresses or CIDR ranges, got an array');
});

t.test('given values are kept; trailing slashes go', async (t) => {
  const config = resolveConfig({
    domain: 'localhost:3000',
    baseUrl: 'http://localhost:3000/',
    streamingUrl: 'wss://stream.example/',
    title: 'T',
    limitedFederation: true,
    registrations: { open: false },
    reservedUsernames: ['boss'],
    rules: ['Be kind ', 'No spam'],
    limits: { maxCharacters: 1000, maxLists: 0 },
    refreshTokens: true,
  });
  t.same(config.rules, ['Be kind', 'No spam'], 'rules in order, trimmed');
  t.equal(config.baseUrl, 'http://localhost:3000');
  t.equal(config.streamingUrl, 'wss://stream.example');
  t.same(config.registrations, { open: false, approvalRequired: false, confirmationRequired: false });
  t.same(config.reservedUsernames, ['boss']);
  t.equal(config.limits.maxCharacters, 1000);
  t.equal(config.limits.maxLists, 0, 'zero is a valid limit');
  t.equal(config.limits.maxPinnedStatuses, 5, 'other limits keep their defaults');
  t.equal(resolveConfig({ domain: 'x.example', streamingUrl: null }).streamingUrl, null);
  t.same(resolveConfig(config), config, 'a resolved config resolves to itself');
});

t.test('the result is frozen all the way down', async (t) => {
  const reserved = ['boss'];
  const config = resolveConfig({ domain: 'social.example', reservedUsernames: reserved });
  for (const [label, value] of [['config', config], ['registrations', config.registrations], ['limits', config.limits], ['reservedUsernames', config.reservedUsernames], ['rules', config.rules], ['defaultLimits', defaultLimits]] as const) {
    t.ok(Object.isFrozen(value), `${label} is frozen`);
  }
  t.throws(() => ((config as { baseUrl: string }).baseUrl = 'https://evil.example'), TypeError);
  reserved.push('later');
  t.same(config.reservedUsernames, ['boss'], "the caller's array is copied");
});

t.test('every bad option is refused with a message that names it', async (t) => {
  const cases: [string, unknown, string][] = [
    ['not an object', 'social.example', 'Invalid config: expected an object, got "social.example"'],
    ['null', null, 'Invalid config: expected an object, got null'],
    ['an unknown key', { domain: 'a.example', baseURL: 'https://a.example' }, 'Invalid config: unknown option "baseURL"'],
    ['an unknown nested key', { domain: 'a.example', registrations: { closed: true } }, 'Invalid config: unknown option "registrations.closed"'],
    ['an unknown limit', { domain: 'a.example', limits: { maxChars: 10 } }, 'Invalid config: unknown option "limits.maxChars"'],
    ['no domain', {}, 'Invalid config: "domain" is required'],
    ['a number as domain', { domain: 3 }, 'Invalid config: "domain" must be a string, got 3'],
    ['an empty domain', { domain: '' }, 'Invalid config: "domain" must be a host name without scheme or path (e.g. social.example), got ""'],
    ['a domain with a scheme', { domain: 'https://social.example' }, 'Invalid config: "domain" must be a host name without scheme or path (e.g. social.example), got "https://social.example"'],
    ['a domain with a path', { domain: 'social.example/mastodon' }, 'Invalid config: "domain" must be a host name without scheme or path (e.g. social.example), got "social.example/mastodon"'],
    ['a domain with a space', { domain: 'social example' }, 'Invalid config: "domain" must be a host name without scheme or path (e.g. social.example), got "social example"'],
    ['a baseUrl that is no URL', { domain: 'a.example', baseUrl: 'a.example' }, 'Invalid config: "baseUrl" must be an http:// or https:// URL without query or fragment, got "a.example"'],
    ['a baseUrl of another scheme', { domain: 'a.example', baseUrl: 'ftp://a.example' }, 'Invalid config: "baseUrl" must be an http:// or https:// URL without query or fragment, got "ftp://a.example"'],
    ['a baseUrl with a query', { domain: 'a.example', baseUrl: 'https://a.example/?x=1' }, 'Invalid config: "baseUrl" must be an http:// or https:// URL without query or fragment, got "https://a.example/?x=1"'],
    ['a baseUrl of the wrong type', { domain: 'a.example', baseUrl: 42 }, 'Invalid config: "baseUrl" must be a string, got 42'],
    ['a streamingUrl that is no URL', { domain: 'a.example', streamingUrl: 'stream' }, 'Invalid config: "streamingUrl" must be a ws:// or wss:// URL or null, got "stream"'],
    ['an http streamingUrl', { domain: 'a.example', streamingUrl: 'https://a.example' }, 'Invalid config: "streamingUrl" must be a ws:// or wss:// URL or null, got "https://a.example"'],
    ['a title of the wrong type', { domain: 'a.example', title: ['x'] }, 'Invalid config: "title" must be a string, got an array'],
    ['a flag as a string', { domain: 'a.example', limitedFederation: 'yes' }, 'Invalid config: "limitedFederation" must be a boolean, got "yes"'],
    ['refreshTokens as a number', { domain: 'a.example', refreshTokens: 1 }, 'Invalid config: "refreshTokens" must be a boolean, got 1'],
    ['registrations not an object', { domain: 'a.example', registrations: true }, 'Invalid config: "registrations" must be an object, got true'],
    ['a registration flag of the wrong type', { domain: 'a.example', registrations: { open: 'no' } }, 'Invalid config: "registrations.open" must be a boolean, got "no"'],
    ['reserved usernames as a string', { domain: 'a.example', reservedUsernames: 'admin' }, 'Invalid config: "reservedUsernames" must be an array of strings, got "admin"'],
    ['rules as a string', { domain: 'a.example', rules: 'Be kind' }, 'Invalid config: "rules" must be an array of non-empty strings, got "Be kind"'],
    ['a blank rule', { domain: 'a.example', rules: ['Be kind', ' '] }, 'Invalid config: "rules" must be an array of non-empty strings, got an array'],
    ['reserved usernames with a number', { domain: 'a.example', reservedUsernames: ['admin', 1] }, 'Invalid config: "reservedUsernames" must be an array of strings, got an array'],
    ['limits not an object', { domain: 'a.example', limits: [] }, 'Invalid config: "limits" must be an object, got an array'],
    ['a negative limit', { domain: 'a.example', limits: { maxCharacters: -1 } }, 'Invalid config: "limits.maxCharacters" must be a non-negative integer, got -1'],
    ['a fractional limit', { domain: 'a.example', limits: { maxLists: 2.5 } }, 'Invalid config: "limits.maxLists" must be a non-negative integer, got 2.5'],
    ['an infinite limit', { domain: 'a.example', limits: { maxLists: Infinity } }, 'Invalid config: "limits.maxLists" must be a non-negative integer, got Infinity'],
    ['a limit as a string', { domain: 'a.example', limits: { maxLists: '3' } }, 'Invalid config: "limits.maxLists" must be a non-negative integer, got "3"'],
  ];
  for (const [label, input, message] of cases) t.equal(refusal(input), message, label);
  t.equal(new ConfigError('x').name, 'ConfigError');
});
