/**
 * An OpenID Connect issuer for the inbox's sign-in tests (docs/people.md): oidc-provider on loopback, with one web
 * client (a secret, one redirect URI) and people whose email is `<login>@example.com` (verified) unless the test names
 * another (and whether it is verified), and whose roles the test names.
 * Its own development pages sign in (any password) and consent.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import type { Page } from 'playwright-core';

export interface OidcIssuer {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Register the client's redirect URI (the inbox's `/auth/callback`, known once the inbox listens). */
  start(redirectUri: string): void;
  close(): Promise<void>;
}

/** An issuer whose people have the roles of `roles` (login → roles), and the emails of `emails` (login → its email claims). */
export async function startOidcIssuer(
  roles: Record<string, string[]> = {},
  emails: Record<string, { email: string; verified: boolean }> = {},
): Promise<OidcIssuer> {
  const http = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const clientId = 'inbox';
  const clientSecret = 'inbox-secret-for-tests';
  return {
    issuer,
    clientId,
    clientSecret,
    start(redirectUri) {
      const provider = new Provider(issuer, {
        clients: [
          {
            client_id: clientId,
            client_secret: clientSecret,
            redirect_uris: [redirectUri],
            grant_types: ['authorization_code'],
            response_types: ['code'],
            token_endpoint_auth_method: 'client_secret_basic',
          },
        ],
        scopes: ['openid', 'email', 'roles'],
        claims: { openid: ['sub'], email: ['email', 'email_verified'], roles: ['roles'] },
        // The claims of the scopes in the ID token itself (the inbox reads no userinfo).
        conformIdTokenClaims: false,
        findAccount: async (_ctx: unknown, sub: string) => ({
          accountId: sub,
          claims: async () => ({
            sub,
            email: emails[sub]?.email ?? `${sub}@example.com`,
            email_verified: emails[sub]?.verified ?? true,
            roles: roles[sub] ?? [],
          }),
        }),
        features: { devInteractions: { enabled: true } },
        pkce: { required: () => true },
        cookies: { keys: ['oidc-issuer-test-key'] },
      } as never);
      http.on('request', provider.callback());
    },
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

/** On `page`: open `url` (an inbox with sign-in), sign in at the issuer as `login`, consent, and land on the inbox. */
export async function signInToInbox(page: Page, url: string, login: string): Promise<void> {
  await page.goto(url);
  await page.fill('input[name="login"]', login);
  await page.fill('input[name="password"]', 'any password');
  await page.click('button[type="submit"]');
  await page.waitForSelector('button[type="submit"]');
  await page.click('button[type="submit"]');
  await page.waitForURL((u) => u.href.startsWith(url) && !u.pathname.startsWith('/auth/'));
}
