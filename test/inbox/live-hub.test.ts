/**
 * The inbox's one refresh loop (src/inbox/live.ts): however many tabs show a view, each period renders it once; a tab
 * gets the rows when it joins and whenever they change, a beat otherwise; the loop stops when the last tab leaves.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LiveHub, RecentlyAnswered } from '../../src/inbox/live.js';
import type { InboxView } from '../../src/inbox/list.js';

const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Wait until `ok()` (checked every 10 ms, at most 20 s). */
async function until(ok: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 2000 && !ok(); i++) await settle(10);
  assert.ok(ok(), what);
}

describe('the inbox refresh loop', () => {
  it('renders each open view once per period, whatever the number of tabs, and pushes only changes', async () => {
    const renders: string[] = [];
    let version = 1;
    const hub = new LiveHub(async (view: InboxView) => {
      renders.push(JSON.stringify(view.filter));
      return `<div id="rows">v${version} ${view.filter.server ?? 'all'}</div>`;
    }, 50);
    const got: Array<Array<[string, string]>> = [];
    const leave: Array<() => void> = [];
    for (let i = 0; i < 10; i++) {
      const mine: Array<[string, string]> = [];
      got.push(mine);
      leave.push(hub.join({ filter: i < 7 ? {} : { server: 'fy' } }, (event, data) => mine.push([event, data])));
    }
    assert.deepEqual(hub.size, { tabs: 10, views: 2 });
    await until(() => hub.refreshes >= 3, 'the loop ran three times');
    await until(() => got.every((mine) => mine.filter(([e]) => e === 'same').length >= 2), 'every tab has its beats');
    const rounds = hub.refreshes;
    // (The round under way may have rendered one view of its two so far.)
    assert.ok(renders.length >= rounds * 2 - 1 && renders.length <= rounds * 2, `two views rendered per round, not ten tabs: ${renders.length} in ${rounds}`);
    for (const mine of got) {
      assert.equal(mine.filter(([e]) => e === 'rows').length, 1, 'the rows once: they did not change');
      assert.ok(
        mine.some(([e]) => e === 'same'),
        'beats while nothing changes',
      );
    }
    version = 2;
    hub.poke();
    await until(() => got.every((mine) => mine.some(([, d]) => d.includes('v2'))), 'the change reached every tab');
    for (const mine of got) assert.match(mine.filter(([e]) => e === 'rows').at(-1)![1], /v2/, 'a change reaches every tab');
    for (const l of leave) l();
    assert.deepEqual(hub.size, { tabs: 0, views: 0 });
    const after = hub.refreshes;
    await settle(150);
    assert.equal(hub.refreshes, after, 'no tab open: the loop does not run');
    hub.close();
  });

  it('hides a request its people just answered, until it has aged out', async () => {
    const answered = new RecentlyAnswered(40);
    answered.add('wf', 'r1');
    assert.equal(answered.has('wf', 'r2'), false);
    await until(() => !answered.has('wf', 'r1'), 'aged out');
  });
});
