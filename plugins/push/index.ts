// Web Push as Mastodon clients use it: /api/v1/push/subscription (create, read, change, delete;
// scope `push`), one subscription per access token with the notification types it wants
// (`alerts`) and whose notifications (`policy`); the instance's VAPID key pair, made once and
// kept in the store, stated as configuration.vapid.public_key and as each app's vapid_key; and
// the deliveries: when a notification is created, a job per subscription that wants it encrypts
// it for the subscription (RFC 8291, aes128gcm), signs the request (RFC 8292, VAPID) and posts
// it to the subscription's push service (docs/behaviour.md, "Web Push").
//
// The encryption and signing are the web-push library's; the HTTP is the PushTransport's.

import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import {
  bool,
  checkOptions,
  json,
  notFound,
  obj,
  option,
  RookeryError,
  str,
  unprocessable,
  type Account,
  type ApiRequest,
  type Endpoint,
  type Id,
  type Notification,
  type OptionSpec,
  type Params,
  type PluginSystem,
  type RookeryConfig,
  type RookeryPlugin,
  rookeryUserAgent,
} from 'rookery/plugin-kit';
import webpush from 'web-push';
import { pushPayload } from './payload.ts';
import { pushStorage, type PushPolicy, type PushRepository, type PushSubscription, type VapidKeys } from './storage/index.ts';
import { endpointAllowed, nodePushTransport, type PushTransport } from './transport.ts';

export { pushStorage, type PushPolicy, type PushRepository, type PushSubscription, type VapidKeys } from './storage/index.ts';
export { nodePushTransport, isPublicAddress, PushRefused, type PushRequest, type PushTransport, type PushTransportOptions } from './transport.ts';
export { pushPayload, plainText, type PushPayload } from './payload.ts';

export interface PushPluginOptions {
  /** How messages reach push services (default: nodePushTransport, https and public
   * addresses only). */
  transport?: PushTransport;
  /** For tests with a local push service: accept http:// endpoints on any address. */
  allowLocalEndpoints?: boolean;
  /** 32 random bytes (base64url) that seal the access tokens kept with subscriptions. Keep it
   * outside the database (the standalone instance keeps it in a file next to it). Without it
   * the key is derived from the VAPID private key, which lives in the database. */
  tokenKey?: string;
  /** The VAPID subject push services may contact: mailto: or https: (default: mailto: the
   * instance's contact address, else the https base URL, else mailto:webmaster@<domain>). */
  subject?: string;
}

/** Notification types a subscription can ask for (Mastodon's, including those Rookery does not
 * create yet, so that clients that send them are understood). */
export const ALERT_TYPES = ['mention', 'status', 'reblog', 'follow', 'follow_request', 'favourite', 'poll', 'update', 'quote', 'quoted_update', 'admin.sign_up', 'admin.report'] as const;
const POLICIES: readonly PushPolicy[] = ['all', 'followed', 'follower', 'none'];

/** How long a push service keeps a message for an offline device, and its urgency. */
const TTL_SECONDS = 48 * 3600;
const URGENCY = 'normal';
const MAX_ENDPOINT = 2048;

export const pushTexts = {
  subscriptionMissing: 'param is missing or the value is empty: subscription',
  endpointBlank: "Validation failed: Endpoint can't be blank",
  endpointInvalid: 'Validation failed: Endpoint must be an https URL',
  p256dhBlank: "Validation failed: Key p256dh can't be blank",
  authBlank: "Validation failed: Key auth can't be blank",
  p256dhInvalid: 'Validation failed: Key p256dh is not a P-256 public key',
  authInvalid: 'Validation failed: Key auth is not 16 bytes',
  policyInvalid: 'Validation failed: Policy is not included in the list',
} as const;

const PUSH_SCOPES = ['push'];

/** The raw bearer token of the request (the one the guard checked). */
function rawToken(request: ApiRequest): string {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers['authorization'] ?? '');
  if (match?.[1]) return match[1];
  return str(request.query, 'access_token') ?? str(request.body, 'access_token') ?? '';
}

