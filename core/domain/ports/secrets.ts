// Randomness and hashing, behind a port so that the core stays free of I/O and can be run
// deterministically in tests. adapters/node implements it with node:crypto.

export interface Secrets {
  /** A fresh url-safe random string carrying `bytes` bytes of entropy (default 32). */
  randomToken(bytes?: number): string;
  /** 16 random bits, for the sequence part of ids. */
  random16(): number;
  /** base64url SHA-256 of a UTF-8 string: token and code digests at rest, PKCE S256. */
  sha256(value: string): string;
  /** base64url HMAC-SHA256 of a UTF-8 string under the instance's secret key: values a client
   * carries and gives back unchanged (the sign-in form's CSRF token). Every process of one
   * instance must share the key. */
  sign(value: string): string;
  /** Constant-time equality of two strings (false when lengths differ). */
  equal(a: string, b: string): boolean;
  /** A slow salted password hash (scrypt), self-describing. */
  hashPassword(password: string): Promise<string>;
  /** Constant-time verification against hashPassword's output. */
  verifyPassword(password: string, hash: string): Promise<boolean>;
}
