import { fail, requirement } from '../harness/index.ts';

requirement('VERSION-V1-PREFIX', async ({ api, config }) => {
  const res = await api.get('/pets');
  const path = new URL(config.baseUrl).pathname.replace(/\/+$/, '');
  if (!path.endsWith('/v1')) {
    fail(res, 'a base URL whose path ends in /v1', `the base URL ${config.baseUrl} (path ${path || '/'})`);
  }
  if (res.status === 404 || res.status >= 500)
    fail(res, `GET ${config.baseUrl}/pets answered by the service (not 404, not 5xx)`);
});
