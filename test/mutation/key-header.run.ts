// The reference requiring a key in its default header: the key checks (AUTH-*) run too.
import { checkReference } from './reference.ts';

const apiKey = 'mutation-run-key';
await checkReference(() => ({ apiKey }), { apiKey, authRequired: true });
