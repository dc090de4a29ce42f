import t from 'tap';
import { readSettings } from '../../examples/standalone/env.ts';

t.test("the standalone instance reads Mastodon's SMTP_* variables", async (t) => {
  t.equal(readSettings({}).smtp, null, 'no SMTP_SERVER: mail is logged');
  t.same(readSettings({ SMTP_SERVER: 'smtp.example.org', SMTP_LOGIN: 'me', SMTP_PASSWORD: 'secret', SMTP_FROM_ADDRESS: 'Birds <birds@example.org>', LOCAL_DOMAIN: 'birds.example' }).smtp, {
    host: 'smtp.example.org',
    port: 587,
    login: 'me',
    password: 'secret',
    from: 'Birds <birds@example.org>',
    starttls: 'auto',
    tls: false,
  });
  const tls = readSettings({ SMTP_SERVER: 'smtp.example.org', SMTP_TLS: 'true', LOCAL_DOMAIN: 'birds.example' }).smtp;
  t.equal(tls?.port, 465, 'implicit TLS defaults to 465');
  t.equal(tls?.from, 'notifications@birds.example', "Mastodon's default sender");
  t.equal(readSettings({ SMTP_SERVER: 'smtp.example.org', SMTP_SSL: 'true' }).smtp?.tls, true, 'SMTP_SSL is SMTP_TLS');
  t.equal(readSettings({ SMTP_SERVER: 's', SMTP_PORT: '2525', SMTP_ENABLE_STARTTLS: 'never' }).smtp?.starttls, 'never');
  t.throws(() => readSettings({ SMTP_SERVER: 's', SMTP_ENABLE_STARTTLS: 'sometimes' }), /SMTP_ENABLE_STARTTLS must be auto, always or never/);
});
