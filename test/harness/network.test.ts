// How the harness loads undici: its Agent from the module that defines it, not from undici's index
// (which loads fetch, WebSocket and the rest besides), and the index should a release move it.
import { createRequire } from 'node:module';
import { describe, expect, test } from 'vitest';
import { ownAgent, UNDICI_AGENT_MODULE } from '../../suites/harness/network.ts';

const require = createRequire(import.meta.url);

describe('undici, loaded in part', () => {
  test('the installed undici defines Agent where the harness loads it from: the very class its index exports', () => {
    const version = (require('undici/package.json') as { version: string }).version;
    // Should this fail after an upgrade of undici, it has moved its Agent out of UNDICI_AGENT_MODULE:
    // the harness then takes undici's index (slower to load, the same class).
    expect(ownAgent(require), `undici ${version}: ${UNDICI_AGENT_MODULE}`).toBe(
      (require('undici') as typeof import('undici')).Agent,
    );
  });

  test('a module that is not there, or does not export a class, is not used', () => {
    const missing = ((id: string) => {
      throw Object.assign(new Error(`Cannot find module '${id}'`), { code: 'MODULE_NOT_FOUND' });
    }) as unknown as NodeJS.Require;
    expect(ownAgent(missing)).toBeUndefined();
    const notAClass = (() => ({ Agent: class {} })) as unknown as NodeJS.Require;
    expect(ownAgent(notAClass)).toBeUndefined();
  });
});
