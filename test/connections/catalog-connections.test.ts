/**
 * The catalog page's Connected accounts panel (auth user) in headless Chromium: with the
 * caller's key in the field it lists the caller's connections from GET /api/connections,
 * links the connect page for a provider not connected, and disconnects one with
 * DELETE /api/connections/<provider>. The page shows no token.
 */
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { browserSkip, closeChromium, launchChromium, openPage } from '../helpers/chromium.js';
import { skipBecause } from '../helpers/skip-reason.js';
import {
  ALICE_KEY,
  connectInBrowser,
  startConnectionsWorld,
  type ConnectionsWorld,
} from '../helpers/connections-world.js';

const SKIP_BROWSER = skipBecause(...browserSkip('catalog-connections.test.ts'));

describe.skipIf(SKIP_BROWSER)('the Connected accounts panel of the catalog page', () => {
  let world: ConnectionsWorld;
  let gw: TestGateway;
  let context: BrowserContext;
  let profile: string;

  beforeAll(async () => {
    world = await startConnectionsWorld();
    gw = await startGateway(world.spec(), { env: world.env });
    await world.provider.allowRedirect(`${gw.url}/connect/tracker/callback`);
    ({ context, profile } = await launchChromium());
  }, 90_000);
  afterAll(async () => {
    await closeChromium(context, profile);
    await gw?.close();
    await world?.close();
  });

  it('lists the caller’s connection with a Connect link, shows it connected once it is, and disconnects it', async () => {
    const { page, problems } = await openPage(context, `${gw.url}/`);
    await page.fill('#bearer-token', ALICE_KEY);
    await page.getByRole('button', { name: 'Show tools' }).click();
    const row = page.locator('#connection-list li');
    await expect.poll(() => row.textContent()).toContain('not connected');
    const href = await page.locator('#connection-list a.connect-link').getAttribute('href');
    expect(href).toMatch(new RegExp(`^${gw.url}/connect/tracker/`));

    const done = await connectInBrowser(world, href!, ALICE_KEY, 'alice-at-tracker');
    expect(done.body).toContain('is connected');
    await page.getByRole('button', { name: 'Show tools' }).click();
    await expect.poll(() => row.textContent()).toContain('connected, scopes openid');
    const text = (await page.content()) + (await row.textContent());
    for (const r of world.api.requests)
      expect(text).not.toContain(String(r.headers.authorization ?? 'none').slice(7));

    await page.getByRole('button', { name: 'Disconnect' }).click();
    await expect
      .poll(() => page.locator('#connections-status').textContent())
      .toBe('Disconnected tracker.');
    await expect.poll(() => row.textContent()).toContain('not connected');
    expect(problems).toEqual([]);
  });
});