function base64urlBytes(value: string): Uint8Array | null {
  return /^[A-Za-z0-9_-]+={0,2}$/.test(value) ? Buffer.from(value.replace(/=+$/, ''), 'base64url') : null;
}

/** An uncompressed point on P-256 (what browsers give as p256dh): 65 bytes starting with 4. */
function isP256Point(value: string): boolean {
  const bytes = base64urlBytes(value.replace(/\+/g, '-').replace(/\//g, '_'));
  return bytes !== null && bytes.byteLength === 65 && bytes[0] === 4;
}

function isAuthSecret(value: string): boolean {
  const bytes = base64urlBytes(value.replace(/\+/g, '-').replace(/\//g, '_'));
  return bytes !== null && bytes.byteLength === 16;
}

/** data[alerts] and data[policy]: every known type, false unless asked for. */
function dataOf(params: Params, current?: Pick<PushSubscription, 'alerts' | 'policy'>): Pick<PushSubscription, 'alerts' | 'policy'> {
  const data = obj(params, 'data') ?? {};
  const given = obj(data, 'alerts') ?? {};
  const alerts: Record<string, boolean> = {};
  for (const type of ALERT_TYPES) alerts[type] = bool(given, type) ?? current?.alerts[type] ?? false;
  const policy = str(data, 'policy') ?? current?.policy ?? 'all';
  if (!POLICIES.includes(policy as PushPolicy)) throw unprocessable(pushTexts.policyInvalid);
  return { alerts, policy: policy as PushPolicy };
}

/** subscription[endpoint] and subscription[keys][p256dh|auth], checked as the encryption needs them. */
function subscriptionOf(params: Params, allowLocal: boolean): Pick<PushSubscription, 'endpoint' | 'p256dh' | 'auth'> {
  const subscription = obj(params, 'subscription');
  if (subscription === undefined) throw new RookeryError(400, pushTexts.subscriptionMissing);
  const endpoint = (str(subscription, 'endpoint') ?? '').trim();
  const keys = obj(subscription, 'keys') ?? {};
  const p256dh = (str(keys, 'p256dh') ?? '').trim();
  const auth = (str(keys, 'auth') ?? '').trim();
  if (endpoint === '') throw unprocessable(pushTexts.endpointBlank);
  if (endpoint.length > MAX_ENDPOINT || !endpointAllowed(endpoint, allowLocal)) throw unprocessable(pushTexts.endpointInvalid);
  if (p256dh === '') throw unprocessable(pushTexts.p256dhBlank);
  if (auth === '') throw unprocessable(pushTexts.authBlank);
  if (!isP256Point(p256dh)) throw unprocessable(pushTexts.p256dhInvalid);
  if (!isAuthSecret(auth)) throw unprocessable(pushTexts.authInvalid);
  return { endpoint, p256dh, auth };
}

/** The WebPushSubscription entity. */
function render(subscription: PushSubscription, keys: VapidKeys) {
  return {
    id: subscription.id,
    endpoint: subscription.endpoint,
    standard: true,
    // Every type, false unless asked for: a subscription made before a type existed has none.
    alerts: Object.fromEntries(ALERT_TYPES.map((type) => [type, subscription.alerts[type] === true])),
    policy: subscription.policy,
    server_key: keys.publicKey,
  };
}

/** Seals and unseals the tokens kept with subscriptions (AES-256-GCM, a fresh nonce each). */
function tokenSealer(key: Uint8Array) {
  return {
    seal(token: string): string {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(token, 'utf8'), cipher.final()]);
      return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
    },
    /** null when it was sealed under another key (the key changed). */
    unseal(sealed: string): string | null {
      try {
        const bytes = Buffer.from(sealed, 'base64url');
        const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12));
        decipher.setAuthTag(bytes.subarray(bytes.length - 16));
        return Buffer.concat([decipher.update(bytes.subarray(12, bytes.length - 16)), decipher.final()]).toString('utf8');
      } catch {
        return null;
      }
    },
  };
}

