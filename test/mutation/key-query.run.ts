// The reference requiring a key in a query parameter (--api-key-query): the other way a key travels.
import { checkReference } from './reference.ts';

const apiKey = 'mutation-run-key';
const apiKeyQuery = 'api_key';
await checkReference(() => ({ apiKey, apiKeyQuery }), { apiKey, apiKeyQuery, authRequired: true });
