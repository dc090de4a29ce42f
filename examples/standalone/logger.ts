import pino from 'pino';

/** Tokens never reach the log: credentials are redacted and request paths logged without
 * their query string (which may carry access_token). */
export function createLogger() {
  return pino({
    level: process.env['LOG_LEVEL'] || 'info',
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', '*.access_token', '*.client_secret', '*.password', 'access_token', 'password'],
      censor: '[Redacted]',
    },
  });
}