function subjectOf(config: RookeryConfig, given: string | undefined): string {
  if (given !== undefined) return given;
  if (config.contactEmail !== '') return `mailto:${config.contactEmail}`;
  if (config.baseUrl.startsWith('https:')) return config.baseUrl;
  return `mailto:webmaster@${config.domain.replace(/:\d+$/, '')}`;
}

/** Whether the subscription wants this notification: its type among the alerts, its sender
 * allowed by the policy (followed: the recipient follows them; follower: they follow the
 * recipient). */
export async function wants(relationships: PluginSystem['relationships'], subscription: PushSubscription, notification: Notification): Promise<boolean> {
  if (subscription.alerts[notification.type] !== true) return false;
  switch (subscription.policy) {
    case 'all':
      return true;
    case 'none':
      return false;
    case 'followed':
    case 'follower': {
      const [facts] = await relationships.relationships(notification.accountId, [notification.fromAccountId]);
      if (facts === undefined) return false;
      return subscription.policy === 'followed' ? facts.following !== null : facts.followedBy;
    }
  }
}

const OPTIONS: OptionSpec = {
  transport: option.implementing('a PushTransport (send)', ['send']),
  allowLocalEndpoints: option.boolean(),
  tokenKey: option.secret({ what: '32 bytes in base64url', test: (v) => typeof v === 'string' && /^[A-Za-z0-9_-]{43}$/.test(v) }),
  subject: { what: 'a mailto: or https: URL', test: (v) => typeof v === 'string' && /^(mailto:|https:\/\/)\S+$/.test(v) },
};

