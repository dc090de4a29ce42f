// The push plugin's repository: Web Push subscriptions, one per access token, and the
// instance's VAPID key pair, made once and then kept. Contract: push/storage/contract.ts.

import type { Id, Millis } from 'rookery/plugin-kit';

export type PushPolicy = 'all' | 'followed' | 'follower' | 'none';

export interface PushSubscription {
  id: Id;
  accountId: Id;
  /** The access token it was made with: one subscription per token, gone with the token. */
  tokenId: Id;
  /** That token, sealed (AES-GCM) under the plugin's key: deliveries quote it to the client,
   * and the store never holds it readable. */
  sealedToken: string;
  endpoint: string;
  /** The user agent's P-256 public key and auth secret, base64url, as the client sent them. */
  p256dh: string;
  auth: string;
  /** Notification type → whether it is pushed. */
  alerts: Record<string, boolean>;
  policy: PushPolicy;
  createdAt: Millis;
}

export interface VapidKeys {
  /** base64url: the uncompressed P-256 point (65 bytes) and the private scalar (32 bytes). */
  publicKey: string;
  privateKey: string;
}

export interface PushRepository {
  /** ATOMIC. Stores the subscription in place of any other of its token. */
  replace(subscription: PushSubscription): Promise<void>;
  get(id: Id): Promise<PushSubscription | null>;
  byToken(tokenId: Id): Promise<PushSubscription | null>;
  /** The account's subscriptions, oldest first. */
  forAccount(accountId: Id): Promise<PushSubscription[]>;
  /** Changes alerts and policy of the token's subscription; null when it has none. */
  update(tokenId: Id, changes: Pick<PushSubscription, 'alerts' | 'policy'>): Promise<PushSubscription | null>;
  /** Whether the token had one. */
  deleteByToken(tokenId: Id): Promise<boolean>;
  delete(id: Id): Promise<void>;
  /** ATOMIC. The instance's keys: the stored ones, else `candidate` stored now (concurrent
   * first calls agree on one pair). */
  vapidKeys(candidate: VapidKeys): Promise<VapidKeys>;
}
