/** The OAuth fixture (oidc-provider in front of a v2 MCP server; test/fixtures/oauth-server.ts) and Chromium signing in on its pages. */
import type { Browser } from 'playwright-core';
import { oauthServerPath, startHttpFixture, type HttpFixture } from '../fixtures/paths.js';

export interface OAuthFixture {
  mcp: string;
  issuer: string;
  close(): Promise<void>;
  stats(): Promise<Record<string, number>>;
  control(path: '/__expire-access' | '/__revoke-refresh'): Promise<void>;
}

export async function startOAuthFixture(env: Record<string, string> = {}): Promise<OAuthFixture> {
  const fx: HttpFixture = await startHttpFixture({ script: oauthServerPath, env });
  const { mcp, issuer } = JSON.parse(fx.url) as { mcp: string; issuer: string };
  const base = new URL(mcp).origin;
  return {
    mcp,
    issuer,
    close: () => fx.close(),
    stats: async () => (await (await fetch(`${base}/__stats`)).json()) as Record<string, number>,
    control: async (path) => {
      await fetch(`${base}${path}`, { method: 'POST' });
    },
  };
}

/** Chromium signs in and consents on oidc-provider's own pages; returns the inbox's callback page's heading. */
export async function signIn(browser: Browser, url: string, login = 'ada'): Promise<string> {
  const page = await browser.newPage();
  try {
    await page.goto(url);
    await page.fill('input[name="login"]', login);
    await page.fill('input[name="password"]', 'any password');
    await page.click('button[type="submit"]');
    await page.waitForSelector('button[type="submit"]');
    await page.click('button[type="submit"]');
    await page.waitForURL(/\/oauth\/callback/);
    return (await page.textContent('h1')) ?? '';
  } finally {
    await page.close();
  }
}