export function pushPlugin(options: PushPluginOptions = {}): RookeryPlugin {
  checkOptions('pushPlugin', options, OPTIONS);
  const allowLocal = options.allowLocalEndpoints ?? false;
  return {
    name: 'push',
    async register(host) {
      const transport = options.transport ?? nodePushTransport({ allowLocalEndpoints: allowLocal, userAgent: rookeryUserAgent(host.config.baseUrl) });
      const repo: PushRepository = host.storage(pushStorage);
      const generated = webpush.generateVAPIDKeys();
      const keys = await repo.vapidKeys({ publicKey: generated.publicKey, privateKey: generated.privateKey });
      host.configureInstance('vapid', { public_key: keys.publicKey });
      const sealKey =
        options.tokenKey !== undefined
          ? Buffer.from(options.tokenKey, 'base64url')
          : new Uint8Array(hkdfSync('sha256', Buffer.from(keys.privateKey, 'base64url'), new Uint8Array(0), 'rookery push token seal', 32));
      const sealer = tokenSealer(sealKey);
      const vapidDetails = { subject: subjectOf(host.config, options.subject), publicKey: keys.publicKey, privateKey: keys.privateKey };

      const ownSubscription = async (request: ApiRequest): Promise<PushSubscription> => {
        const token = request.caller.token;
        const found = token === null ? null : await repo.byToken(token.id);
        if (found === null) throw notFound();
        return found;
      };
      const endpoints: Endpoint[] = [
        {
          method: 'POST',
          path: '/api/v1/push/subscription',
          auth: 'user',
          scopes: PUSH_SCOPES,
          async handle(request) {
            const token = request.caller.token;
            const account = request.caller.account as Account;
            if (token === null) throw new Error('the user guard lets no request through without a token');
            const params = { ...request.query, ...request.body };
            const target = subscriptionOf(params, allowLocal);
            const raw = rawToken(request);
            if (!host.secrets.equal(host.secrets.sha256(raw), token.tokenHash)) throw new Error('the request token is not the one the guard checked');
            const subscription: PushSubscription = {
              id: host.newId(),
              accountId: account.id,
              tokenId: token.id,
              sealedToken: sealer.seal(raw),
              ...target,
              ...dataOf(params),
              createdAt: host.clock.now(),
            };
            await repo.replace(subscription);
            return json(render(subscription, keys));
          },
        },
        {
          method: 'GET',
          path: '/api/v1/push/subscription',
          auth: 'user',
          scopes: PUSH_SCOPES,
          handle: async (request) => json(render(await ownSubscription(request), keys)),
        },
        {
          method: 'PUT',
          path: '/api/v1/push/subscription',
          auth: 'user',
          scopes: PUSH_SCOPES,
          async handle(request) {
            const current = await ownSubscription(request);
            const updated = await repo.update(current.tokenId, dataOf({ ...request.query, ...request.body }, current));
            if (updated === null) throw notFound();
            return json(render(updated, keys));
          },
        },
        {
          method: 'DELETE',
          path: '/api/v1/push/subscription',
          auth: 'user',
          scopes: PUSH_SCOPES,
          async handle(request) {
            if (request.caller.token !== null) await repo.deleteByToken(request.caller.token.id);
            return json({});
          },
        },
      ];
      for (const endpoint of endpoints) host.addEndpoint(endpoint);

      // One delivery: re-checked when it runs (the subscription, its token, the notification
      // and whether its recipient may still see it, the alerts and policy), then sent. A push
      // service that answers 4xx (but 408 and 429) has dropped the subscription: so do we.
      // Anything else that is not 2xx is thrown, and the queue retries it.
      const deliver = host.handleJob(
        'deliver',
        async (payload) => {
          const { subscriptionId, notificationId } = payload as { subscriptionId: Id; notificationId: Id };
          const subscription = await repo.get(subscriptionId);
          if (subscription === null) return;
          const token = sealer.unseal(subscription.sealedToken);
          const live = token === null ? null : await host.system.tokens.findTokenByHash(host.secrets.sha256(token));
          if (token === null || live === null || live.revokedAt !== null || live.id !== subscription.tokenId) {
            await repo.delete(subscription.id);
            return;
          }
          const notification = await host.system.notifications.get(subscription.accountId, notificationId);
          const [recipient, user] = await Promise.all([host.accounts.get(subscription.accountId), host.system.accounts.getUser(subscription.accountId)]);
          // A disabled login gets nothing (its subscriptions stay, for when it is enabled again).
          if (notification === null || recipient === null || user === null || user.disabled) return;
          if (!(await wants(host.system.relationships, subscription, notification))) return;
          const [rendered] = await host.present.notifications([notification], recipient);
          if (rendered === undefined) return;
          const message = JSON.stringify(pushPayload(rendered, token, user.locale));
          const details = webpush.generateRequestDetails({ endpoint: subscription.endpoint, keys: { p256dh: subscription.p256dh, auth: subscription.auth } }, message, {
            vapidDetails,
            TTL: TTL_SECONDS,
            urgency: URGENCY,
            contentEncoding: 'aes128gcm',
          });
          const headers: Record<string, string> = {};
          for (const [name, value] of Object.entries(details.headers)) if (name.toLowerCase() !== 'content-length') headers[name] = String(value);
          const status = await transport.send({ endpoint: subscription.endpoint, headers, body: new Uint8Array(details.body ?? new Uint8Array(0)) });
          if (status >= 200 && status < 300) return;
          if (status >= 400 && status < 500 && status !== 408 && status !== 429) {
            await repo.delete(subscription.id);
            return;
          }
          throw new Error(`the push service answered ${status}`);
        },
        { maxAttempts: 5 },
      );

      // A new notification: a delivery job for each of the recipient's subscriptions that wants it.
      host.on('notification.created', async (event) => {
        const notification = event.notification;
        const jobs = [];
        for (const subscription of await repo.forAccount(notification.accountId)) {
          if (await wants(host.system.relationships, subscription, notification)) jobs.push({ name: deliver, payload: { subscriptionId: subscription.id, notificationId: notification.id } });
        }
        if (jobs.length > 0) await host.enqueue(jobs);
      });

      // A revoked token takes its subscription with it.
      host.on('token.revoked', async (event) => {
        await repo.deleteByToken(event.tokenId);
      });
    },
  };
}
